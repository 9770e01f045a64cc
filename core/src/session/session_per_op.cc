// Session's per-op path: the executor for a graph the task sink cannot run (sinking its
// static clusters and bodies) and, for dynamic input dims, the shape-keyed
// specialisations with the gears of a model file (ge/session.h).
#include "ge/session.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "ge/logging.h"
#include "../executor/runtime_input_binding.h"
#include "executable.h"
#include "task_sink.h"

namespace ge {

Result<std::unique_ptr<detail::Executable>> Session::load_per_op(const PluginHost& host, std::unique_ptr<Graph> graph,
                                                                 std::unique_ptr<Graph> specialisation_source,
                                                                 bool run_passes, const SessionOptions& options,
                                                                 Backend& backend) {
  GE_ASSIGN_OR_RETURN(std::vector<std::shared_ptr<MemoryAssigner>> assigners,
                      detail::select_assigners(host, options.memory_assigners));
  // A static graph (a specialisation, a static cluster, a subgraph body for given input
  // descs) is inferred afresh (its descs are those of another shape, or of a per-op run),
  // gets the passes when the session's graph had them, and loads into the task sink.
  // --dump-graph: a specialisation's passes dump into a folder of their own; those of
  // clusters and bodies (fragments) do not dump.
  // `before_layout`, when given, receives the graph as it was before the layout phase
  // (unchanged when no layout pass ran), for the per-op executor (see Session::create).
  auto optimise = [this, &host, &backend, options, run_passes](Graph& graph, std::optional<std::filesystem::path> dump,
                                                               std::unique_ptr<Graph>* before_layout) -> Status {
    for (const auto& node : graph.nodes()) {
      for (Value* out : node->outputs()) out->mutable_desc().shape.reset();
    }
    GE_RETURN_IF_ERROR(ops_->infer_graph(graph));
    if (run_passes) {
      PassManagerOptions pass_options = options.passes;
      pass_options.dump_dir = std::move(dump);
      PassManager passes(host.passes(), *ops_, pass_options);
      Result<Backend*> reference = host.backend("cpu");
      PassManager::BeforeLayout keep;
      if (before_layout != nullptr) keep = [before_layout](const Graph& g) { *before_layout = g.clone(); };
      // --check-passes: the float32 oracle, as in Session::create.
      if (pass_options.check_passes && reference.is_ok()) {
        GE_RETURN_IF_ERROR((*reference)->set_precision(Precision::kFp32).with_context("--check-passes"));
      }
      Status ran = passes.run(graph, &backend, reference.is_ok() ? *reference : nullptr, keep);
      restore_precision();
      GE_RETURN_IF_ERROR(ran);
    }
    return Status::ok();
  };
  auto load = [this, &backend, options, assigners = std::move(assigners)](const Graph& graph) {
    // No shrink: each specialisation is compiled from the host graph, which stays.
    return detail::load_task_sink(graph, backend, *ops_, assigners, options.memory_order, options.max_streams,
                                  options.stream_memory_ratio, pool_, false, options.super_kernel_max_bytes);
  };
  SinkCompiler compile = [optimise, load](std::unique_ptr<Graph> graph) -> Result<std::unique_ptr<ModelRunner>> {
    GE_RETURN_IF_ERROR(optimise(*graph, std::nullopt, nullptr));
    return load(*graph);
  };
  ExecutorOptions executor_options;
  executor_options.pool = pool_;
  executor_options.cache_size = std::max<size_t>(options.specialisation_cache_size, 1);
  if (options.task_sink) executor_options.sink = compile;
  detail::RestorePrecision restore = [this] { restore_precision(); };
  if (!specialisation_source) {
    GE_ASSIGN_OR_RETURN(std::unique_ptr<Executor> executor,
                        Executor::create(std::move(graph), backend, *ops_, executor_options));
    return detail::per_op_executable(std::move(executor), std::move(restore));
  }
  std::unique_ptr<Executor> fallback;
  Status unavailable;
  if (!backend.device().host_accessible()) {
    // Every signature that compiles to the task sink still runs; the rest cannot.
    unavailable = unsupported("backend '" + backend.name() +
                              "' has no host-accessible device, which the per-op executor needs: only input "
                              "shapes whose specialisation runs in the task sink run");
  } else {
    // Signatures not yet specialised run node by node on plans that share kernels: a
    // cluster sunk per signature would be a compile per signature.
    ExecutorOptions per_signature = executor_options;
    per_signature.sink = nullptr;
    per_signature.transient_plans = true;
    GE_ASSIGN_OR_RETURN(fallback, Executor::create(std::move(graph), backend, *ops_, per_signature));
  }
  // A signature whose graph still has host ops or data-dependent shapes after the
  // passes runs on an executor of its own: the passes folded what the static shapes
  // made constant, and its plan is partitioned.
  std::shared_ptr<const Graph> source = std::move(specialisation_source);
  auto compiled = std::make_shared<uint64_t>(0);  // specialisations compiled, for --dump-graph folders
  auto specialise = [this, &backend, source, compiled, optimise, load, executor_options,
                     dump_dir = options.passes.dump_dir](const std::vector<TensorDesc>& descs) -> Result<Specialisation> {
    std::unique_ptr<Graph> graph = source->clone();
    const std::vector<Value*> inputs = graph->runtime_inputs();
    for (size_t i = 0; i < inputs.size() && i < descs.size(); ++i) inputs[i]->set_desc(descs[i]);
    std::optional<std::filesystem::path> dump;
    if (dump_dir) dump = *dump_dir / ("specialisation_" + std::to_string(++*compiled));
    std::unique_ptr<Graph> before_layout;
    std::string shapes;
    for (const TensorDesc& desc : descs) shapes += (shapes.empty() ? "" : ", ") + desc.to_string();
    // --check-passes names the pass, and this names the signature it broke for.
    GE_RETURN_IF_ERROR(optimise(*graph, std::move(dump), &before_layout)
                           .with_context("the specialisation for inputs " + shapes));
    Result<std::unique_ptr<ModelRunner>> runner = load(*graph);
    if (runner.is_ok()) return Specialisation{std::move(runner).value(), nullptr, Status::ok()};
    if (runner.status().code() != StatusCode::kUnsupported) return runner.status();
    if (before_layout) graph = std::move(before_layout);
    GE_LOG_INFO("specialised graph '{}' runs per op, partitioned: {}", graph->name(), runner.status().message());
    GE_ASSIGN_OR_RETURN(std::unique_ptr<Executor> executor,
                        Executor::create(std::move(graph), backend, *ops_, executor_options));
    return Specialisation{nullptr, std::move(executor), Status::ok()};
  };
  const int specialise_after = fallback ? std::max(options.specialise_after, 1) : 1;
  auto cache = std::make_unique<SpecialisationCache>(options.specialisation_cache_size, std::move(specialise),
                                                     specialise_after);
  // With a fallback the executor holds the graph; without, it is the graph to report.
  return detail::specialising_executable(std::move(cache), std::move(fallback), std::move(graph),
                                         std::move(unavailable), std::move(restore));
}

bool Session::wants_specialisation(const SessionOptions& options, const Graph& graph) {
  return options.task_sink && options.specialisation_cache_size > 0 && has_dynamic_tensor_inputs(graph);
}

}  // namespace ge
