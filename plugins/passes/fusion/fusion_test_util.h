#pragma once
// Helpers for the golden fusion tests: run passes on IR, and compare with an expected IR
// that is written without types (inferred() adds them).
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "ge/minifloat.h"
#include "plugin_test_env.h"

namespace ge::fusion::testing {

inline std::string run(const std::string& ir, const std::vector<std::string>& passes, PassManagerOptions options = {}) {
  auto result = pass_testing::run_passes(ir, passes, std::move(options));
  return result.is_ok() ? *result : result.status().to_string();
}

using pass_testing::inferred;

/// Runs at -O`opt_level` with the numeric check of every pass that changes the graph on
/// the cpu backend (PassManagerOptions::check_passes); inputs not in `inputs` are
/// generated in [-1, 1].
inline PassManagerOptions checked_at(int opt_level, std::vector<std::pair<std::string, Tensor>> inputs = {}) {
  PassManagerOptions options;
  options.opt_level = opt_level;
  options.check_passes = true;
  options.check_inputs = std::move(inputs);
  return options;
}

/// `ir` with every float32 tensor type written as `dtype` ("float16", "bfloat16"): the
/// same graph in half precision (its constants rounded to it as the parser reads them).
inline std::string as_dtype(std::string ir, const std::string& dtype) {
  const std::string from = "float32[";
  for (size_t at = ir.find(from); at != std::string::npos; at = ir.find(from, at + dtype.size())) {
    ir.replace(at, from.size() - 1, dtype);
  }
  return ir;
}

/// checked_at(opt_level) within the rounding of `dtype`: the chain a fusion replaces
/// rounds to float16/bfloat16 after every op, the fused op after fewer, so they differ by
/// a few roundings: 4 half-units in the last place of float16 (2^-11 each, 11 significant
/// bits: 2e-3) or of bfloat16 (2^-9 each, 8 bits: 8e-3), relative and absolute.
/// The check's inputs, which it does not generate in half precision: each named input
/// of its dims filled with values spread over [-1, 1] (rounded to `dtype`).
inline PassManagerOptions checked_in(const std::string& dtype, int opt_level,
                                     const std::vector<std::pair<std::string, std::vector<int64_t>>>& inputs) {
  std::vector<std::pair<std::string, Tensor>> tensors;
  for (const auto& [name, dims] : inputs) {
    const DataType type = dtype == "bfloat16" ? DataType::kBFloat16 : DataType::kFloat16;
    Tensor tensor = Tensor::zeros(type, dims);
    for (int64_t i = 0; i < tensor.element_count(); ++i) {
      const double value = std::sin(0.7 * static_cast<double>(i) + static_cast<double>(name.size()));
      tensor.data<uint16_t>()[i] =
          type == DataType::kBFloat16 ? bfloat16_from_double(value) : float16_from_double(value);
    }
    tensors.emplace_back(name, std::move(tensor));
  }
  PassManagerOptions options = checked_at(opt_level, std::move(tensors));
  const double tolerance = dtype == "bfloat16" ? 8e-3 : dtype == "float16" ? 2e-3 : options.check_rtol;
  options.check_rtol = tolerance;
  options.check_atol = std::max(options.check_atol, tolerance);
  return options;
}

/// The half-precision dtypes the fusions are tested in.
inline const std::vector<std::string> kHalfDtypes = {"float16", "bfloat16"};
/// Names the instances of a test parameterised by dtype "float16", ...
inline std::string dtype_name(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

/// `ir`, a graph importing ai.onnx 17, importing ai.onnx `opset` instead.
inline std::string at_opset(std::string ir, int opset) {
  const std::string header = "(opset \"\"=17";
  if (size_t at = ir.find(header); at != std::string::npos) {
    ir.replace(at, header.size(), "(opset \"\"=" + std::to_string(opset));
  }
  return ir;
}

/// The ai.onnx opsets every fusion is tested at: most transformer and detector exports
/// are opset 11 to 14, and 17 has LayerNormalization.
inline const std::vector<int> kOpsets = {11, 13, 17};
/// Names the instances of a test parameterised by opset "opset11", ...
inline std::string opset_name(const ::testing::TestParamInfo<int>& info) {
  return "opset" + std::to_string(info.param);
}

}  // namespace ge::fusion::testing
