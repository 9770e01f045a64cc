#include "op_time_table.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

namespace ge::tools {
namespace {

TaskTraceRecord task(const std::string& name, double start_ns, double end_ns, int stream = 0,
                     const std::string& node = {}) {
  TaskTraceRecord record;
  record.stream = stream;
  record.name = name;
  record.start_ns = start_ns;
  record.end_ns = end_ns;
  record.node = node;
  return record;
}

TEST(OpTimeTable, OpTypeIsTheMiddlePartOfAKernelName) {
  EXPECT_EQ(op_type_of_kernel("cpu.Conv.im2col"), "Conv");
  EXPECT_EQ(op_type_of_kernel("cpu.Conv"), "Conv");
  EXPECT_EQ(op_type_of_kernel("cpu.FusedConv.dnnl:jit:avx2"), "FusedConv");
  EXPECT_EQ(op_type_of_kernel("npu_sim.MatMul.a.b"), "MatMul");
  EXPECT_EQ(op_type_of_kernel("memcpy"), "memcpy");
  EXPECT_EQ(op_type_of_kernel("<unnamed>"), "<unnamed>");
}

TEST(OpTimeTable, GroupsByOpTypeLargestFirstAndLeavesOutEvents) {
  // Two runs: Conv (two variants) 9 ms, Relu 1 ms, memcpy 0.5 ms; events not counted.
  const std::vector<TaskTraceRecord> tasks = {
      task("memcpy", 0, 250'000),
      task("cpu.Conv.im2col", 1e6, 4e6),
      task("cpu.Conv.pointwise", 4e6, 5.5e6),
      task("event_record", 5.5e6, 5.6e6),
      task("event_wait", 0, 5e6, 1),
      task("cpu.Relu", 5.6e6, 6.1e6),
      task("memcpy", 10e6, 10.25e6),
      task("cpu.Conv.im2col", 11e6, 14e6),
      task("cpu.Conv.pointwise", 14e6, 15.5e6),
      task("cpu.Relu", 15.6e6, 16.1e6),
  };
  const std::vector<OpTime> rows = summarize_op_times(tasks);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].name, "Conv");
  EXPECT_DOUBLE_EQ(rows[0].total_ns, 9e6);
  EXPECT_EQ(rows[0].tasks, 4u);
  ASSERT_EQ(rows[0].kernels.size(), 2u);
  EXPECT_EQ(rows[0].kernels[0].name, "cpu.Conv.im2col");
  EXPECT_EQ(rows[0].kernels[1].name, "cpu.Conv.pointwise");
  EXPECT_EQ(rows[1].name, "Relu");
  EXPECT_EQ(rows[2].name, "memcpy");

  EXPECT_EQ(format_op_time_table(tasks, 2, "cpu", false),
            "device time per op type over 2 runs (cpu, wall time):\n"
            "  op type     total ms     ms/run   share   tasks  kernel\n"
            "  Conv           9.000      4.500   85.7%       4  2 kernels:\n"
            "                 6.000      3.000   57.1%       2    cpu.Conv.im2col\n"
            "                 3.000      1.500   28.6%       2    cpu.Conv.pointwise\n"
            "  Relu           1.000      0.500    9.5%       2  cpu.Relu\n"
            "  memcpy         0.500      0.250    4.8%       2  memcpy\n"
            "  total         10.500      5.250  100.0%       8\n");
}

TEST(OpTimeTable, NamesSimulatedTimeAndAnEmptyTrace) {
  EXPECT_EQ(format_op_time_table({task("event_wait", 0, 1)}, 1, "npu_sim", true),
            "device time per op type over 1 run (npu_sim, simulated time):\n"
            "  (the device traced no kernel or memcpy tasks)\n");
}

// Nodes: the kernel tasks of each node summed over the runs, slowest first, cut at the
// limit; a memcpy (no node) counts in the share's total (12 ms), event tasks do not.
TEST(OpTimeTable, SlowestNodesFirstWithTheirKernels) {
  const std::vector<TaskTraceRecord> tasks = {
      task("memcpy", 0, 1e6),
      task("cpu.Conv.im2col", 1e6, 4e6, 0, "Conv 'c1'"),
      task("cpu.Relu", 4e6, 4.5e6, 0, "Relu 'r1'"),
      task("cpu.Conv.pointwise", 4.5e6, 6.5e6, 0, "Conv 'c2'"),
      task("event_record", 6.5e6, 6.6e6),
      task("cpu.Conv.im2col", 11e6, 14e6, 0, "Conv 'c1'"),
      task("cpu.Relu", 14e6, 14.5e6, 0, "Relu 'r1'"),
      task("cpu.Conv.pointwise", 14.5e6, 16.5e6, 0, "Conv 'c2'"),
  };
  const std::vector<OpTime> rows = summarize_node_times(tasks);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].name, "Conv 'c1'");
  EXPECT_DOUBLE_EQ(rows[0].total_ns, 6e6);
  EXPECT_EQ(rows[0].tasks, 2u);
  EXPECT_EQ(rows[1].name, "Conv 'c2'");
  EXPECT_EQ(rows[2].name, "Relu 'r1'");
  EXPECT_EQ(format_node_time_table(tasks, 2, 2),
            "the 2 slowest of 3 nodes:\n"
            "  node          total ms     ms/run   share   tasks  kernel\n"
            "  Conv 'c1'        6.000      3.000   50.0%       2  cpu.Conv.im2col\n"
            "  Conv 'c2'        4.000      2.000   33.3%       2  cpu.Conv.pointwise\n");
  EXPECT_EQ(format_node_time_table({task("cpu.Relu", 0, 1)}, 1, 10), "");  // no node named
}

