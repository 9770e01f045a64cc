// ge_memory_bench: plans whole models and a large synthetic graph with the memory
// assigner plugins and prints what each plan costs: feature-map arena, the lower bound
// (most bytes live at once), their ratio, no-reuse total, weights, zero-copy I/O and the
// time to plan.
//
//   ge_memory_bench --plugins build/bin/ge_plugins.toml [--model mobilenet_v2.onnx]...
//                   [--synthetic 100000] [--repeat 5] [--check]
//
// Models are parsed with the ONNX parser plugin and shape-inferred with the op-library
// plugins from the same registry. --check exits 1 when a model's plan (stable order, all
// assigners) exceeds 1.02x its bound or, in an optimised build, a synthetic graph takes
// 1 s or more to plan (timings of a debug build say little and are not checked).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "ge/logging.h"
#include "ge/memory_plan.h"
#include "ge/plugin_host.h"

namespace {

#ifdef NDEBUG
constexpr bool kOptimisedBuild = true;
#else
constexpr bool kOptimisedBuild = false;
#endif

struct Args {
  std::string registry;
  std::vector<std::string> models;
  int64_t synthetic = 0;
  int repeat = 3;
  bool check = false;
};

bool parse_args(int argc, char** argv, Args& args) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (a == "--plugins" && (v = next())) {
      args.registry = v;
    } else if (a == "--model" && (v = next())) {
      args.models.push_back(v);
    } else if (a == "--synthetic" && (v = next())) {
      args.synthetic = std::atoll(v);
    } else if (a == "--repeat" && (v = next())) {
      args.repeat = std::max(1, std::atoi(v));
    } else if (a == "--check") {
      args.check = true;
    } else {
      std::fprintf(stderr, "ge_memory_bench: unknown or incomplete argument '%s'\n", a.c_str());
      return false;
    }
  }
  if (args.registry.empty()) {
    std::fprintf(stderr,
                 "usage: ge_memory_bench --plugins REGISTRY.toml [--model FILE.onnx]... [--synthetic N] [--repeat R] "
                 "[--check]\n");
    return false;
  }
  return true;
}

