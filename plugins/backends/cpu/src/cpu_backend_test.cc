// Tests of CpuBackend: it answers for the reference kernels under the name "cpu" and runs
// a prepared kernel through its own device and stream.

#include "cpu_backend.h"

#include <cpuid.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "ge/tensor.h"

namespace ge {
namespace {

// Relu over a [4] float32 graph input, with the output desc shape inference would set.
struct ReluGraph {
  Graph graph;
  Node* node = nullptr;
  explicit ReluGraph(DataType dtype = DataType::kFloat32) {
    graph.set_opset_import("", 17);
    Value* x = graph.add_input("x", TensorDesc::of(dtype, {4}));
    node = graph.add_node("Relu", {x}, 1, "relu", {"y"});
    node->output(0)->set_desc(TensorDesc::of(dtype, {4}));
    graph.add_output(node->output(0));
  }
};

TEST(CpuBackend, IsNamedCpu) {
  CpuBackend backend;
  EXPECT_EQ(backend.name(), "cpu");
  EXPECT_EQ(backend.device().name(), "cpu");
}

TEST(CpuBackend, SupportsAndRejectsWithAReason) {
  CpuBackend backend;
  ReluGraph ok;
  std::string reason;
  EXPECT_TRUE(backend.supports(*ok.node, &reason));
  ReluGraph strings(DataType::kString);
  EXPECT_FALSE(backend.supports(*strings.node, &reason));
  EXPECT_NE(reason.find("backend 'cpu'"), std::string::npos) << reason;
  EXPECT_NE(reason.find("Relu 'relu'"), std::string::npos) << reason;
  EXPECT_NE(reason.find("string"), std::string::npos) << reason;
  Result<PreparedKernel> kernel = backend.prepare(*strings.node);
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kUnsupported);
}

TEST(CpuBackend, PreparedKernelRunsOnItsDevice) {
  CpuBackend backend;
  ReluGraph relu;
  Result<PreparedKernel> kernel = backend.prepare(*relu.node);
  ASSERT_TRUE(kernel.is_ok()) << kernel.status().to_string();
  EXPECT_EQ(kernel->name, "cpu.Relu");

  Device& device = backend.device();
  const std::vector<float> host_x{-1, 2, -3, 4};
  Result<void*> x = device.allocate(sizeof(float) * 4);
  Result<void*> y = device.allocate(sizeof(float) * 4);
  ASSERT_TRUE(x.is_ok() && y.is_ok());
  ASSERT_TRUE(device.copy_to_device(*x, host_x.data(), sizeof(float) * 4).is_ok());
  const void* inputs[] = {*x};
  void* outputs[] = {*y};
  KernelTask task;
  task.function = kernel->function;
  task.args.inputs = inputs;
  task.args.outputs = outputs;
  task.args.params = kernel->params.get();
  task.name = kernel->name.c_str();
  Result<std::unique_ptr<Stream>> stream = device.create_stream();
  ASSERT_TRUE(stream.is_ok());
  std::vector<Task> tasks{task};
  ASSERT_TRUE((*stream)->submit(tasks).is_ok());
  ASSERT_TRUE((*stream)->synchronize().is_ok());
  std::vector<float> host_y(4);
  ASSERT_TRUE(device.copy_to_host(host_y.data(), *y, sizeof(float) * 4).is_ok());
  EXPECT_EQ(host_y, (std::vector<float>{0, 2, 0, 4}));
  device.deallocate(*x);
  device.deallocate(*y);
}

}  // namespace
}  // namespace ge

