#pragma once
// Test helper for the reference kernels: builds one node by hand in its own ge::Graph,
// sets the output descs (shape inference lives in another plugin), prepares the kernel
// through the library, allocates the outputs and workspace, launches, and compares.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ge/attribute.h"
#include "ge/graph.h"
#include "ge/reference_kernels/kernel_library.h"
#include "ge/tensor.h"

namespace ge::reference_kernels::testing {

class KernelTest {
 public:
  /// A node of `op_type` in a graph importing ai.onnx at `opset`.
  explicit KernelTest(std::string op_type, int64_t opset = 17);

  /// A runtime graph input holding `data` at launch.
  KernelTest& input(Tensor data);
  /// An initializer: prepare sees its data through Value::constant().
  KernelTest& initializer(Tensor data);
  /// An omitted optional input (a null input slot).
  KernelTest& no_input();
  KernelTest& attribute(const std::string& name, Attribute value);
  /// The next output, with the desc shape inference would have set.
  KernelTest& output(DataType dtype, std::vector<int64_t> dims);
  /// Launches with a null address for every input and output without elements, as the
  /// runtime does (an empty tensor has no storage).
  KernelTest& empty_tensors_without_address();

  /// Builds the graph on first use; later calls return the same node.
  Node& node();
  Result<PreparedKernel> prepare();
  /// Prepares, allocates outputs (filled with 0xFF bytes so unwritten elements show, or
  /// zeroed where the kernel declares ZeroedMemory, as the runtime does) and the
  /// workspace, and launches. A non-zero kernel return is an error whose message
  /// has the code; `code` (when not null) receives it.
  Result<std::vector<Tensor>> run(int* code = nullptr);

 private:
  struct InputSpec {
    std::optional<Tensor> data;  // nullopt: omitted
    bool initializer = false;
  };
  std::string op_type_;
  int64_t opset_;
  Graph graph_;
  Node* node_ = nullptr;
  std::vector<InputSpec> inputs_;
  std::vector<std::pair<std::string, Attribute>> attributes_;
  std::vector<TensorDesc> outputs_;
  bool empty_without_address_ = false;
};

/// Expects `test` to fail in prepare with `code` and a message containing `text`.
void expect_prepare_error(KernelTest& test, StatusCode code, const std::string& text);
/// The same for kInvalidArgument, the code of a node the kernel refuses.
void expect_invalid(KernelTest& test, const std::string& text);

/// float32 [dims] with `values` (a shorter spelling for tests).
Tensor f32(std::vector<int64_t> dims, std::vector<float> values);
Tensor f64(std::vector<int64_t> dims, std::vector<double> values);
Tensor i32(std::vector<int64_t> dims, std::vector<int32_t> values);
Tensor i64(std::vector<int64_t> dims, std::vector<int64_t> values);
/// float32 [dims] holding 0, 1, 2, ... (numpy's arange(n).reshape(dims)).
Tensor f32_iota(std::vector<int64_t> dims, float start = 0.0f, float step = 1.0f);

/// Expects `actual` to have dtype of T, shape `dims` and `expected` values: exact for
/// integers, within `tolerance` (absolute + relative) for floating point; NaN matches NaN.
template <typename T>
void expect_tensor(const Tensor& actual, const std::vector<int64_t>& dims, const std::vector<T>& expected,
                   double tolerance = 1e-5) {
  ASSERT_EQ(actual.dtype(), data_type_of<T>());
  ASSERT_EQ(actual.shape(), dims);
  ASSERT_EQ(static_cast<size_t>(actual.element_count()), expected.size());
  const T* values = actual.data<T>();
  for (size_t i = 0; i < expected.size(); ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(expected[i])) {
        EXPECT_TRUE(std::isnan(values[i])) << "element " << i;
        continue;
      }
      const double bound = tolerance * (1.0 + std::fabs(static_cast<double>(expected[i])));
      EXPECT_NEAR(static_cast<double>(values[i]), static_cast<double>(expected[i]), bound) << "element " << i;
    } else {
      EXPECT_EQ(values[i], expected[i]) << "element " << i;
    }
  }
}

}  // namespace ge::reference_kernels::testing

/// `GE_RUN_KERNEL(outputs, test);` runs `test`, asserts success and declares
/// `std::vector<Tensor> outputs` holding its output tensors.
#define GE_RUN_KERNEL_IMPL(tmp, outputs, test)          \
  auto tmp = (test).run();                              \
  ASSERT_TRUE(tmp.is_ok()) << tmp.status().to_string(); \
  std::vector<::ge::Tensor> outputs = std::move(tmp).value()
#define GE_RUN_KERNEL(outputs, test) GE_RUN_KERNEL_IMPL(GE_CONCAT(ge_run_kernel_tmp_, __LINE__), outputs, test)
