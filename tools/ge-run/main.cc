/// ge-run: loads GE's plugins, compiles a model and runs it on one backend. See usage().
/// Exit status: 0 success, 1 user error or output mismatch, 2 internal error.

#include <algorithm>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <new>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <variant>
#include <vector>

#include "ge/atomic_file.h"
#include "ge/logging.h"
#include "ge/model_file.h"
#include "ge/plugin_api/parser.h"
#include "ge/pass_order.h"
#include "ge/plugin_host.h"
#include "ge/session.h"
#include "ge/status.h"
#include "ge/tensor_compare.h"
#include "input_binding.h"
#include "latency_statistics.h"
#include "op_time_table.h"
#include "options.h"
#include "precision_report.h"
#include "profile.h"
#include "tensor_dump.h"
#include "tensor_file.h"
#include "tool_driver.h"

namespace ge::tools {
namespace {

namespace fs = std::filesystem;

int fail(const Status& status) { return tools::fail("ge-run", status); }

std::string milliseconds(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.3f", value);
  return buffer;
}

std::string output_file_name(size_t index) { return "output_" + std::to_string(index) + ".pb"; }

/// The process's resident memory in bytes (Linux /proc/self/statm), 0 when unknown.
size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0, resident = 0;
  if (!(statm >> pages >> resident)) return 0;
  return resident * static_cast<size_t>(::sysconf(_SC_PAGESIZE));
}

void print_pass_timings(const Session& session) {
  std::cout << "pass timings:\n";
  if (session.pass_timings().empty()) std::cout << "  (no passes ran)\n";
  for (const PassTiming& timing : session.pass_timings()) {
    std::cout << "  " << timing.name << ": " << milliseconds(timing.milliseconds) << " ms"
              << (timing.changed ? " (changed)" : "");
    if (timing.checked) std::cout << ", checked on cpu: max |difference| " << timing.max_abs_difference;
    std::cout << "\n";
  }
}

void print_latency(const LatencyStatistics& latency) {
  std::cout << "latency over " << latency.count() << " runs: median " << milliseconds(latency.quantile(0.5))
            << " ms, p90 " << milliseconds(latency.quantile(0.9)) << " ms, p99 " << milliseconds(latency.quantile(0.99))
            << " ms, min " << milliseconds(latency.min()) << " ms, max " << milliseconds(latency.max()) << " ms\n";
}

/// Checks before compiling that the runs' results can be written and compared:
/// --output-dir is a directory or can be made one, --expected-dir is a directory.
Status check_output_paths(const RunOptions& options) {
  std::error_code error;
  if (options.output_dir) {
    const fs::path& dir = *options.output_dir;
    if (fs::exists(dir, error)) {
      if (!fs::is_directory(dir, error))
        return invalid_argument("--output-dir '" + dir.string() + "' exists and is not a directory");
      if (access(dir.c_str(), W_OK) != 0)
        return invalid_argument("--output-dir '" + dir.string() + "' is not writable");
    } else {
      // The nearest existing ancestor must be a directory we may create it in.
      fs::path ancestor = fs::absolute(dir, error).parent_path();
      while (!ancestor.empty() && !fs::exists(ancestor, error) && ancestor != ancestor.parent_path())
        ancestor = ancestor.parent_path();
      if (!fs::is_directory(ancestor, error) || access(ancestor.c_str(), W_OK) != 0) {
        return invalid_argument("--output-dir '" + dir.string() + "' cannot be created: '" + ancestor.string() +
                                "' is not a writable directory");
      }
    }
  }
  if (options.expected_dir) {
    const fs::path& dir = *options.expected_dir;
    if (!fs::exists(dir, error))
      return not_found("expected-output directory '" + dir.string() + "' does not exist");
    if (!fs::is_directory(dir, error))
      return invalid_argument("expected-output directory '" + dir.string() + "' is not a directory");
  }
  return Status::ok();
}

/// Repeated runs: when to stop (--repeat, --duration) and, on a terminal, a progress line
/// on stderr once the runs take more than a second.
class RunLoop {
 public:
  explicit RunLoop(const RunOptions& options)
      : runs_(options.duration_seconds && !options.repeat ? std::optional<uint64_t>() : options.repeat.value_or(1)),
        duration_(options.duration_seconds),
        progress_(isatty(STDERR_FILENO) != 0 && (options.repeat || options.duration_seconds)),
        start_(std::chrono::steady_clock::now()) {}

