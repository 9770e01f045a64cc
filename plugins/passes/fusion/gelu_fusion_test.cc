#include <gtest/gtest.h>

#include "fusion_test_util.h"

namespace ge::fusion {
namespace {

using testing::inferred;
using testing::run;

// The golden cases (float32, each opset, and the constants beyond half precision) are in
// tests/passes/gelu_fusion.ge.

const char* const kErfForms = R"(graph main (opset ""=17) {
  input %x : float32[4]
  init %sqrt2 : float32[] = [1.4142135]
  init %inv_sqrt2 : float32[] = [0.70710677]
  init %one : float32[] = [1]
  init %half : float32[] = [0.5]
  %a1 = Div(%x, %sqrt2) "a_div"
  %a2 = Erf(%a1) "a_erf"
  %a3 = Add(%a2, %one) "a_add"
  %a4 = Mul(%x, %a3) "a_mul"
  %ya = Mul(%a4, %half) "a_half"
  %b1 = Mul(%x, %inv_sqrt2) "b_scale"
  %b2 = Erf(%b1) "b_erf"
  %b3 = Add(%one, %b2) "b_add"
  %b4 = Mul(%half, %x) "b_half"
  %yb = Mul(%b4, %b3) "b_mul"
  %c1 = Div(%x, %sqrt2) "c_div"
  %c2 = Erf(%c1) "c_erf"
  %c3 = Add(%c2, %one) "c_add"
  %c4 = Mul(%c3, %half) "c_half"
  %yc = Mul(%c4, %x) "c_mul"
  output %ya
  output %yb
  output %yc
})";

const char* const kErfFused = R"(graph main (opset ""=17, "ge"=1) {
  input %x : float32[4]
  init %sqrt2 : float32[] = [1.4142135]
  init %inv_sqrt2 : float32[] = [0.70710677]
  init %one : float32[] = [1]
  init %half : float32[] = [0.5]
  %yc = ge::Gelu(%x) {approximate: string = "none"} "c_mul"
  %yb = ge::Gelu(%x) {approximate: string = "none"} "b_mul"
  %ya = ge::Gelu(%x) {approximate: string = "none"} "a_half"
  output %ya
  output %yb
  output %yc
})";

const char* const kTanhForms = R"(graph main (opset ""=17) {
  input %x : float32[4]
  init %three : float32[] = [3]
  init %k : float32[] = [0.044715]
  init %c : float32[] = [0.7978846]
  init %one : float32[] = [1]
  init %half : float32[] = [0.5]
  %p = Pow(%x, %three) "cube"
  %t1 = Mul(%p, %k) "cubic"
  %t2 = Add(%x, %t1) "sum"
  %t3 = Mul(%t2, %c) "scale"
  %t4 = Tanh(%t3) "tanh"
  %t5 = Add(%t4, %one) "add_one"
  %h = Mul(%x, %half) "half"
  %y = Mul(%h, %t5) "gelu_out"
  %x2 = Mul(%x, %x) "square"
  %x3 = Mul(%x2, %x) "cube2"
  %u1 = Mul(%k, %x3) "cubic2"
  %u2 = Add(%u1, %x) "sum2"
  %u3 = Mul(%c, %u2) "scale2"
  %u4 = Tanh(%u3) "tanh2"
  %u5 = Add(%one, %u4) "add_one2"
  %u6 = Mul(%x, %u5) "x_times2"
  %y2 = Mul(%u6, %half) "gelu_out2"
  output %y
  output %y2
})";

const char* const kTanhFused = R"(graph main (opset ""=17, "ge"=1) {
  input %x : float32[4]
  init %three : float32[] = [3]
  init %k : float32[] = [0.044715]
  init %c : float32[] = [0.7978846]
  init %one : float32[] = [1]
  init %half : float32[] = [0.5]
  %y2 = ge::Gelu(%x) {approximate: string = "tanh"} "gelu_out2"
  %y = ge::Gelu(%x) {approximate: string = "tanh"} "gelu_out"
  output %y
  output %y2
})";

// A float16/bfloat16 model stores sqrt(2), 1/sqrt(2), sqrt(2/pi) and 0.044715 rounded
// (as_dtype rounds them as the parser reads them): they match within their dtype's
// precision (constant_tolerance).
class GeluFusionInHalf : public ::testing::TestWithParam<std::string> {};

TEST_P(GeluFusionInHalf, FusesTheErfAndTanhFormsWithRoundedConstants) {
  const std::string dtype = GetParam();
  EXPECT_EQ(run(testing::as_dtype(kErfForms, dtype), {"fuse_gelu"}, testing::checked_in(dtype, 2, {{"x", {4}}})),
            inferred(testing::as_dtype(kErfFused, dtype)));
  EXPECT_EQ(run(testing::as_dtype(kTanhForms, dtype), {"fuse_gelu"}, testing::checked_in(dtype, 2, {{"x", {4}}})),
            inferred(testing::as_dtype(kTanhFused, dtype)));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, GeluFusionInHalf, ::testing::ValuesIn(testing::kHalfDtypes), testing::dtype_name);

}  // namespace
}  // namespace ge::fusion
