// Tests of the library's front door: which nodes it supports and the messages it gives.

#include <gtest/gtest.h>

#include <algorithm>

#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

TEST(KernelLibrary, EveryLaunchErrorCodeHasAMessageAndCarriesItsDetail) {
  for (int code : {kKernelIntegerDivisionByZero, kKernelMissingAddress, kKernelLibraryFailure,
                   kKernelCastUnparsableString, kKernelIndexOutOfRange, kKernelRuntimeShapeMismatch,
                   kKernelInvalidRuntimeArgument, kKernelSequenceLengthOutOfRange, kKernelClassIndexOutOfRange,
                   kKernelRuntimeSizeMismatch, kKernelInvalidRuntimeValue}) {
    EXPECT_STRNE(kernel_error_message(code), "unknown kernel error") << code;
  }
  EXPECT_STREQ(kernel_error_message(9999), "unknown kernel error");
  EXPECT_EQ(kernel_error(kKernelIndexOutOfRange, "index 7 is outside [-3, 3)"), kKernelIndexOutOfRange);
  EXPECT_EQ(describe_kernel_failure(kKernelIndexOutOfRange),
            "failed with code 200: an index input holds a value outside the axis or tensor it indexes: index 7 is "
            "outside [-3, 3)");
  EXPECT_EQ(take_kernel_error_detail(), "") << "describing a failure consumes its detail";
  EXPECT_EQ(describe_kernel_failure(kKernelIntegerDivisionByZero), "failed with code 1: integer division by zero");
}

TEST(KernelLibrary, ListsEveryOpItHasAKernelFor) {
  const std::vector<std::string> expected = {"Add",      "AveragePool", "BatchNormalization",
                                             "Concat",   "Conv",        "Div",
                                             "Flatten",  "Gemm",        "GlobalAveragePool",
                                             "Identity", "MatMul",      "MaxPool",
                                             "Mul",      "Relu",        "Reshape",
                                             "Sigmoid",  "Softmax",     "Sub",
                                             "Tanh",     "Transpose",
                                             // the "ge" domain's fused ops (fused.cc) and,
                                             // until a kernel family has it, LayerNormalization
                                             "LayerNormalization", "ge::FusedConv", "ge::FusedGemm",
                                             "ge::FusedMatMul", "ge::Gelu"};
  // Kernel families keep adding ops: every op above must be listed, sorted and unique.
  const std::vector<std::string> listed = supported_op_types();
  EXPECT_TRUE(std::is_sorted(listed.begin(), listed.end()));
  EXPECT_EQ(std::adjacent_find(listed.begin(), listed.end()), listed.end());
  for (const std::string& op : expected) {
    EXPECT_TRUE(std::binary_search(listed.begin(), listed.end(), op)) << op << " is not listed";
  }
}

TEST(KernelLibrary, SupportsNamesOpDtypeAndBackend) {
  KernelTest relu("Relu");
  relu.input(f32_iota({2})).output(F::kFloat32, {2});
  std::string reason;
  EXPECT_TRUE(supports(relu.node(), "cpu", &reason));
  EXPECT_TRUE(reason.empty());

  KernelTest unsigned_relu("Relu");
  unsigned_relu.input(Tensor::zeros(F::kUInt8, {2})).output(F::kUInt8, {2});
  EXPECT_FALSE(supports(unsigned_relu.node(), "cpu", &reason));
  EXPECT_NE(reason.find("backend 'cpu'"), std::string::npos) << reason;
  EXPECT_NE(reason.find("Relu 'node'"), std::string::npos) << reason;
  EXPECT_NE(reason.find("uint8"), std::string::npos) << reason;
}

// RandomUniform and RandomNormal take no input: they are selected by their output, and run.
TEST(KernelLibrary, OpsWithoutInputsAreSelectedByTheirOutput) {
  for (DataType dtype : {F::kFloat32, F::kBFloat16}) {
    KernelTest random("RandomUniform", 22);
    random.attribute("shape", Attribute(std::vector<int64_t>{3, 4}))
        .attribute("dtype", Attribute(static_cast<int64_t>(dtype)))
        .attribute("seed", Attribute(1.0f))
        .output(dtype, {3, 4});
    std::string reason;
    EXPECT_TRUE(supports(random.node(), "cpu", &reason)) << reason;
    auto outputs = random.run();
    ASSERT_TRUE(outputs.is_ok()) << outputs.status().to_string();
    for (int64_t i = 0; i < 12; ++i) {
      const double value = (*outputs)[0].scalar_as_double(i);
      EXPECT_GE(value, 0.0);
      EXPECT_LE(value, 1.0);
    }
  }
}