  /// Whether to run again after `done` runs (the first run always happens).
  bool more(uint64_t done) {
    const auto now = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const bool more = done == 0 || ((!runs_ || done < *runs_) && (!duration_ || elapsed < *duration_));
    if (progress_ && elapsed > 1.0 && (now - last_progress_ > std::chrono::milliseconds(250) || !more)) {
      last_progress_ = now;
      std::cerr << "\rge-run: " << done << (runs_ ? "/" + std::to_string(*runs_) : std::string()) << " runs, "
                << milliseconds(elapsed) << " s" << (duration_ ? " of " + milliseconds(*duration_) + " s" : "")
                << (more ? "" : "\n") << std::flush;
    }
    return more;
  }

 private:
  std::optional<uint64_t> runs_;  // none: --duration alone
  std::optional<double> duration_;
  bool progress_;
  std::chrono::steady_clock::time_point start_, last_progress_;
};

/// -v: the shape-keyed specialisations and the tensor pool after the runs.
void print_runtime_statistics(const Session& session, std::optional<uint64_t> warm_misses, int warm_runs) {
  if (const SpecialisationCache* cache = session.specialisations()) {
    const SpecialisationStatistics& s = cache->statistics();
    std::cout << "specialisations: " << s.entries << "/" << s.capacity << " cached, " << s.hits << " hits, "
              << s.misses << " misses (" << s.sunk << " sunk, " << s.per_op << " per op), " << s.evictions
              << " evictions, compile " << milliseconds(std::chrono::duration<double, std::milli>(s.compile_time).count())
              << " ms\n";
    for (const std::string& signature : cache->signatures()) std::cout << "  " << signature << "\n";
  }
  if (const std::optional<PartitionStatistics> partition = session.partition_statistics()) {
    std::cout << "partition: " << partition->clusters << " cluster(s) (" << partition->dynamic_clusters
              << " specialised at run time) of " << partition->clustered_nodes
              << " nodes in the task sink, " << partition->per_op_nodes << " nodes per op; " << partition->cluster_runs
              << " cluster runs, " << partition->body_runs << " subgraph bodies sunk, " << partition->per_op_body_runs
              << " run per op\n";
  }
  if (const std::optional<KernelStatistics> kernels = session.kernel_statistics()) {
    std::cout << "plan kernels: " << kernels->prepared << " prepared, " << kernels->reused
              << " reused from another signature's plan, " << kernels->evicted << " evicted, " << kernels->folded
              << " steps computed ahead (shape values)\n";
    std::cout << "plans per op: " << kernels->plans_built << " built from a copy of the graph, "
              << kernels->plans_retargeted << " retargeted in place (" << kernels->nodes_reinferred
              << " nodes inferred again, " << kernels->nodes_kept << " kept)\n";
  }
  if (session.gear_count() > 0) {
    std::cout << "dynamic gears: " << session.gear_count() << " loaded, " << session.gear_hits() << " runs used one\n";
  }
  const TensorPoolStatistics pool = session.tensor_pool().statistics();
  std::cout << "tensor pool: " << pool.hits << " hits, " << pool.misses << " misses, peak "
            << pool.peak_in_use_bytes << " bytes in use, " << pool.held_bytes << " bytes held\n";
  if (warm_misses && warm_runs > 0) {
    std::cout << "allocations after warm-up: " << pool.misses - *warm_misses << " over " << warm_runs << " runs\n";
  }
}

Status write_outputs(const fs::path& dir, const std::vector<Value*>& graph_outputs,
                     const std::vector<RuntimeValue>& outputs) {
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) return invalid_argument("cannot create output directory '" + dir.string() + "': " + error.message());
  for (size_t k = 0; k < outputs.size(); ++k) {
    GE_RETURN_IF_ERROR(write_value_file(dir / output_file_name(k), outputs[k], graph_outputs[k]->name()));
  }
  std::cout << "wrote " << outputs.size() << " output(s) to " << dir.string() << "\n";
  return Status::ok();
}

