#pragma once
/// The TorchScript frontend: a ge::Parser for archives that torch.jit.save writes
/// (torch.jit.trace or torch.jit.script, then .save; extension ".pt").

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "ge/plugin_api/parser.h"

namespace ge::torchscript {

/// The archive member (torch.jit.save's `_extra_files`) that holds the input shapes, in
/// --input-shape's grammar ("x:float32[1,3,224,224]"); ge.torch.save writes it.
inline constexpr const char* kInputShapesFile = "ge_input_shapes";

/// Loads the archive with libtorch, freezes and inlines its forward method, runs it once
/// on example inputs of the input shapes (ParseOptions, else the archive's
/// kInputShapesFile) and maps the ATen graph to GE's IR (importer.h). Never throws.
class TorchScriptParser final : public Parser {
 public:
  std::string name() const override { return "torchscript"; }
  std::vector<std::string> extensions() const override { return {".pt", ".torchscript"}; }
  Result<std::unique_ptr<Graph>> parse_file(const std::filesystem::path& path) const override;
  Result<std::unique_ptr<Graph>> parse_bytes(const std::string& bytes,
                                             const std::filesystem::path& base_dir) const override;
  Result<std::unique_ptr<Graph>> parse_file_with(const std::filesystem::path& path,
                                                 const ParseOptions& options) const override;
  Result<std::unique_ptr<Graph>> parse_bytes_with(const std::string& bytes, const std::filesystem::path& base_dir,
                                                  const ParseOptions& options) const override;
};

}  // namespace ge::torchscript