// Operations counted per node as the direct algorithm does, and the -v line: one run of
// a graph with a Conv, a ConvTranspose, a MatMul, a transposed Gemm, a QLinearConv and a
// Relu (not counted), traced twice.
TEST(ComputeRate, CountsConvolutionAndMatmulOperationsAndTheirRate) {
  Graph graph;
  auto value = [&](const std::string& name, DataType type, std::vector<int64_t> dims) {
    return graph.add_input(name, TensorDesc::of(type, std::move(dims)));
  };
  auto node = [&](const std::string& op, std::vector<Value*> inputs, std::vector<int64_t> y_dims,
                  DataType type = DataType::kFloat32) {
    Node* n = graph.add_node(op, std::move(inputs), 1, op, {op + "_y"});
    n->output(0)->set_desc(TensorDesc::of(type, std::move(y_dims)));
    return n;
  };
  // Conv: [1,8,4,4] output, W [8,3,3,3]: 2 * 128 * 27.
  Node* conv = node("Conv", {value("x", DataType::kFloat32, {1, 3, 6, 6}), value("w", DataType::kFloat32, {8, 3, 3, 3})},
                    {1, 8, 4, 4});
  // ConvTranspose: X [1,4,2,2], W [4,6,3,3]: 2 * 16 * 54.
  Node* deconv = node("ConvTranspose",
                      {value("dx", DataType::kFloat32, {1, 4, 2, 2}), value("dw", DataType::kFloat32, {4, 6, 3, 3})},
                      {1, 6, 4, 4});
  // MatMul [2,5,7] x [7,3]: 2 * 30 * 7.
  Node* matmul = node("MatMul", {value("a", DataType::kFloat32, {2, 5, 7}), value("b", DataType::kFloat32, {7, 3})},
                      {2, 5, 3});
  // Gemm with transA: A [9,4] is [K, M]: 2 * 12 * 9.
  Node* gemm = node("Gemm", {value("ga", DataType::kFloat32, {9, 4}), value("gb", DataType::kFloat32, {9, 3})}, {4, 3});
  gemm->set_attribute("transA", Attribute(int64_t{1}));
  // QLinearConv: W is input 3, [4,2,1,1]: 2 * 36 * 2.
  Value* s = value("s", DataType::kFloat32, {});
  Value* z = value("z", DataType::kUInt8, {});
  Node* qconv = node("QLinearConv",
                     {value("qx", DataType::kUInt8, {1, 2, 3, 3}), s, z, value("qw", DataType::kInt8, {4, 2, 1, 1}),
                      s, value("qz", DataType::kInt8, {}), s, z},
                     {1, 4, 3, 3}, DataType::kUInt8);
  Node* relu = node("Relu", {conv->output(0)}, {1, 8, 4, 4});
  EXPECT_EQ(compute_operations(*conv), 2.0 * 128 * 27);
  EXPECT_EQ(compute_operations(*deconv), 2.0 * 16 * 54);
  EXPECT_EQ(compute_operations(*matmul), 2.0 * 30 * 7);
  EXPECT_EQ(compute_operations(*gemm), 2.0 * 12 * 9);
  EXPECT_EQ(compute_operations(*qconv), 2.0 * 36 * 2);
  EXPECT_FALSE(compute_operations(*relu).has_value());

  // Two traced runs: the Conv 1 us and the MatMul 0.5 us per run, the Relu not counted;
  // the other nodes never ran.
  std::vector<TaskTraceRecord> tasks;
  for (double at : {0.0, 1e4}) {
    tasks.push_back(task("cpu.Conv", at, at + 1000, 0, conv->describe()));
    tasks.push_back(task("cpu.MatMul", at + 1000, at + 1500, 0, matmul->describe()));
    tasks.push_back(task("cpu.Relu", at + 1500, at + 9000, 0, relu->describe()));
  }
  const double per_run = 2.0 * 128 * 27 + 2.0 * 30 * 7;  // 7332 operations in 1.5 us
  char expected[200];
  std::snprintf(expected, sizeof expected,
                "compute: %.3g GOP per run in 2 convolutions and matmuls, %.1f GOP/s over their 0.002 ms per run "
                "(against the core's peak: bench/peak)\n",
                per_run / 1e9, per_run / 1500.0);
  EXPECT_EQ(format_compute_rate(graph, tasks, 2), expected);
  EXPECT_EQ(format_compute_rate(graph, {task("cpu.Relu", 0, 1, 0, relu->describe())}, 1), "");
}

}  // namespace
}  // namespace ge::tools
