#pragma once
// Test helpers of the tensor kernel family. KernelTest::run fills outputs with 0xFF
// bytes, which would corrupt std::string objects; run_with_constants launches a node
// whose inputs are all initializers (KernelTest::initializer) and leaves string outputs
// default-constructed.

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {

inline Result<std::vector<Tensor>> run_with_constants(KernelTest& test) {
  Node& node = test.node();
  GE_ASSIGN_OR_RETURN(PreparedKernel kernel, test.prepare());
  std::vector<const void*> inputs;
  for (const Value* value : node.inputs()) {
    if (value != nullptr && value->constant() == nullptr) {
      return invalid_argument("run_with_constants: input '" + value->name() + "' is not an initializer");
    }
    inputs.push_back(value != nullptr ? value->constant()->raw_data() : nullptr);
  }
  std::vector<Tensor> outputs;
  std::vector<void*> output_addresses;
  for (size_t k = 0; k < node.output_count(); ++k) {
    const Value* value = node.output(k);
    Tensor tensor = Tensor::zeros(value->desc().dtype, value->desc().static_dims());
    // Poisoned, except what the kernel declares zeroed (the runtime's atomic clean).
    if (tensor.dtype() != DataType::kString && !kernel.zeroed.output(k)) {
      std::memset(tensor.raw_data(), 0xFF, tensor.byte_size());
    }
    output_addresses.push_back(tensor.raw_data());
    outputs.push_back(tensor);
  }
  std::vector<unsigned char> workspace(kernel.workspace_bytes, kernel.zeroed.workspace ? 0 : 0xFF);
  KernelArgs args;
  args.inputs = inputs.data();
  args.outputs = output_addresses.data();
  args.workspace = workspace.empty() ? nullptr : workspace.data();
  args.params = kernel.params.get();
  const int code = kernel.function(args);
  if (code != 0) return invalid_argument("kernel '" + kernel.name + "' returned code " + std::to_string(code));
  return outputs;
}

/// Expects a string tensor of shape `dims` holding `expected`.
inline void expect_strings(const Tensor& actual, const std::vector<int64_t>& dims,
                           const std::vector<std::string>& expected) {
  ASSERT_EQ(actual.dtype(), DataType::kString);
  ASSERT_EQ(actual.shape(), dims);
  ASSERT_EQ(static_cast<size_t>(actual.element_count()), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(actual.data<std::string>()[i], expected[i]) << "element " << i;
}

/// Runs `test` and returns the kernel's launch code (0 on success); prepare must succeed.
inline int launch_code(KernelTest& test) {
  int code = 0;
  (void)test.run(&code);
  return code;
}

}  // namespace ge::reference_kernels::testing

/// `GE_RUN_CONSTANT_KERNEL(outputs, test);` as GE_RUN_KERNEL, through run_with_constants.
#define GE_RUN_CONSTANT_KERNEL_IMPL(tmp, outputs, test)            \
  auto tmp = ::ge::reference_kernels::testing::run_with_constants(test); \
  ASSERT_TRUE(tmp.is_ok()) << tmp.status().to_string();            \
  std::vector<::ge::Tensor> outputs = std::move(tmp).value()
#define GE_RUN_CONSTANT_KERNEL(outputs, test) \
  GE_RUN_CONSTANT_KERNEL_IMPL(GE_CONCAT(ge_run_constant_kernel_tmp_, __LINE__), outputs, test)
