#include "testing/kernel_test_util.h"

#include <cstdlib>
#include <cstring>
#include <memory>

namespace ge::reference_kernels::testing {

KernelTest::KernelTest(std::string op_type, int64_t opset) : op_type_(std::move(op_type)), opset_(opset) {
  graph_.set_opset_import("", opset_);
}

KernelTest& KernelTest::input(Tensor data) {
  inputs_.push_back({std::move(data), false});
  return *this;
}

KernelTest& KernelTest::initializer(Tensor data) {
  inputs_.push_back({std::move(data), true});
  return *this;
}

KernelTest& KernelTest::no_input() {
  inputs_.push_back({std::nullopt, false});
  return *this;
}

KernelTest& KernelTest::attribute(const std::string& name, Attribute value) {
  attributes_.emplace_back(name, std::move(value));
  return *this;
}

KernelTest& KernelTest::output(DataType dtype, std::vector<int64_t> dims) {
  outputs_.push_back(TensorDesc::of(dtype, dims));
  return *this;
}

Node& KernelTest::node() {
  if (node_ != nullptr) return *node_;
  std::vector<Value*> values;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const InputSpec& spec = inputs_[i];
    std::string name = "x";  // appended: `"x" + std::to_string(i)` trips GCC 12's -Wrestrict at -O3
    name += std::to_string(i);
    if (!spec.data) {
      values.push_back(nullptr);
    } else if (spec.initializer) {
      values.push_back(graph_.add_initializer(name, *spec.data));
    } else {
      values.push_back(graph_.add_input(name, TensorDesc::of(spec.data->dtype(), spec.data->shape())));
    }
  }
  std::vector<std::string> output_names;
  for (size_t i = 0; i < outputs_.size(); ++i) output_names.push_back(std::string("y").append(std::to_string(i)));
  node_ = graph_.add_node(op_type_, values, outputs_.size(), "node", output_names);
  for (const auto& [name, value] : attributes_) node_->set_attribute(name, value);
  for (size_t i = 0; i < outputs_.size(); ++i) {
    node_->output(i)->set_desc(outputs_[i]);
    graph_.add_output(node_->output(i));
  }
  return *node_;
}

KernelTest& KernelTest::empty_tensors_without_address() {
  empty_without_address_ = true;
  return *this;
}

Result<PreparedKernel> KernelTest::prepare() { return reference_kernels::prepare(node(), "cpu"); }

Result<std::vector<Tensor>> KernelTest::run(int* code) {
  GE_ASSIGN_OR_RETURN(PreparedKernel kernel, prepare());
  std::vector<const void*> input_addresses;
  auto address = [&](const Tensor& tensor) -> void* {
    if (empty_without_address_ && tensor.element_count() == 0) return nullptr;
    return const_cast<void*>(tensor.raw_data());
  };
  for (const InputSpec& spec : inputs_) input_addresses.push_back(spec.data ? address(*spec.data) : nullptr);
  std::vector<Tensor> outputs;
  std::vector<void*> output_addresses;
  for (size_t k = 0; k < outputs_.size(); ++k) {
    const TensorDesc& desc = outputs_[k];
    Tensor tensor = Tensor::zeros(desc.dtype, desc.static_dims());
    // Poison outputs so a kernel that skips an element is caught, except those the kernel
    // declares zeroed (the runtime's atomic clean); string tensors hold constructed
    // std::string objects, which must not be overwritten.
    if (desc.dtype != DataType::kString && !kernel.zeroed.output(k)) {
      std::memset(tensor.raw_data(), 0xFF, tensor.byte_size());
    }
    output_addresses.push_back(address(tensor));
    outputs.push_back(tensor);
  }
  std::unique_ptr<unsigned char[]> workspace;
  if (kernel.workspace_bytes > 0) {
    workspace = std::make_unique<unsigned char[]>(kernel.workspace_bytes);
    std::memset(workspace.get(), kernel.zeroed.workspace ? 0 : 0xFF, kernel.workspace_bytes);
  }
  KernelArgs args;
  args.inputs = input_addresses.data();
  args.outputs = output_addresses.data();
  args.workspace = workspace.get();
  args.params = kernel.params.get();
  const int result = kernel.function(args);
  if (code != nullptr) *code = result;
  if (result != 0) {
    return invalid_argument("kernel '" + kernel.name + "' returned code " + std::to_string(result) + ": " +
                            kernel_error_message(result));
  }
  return outputs;
}

Tensor f32(std::vector<int64_t> dims, std::vector<float> values) {
  return Tensor::from_vector<float>(std::move(dims), values);
}
Tensor f64(std::vector<int64_t> dims, std::vector<double> values) {
  return Tensor::from_vector<double>(std::move(dims), values);
}
Tensor i32(std::vector<int64_t> dims, std::vector<int32_t> values) {
  return Tensor::from_vector<int32_t>(std::move(dims), values);
}
Tensor i64(std::vector<int64_t> dims, std::vector<int64_t> values) {
  return Tensor::from_vector<int64_t>(std::move(dims), values);
}

Tensor f32_iota(std::vector<int64_t> dims, float start, float step) {
  std::vector<float> values(static_cast<size_t>(element_count(dims)));
  for (size_t i = 0; i < values.size(); ++i) values[i] = start + step * static_cast<float>(i);
  return f32(std::move(dims), std::move(values));
}

void expect_prepare_error(KernelTest& test, StatusCode code, const std::string& text) {
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), code) << kernel.status().to_string();
  EXPECT_NE(kernel.status().message().find(text), std::string::npos) << kernel.status().message();
}

void expect_invalid(KernelTest& test, const std::string& text) {
  expect_prepare_error(test, StatusCode::kInvalidArgument, text);
}

}  // namespace ge::reference_kernels::testing
