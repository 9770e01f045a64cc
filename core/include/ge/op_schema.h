#pragma once
/// What the core knows about one op version: its arity, how autofusion may group it, and
/// the storage it may share (in place, view, concatenation). Op libraries
/// (ge/plugin_api/op_library.h) provide it.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ge {

/// How autofusion may group an op.
enum class FusionKind { kOpaque, kElementwise, kBroadcast, kInjective, kReduction };

/// An output that may be written over the bytes of one of the op's inputs: every output
/// element depends only on the input element at the same position (other inputs may
/// broadcast), so the kernel may run with both at one address.
struct InPlacePair {
  static constexpr int kEveryInput = -1;  ///< any input (variadic ops such as Sum)
  int input = kEveryInput;                ///< an input index, or kEveryInput
  int output = 0;
};

/// What the registry knows about one op version.
struct OpSchemaInfo {
  std::string domain;
  std::string op_type;
  int64_t since_version = 1;
  int min_inputs = 0, max_inputs = 0;    ///< max_inputs is INT32_MAX for variadic
  int min_outputs = 0, max_outputs = 0;
  FusionKind fusion_kind = FusionKind::kOpaque;
  bool deprecated = false;
  /// Where the memory planner may run the op in place (over an input that dies at it and
  /// holds as many bytes as the output). The planner places output 0 only, of nodes whose
  /// other outputs are unused.
  std::vector<InPlacePair> in_place{};
  /// Output 0 is input 0's bytes unchanged (a reshape): the planner may place it at the
  /// input's address, and the runtime then runs no kernel for it.
  bool is_view = false;
  /// When not empty, output 0 is the inputs joined in order along the axis this integer
  /// attribute of the node holds (negative counts from the back, 0 when the node lacks
  /// it): ONNX Concat's "axis". The planner may then have the inputs' producers write
  /// straight into their slices of the output, and the runtime copies only the others.
  std::string concatenates_along{};
  /// The op takes no input and its outputs are fixed by its attributes (ONNX Constant):
  /// the planner places them with the weights, as it places initializers.
  bool is_constant = false;

  /// Whether `in_place` lets output `output_index` take input `input_index`'s bytes.
  bool may_run_in_place(size_t input_index, size_t output_index) const;
};

}  // namespace ge
