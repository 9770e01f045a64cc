#include "op_time_table.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <unordered_map>

#include "ge/graph_queries.h"

namespace ge::tools {
namespace {

bool is_event_task(const std::string& name) { return name == "event_record" || name == "event_wait"; }

void sort_largest_first(std::vector<OpTime>& times) {
  std::sort(times.begin(), times.end(), [](const OpTime& a, const OpTime& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });
}

/// Kernel and memcpy tasks grouped by `key(task)` (a task whose key is empty is left
/// out), then by kernel name; groups and their kernels largest total first.
template <typename Key>
std::vector<OpTime> group_kernels(const std::vector<TaskTraceRecord>& tasks, Key key) {
  std::map<std::string, std::map<std::string, OpTime>> groups;  // key -> kernel -> time
  for (const TaskTraceRecord& task : tasks) {
    if (is_event_task(task.name)) continue;
    const std::string group = key(task);
    if (group.empty()) continue;
    OpTime& kernel = groups[group][task.name];
    kernel.name = task.name;
    kernel.total_ns += std::max(0.0, task.end_ns - task.start_ns);
    ++kernel.tasks;
  }
  std::vector<OpTime> rows;
  for (auto& [name, kernels] : groups) {
    OpTime row;
    row.name = name;
    for (auto& [kernel_name, kernel] : kernels) {
      row.total_ns += kernel.total_ns;
      row.tasks += kernel.tasks;
      row.kernels.push_back(std::move(kernel));
    }
    sort_largest_first(row.kernels);
    rows.push_back(std::move(row));
  }
  sort_largest_first(rows);
  return rows;
}

/// One line of figures: total ms, ms per run, share, tasks.
std::string figures(double total_ns, size_t tasks, size_t runs, double all_ns) {
  char line[96];
  std::snprintf(line, sizeof(line), "%12.3f %10.3f %6.1f%% %7zu", total_ns / 1e6, total_ns / 1e6 / runs,
                all_ns > 0 ? 100.0 * total_ns / all_ns : 0.0, tasks);
  return line;
}

}  // namespace

std::string op_type_of_kernel(std::string_view kernel_name) {
  const size_t first = kernel_name.find('.');
  if (first == std::string_view::npos) return std::string(kernel_name);
  const std::string_view rest = kernel_name.substr(first + 1);
  return std::string(rest.substr(0, rest.find('.')));
}

std::vector<OpTime> summarize_op_times(const std::vector<TaskTraceRecord>& tasks) {
  return group_kernels(tasks, [](const TaskTraceRecord& task) { return op_type_of_kernel(task.name); });
}

std::vector<OpTime> summarize_node_times(const std::vector<TaskTraceRecord>& tasks) {
  return group_kernels(tasks, [](const TaskTraceRecord& task) { return task.node; });
}

std::string format_node_time_table(const std::vector<TaskTraceRecord>& tasks, size_t runs, size_t limit) {
  runs = std::max<size_t>(runs, 1);
  std::vector<OpTime> rows = summarize_node_times(tasks);
  if (rows.empty()) return {};
  double all_ns = 0;
  for (const TaskTraceRecord& task : tasks) {
    if (!is_event_task(task.name)) all_ns += std::max(0.0, task.end_ns - task.start_ns);
  }
  const size_t shown = std::min(limit, rows.size());
  size_t width = 4;  // "node"
  for (size_t i = 0; i < shown; ++i) width = std::max(width, rows[i].name.size());
  auto name_column = [&](const std::string& name) { return "  " + name + std::string(width - name.size() + 1, ' '); };
  std::string out = "the " + std::to_string(shown) + " slowest of " + std::to_string(rows.size()) + " nodes:\n" +
                    name_column("node") + "    total ms     ms/run   share   tasks  kernel\n";
  for (size_t i = 0; i < shown; ++i) {
    const OpTime& row = rows[i];
    out += name_column(row.name) + figures(row.total_ns, row.tasks, runs, all_ns) + "  " + row.kernels.front().name +
           (row.kernels.size() > 1 ? " (+" + std::to_string(row.kernels.size() - 1) + " more)" : "") + "\n";
  }
  return out;
}

std::string format_op_time_table(const std::vector<TaskTraceRecord>& tasks, size_t runs, const std::string& device,
                                 bool simulated_time) {
  runs = std::max<size_t>(runs, 1);
  const std::vector<OpTime> rows = summarize_op_times(tasks);
  double all_ns = 0;
  size_t all_tasks = 0;
  size_t width = 7;  // "op type"
  for (const OpTime& row : rows) {
    all_ns += row.total_ns;
    all_tasks += row.tasks;
    width = std::max(width, row.name.size());
  }
  auto name_column = [&](const std::string& name) { return "  " + name + std::string(width - name.size() + 1, ' '); };

  std::string out = "device time per op type over " + std::to_string(runs) + (runs == 1 ? " run" : " runs") + " (" +
                    device + (simulated_time ? ", simulated time" : ", wall time") + "):\n";
  if (rows.empty()) return out + "  (the device traced no kernel or memcpy tasks)\n";
  out += name_column("op type") + "    total ms     ms/run   share   tasks  kernel\n";
  for (const OpTime& row : rows) {
    out += name_column(row.name) + figures(row.total_ns, row.tasks, runs, all_ns) + "  ";
    if (row.kernels.size() == 1) {
      out += row.kernels.front().name + "\n";
      continue;
    }
    out += std::to_string(row.kernels.size()) + " kernels:\n";
    for (const OpTime& kernel : row.kernels) {
      out += name_column("") + figures(kernel.total_ns, kernel.tasks, runs, all_ns) + "    " + kernel.name + "\n";
    }
  }
  out += name_column("total") + figures(all_ns, all_tasks, runs, all_ns) + "\n";
  return out;
}

std::optional<double> compute_operations(const Node& node) {
  auto dims_of = [](const Value* value) -> std::optional<std::vector<int64_t>> {
    if (value == nullptr || !value->desc().is_static()) return std::nullopt;
    return value->desc().static_dims();
  };
  auto product_from = [](const std::vector<int64_t>& dims, size_t first) {
    double product = 1;
    for (size_t i = first; i < dims.size(); ++i) product *= static_cast<double>(dims[i]);
    return product;
  };
  const std::string& op = node.op_type();
  const bool onnx = is_onnx_domain(node), ge = node.domain() == "ge";
  const std::optional<std::vector<int64_t>> y = dims_of(node.output(0));
  if (!y) return std::nullopt;
  const double outputs = product_from(*y, 0);
  if ((onnx && (op == "Conv" || op == "ConvInteger" || op == "QLinearConv")) || (ge && op == "FusedConv")) {
    // W [M, C / group, k...]: C / group times the kernel's taps per output.
    const std::optional<std::vector<int64_t>> w = dims_of(node.input(op == "QLinearConv" ? 3 : 1));
    if (!w || w->size() < 2) return std::nullopt;
    return 2 * outputs * product_from(*w, 1);
  }
  if ((onnx && op == "ConvTranspose") || (ge && op == "FusedConvTranspose")) {
    // W [C, M / group, k...]: each input element meets M / group times the kernel's taps.
    const std::optional<std::vector<int64_t>> x = dims_of(node.input(0)), w = dims_of(node.input(1));
    if (!x || !w || w->size() < 2) return std::nullopt;
    return 2 * product_from(*x, 0) * product_from(*w, 1);
  }
  if ((onnx && (op == "MatMul" || op == "MatMulInteger" || op == "QLinearMatMul")) || (ge && op == "FusedMatMul")) {
    const std::optional<std::vector<int64_t>> a = dims_of(node.input(0));
    if (!a || a->empty()) return std::nullopt;
    return 2 * outputs * static_cast<double>(a->back());
  }
  if ((onnx && op == "Gemm") || (ge && op == "FusedGemm")) {
    const std::optional<std::vector<int64_t>> a = dims_of(node.input(0));
    if (!a || a->size() != 2) return std::nullopt;
    return 2 * outputs * static_cast<double>(node.get_int("transA", 0) != 0 ? (*a)[0] : (*a)[1]);
  }
  return std::nullopt;
}

std::string format_compute_rate(const Graph& graph, const std::vector<TaskTraceRecord>& tasks, size_t runs) {
  std::unordered_map<std::string, double> operations;  // by Node::describe(), as the trace names nodes
  for (const auto& node : graph.nodes()) {
    if (std::optional<double> count = compute_operations(*node)) operations[node->describe()] = *count;
  }
  std::unordered_map<std::string, double> seen;  // node -> its operations, once
  double ns = 0;
  for (const TaskTraceRecord& task : tasks) {
    auto it = operations.find(task.node);
    if (task.node.empty() || it == operations.end()) continue;
    ns += std::max(0.0, task.end_ns - task.start_ns);
    seen[task.node] = it->second;
  }
  if (seen.empty() || ns <= 0 || runs == 0) return {};
  double per_run = 0;
  for (const auto& [node, count] : seen) per_run += count;
  const double ms_per_run = ns / 1e6 / static_cast<double>(runs);
  char line[256];
  std::snprintf(line, sizeof line,
                "compute: %.3g GOP per run in %zu convolutions and matmuls, %.1f GOP/s over their %.3f ms per run "
                "(against the core's peak: bench/peak)\n",
                per_run / 1e9, seen.size(), per_run / 1e6 / ms_per_run, ms_per_run);
  return line;
}

}  // namespace ge::tools