/// Compares with DIR/output_K.pb; sets `all_match`. Errors are for unreadable files.
Status check_expected(const RunOptions& options, const std::vector<Value*>& graph_outputs,
                      const std::vector<RuntimeValue>& outputs, bool& all_match) {
  const fs::path& dir = *options.expected_dir;
  std::error_code error;
  if (!fs::exists(dir, error))
    return not_found("expected-output directory '" + dir.string() + "' does not exist");
  if (!fs::is_directory(dir, error))
    return invalid_argument("expected-output directory '" + dir.string() + "' is not a directory");
  if (fs::exists(dir / output_file_name(outputs.size()), error)) {
    return invalid_argument("'" + (dir / output_file_name(outputs.size())).string() +
                            "' exists but the model has only " + std::to_string(outputs.size()) + " output(s)");
  }
  all_match = true;
  for (size_t k = 0; k < outputs.size(); ++k) {
    const fs::path file = dir / output_file_name(k);
    if (!fs::exists(file, error)) return not_found("expected output file '" + file.string() + "' does not exist");
    GE_ASSIGN_OR_RETURN(RuntimeValue expected, read_value_file(file, graph_outputs[k]->desc()));
    const TensorComparison comparison =
        compare_values(outputs[k], expected, Tolerance{.rtol = options.rtol, .atol = options.atol});
    std::cout << "output " << k << " '" << graph_outputs[k]->name() << "' vs " << file.string() << ": "
              << (comparison.matches ? "OK" : "MISMATCH") << ", max abs error " << comparison.max_abs_error
              << " (rtol " << options.rtol << ", atol " << options.atol << ")";
    if (!comparison.matches) std::cout << ": " << comparison.detail;
    std::cout << "\n";
    all_match = all_match && comparison.matches;
  }
  return Status::ok();
}

/// Parses and compiles `model`. With --check-passes the check runs use the user's
/// --input data, bound on the parsed graph before any pass runs.
Result<std::unique_ptr<Session>> compile_model(const PluginHost& host, const fs::path& model, const RunOptions& options,
                                               SessionOptions session_options) {
  if (!session_options.passes.check_passes) return Session::create(host, model, session_options);
  GE_ASSIGN_OR_RETURN(Parser * parser, host.parser_for(model));
  Result<std::unique_ptr<Graph>> graph = parser->parse_file_with(model, session_options.parse);
  if (!graph.is_ok()) return graph.status().with_context(model.string());
  GE_ASSIGN_OR_RETURN(NamedValues check_inputs, bind_inputs(**graph, options.inputs, options.memory_limit));
  GE_ASSIGN_OR_RETURN(session_options.passes.check_inputs, plain_tensors(check_inputs, "--check-passes"));
  Result<std::unique_ptr<Session>> session = Session::create(host, std::move(graph).value(), session_options);
  if (!session.is_ok()) return session.status().with_context(model.string());
  return session;
}

/// --check-precision: the model compiled again in float32 (its own session on the same
/// backend) and run once on the same inputs; prints each output's error against it.
Status check_precision(const PluginHost& host, const fs::path& model, const RunOptions& options,
                       SessionOptions session_options, const Session& session, const NamedValues& inputs,
                       const std::vector<RuntimeValue>& outputs) {
  session_options.precision = Precision::kFp32;
  session_options.passes.check_passes = false;  // checked already, in the chosen precision
  session_options.passes.dump_dir.reset();
  Result<std::unique_ptr<Session>> float32 = compile_model(host, model, options, session_options);
  if (!float32.is_ok()) return float32.status().with_context("--check-precision: compiling the model in fp32");
  std::vector<RuntimeValue> reference;
  GE_RETURN_IF_ERROR((*float32)->run_values(inputs, reference).with_context("--check-precision: the fp32 run"));
  const std::vector<Value*>& graph_outputs = session.graph().outputs();
  if (reference.size() != outputs.size()) {
    return internal_error("--check-precision: the fp32 run gave " + std::to_string(reference.size()) +
                          " outputs, the " + std::string(precision_name(session.precision())) + " run " +
                          std::to_string(outputs.size()));
  }
  std::vector<std::string> names;
  std::vector<PrecisionError> errors;
  for (size_t k = 0; k < outputs.size(); ++k) {
    names.push_back(k < graph_outputs.size() ? graph_outputs[k]->name() : std::string());
    errors.push_back(compare_with_float32(outputs[k], reference[k]));
  }
  std::cout << format_precision_check(session.precision(), session.requested_precision(), names, errors);
  return Status::ok();
}