namespace ge {
namespace {

// Conv 16 -> 16 channels, 3x3, constant weights: the oneDNN fast path's case.
struct ConvGraph {
  Graph graph;
  Node* node = nullptr;
  explicit ConvGraph(const std::string& format = "") {
    graph.set_opset_import("", 17);
    Value* x = graph.add_input("x", TensorDesc::of(DataType::kFloat32, {1, 16, 6, 6}));
    x->mutable_desc().format = format;
    Value* w = graph.add_initializer("w", Tensor::zeros(DataType::kFloat32, {16, 16, 3, 3}));
    node = graph.add_node("Conv", {x, w}, 1, "conv", {"y"});
    node->set_attribute("pads", Attribute(std::vector<int64_t>{1, 1, 1, 1}));
    TensorDesc y = TensorDesc::of(DataType::kFloat32, {1, 16, 6, 6});
    y.format = format;
    node->output(0)->set_desc(y);
    graph.add_output(node->output(0));
  }
};

TEST(CpuBackendFastPaths, PrepareTakesTheFastPathUnlessTurnedOff) {
  CpuBackend backend;
  ConvGraph conv;
  Result<PreparedKernel> fast = backend.prepare(*conv.node);
  ASSERT_TRUE(fast.is_ok()) << fast.status().to_string();
  EXPECT_NE(fast->name.find("cpu.Conv.dnnl:"), std::string::npos) << fast->name;
  backend.set_fast_paths(false);
  Result<PreparedKernel> reference = backend.prepare(*conv.node);
  ASSERT_TRUE(reference.is_ok());
  EXPECT_EQ(reference->name.find("dnnl"), std::string::npos) << reference->name;
}

TEST(CpuBackendFastPaths, BlockedFormatsNeedTheFastPath) {
  CpuBackend backend;
  ConvGraph blocked("nChw8c");
  std::string reason;
  EXPECT_TRUE(backend.supports(*blocked.node, &reason)) << reason;
  Result<PreparedKernel> kernel = backend.prepare(*blocked.node);
  ASSERT_TRUE(kernel.is_ok()) << kernel.status().to_string();
  backend.set_fast_paths(false);
  EXPECT_FALSE(backend.supports(*blocked.node, &reason));
  EXPECT_NE(reason.find("runs plain (row-major) tensors only"), std::string::npos) << reason;
  ConvGraph unknown("nChw5c");  // no such block: neither path takes it
  backend.set_fast_paths(true);
  EXPECT_FALSE(backend.supports(*unknown.node, &reason));
}

TEST(CpuBackendFastPaths, IntraOpThreads) {
  CpuBackend backend;
  EXPECT_GE(backend.intra_op_threads(), 1);
  ASSERT_TRUE(backend.set_intra_op_threads(3).is_ok());
  EXPECT_EQ(backend.intra_op_threads(), 3);
  ASSERT_TRUE(backend.set_intra_op_threads(0).is_ok());  // back to the machine's cores
  EXPECT_GE(backend.intra_op_threads(), 1);
  EXPECT_FALSE(backend.set_intra_op_threads(-1).is_ok());
  // The capability states the native block for 16 channels and plain for 3.
  ConvGraph conv;
  FormatCapability capability = backend.format_capability(*conv.node);
  ASSERT_FALSE(capability.inputs.empty());
  ASSERT_EQ(capability.inputs[0].size(), 1u);
  EXPECT_TRUE(capability.inputs[0][0] == "nChw8c" || capability.inputs[0][0] == "nChw16c");
  EXPECT_FALSE(capability.format_agnostic);
}

// AVX512_BF16 by cpuid (leaf 7, subleaf 1, EAX bit 5), apart from oneDNN's answer.
bool cpuid_has_avx512_bf16() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (eax & (1u << 5)) != 0;
}

TEST(CpuBackendPrecision, Bf16AndMixedOnlyWhereTheCpuHasBfloat16Arithmetic) {
  CpuBackend backend;
  EXPECT_EQ(backend.precision(), Precision::kFp32);
  // ONEDNN_MAX_CPU_ISA may cap what oneDNN dispatches to below what cpuid says.
  if (std::getenv("ONEDNN_MAX_CPU_ISA") == nullptr && std::getenv("DNNL_MAX_CPU_ISA") == nullptr) {
    EXPECT_EQ(CpuBackend::has_bfloat16_arithmetic(), cpuid_has_avx512_bf16());
  }
  for (Precision precision : {Precision::kBf16, Precision::kMixed}) {
    const Status status = backend.set_precision(precision);
    if (CpuBackend::has_bfloat16_arithmetic()) {
      ASSERT_TRUE(status.is_ok()) << status.to_string();
      EXPECT_EQ(backend.precision(), precision);
    } else {
      EXPECT_EQ(status.code(), StatusCode::kUnsupported);
      EXPECT_NE(status.message().find("backend cpu: this CPU has no bfloat16 arithmetic"), std::string::npos)
          << status.message();
      EXPECT_EQ(backend.precision(), Precision::kFp32);  // unchanged
    }
  }
  ASSERT_TRUE(backend.set_precision(Precision::kFp32).is_ok());
  EXPECT_EQ(backend.precision(), Precision::kFp32);
}

}  // namespace
}  // namespace ge
