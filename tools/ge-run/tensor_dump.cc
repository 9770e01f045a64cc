#include "tensor_dump.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iostream>
#include <sstream>
#include <system_error>

#include "ge/atomic_file.h"
#include "ge/graph_queries.h"
#include "ge/onnx_common/tensor_proto.h"

namespace ge::tools {
namespace {

namespace fs = std::filesystem;

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

/// A name for one TSV field.
std::string tsv_field(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\\') {
      out += "\\\\";
    } else {
      out += c;
    }
  }
  return out;
}

std::string op_of(const Node& node) {
  return is_onnx_domain(node) ? node.op_type() : node.domain() + "::" + node.op_type();
}

Status prepare_dir(const fs::path& dir) {
  std::error_code error;
  if (fs::exists(dir, error) && !fs::is_directory(dir, error))
    return invalid_argument("--dump-tensors '" + dir.string() + "' exists and is not a directory");
  fs::create_directories(dir, error);
  if (error) return invalid_argument("--dump-tensors: cannot create '" + dir.string() + "': " + error.message());
  if (access(dir.c_str(), W_OK) != 0) return invalid_argument("--dump-tensors '" + dir.string() + "' is not writable");
  return Status::ok();
}

}  // namespace

std::string dump_file_name(const std::string& value_name, std::set<std::string>& taken) {
  std::string base;
  for (char c : value_name) {
    const bool plain = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    base += plain ? c : '_';
  }
  if (base.empty()) base = "_";
  if (base[0] == '.') base[0] = '_';  // no hidden files, no "." or ".."
  std::string name = base;
  for (int suffix = 2; !taken.insert(lower(name)).second; ++suffix) name = base + "_" + std::to_string(suffix);
  return name + ".pb";
}

Result<std::unique_ptr<Graph>> make_dump_graph(const Graph& compiled, std::vector<DumpedValue>& dumped) {
  std::unique_ptr<Graph> graph = compiled.clone();
  GE_ASSIGN_OR_RETURN(std::vector<Node*> order, graph->topological_order());
  std::vector<Value*> outputs;
  std::set<std::string> files;
  for (Node* node : order) {
    for (Value* value : node->outputs()) {
      const TensorDesc& desc = value->desc();
      if (value->name().empty() || desc.kind != ValueKind::kTensor) continue;
      DumpedValue entry{value->name(), dump_file_name(value->name(), files), node->name(), op_of(*node), desc.format};
      Value* output = value;
      if (!desc.is_plain()) {
        // The blocked bytes would not mean the logical shape to another engine.
        const std::string name = graph->unique_name(value->name() + "/dump_plain");
        Node* reorder = graph->add_node("TransData", {value}, 1, name, {name}, "ge");
        TensorDesc plain = desc;
        plain.format.clear();
        reorder->output(0)->set_desc(std::move(plain));
        output = reorder->output(0);
      }
      outputs.push_back(output);
      dumped.push_back(std::move(entry));
    }
  }
  if (graph->opset_imports().count("ge") == 0) graph->set_opset_import("ge", 1);
  graph->set_outputs(std::move(outputs));
  return graph;
}

Status dump_tensors(const PluginHost& host, const Session& session, const SessionOptions& options,
                    const NamedValues& inputs, const fs::path& dir) {
  GE_RETURN_IF_ERROR(prepare_dir(dir));
  std::vector<DumpedValue> dumped;
  Result<std::unique_ptr<Graph>> graph = make_dump_graph(session.graph(), dumped);
  if (!graph.is_ok()) return graph.status().with_context("--dump-tensors");
  SessionOptions dump_options = options;
  dump_options.backend = session.backend_name();
  // The precision the model runs in (a .gem's own). Under mixed every value is a graph
  // output here, so its heavy ops dump their float32 results.
  dump_options.precision = session.precision();
  // Compiled already: no passes (they would fuse the values away again, or dump again).
  dump_options.passes = PassManagerOptions{};
  dump_options.passes.explicit_passes.emplace();
  Result<std::unique_ptr<Session>> dump_session = Session::create(host, std::move(graph).value(), dump_options);
  if (!dump_session.is_ok()) {
    return dump_session.status().with_context("--dump-tensors: loading the compiled graph with every value an output");
  }
  std::vector<RuntimeValue> values;  // tensors: make_dump_graph keeps tensor values only
  if (Status status = (*dump_session)->run_values(inputs, values); !status.is_ok())
    return status.with_context("--dump-tensors: the run with every value an output");
  if (values.size() != dumped.size()) {
    return internal_error("--dump-tensors: the run returned " + std::to_string(values.size()) + " values, expected " +
                          std::to_string(dumped.size()));
  }

  const fs::path index_path = dir / "index.tsv";
  std::ostringstream index;
  index << "value\tfile\tdtype\tshape\tformat\tnode\top\n";
  for (size_t i = 0; i < values.size(); ++i) {
    const DumpedValue& entry = dumped[i];
    const Tensor& tensor = values[i].tensor;
    Status status = onnx_common::write_tensor_file(tensor, dir / entry.file, entry.name);
    if (!status.is_ok()) return status.with_context("--dump-tensors: value '" + entry.name + "'");
    index << tsv_field(entry.name) << '\t' << entry.file << '\t' << data_type_name(tensor.dtype()) << '\t'
          << shape_to_string(tensor.shape()) << '\t' << tsv_field(entry.format) << '\t' << tsv_field(entry.node)
          << '\t' << tsv_field(entry.op) << '\n';
  }
  if (Status status = write_file_atomically(index_path, index.str()); !status.is_ok())
    return status.with_context("--dump-tensors");
  std::cout << "dumped " << values.size() << " intermediate value(s) of the compiled graph to " << dir.string()
            << " (index " << index_path.string() << ")\n";
  return Status::ok();
}

}  // namespace ge::tools