int run(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  Result<RunOptions> parsed = parse_options(args);
  if (!parsed.is_ok()) {
    std::cerr << "ge-run: " << parsed.status().message() << "\nrun 'ge-run --help' for usage\n";
    return kExitUserError;
  }
  RunOptions& options = *parsed;  // backend: settled once the session exists (a .gem's own)
  if (options.help) {
    std::cout << usage();
    return kExitOk;
  }
  if (options.verbosity > 0) increase_verbosity(options.verbosity);

  PluginHost host;
  // --autofusion interpret|codegen: how the cpu backend runs fused groups (its
  // `autofuse_mode` setting, over the registry's).
  if (options.autofusion == "interpret" || options.autofusion == "codegen") {
    host.set_plugin_option("cpu", "autofuse_mode", options.autofusion);
  }
  if (Status status = load_plugins(host, options, default_registry(argv[0])); !status.is_ok()) {
    return fail(status);
  }
  if (options.list_plugins) {
    std::cout << host.describe();
    for (const Status& failure : host.failures())
      std::cerr << "ge-run: plugin failure: " << failure.to_string() << "\n";
    // A pipeline the passes' phases and constraints cannot order fails every compile.
    Result<std::vector<const PassInfo*>> pipeline = order_passes(host.passes());
    if (!pipeline.is_ok()) std::cerr << "ge-run: pass pipeline: " << pipeline.status().to_string() << "\n";
    return host.failures().empty() && pipeline.is_ok() ? kExitOk : kExitUserError;
  }
  if (!host.failures().empty()) {
    for (const Status& failure : host.failures())
      std::cerr << "ge-run: plugin failure: " << failure.to_string() << "\n";
    std::cerr << "ge-run: " << host.failures().size() << " plugin failure(s); see ge-run --list-plugins\n";
    return kExitUserError;
  }

  const fs::path& model = *options.model;
  std::error_code error;
  if (!fs::exists(model, error)) return fail(not_found("model file '" + model.string() + "' does not exist"));
  if (!fs::is_regular_file(model, error))
    return fail(invalid_argument("model '" + model.string() + "' is not a regular file"));

  if (options.profile) {
    if (Status status = check_profile_path(*options.profile); !status.is_ok()) return fail(status);
  }
  if (Status status = check_output_paths(options); !status.is_ok()) return fail(status);

  const bool compiled_model = model.extension() == ".gem";
  if (compiled_model && !options.compile_options.empty()) {
    return fail(invalid_argument(options.compile_options.front() + " applies when compiling a model, but '" +
                                 model.string() + "' is compiled already (its passes ran in ge-compile and its plan is "
                                 "stored): drop it, or give it to ge-compile with the source model"));
  }
  if (compiled_model && options.check_precision) {
    return fail(invalid_argument("--check-precision compiles the model again in float32, but '" + model.string() +
                                 "' is compiled already: give it the source model with --precision"));
  }
  // The shared options set theirs (session_flags.h); a .gem runs in its own precision
  // (create_session_from_model_file), which fp32 takes.
  SessionOptions session_options = options.session_options();
  // A .gem runs on the backend it was compiled for unless --backend names one.
  if (compiled_model && !options.backend_given) session_options.backend.clear();
  session_options.super_kernel_max_bytes = options.super_kernel_max_bytes;
  session_options.specialisation_cache_size = options.specialisations;
  session_options.parse.input_shapes = options.input_shapes;
  session_options.specialise_after = options.specialise_after;
  session_options.memory_order = options.memory_order;
  session_options.shrink = options.shrink;
  const auto compile_start = std::chrono::steady_clock::now();
  // A compiled .gem model loads without running the compiler.
  Result<std::unique_ptr<Session>> created = compiled_model
                                                 ? create_session_from_model_file(host, model, session_options)
                                                 : compile_model(host, model, options, session_options);
  if (!created.is_ok()) return fail(created.status());
  Session& session = **created;
  options.backend = session.backend_name();
  if (compiled_model && options.precision && session.requested_precision() != *options.precision) {
    // --precision fp32 given for a bf16 or mixed .gem (the session checked the others).
    return fail(invalid_argument("model file '" + model.string() + "' was compiled with precision " +
                                 std::string(precision_name(session.requested_precision())) + ", not " +
                                 std::string(precision_name(*options.precision)) +
                                 ": run it without --precision, or recompile it with "
                                 "ge-compile --precision " +
                                 std::string(precision_name(*options.precision))));
  }
  const bool report_precision = options.precision.has_value() || session.requested_precision() != Precision::kFp32;
  const auto compile_end = std::chrono::steady_clock::now();
  const double compile_ms = std::chrono::duration<double, std::milli>(compile_end - compile_start).count();
  if (options.verbosity > 0) {
    std::cout << "compiled '" << model.string() << "' for backend " << options.backend << " in "
              << milliseconds(compile_ms) << " ms\n";
    std::cout << "execution: " << session.describe_execution() << "\n";
    print_pass_timings(session);
    if (const MemoryStatistics* statistics = session.memory_statistics()) {
      std::cout << format_memory_statistics(*statistics);
    } else if (session.specialises()) {
      std::cout << "memory plan: one per input-shape specialisation (the graph has dynamic input dims)\n";
    } else {
      std::cout << "memory plan: none (the graph runs per op)\n";
    }
    if (const ModelRunner* runner = session.runner()) {
      std::cout << "weights: " << runner->weight_bytes() << " bytes, " << runner->weight_copy_bytes()
                << " copied to the device, " << runner->host_weight_bytes() << " held on the host"
                << (options.shrink ? " (--shrink)" : "") << "; resident memory after load "
                << resident_bytes() / 1024 << " KiB\n";
    }
  }

  Result<NamedValues> inputs = bind_inputs(session.graph(), options.inputs, options.memory_limit);
  if (!inputs.is_ok()) return fail(inputs.status());
  // Before the runs: a model that fails or goes wrong in them is what a dump is for.
  if (options.dump_tensors) {
    if (Status status = dump_tensors(host, session, session_options, *inputs, *options.dump_tensors); !status.is_ok())
      return fail(status);
  }

  RunProfile profile;
  Device* traced_device = nullptr;
  // The device traces its tasks only when asked: for --profile, and for -v's op-time table.
  if (options.profile || options.verbosity > 0) {
    Result<Backend*> backend = host.backend(options.backend);
    if (!backend.is_ok()) return fail(backend.status());
    Device& device = (*backend)->device();
    profile.device = device.name();
    profile.simulated_time = device.simulated_time();
    profile.device_epoch = std::chrono::steady_clock::now();
    if (Status status = device.set_task_tracing(true); status.is_ok()) {
      traced_device = &device;
      profile.device_traced = true;
    } else if (options.profile) {
      std::cerr << "ge-run: --profile: " << status.message() << "; the profile has the compile stages and runs only\n";
    } else {
      std::cerr << "ge-run: -v: " << status.message() << "; no device time per op type\n";
    }
  }
  if (options.profile) {
    profile.model = model.string();
    profile.backend = options.backend;
    profile.origin = compile_start;
    profile.stages = session.stage_timings();
    // A session that recorded no stages: show the whole load as one.
    if (profile.stages.empty()) {
      profile.stages.push_back(StageTiming{"load model file", compile_start, compile_end - compile_start});
    }
    if (const ModelRunner* runner = session.runner()) {
      size_t kernels = 0;
      for (const std::vector<Task>& tasks : runner->stream_tasks()) {
        kernels += static_cast<size_t>(std::count_if(
            tasks.begin(), tasks.end(), [](const Task& task) { return std::holds_alternative<KernelTask>(task); }));
      }
      profile.kernel_launches_per_run = kernels;
    }
  }

  // The outputs of one run are alive during the next: two runs reach the steady state.
  constexpr uint64_t kWarmUpRuns = 2;
  // The trace keeps the first runs only: memory stays bounded however long the loop runs.
  // The device traces tasks for at most kMaxTracedRuns runs and kMaxTracedTasks tasks (the
  // run count set from the first run's tasks), then tracing stops.
  constexpr size_t kMaxTracedRuns = 100000;
  constexpr size_t kMaxTracedTasks = 1000000;
  size_t traced_runs = 0, traced_run_cap = kMaxTracedRuns;
  auto collect_trace = [&] {  // the device's records so far, appended to the profile's
    std::vector<TaskTraceRecord> records = traced_device->take_task_trace();
    profile.tasks.insert(profile.tasks.end(), records.begin(), records.end());
  };
  std::optional<uint64_t> warm_misses;
  std::vector<RuntimeValue> outputs;
  LatencyStatistics latency;
  RunLoop loop(options);
  uint64_t repeat = 0;  // runs done
  for (; loop.more(repeat); ++repeat) {
    outputs.clear();
    const auto start = std::chrono::steady_clock::now();
    Status status = session.run_values(*inputs, outputs);
    const auto end = std::chrono::steady_clock::now();
    if (!status.is_ok()) {
      if (traced_device != nullptr) (void)traced_device->set_task_tracing(false);
      return fail(status);
    }
    latency.add(std::chrono::duration<double, std::milli>(end - start).count());
    if (options.profile && profile.runs.size() < kMaxTracedRuns) profile.runs.push_back(RunTiming{start, end - start});
    if (repeat == kWarmUpRuns - 1) warm_misses = session.tensor_pool().statistics().misses;
    if (traced_device != nullptr && traced_runs < traced_run_cap) {
      ++traced_runs;
      if (traced_runs == 1) {
        collect_trace();
        traced_run_cap = std::clamp<size_t>(kMaxTracedTasks / std::max<size_t>(1, profile.tasks.size()), 1, kMaxTracedRuns);
      }
      if (traced_runs == traced_run_cap) {
        collect_trace();
        (void)traced_device->set_task_tracing(false);
      }
    }
  }
  if (traced_device != nullptr) {
    if (traced_runs < traced_run_cap) collect_trace();
    (void)traced_device->set_task_tracing(false);
    if (options.verbosity > 0) {
      // Per-run figures over the runs traced (all of them unless the loop ran long).
      std::cout << format_op_time_table(profile.tasks, traced_runs, profile.device, profile.simulated_time);
      std::cout << format_node_time_table(profile.tasks, traced_runs, 10);
      std::cout << format_compute_rate(session.graph(), profile.tasks, traced_runs);
      if (report_precision) {
        std::cout << format_node_precisions(profile.tasks, session.precision(), session.requested_precision(),
                                            options.verbosity > 1 ? 0 : 20);
      }
    }
  }
  if (options.profile) {
    const ChromeTrace trace = make_profile_trace(profile);
    if (Status status = trace.write(*options.profile); !status.is_ok()) return fail(status);
    std::cout << "wrote profile to " << options.profile->string() << ": " << profile.stages.size()
              << " compile stages, " << profile.tasks.size() << " device tasks over "
              << (traced_device != nullptr && traced_runs < repeat
                      ? std::to_string(traced_runs) + " traced of " + std::to_string(repeat)
                      : std::to_string(repeat))
              << " run(s)\n";
  }

  const std::vector<Value*>& graph_outputs = session.graph().outputs();
  if (outputs.size() != graph_outputs.size()) {
    return fail(internal_error("the run returned " + std::to_string(outputs.size()) + " outputs but the graph has " +
                               std::to_string(graph_outputs.size())));
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    std::cout << "output " << k << " '" << graph_outputs[k]->name() << "': " << outputs[k].to_string() << "\n";
  }
  if (options.repeat || options.duration_seconds) print_latency(latency);
  if (options.check_precision) {
    if (Status status = check_precision(host, model, options, session_options, session, *inputs, outputs);
        !status.is_ok())
      return fail(status);
  }
  if (options.verbosity > 0) {
    print_runtime_statistics(session, warm_misses, static_cast<int>(repeat) - static_cast<int>(kWarmUpRuns));
  }
  if (const std::string partition = session.describe_partition(); options.passes.dump_dir && !partition.empty()) {
    const fs::path path = *options.passes.dump_dir / "partition.txt";
    // At -O0 no pass ran, so nothing has made the folder yet.
    std::error_code made;
    fs::create_directories(*options.passes.dump_dir, made);
    if (made) return fail(invalid_argument("--dump-graph: cannot create '" + options.passes.dump_dir->string() + "': " + made.message()));
    if (Status status = write_file_atomically(path, partition); !status.is_ok())
      return fail(status.with_context("--dump-graph"));
  }

  if (options.output_dir) {
    if (Status status = write_outputs(*options.output_dir, graph_outputs, outputs); !status.is_ok())
      return fail(status);
  }
  if (options.expected_dir) {
    bool all_match = false;
    if (Status status = check_expected(options, graph_outputs, outputs, all_match); !status.is_ok())
      return fail(status);
    if (!all_match) {
      std::cerr << "ge-run: outputs do not match the expected values in '" << options.expected_dir->string() << "'\n";
      return kExitUserError;
    }
  }
  return kExitOk;
}

}  // namespace
}  // namespace ge::tools

int main(int argc, char** argv) {
  try {
    return ge::tools::run(argc, argv);
  } catch (const std::bad_alloc& e) {
    // Allocations are checked against the memory limit first; one the system still refused.
    std::cerr << "ge-run: error (invalid argument): out of memory (" << e.what()
              << "): the system has less free memory than the run needs; see --memory-limit\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "ge-run: internal error: unexpected exception: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "ge-run: internal error: unexpected non-standard exception\n";
  }
  return 2;
}
