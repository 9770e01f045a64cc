#pragma once
/// The toy accelerator's kernels: naive float32 reference loops for the ops a small CNN
/// needs (Conv, BatchNormalization, Relu, MaxPool, Flatten, Reshape, Gemm, Softmax), in
/// the ONNX default domain and plain layout only.
///
/// Every prepared kernel has the function toy_kernel_entry and a ToyKernelParams block: the
/// entry translates the launch's device addresses into the pool (see ToyDevice) and runs the
/// op's loop on them.

#include <string>

#include <ge/plugin_api/backend.h>

namespace toy {

class ToyDevice;

/// Whether a toy kernel runs `node`; on false, `reason` says why (op, dtype, attribute).
bool toy_supports(const ge::Node& node, std::string* reason);
/// The kernel for `node`, whose descs are static and which toy_supports() accepts.
ge::Result<ge::PreparedKernel> prepare_toy_kernel(const ge::Node& node, const ToyDevice& device);

/// The function of every toy kernel. Returns 0, or a code describe_toy_kernel_failure() explains.
int toy_kernel_entry(const ge::KernelArgs& args);
std::string describe_toy_kernel_failure(int code);

}  // namespace toy
