#pragma once
/// The ONNX frontend: a ge::Parser for ".onnx" model files.

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "ge/plugin_api/parser.h"

namespace ge::onnx_parser {

/// Parses ONNX models (any IR version, default-domain opsets up to libonnx's). Never
/// throws: every failure, including exceptions from protobuf or the allocator, comes back
/// as a Status naming the model. Stateless, so safe to call from several threads.
class OnnxParser final : public Parser {
 public:
  std::string name() const override { return "onnx"; }
  std::vector<std::string> extensions() const override { return {".onnx"}; }
  Result<std::unique_ptr<Graph>> parse_file(const std::filesystem::path& path) const override;
  Result<std::unique_ptr<Graph>> parse_bytes(const std::string& bytes,
                                             const std::filesystem::path& base_dir) const override;
};

}  // namespace ge::onnx_parser
