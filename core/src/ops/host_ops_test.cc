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
  EXPECT_EQ(
      negative.message(),
      "SplitToSequence 'split_to_sequence': split sizes [-1,5] do not divide axis 0 of extent 4 into non-negative "
      "parts");
  // Sizes whose sum wraps to the extent.
  const int64_t max = std::numeric_limits<int64_t>::max();
  Status wrapped = split_to_sequence(Tensor::from_vector<int64_t>({3}, {max, max, 6}), out);
  EXPECT_EQ(wrapped.code(), StatusCode::kInvalidArgument) << wrapped.to_string();
}

TEST(HostOps, ScanRefusesFewerOutputAxesThanScanOutputs) {
  // Two scan outputs, one axis given: the second was stacked along axis 0 unasked.
  auto body = std::make_shared<Graph>("body");
  Value* row = body->add_input("row", TensorDesc::of(DataType::kFloat32, {2}));
  body->add_output(row);
  body->add_output(row);
  Graph g;
  Value* x = g.add_input("x", TensorDesc::of(DataType::kFloat32, {3, 2}));
  Node* scan = g.add_node("Scan", {x}, 2, "scan");
  scan->set_attribute("body", Attribute::GraphPtr(body));
  scan->set_attribute("num_scan_inputs", int64_t{1});
  scan->set_attribute("scan_output_axes", std::vector<int64_t>{1});
  g.set_opset_import("", 17);
  const RuntimeValue x_value = RuntimeValue::of(Tensor::from_vector<float>({3, 2}, {0, 1, 2, 3, 4, 5}));
  const SubgraphRunner run = [](Graph&, const std::vector<RuntimeValue>& in, std::vector<RuntimeValue>& out) {
    out = {in[0], in[0]};
    return Status::ok();
  };
  std::vector<RuntimeValue> out;
  Status status = run_host_op(*scan, {&x_value}, out, run);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "Scan 'scan': scan_output_axes and scan_output_directions have 1 and 2 entries, expected one per scan "
            "output (2)");
  scan->set_attribute("scan_output_axes", std::vector<int64_t>{1, 0});
  ASSERT_TRUE(run_host_op(*scan, {&x_value}, out, run).is_ok());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].tensor.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(out[1].tensor.shape(), (std::vector<int64_t>{3, 2}));
}

}  // namespace
}  // namespace ge::detail
