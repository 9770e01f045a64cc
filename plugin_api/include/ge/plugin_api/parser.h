#pragma once
/// Frontend parsers turn a model file into a Graph.

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "ge/graph.h"
#include "ge/input_shapes.h"
#include "ge/status.h"

namespace ge {

class Parser {
 public:
  virtual ~Parser() = default;
  virtual std::string name() const = 0;
  /// File extensions this parser claims, with the dot: {".onnx"}.
  virtual std::vector<std::string> extensions() const = 0;
  /// Parses a model file. Errors name the file and what is wrong with it.
  virtual Result<std::unique_ptr<Graph>> parse_file(const std::filesystem::path& path) const = 0;
  /// Parses a model held in memory; `base_dir` resolves external data (empty: refuse it).
  virtual Result<std::unique_ptr<Graph>> parse_bytes(const std::string& bytes,
                                                     const std::filesystem::path& base_dir) const = 0;
  /// Parses a model file with what the caller says of it (ParseOptions: input shapes).
  /// The default parses the file and applies the input shapes to the graph's inputs; a
  /// format that needs them to import the model (it stores none) overrides this.
  virtual Result<std::unique_ptr<Graph>> parse_file_with(const std::filesystem::path& path,
                                                         const ParseOptions& options) const {
    GE_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, parse_file(path));
    GE_RETURN_IF_ERROR(apply_input_shapes(*graph, options.input_shapes));
    return graph;
  }
  /// parse_bytes with ParseOptions, as parse_file_with.
  virtual Result<std::unique_ptr<Graph>> parse_bytes_with(const std::string& bytes,
                                                          const std::filesystem::path& base_dir,
                                                          const ParseOptions& options) const {
    GE_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, parse_bytes(bytes, base_dir));
    GE_RETURN_IF_ERROR(apply_input_shapes(*graph, options.input_shapes));
    return graph;
  }
};

}  // namespace ge
