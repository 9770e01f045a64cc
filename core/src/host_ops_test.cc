// Tests of the ops the executor runs on the host (host_ops.h).
#include "host_ops.h"

#include <gtest/gtest.h>

#include <limits>

namespace ge::detail {
namespace {

/// Runs SplitToSequence on x = [0..3] (float32[4]) with `split` as its second input.
Status split_to_sequence(const Tensor& split, std::vector<RuntimeValue>& out) {
  Graph g;
  Value* x = g.add_input("x", TensorDesc::of(DataType::kFloat32, {4}));
  Value* s = g.add_input("split", TensorDesc::of(DataType::kInt64, split.shape()));
  Node* node = g.add_node("SplitToSequence", {x, s}, 1, "split_to_sequence");
  const RuntimeValue x_value = RuntimeValue::of(Tensor::from_vector<float>({4}, {0, 1, 2, 3}));
  const RuntimeValue split_value = RuntimeValue::of(split);
  return run_host_op(*node, {&x_value, &split_value}, out, nullptr);
}

TEST(HostOps, SplitToSequenceSplitsBySizes) {
  std::vector<RuntimeValue> out;
  ASSERT_TRUE(split_to_sequence(Tensor::from_vector<int64_t>({2}, {1, 3}), out).is_ok());
  ASSERT_EQ(out.size(), 1u);
  ASSERT_TRUE(out[0].holds_sequence());
}

TEST(HostOps, SplitToSequenceRefusesANegativeSizeThatStillSumsToTheExtent) {
  // [-1, 5] sums to 4: it sliced one element before the tensor's start.
  std::vector<RuntimeValue> out;
  Status negative = split_to_sequence(Tensor::from_vector<int64_t>({2}, {-1, 5}), out);
  EXPECT_EQ(negative.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(negative.message(),
            "SplitToSequence 'split_to_sequence': split sizes [-1,5] do not divide axis 0 of extent 4 into non-negative "
            "parts");
  // Sizes whose sum wraps to the extent.
  const int64_t max = std::numeric_limits<int64_t>::max();
  Status wrapped = split_to_sequence(Tensor::from_vector<int64_t>({3}, {max, max, 6}), out);
  EXPECT_EQ(wrapped.code(), StatusCode::kInvalidArgument) << wrapped.to_string();
}

}  // namespace
}  // namespace ge::detail