double mib(size_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

void print_header() {
  std::printf("%-16s %-15s %-20s %10s %10s %7s %10s %9s %8s %7s %6s %9s %9s\n", "graph", "order", "assigner",
              "arena MiB", "bound MiB", "ratio", "noreuse", "weights", "I/O KiB", "buffers", "inpl", "plan ms",
              "cpu ms");
}

void print_row(const std::string& graph, const std::string& order, const std::string& assigner,
               const ge::MemoryStatistics& s, double plan_ms, double cpu_ms) {
  std::printf("%-16s %-15s %-20s %10.3f %10.3f %7.4f %10.3f %9.3f %8.1f %7zu %6zu %9.2f %9.2f\n", graph.c_str(),
              order.c_str(), assigner.c_str(), mib(s.feature_map_bytes), mib(s.lower_bound_bytes),
              s.ratio_to_lower_bound, mib(s.no_reuse_bytes), mib(s.weights_bytes),
              static_cast<double>(s.io_bytes) / 1024.0, s.buffers, s.in_place, plan_ms, cpu_ms);
}

// Plans `repeat` times; returns the last plan's statistics and the median wall and
// process CPU times (all threads; on a loaded machine the CPU time is the steadier one).
bool plan_repeatedly(const ge::Graph& graph, const std::vector<std::shared_ptr<ge::MemoryAssigner>>& assigners,
                     const ge::MemoryPlanOptions& options, int repeat, ge::MemoryStatistics& stats, double& median_ms,
                     double& median_cpu_ms) {
  std::vector<double> times, cpu_times;
  for (int r = 0; r < repeat; ++r) {
    const std::clock_t cpu_start = std::clock();
    ge::Result<ge::GraphMemoryPlan> plan = ge::plan_memory(graph, assigners, options);
    cpu_times.push_back(1000.0 * static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC);
    if (!plan.is_ok()) {
      std::fprintf(stderr, "planning failed: %s\n", plan.status().to_string().c_str());
      return false;
    }
    times.push_back(plan->statistics.planning_ms);
    stats = plan->statistics;
  }
  std::sort(times.begin(), times.end());
  std::sort(cpu_times.begin(), cpu_times.end());
  median_ms = times[times.size() / 2];
  median_cpu_ms = cpu_times[cpu_times.size() / 2];
  return true;
}

// A ResNet-like graph with about `values` values: conv/relu chains with residual adds,
// occasional two-branch concats and long skips, feature sizes from 16 KiB to 1 MiB.
std::unique_ptr<ge::Graph> synthetic_graph(int64_t values) {
  auto graph = std::make_unique<ge::Graph>("synthetic");
  graph->set_opset_import("", 17);
  std::mt19937 rng(7);
  auto length = [&]() { return static_cast<int64_t>(4096) << (rng() % 7); };  // 16 KiB .. 1 MiB of float32
  auto desc = [](int64_t n) { return ge::TensorDesc::of(ge::DataType::kFloat32, {n}); };
  int64_t count = 0;
  auto add = [&](const char* op, std::vector<ge::Value*> inputs, int64_t n) {
    const std::string name = "v" + std::to_string(count++);
    ge::Node* node = graph->add_node(op, std::move(inputs), 1, "n_" + name, {name});
    node->output(0)->set_desc(desc(n));
    if (std::strcmp(op, "Concat") == 0) node->set_attribute("axis", ge::Attribute(int64_t{0}));
    return node->output(0);
  };
  ge::Value* y = graph->add_input("x", desc(length()));
  std::vector<ge::Value*> skips;
  while (count + 8 < values) {
    const int64_t n = y->desc().element_count();
    ge::Value* c1 = add("Relu", {add("Conv", {y}, length())}, 0);
    c1->set_desc(c1->producer()->input(0)->desc());
    ge::Value* c2 = add("Conv", {c1}, n);
    ge::Value* sum = add("Add", {c2, y}, n);
    y = add("Relu", {sum}, n);
    if (rng() % 10 == 0) {
      ge::Value* b1 = add("Conv", {y}, length());
      ge::Value* b2 = add("Conv", {y}, length());
      y = add("Conv", {add("Concat", {b1, b2}, b1->desc().element_count() + b2->desc().element_count())}, n);
    }
    if (rng() % 50 == 0) skips.push_back(y);
    if (!skips.empty() && rng() % 40 == 0 && skips.back()->desc().element_count() == n) {
      y = add("Add", {y, skips.back()}, n);
      skips.pop_back();
    }
  }
  graph->add_output(y);
  return graph;
}

// About `values` values where each node reads one or two of the 64 most recent values:
// many overlapping lifetimes of random lengths, the hard case for an assigner.
std::unique_ptr<ge::Graph> random_window_graph(int64_t values) {
  auto graph = std::make_unique<ge::Graph>("random_window");
  graph->set_opset_import("", 17);
  std::mt19937 rng(11);
  std::vector<ge::Value*> recent{graph->add_input("x", ge::TensorDesc::of(ge::DataType::kFloat32, {4096}))};
  for (int64_t k = 0; k + 1 < values; ++k) {
    std::vector<ge::Value*> inputs{recent[rng() % recent.size()]};
    if (rng() % 2) inputs.push_back(recent[rng() % recent.size()]);
    const bool relu = rng() % 4 == 0;
    const int64_t n = relu ? inputs[0]->desc().element_count() : static_cast<int64_t>(4096) << (rng() % 7);
    const std::string name = "v" + std::to_string(k);
    ge::Node* node = graph->add_node(relu ? "Relu" : "Conv", relu ? std::vector<ge::Value*>{inputs[0]} : inputs, 1,
                                     "n_" + name, {name});
    node->output(0)->set_desc(ge::TensorDesc::of(ge::DataType::kFloat32, {n}));
    recent.push_back(node->output(0));
    if (recent.size() > 64) recent.erase(recent.begin());
  }
  graph->add_output(recent.back());
  return graph;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (!parse_args(argc, argv, args)) return 2;
  ge::PluginHost host;
  ge::Status loaded = host.load_registry(args.registry);
  if (!loaded.is_ok()) std::fprintf(stderr, "warning: %s\n", loaded.to_string().c_str());
  const auto& assigners = host.memory_assigners();
  if (assigners.empty()) {
    std::fprintf(stderr, "no memory assigner in %s\n", args.registry.c_str());
    return 1;
  }
  bool ok = true;
  if (args.check && !kOptimisedBuild) {
    std::fprintf(stderr,
                 "note: a debug build: the planning-time target is not checked (use -DCMAKE_BUILD_TYPE=Release)\n");
  }
  print_header();

  // The op libraries say which ops run in place and which are views.
  const ge::OpRegistry ops = host.make_op_registry();
  auto run_all = [&](const std::string& label, const ge::Graph& graph, bool is_model) {
    for (ge::ExecutionOrder order : {ge::ExecutionOrder::kStable, ge::ExecutionOrder::kMemoryPriority}) {
      ge::MemoryPlanOptions options;
      options.ops = &ops;
      options.order = order;
      const std::string order_name = order == ge::ExecutionOrder::kStable ? "stable" : "memory_priority";
      // Each assigner alone, then all of them (what a build does).
      for (const auto& assigner : assigners) {
        ge::MemoryStatistics s;
        double ms = 0, cpu_ms = 0;
        if (!plan_repeatedly(graph, {assigner}, options, args.repeat, s, ms, cpu_ms)) return false;
        print_row(label, order_name, assigner->name(), s, ms, cpu_ms);
      }
      ge::MemoryStatistics s;
      double ms = 0, cpu_ms = 0;
      if (!plan_repeatedly(graph, assigners, options, args.repeat, s, ms, cpu_ms)) return false;
      print_row(label, order_name, "all->" + s.assigner, s, ms, cpu_ms);
      if (order == ge::ExecutionOrder::kStable && args.check) {
        if (is_model && s.ratio_to_lower_bound > 1.02) {
          std::fprintf(stderr, "CHECK FAILED: %s plan is %.4fx its lower bound (target <= 1.02)\n", label.c_str(),
                       s.ratio_to_lower_bound);
          ok = false;
        }
        if (!is_model && ms >= 1000 && kOptimisedBuild) {
          std::fprintf(stderr, "CHECK FAILED: %s took %.1f ms to plan (target < 1000)\n", label.c_str(), ms);
          ok = false;
        }
      }
    }
    // For reference: no in-place, views or Concat slices.
    ge::MemoryPlanOptions plain;
    plain.in_place = plain.views = plain.continuous_concat = false;
    ge::MemoryStatistics s;
    double ms = 0, cpu_ms = 0;
    if (!plan_repeatedly(graph, assigners, plain, 1, s, ms, cpu_ms)) return false;
    print_row(label, "stable,noshare", "all->" + s.assigner, s, ms, cpu_ms);
    return true;
  };

  for (const std::string& path : args.models) {
    ge::Result<ge::Parser*> parser = host.parser_for(path);
    if (!parser.is_ok()) {
      std::fprintf(stderr, "%s\n", parser.status().to_string().c_str());
      return 1;
    }
    ge::Result<std::unique_ptr<ge::Graph>> graph = (*parser)->parse_file(path);
    if (!graph.is_ok()) {
      std::fprintf(stderr, "%s\n", graph.status().to_string().c_str());
      return 1;
    }
    ge::Status inferred = ops.infer_graph(**graph);
    if (!inferred.is_ok()) {
      std::fprintf(stderr, "%s: %s\n", path.c_str(), inferred.to_string().c_str());
      return 1;
    }
    std::string label = path.substr(path.find_last_of('/') + 1);
    label = label.substr(0, label.find('.'));
    if (!run_all(label, **graph, true)) return 1;
  }
  if (args.synthetic > 0) {
    const auto start = std::chrono::steady_clock::now();
    auto graph = synthetic_graph(args.synthetic);
    const double build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf("synthetic graph: %zu nodes, %zu values (built in %.0f ms)\n", graph->node_count(),
                graph->node_count() + graph->inputs().size(), build_ms);
    if (!run_all("synthetic", *graph, false)) return 1;
    auto window = random_window_graph(args.synthetic);
    std::printf("random-window graph: %zu nodes\n", window->node_count());
    if (!run_all("random_window", *window, false)) return 1;
  }
  return ok ? 0 : 1;
}
