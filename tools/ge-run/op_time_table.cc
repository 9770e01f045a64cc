#include "op_time_table.h"

#include <algorithm>
#include <cstdio>
#include <map>

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

}  // namespace ge::tools
