#pragma once
/// The reference kernel library: one plain kernel per ONNX op, prepared per node under the
/// kernel ABI of ge/plugin_api/kernel.h. Both the cpu backend and the npu_sim backend link it; the
/// backend name only appears in messages and kernel names.

#include <string>
#include <string_view>
#include <vector>

#include "ge/graph.h"
#include "ge/plugin_api/kernel.h"
#include "ge/status.h"

namespace ge::reference_kernels {

/// Non-zero codes a kernel returns at launch when the data forbid the result. Every
/// code has a message (kernel_error_message); a kernel may add the offending value with
/// kernel_error().
enum KernelError : int {
  kKernelOk = 0,
  kKernelIntegerDivisionByZero = 1,
  kKernelMissingAddress = 2,               ///< a required input/output address was null
  kKernelLibraryFailure = 3,               ///< a fast path's library (oneDNN) failed to execute
  kKernelCastUnparsableString = 100,       ///< a string element is not a number of Cast's target type
  kKernelIndexOutOfRange = 200,            ///< an index input holds a value outside what it indexes
  kKernelRuntimeShapeMismatch = 201,       ///< a run-time input contradicts the prepared output shape
  kKernelInvalidRuntimeArgument = 202,     ///< a run-time input is invalid (a zero step, a repeated axis)
  kKernelSequenceLengthOutOfRange = 301,   ///< an RNN sequence_lens entry is not in [0, seq_length]
  kKernelClassIndexOutOfRange = 302,       ///< a loss target is not in [0, C) and not ignore_index
  kKernelRuntimeSizeMismatch = 303,        ///< a size read from an input disagrees with the output shape
  kKernelInvalidRuntimeValue = 304,        ///< a scalar input has a value the op forbids
};

/// Text for a code returned by a kernel ("integer division by zero").
const char* kernel_error_message(int code);

/// Records what made the kernel running on this thread fail (the offending index, axis,
/// extent) and returns `code`: `return kernel_error(kKernelIndexOutOfRange, "...")`.
int kernel_error(int code, std::string detail);
/// The detail the last failing kernel on this thread recorded ("" if none), cleared:
/// the stream that ran it adds it to the error.
std::string take_kernel_error_detail();
/// "failed with code 200: an index ...: index 7 is outside [-3, 3)" for a returned code,
/// with the detail the kernel recorded on this thread.
std::string describe_kernel_failure(int code);

/// Whether a reference kernel exists for `node`'s op (ONNX domain) and input dtype, and,
/// when its descs are static, whether prepare() would accept its attributes (it runs
/// prepare and reports its kUnsupported errors). On false, `reason` (when not null)
/// names the node, op, dtype or feature, and `backend_name`.
bool supports(const Node& node, std::string_view backend_name, std::string* reason);

/// Prepares the kernel of `node`, whose input/output descs must be static. Errors:
/// kUnsupported naming op, dtype and backend for an op/dtype without a kernel;
/// kInvalidArgument naming the node and the offending attribute or shape.
/// Thread-safe; never throws except std::bad_alloc.
Result<PreparedKernel> prepare(const Node& node, std::string_view backend_name);

/// Whether any input or output of `node` is stored in a non-plain format.
bool has_non_plain_format(const Node& node);

/// Whether `node`'s reference kernel is elementwise over its operands, so that it runs
/// unchanged on tensors of any storage format (see ge::FormatCapability): the op is
/// elementwise and every input either has the output's shape or one element. The
/// quantising ops with one scale and zero point (QuantizeLinear, DequantizeLinear,
/// ge::QLinearAdd) count: their full-shape operands may differ in element type.
bool is_format_agnostic(const Node& node);

/// The channel block of a channel-blocked format name for a tensor of `rank`
/// ("nChw16c" at rank 4 -> 16, "nCw8c" at rank 3 -> 8); 0 for plain or unknown names.
int64_t channel_block_of_format(const std::string& format, size_t rank);

/// Whether `format` is the channels-last format of a tensor of `rank`: "nhwc" at rank 4
/// (logical [N, C, H, W] stored as [N][H][W][C]; what oneDNN's int8 convolutions read and
/// write).
bool is_channels_last_format(const std::string& format, size_t rank);

/// The op types (ONNX domain) that have a kernel, sorted.
std::vector<std::string> supported_op_types();

}  // namespace ge::reference_kernels
