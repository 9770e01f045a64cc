#pragma once
/// The arithmetic precision a session runs a float32 model's heavy ops in (`ge-run
/// --precision`, SessionOptions::precision, recorded in a .gem). Set on the backend before
/// its kernels are prepared (Backend::set_precision).

#include <optional>
#include <string>
#include <string_view>

namespace ge {

enum class Precision {
  /// Every op computes in the model's own types.
  kFp32,
  /// Conv, ConvTranspose, MatMul and Gemm of float32 tensors compute in bfloat16 (inputs
  /// rounded to bfloat16, float32 accumulation and output); everything else float32.
  kBf16,
  /// As kBf16, but the numerically sensitive heavy ops stay float32: products of two
  /// activations (attention scores and their weighting), the heavy ops that write a
  /// graph output and those that read a graph input (the model's first layers).
  kMixed,
};

/// "fp32", "bf16", "mixed".
inline std::string_view precision_name(Precision precision) {
  switch (precision) {
    case Precision::kFp32:
      return "fp32";
    case Precision::kBf16:
      return "bf16";
    case Precision::kMixed:
      return "mixed";
  }
  return "fp32";
}

/// The precision named `name` ("fp32", "bf16", "mixed"), or nullopt.
inline std::optional<Precision> parse_precision(std::string_view name) {
  if (name == "fp32") return Precision::kFp32;
  if (name == "bf16") return Precision::kBf16;
  if (name == "mixed") return Precision::kMixed;
  return std::nullopt;
}

}  // namespace ge
