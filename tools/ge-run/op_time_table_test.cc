#include "op_time_table.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace ge::tools
