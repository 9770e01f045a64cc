#pragma once
/// ge-run -v: where the device's time went, per op type, from its task trace.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ge/graph.h"
#include "ge/plugin_api/backend.h"

namespace ge::tools {

/// The op type in a kernel name "<backend>.<op type>[.<variant>]": "cpu.Conv.im2col" and
/// "cpu.Conv" give "Conv". A name without a '.' ("memcpy", "<unnamed>") is its own type.
std::string op_type_of_kernel(std::string_view kernel_name);

/// The time of the tasks of one op type or one kernel, summed over the trace.
struct OpTime {
  std::string name;  ///< the op type, or for OpTime::kernels the full kernel name
  double total_ns = 0;
  size_t tasks = 0;
  std::vector<OpTime> kernels;  ///< of an op type: its kernels, largest total first
};

/// Kernel and memcpy tasks grouped by op type, largest total first (ties by name).
/// Event record and wait tasks are left out: a wait's time is another stream's work.
std::vector<OpTime> summarize_op_times(const std::vector<TaskTraceRecord>& tasks);

/// The table -v prints: one row per op type with its total time over `runs` runs, time
/// per run, share of all counted task time, task count and its kernel (an op type with
/// several kernels gets a row for each below it), then a total row.
std::string format_op_time_table(const std::vector<TaskTraceRecord>& tasks, size_t runs, const std::string& device,
                                 bool simulated_time);

/// Kernel tasks grouped by the node they ran (TaskTraceRecord::node; tasks without one are
/// left out), largest total first (ties by node); each OpTime::kernels holds the node's
/// kernel(s).
std::vector<OpTime> summarize_node_times(const std::vector<TaskTraceRecord>& tasks);

/// The table -v prints after the op types: the `limit` nodes that took the most time, with
/// their time per run, share of all counted task time and kernel. Empty when the trace
/// names no node.
std::string format_node_time_table(const std::vector<TaskTraceRecord>& tasks, size_t runs, size_t limit);

/// Operations (multiply-adds times 2) of one run of `node` when it is a convolution or a
/// matmul: Conv, ConvTranspose, MatMul, Gemm, their ge::Fused* forms and the integer ones
/// (ConvInteger, QLinearConv, MatMulInteger, QLinearMatMul), counted as the direct
/// algorithm does (a Winograd convolution multiplies less). nullopt for any other node or
/// shapes that are not static.
std::optional<double> compute_operations(const Node& node);

/// The line -v prints after the tables: the operations of `graph`'s convolutions and
/// matmuls per run and the rate their kernels achieved over the device time the trace
/// gives them ("compute: 8.18 GOP per run in 53 convolutions and matmuls, 131.7 GOP/s
/// over their 62.1 ms per run"), to set against the core's peak (bench/peak). Empty when
/// no traced task ran such a node.
std::string format_compute_rate(const Graph& graph, const std::vector<TaskTraceRecord>& tasks, size_t runs);

}  // namespace ge::tools
