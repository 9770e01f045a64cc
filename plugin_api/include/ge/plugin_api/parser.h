#pragma once
/// Frontend parsers turn a model file into a Graph.

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "ge/graph.h"
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
};

}  // namespace ge
