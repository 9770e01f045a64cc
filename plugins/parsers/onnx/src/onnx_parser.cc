#include "onnx_parser.h"

#include <climits>
#include <exception>
#include <fstream>
#include <system_error>

#include "graph_importer.h"

namespace ge::onnx_parser {
namespace {

namespace fs = std::filesystem;

// `source` names the model in messages: the file path, or "ONNX model bytes".
Result<onnx::ModelProto> parse_proto(const std::string& bytes, const std::string& source) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return unsupported(source + " is larger than 2 GiB, which protobuf cannot parse; save the "
                       "weights as ONNX external data");
  }
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) {
    return parse_error(source + " is not a valid ONNX model (protobuf parse failed)");
  }
  return model;
}

Result<std::unique_ptr<Graph>> import(const onnx::ModelProto& model, const fs::path& base_dir,
                                      const std::string& source) {
  auto graph = import_model(model, base_dir);
  if (!graph.is_ok()) return graph.status().with_context(source);
  return graph;
}

// Runs `body`, turning any exception into an internal error: none may leave the plugin.
template <typename Body>
Result<std::unique_ptr<Graph>> guarded(const std::string& source, Body&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return internal_error(source + ": out of memory while parsing the ONNX model");
  } catch (const std::exception& e) {
    return internal_error(source + ": unexpected error while parsing the ONNX model: " + e.what());
  } catch (...) {
    return internal_error(source + ": unexpected non-standard exception while parsing the ONNX model");
  }
}

}  // namespace

Result<std::unique_ptr<Graph>> OnnxParser::parse_file(const fs::path& path) const {
  const std::string source = "'" + path.string() + "'";
  return guarded(source, [&]() -> Result<std::unique_ptr<Graph>> {
    std::error_code error;
    const fs::file_status status = fs::status(path, error);
    if (!fs::exists(status)) {
      if (error && error != std::errc::no_such_file_or_directory) {
        return invalid_argument("cannot access model file " + source + ": " + error.message());
      }
      return not_found("model file " + source + " does not exist");
    }
    if (fs::is_directory(status)) {
      return invalid_argument("model file " + source + " is a directory, not an ONNX file");
    }
    std::ifstream stream(path, std::ios::binary | std::ios::ate);
    if (!stream) {
      return invalid_argument("cannot open model file " + source +
                              " for reading (check its permissions)");
    }
    const std::streamoff size = stream.tellg();
    if (size < 0) return invalid_argument("cannot determine the size of model file " + source);
    std::string bytes(static_cast<size_t>(size), '\0');
    stream.seekg(0);
    stream.read(bytes.data(), size);
    if (stream.gcount() != size) {
      return invalid_argument("error while reading model file " + source + ": read " +
                              std::to_string(stream.gcount()) + " of " + std::to_string(size) +
                              " bytes");
    }
    // External data lives beside the model file.
    const fs::path base_dir = fs::absolute(path, error).parent_path();
    GE_ASSIGN_OR_RETURN(onnx::ModelProto model, parse_proto(bytes, source));
    // The file's bytes go before the weights are decoded: inline weights are held twice
    // at most while parsing (protobuf, tensors), not three times.
    std::string().swap(bytes);
    return import(model, error ? path.parent_path() : base_dir, source);
  });
}

Result<std::unique_ptr<Graph>> OnnxParser::parse_bytes(const std::string& bytes,
                                                       const fs::path& base_dir) const {
  const std::string source = "ONNX model bytes";
  return guarded(source, [&]() -> Result<std::unique_ptr<Graph>> {
    GE_ASSIGN_OR_RETURN(onnx::ModelProto model, parse_proto(bytes, source));
    return import(model, base_dir, source);
  });
}

}  // namespace ge::onnx_parser