TEST(KernelLibrary, UnknownOpIsUnsupported) {
  KernelTest test("NoSuchOp");
  test.input(f32_iota({2})).output(F::kFloat32, {2});
  std::string reason;
  EXPECT_FALSE(supports(test.node(), "cpu", &reason));
  EXPECT_NE(reason.find("no kernel for NoSuchOp 'node'"), std::string::npos) << reason;
  EXPECT_NE(reason.find("float32"), std::string::npos) << reason;
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(kernel.status().message(), reason);
}

TEST(KernelLibrary, OtherDomainsAreUnsupported) {
  KernelTest test("Relu");
  test.input(f32_iota({2})).output(F::kFloat32, {2});
  test.node().set_domain("com.example");
  std::string reason;
  EXPECT_FALSE(supports(test.node(), "npu_sim", &reason));
  EXPECT_NE(reason.find("backend 'npu_sim'"), std::string::npos) << reason;
  EXPECT_NE(reason.find("com.example"), std::string::npos) << reason;
}

TEST(KernelLibrary, NonStaticShapeIsInvalid) {
  KernelTest test("Relu");
  test.input(f32_iota({2})).output(F::kFloat32, {2});
  test.node().output(0)->set_desc(TensorDesc(F::kFloat32, {Dim::named("N")}));
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("no static shape"), std::string::npos) << kernel.status().message();
}

TEST(KernelLibrary, AShapeWhoseSizeOverflowsIsInvalid) {
  // Unchecked, [2^31,2^33] wraps to 0 elements and the kernel writes nothing.
  KernelTest test("Expand");
  test.input(f32_iota({1})).input(Tensor::from_vector<int64_t>({2}, {int64_t{1} << 31, int64_t{1} << 33}));
  test.output(F::kFloat32, {int64_t{1} << 31, int64_t{1} << 33});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("output 0"), std::string::npos) << kernel.status().message();
  EXPECT_NE(kernel.status().message().find("[2147483648,8589934592] has more than 2^63 elements"), std::string::npos)
      << kernel.status().message();
}

TEST(KernelLibrary, SequenceValuesAreUnsupported) {
  KernelTest test("Identity");
  test.input(f32_iota({2})).output(F::kFloat32, {2});
  test.node().output(0)->mutable_desc().kind = ValueKind::kSequence;
  std::string reason;
  EXPECT_FALSE(supports(test.node(), "cpu", &reason));
  EXPECT_NE(reason.find("not a tensor"), std::string::npos) << reason;
}

TEST(KernelLibrary, KernelNamesCarryBackendAndOp) {
  KernelTest test("Relu");
  test.input(f32_iota({2})).output(F::kFloat32, {2});
  Result<PreparedKernel> kernel = prepare(test.node(), "npu_sim");
  ASSERT_TRUE(kernel.is_ok()) << kernel.status().to_string();
  EXPECT_EQ(kernel->name, "npu_sim.Relu");
  EXPECT_NE(kernel->function, nullptr);
  EXPECT_NE(kernel->params, nullptr);
}

TEST(KernelLibrary, AttributeOfTheWrongTypeIsInvalid) {
  KernelTest test("Softmax");
  test.input(f32_iota({2})).attribute("axis", "last").output(F::kFloat32, {2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("attribute 'axis' must be an int"), std::string::npos)
      << kernel.status().message();
}

TEST(KernelLibrary, ErrorMessages) {
  EXPECT_STREQ(kernel_error_message(kKernelIntegerDivisionByZero), "integer division by zero");
  EXPECT_STREQ(kernel_error_message(12345), "unknown kernel error");
}

}  // namespace
}  // namespace ge::reference_kernels::testing
