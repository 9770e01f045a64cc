/// ge-compile: the offline compiler. Parses a model, runs the pass pipeline for a backend
/// and writes a .gem file that ge-run loads without recompiling; --info describes one.
/// Exit status: 0 success, 1 user error, 2 internal error.

#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "ge/input_shapes.h"
#include "ge/logging.h"
#include "ge/memory_limit.h"
#include "ge/model_file.h"
#include "ge/onnx_common/graph_export.h"
#include "ge/plugin_host.h"
#include "ge/session.h"
#include "ge/status.h"
#include "option_values.h"
#include "session_flags.h"
#include "tool_driver.h"

namespace ge::tools {
namespace {

namespace fs = std::filesystem;

/// The options the tools share (session_flags.h: --backend, -O and the pass options,
/// --precision, --memory-assigner, --streams, --stream-memory-ratio, --threads,
/// --memory-limit, --plugins, -v) and ge-compile's own.
struct CompileOptions : SessionFlags {
  std::optional<fs::path> model, output, info, verify;
  std::optional<fs::path> export_onnx;  // --export-onnx: the optimised graph as ONNX
  std::vector<std::string> input_shapes;  // one: fixed shapes; several: one dynamic gear each
  bool help = false;
};

constexpr uint32_t kSharedGroups = kPluginFlags | kPassFlags | kDumpFlags | kCompileFlags;

std::string usage() {
  return std::string("usage: ge-compile --model M.onnx --output M.gem [--backend cpu|npu_sim] [--input-shape "
         "\"name=1,3,224,224;...\"]...\n"
         "                  [-O N] [--precision fp32|bf16|mixed] [--memory-assigner NAME]... [--streams N "
         "[--stream-memory-ratio R]] [--threads N] [--plugins FILE]... [-v]\n"
         "                  [--memory-limit BYTES]\n"
         "       ge-compile M.onnx --export-onnx OUT.onnx [-O N] [--backend NAME] [--input-shape ...] [--output "
         "M.gem]\n"
         "       ge-compile --info M.gem\n"
         "       ge-compile --verify M.gem [--backend cpu] [--threads N] [--precision P] [--plugins FILE]...\n"
         "Compiles a model (parse, shape inference, passes for the backend) into a .gem file that\n"
         "'ge-run M.gem' loads and runs without recompiling. --info prints a .gem file's inputs,\n"
         "outputs, backend, memory figures, stream count, op histogram, weights and required plugins.\n"
         "A static-shape model stores its execution plans (order, streams and events, memory plan\n"
         "from the --memory-assigner plugins (default: every loaded one, smallest arena kept),\n"
         "task lists, kernels), which the loader validates and uses without planning again.\n"
         "--streams N puts independent branches on up to N streams, whose feature map may be at most\n"
         "R times one stream's (--stream-memory-ratio, default 1.1; 0: no limit): over it buffers\n"
         "reuse bytes in order, with events between the streams. --verify loads it into a\n"
         "session as 'ge-run M.gem' does (required plugins checked, no passes) and reports the time.\n"
         "One --input-shape fixes the inputs' shapes. Given several times (a model with dynamic input\n"
         "dims), each is a dynamic gear: the file keeps the dynamic model and one static compilation,\n"
         "with plans, per gear; a run whose input shapes match a gear exactly uses its plans, any\n"
         "other is specialised at run time.\n"
         "--precision fp32|bf16|mixed (default fp32): what the heavy ops of a float32 model compute in\n"
         "(ge-run --help says what each does); the .gem records it and runs in it. On a CPU without\n"
         "bfloat16 arithmetic it says so and compiles float32, which the file then records.\n"
         "--memory-limit BYTES (suffixes K, M, G, T; default: the machine's physical memory) refuses\n"
         "a model whose graph inputs, outputs, values or plans need more.\n"
         "--export-onnx OUT.onnx writes the graph after the passes (for the backend, at the -O level) as\n"
         "an ONNX model for Netron or onnx.load: ONNX ops in the default domain, GE's fused ops in the\n"
         "domains 'ge' and 'ge_autofuse' (opset_import version 1), blocked storage formats as each\n"
         "value_info's doc_string 'ge.format: nChw8c' and metadata 'ge.format:NAME'. With --output too,\n"
         "the .gem is written as well. The model may also be given as the one positional argument.\n"
         "Options shared with ge-run and ge-opt (one table, tools/common/session_flags.h):\n") +
         shared_options_help(kSharedGroups);
}

/// True when `a` and `b` name one existing file (through links, "./", hard links).
bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code error;
  return fs::equivalent(a, b, error) && !error;
}

/// An output that is the model would replace the source model with the compiled one; two
/// outputs that are one file would overwrite each other.
Status check_outputs_spare_the_model(const CompileOptions& options) {
  for (const auto& [flag, output] :
       {std::pair{"--output", options.output}, std::pair{"--export-onnx", options.export_onnx}}) {
    if (output && same_file(*output, *options.model)) {
      return invalid_argument(std::string(flag) + " '" + output->string() + "' is the model '" +
                              options.model->string() +
                              "' itself; writing it would destroy the source model: give another file");
    }
  }
  if (options.output && options.export_onnx &&
      (same_file(*options.output, *options.export_onnx) ||
       options.output->lexically_normal() == options.export_onnx->lexically_normal())) {
    return invalid_argument("--output and --export-onnx name the same file '" + options.output->string() +
                            "': give two files");
  }
  return Status::ok();
}

Result<CompileOptions> parse_arguments(const std::vector<std::string>& args) {
  CompileOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&](const std::string& flag) -> Result<std::string> {
      if (i + 1 >= args.size()) return invalid_argument(flag + " needs a value");
      return args[++i];
    };
    GE_ASSIGN_OR_RETURN(bool shared, take_shared_option(args, i, kSharedGroups, options));
    if (shared) continue;
    if (arg == "--help" || arg == "-h") {
      options.help = true;
    } else if (arg == "--model") {
      GE_ASSIGN_OR_RETURN(std::string v, value(arg));
      options.model = v;
    } else if (arg == "--export-onnx") {
      GE_ASSIGN_OR_RETURN(std::string v, value(arg));
      if (v.empty()) return invalid_argument("--export-onnx expects a file to write the ONNX model to");
      options.export_onnx = v;
    } else if (arg == "--output" || arg == "-o") {
      GE_ASSIGN_OR_RETURN(std::string v, value(arg));
      options.output = v;
    } else if (arg == "--info") {
      GE_ASSIGN_OR_RETURN(std::string v, value(arg));
      options.info = v;
    } else if (arg == "--verify") {
      GE_ASSIGN_OR_RETURN(std::string v, value(arg));
      options.verify = v;
    } else if (arg == "--input-shape") {
      GE_ASSIGN_OR_RETURN(std::string v, value(arg));
      if (v.find_first_not_of("; ") == std::string::npos) {
        return invalid_argument(
            "--input-shape expects NAME=D0,D1,... (several separated by ';'), got an empty value '" + v + "'");
      }
      options.input_shapes.push_back(v);
    } else if (!arg.empty() && arg[0] != '-') {
      if (options.model)
        return invalid_argument("unexpected argument '" + arg + "': the model is already '" + options.model->string() + "'");
      options.model = arg;  // the model as a positional argument
    } else {
      return invalid_argument("unknown argument '" + arg + "'");
    }
  }
  if (options.help) return options;
  if (options.info && options.verify) return invalid_argument("give --info or --verify, not both");
  if (options.info || options.verify) {
    if (options.model || options.output || options.export_onnx)
      return invalid_argument("--info and --verify take no model, --output or --export-onnx");
    return options;
  }
  if (!options.model) return invalid_argument("--model is required");
  if (!options.output && !options.export_onnx) return invalid_argument("--output (or --export-onnx) is required");
  GE_RETURN_IF_ERROR(check_outputs_spare_the_model(options));
  return options;
}

int fail(const Status& status) { return tools::fail("ge-compile", status); }

double elapsed_ms(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

int run(int argc, char** argv) {
  Result<CompileOptions> parsed = parse_arguments(std::vector<std::string>(argv + 1, argv + argc));
  if (!parsed.is_ok()) {
    std::cerr << "ge-compile: " << parsed.status().message() << "\n" << usage();
    return 1;
  }
  const CompileOptions& options = *parsed;
  if (options.help) {
    std::cout << usage();
    return 0;
  }
  if (options.verbosity > 0) increase_verbosity(options.verbosity);

  if (options.info) {
    Result<LoadedModelFile> loaded = read_model_file(*options.info);
    if (!loaded.is_ok()) return fail(loaded.status());
    std::cout << describe_model_file(loaded->info);
    return 0;
  }

  PluginHost host;
  const auto plugins_start = std::chrono::steady_clock::now();
  if (Status status = load_plugins(host, options, default_registry(argv[0])); !status.is_ok()) {
    return fail(status);
  }
  if (!host.failures().empty()) {
    for (const Status& failure : host.failures()) std::cerr << "ge-compile: plugin failure: " << failure.to_string() << "\n";
    return 1;
  }

  const double plugins_ms = elapsed_ms(plugins_start);
  if (options.verify) {
    const auto load_start = std::chrono::steady_clock::now();
    SessionOptions load_options;
    load_options.threads = options.threads;
    load_options.memory_limit = options.memory_limit;
    load_options.backend = options.backend;
    load_options.precision = options.precision.value_or(Precision::kFp32);
    Result<std::unique_ptr<Session>> session = create_session_from_model_file(host, *options.verify, load_options);
    if (!session.is_ok()) return fail(session.status());
    if (options.precision && (*session)->requested_precision() != *options.precision) {
      return fail(invalid_argument("model file '" + options.verify->string() + "' was compiled with precision " +
                                   std::string(precision_name((*session)->requested_precision())) + ", not " +
                                   std::string(precision_name(*options.precision))));
    }
    std::cout << "loaded '" << options.verify->string() << "' for " << load_options.backend << ": "
              << (*session)->graph().node_count() << " nodes in " << elapsed_ms(load_start)
              << " ms (plugins loaded in " << plugins_ms << " ms)\n";
    return 0;
  }
  const auto compile_start = std::chrono::steady_clock::now();
  Result<Parser*> parser = host.parser_for(*options.model);
  if (!parser.is_ok()) return fail(parser.status());
  // One --input-shape is the parser's to take (a TorchScript archive stores no input shapes).
  ParseOptions parse_options;
  if (options.input_shapes.size() == 1) {
    Result<std::vector<InputShape>> shapes = parse_input_shapes(options.input_shapes[0]);
    if (!shapes.is_ok()) return fail(shapes.status().with_context("--input-shape"));
    parse_options.input_shapes = std::move(shapes).value();
  }
  Result<std::unique_ptr<Graph>> graph = (*parser)->parse_file_with(*options.model, parse_options);
  if (!graph.is_ok()) {
    // The shape's fault where the file parses without it (a corrupt archive is the file's).
    const bool file_parses = options.input_shapes.size() == 1 && (*parser)->parse_file(*options.model).is_ok();
    return fail(file_parses ? graph.status().with_context("--input-shape") : graph.status());
  }
  const bool gear_mode = options.input_shapes.size() > 1;
  std::unique_ptr<Graph> original = gear_mode ? (*graph)->clone() : nullptr;

  const SessionOptions session_options = options.session_options();
  // Compiled as a session would compile it, with no device touched: nothing is
  // allocated, no weight copied, no stream created (seed 001's offline compiler).
  Result<Compilation> compiled = compile(host, std::move(*graph), session_options);
  if (!compiled.is_ok()) return fail(compiled.status().with_context(options.model->string()));
  if (gear_mode && compiled->task_sink() != nullptr) {
    return fail(invalid_argument("--input-shape given " + std::to_string(options.input_shapes.size()) +
                                 " times, but the model's input shapes are static: dynamic gears need dynamic dims"));
  }

  if (options.export_onnx) {
    onnx_common::GraphExportOptions export_options;
    export_options.producer_name = "ge-compile";
    export_options.producer_version = GE_VERSION_STRING;
    export_options.doc_string = "'" + options.model->filename().string() + "' optimised by GE for backend " +
                                options.backend + " at -O" + std::to_string(options.passes.opt_level);
    export_options.metadata = {{"ge.backend", options.backend},
                               {"ge.opt_level", std::to_string(options.passes.opt_level)},
                               {"ge.source_model", options.model->filename().string()}};
    const Graph& optimised = compiled->graph();
    if (Status status = onnx_common::write_onnx_model(optimised, *options.export_onnx, export_options);
        !status.is_ok())
      return fail(status.with_context("--export-onnx"));
    std::cout << "exported the optimised graph of '" << options.model->string() << "' (" << optimised.node_count()
              << " nodes, " << options.backend << " -O" << options.passes.opt_level << ") to '"
              << options.export_onnx->string() << "'\n";
    if (!options.output) return 0;
  }

  ModelFileInfo info;
  info.backend = options.backend;
  info.opt_level = options.passes.opt_level;
  // What the kernels were prepared in: fp32 where the backend has no bf16 arithmetic.
  info.precision = compiled->precision();
  info.producer = "ge-compile " GE_VERSION_STRING;
  info.source_model = options.model->filename().string();
  info.plugins = required_plugins(host, options.backend);
  std::optional<CompiledPlans> plans;
  if (const CompiledModel* sink = compiled->task_sink()) plans = sink->plans();
  std::vector<std::string> gears;
  for (const std::string& spec : gear_mode ? options.input_shapes : std::vector<std::string>{}) {
    std::unique_ptr<Graph> gear_graph = original->clone();
    const std::string where = "--input-shape '" + spec + "'";
    if (Status status = apply_input_shapes(*gear_graph, spec); !status.is_ok()) return fail(status.with_context(where));
    std::string still_dynamic;  // an input this gear left with dynamic dims, for the message
    for (const Value* input : gear_graph->runtime_inputs()) {
      if (still_dynamic.empty() && input->desc().kind == ValueKind::kTensor && !input->desc().is_static())
        still_dynamic = "'" + input->name() + "' " + input->desc().to_string();
    }
    Result<Compilation> gear = compile(host, std::move(gear_graph), session_options);
    if (!gear.is_ok()) return fail(gear.status().with_context(where));
    const CompiledModel* sink = gear->task_sink();
    if (sink == nullptr && !still_dynamic.empty()) {
      return fail(invalid_argument(where + ": input " + still_dynamic +
                                   " still has dynamic dims; each --input-shape of a gear gives the dims of every "
                                   "input with dynamic dims"));
    }
    if (sink == nullptr) {
      return fail(invalid_argument(where + ": the model does not compile to static plans for these shapes (control "
                                           "flow or data-dependent shapes); it is specialised at run time instead"));
    }
    const CompiledPlans gear_plans = sink->plans();
    Result<std::string> bytes = serialize_model_file(gear->graph(), info, &gear_plans, gear->memory_statistics());
    if (!bytes.is_ok()) return fail(bytes.status().with_context(where));
    gears.push_back(std::move(bytes).value());
    std::cout << "dynamic gear " << gears.size() << " (" << spec << "): feature map " << gear_plans.feature_map_bytes
              << " bytes, " << gears.back().size() << " bytes in the file\n";
  }
  if (Status status = write_model_file(*options.output, compiled->graph(), info, plans ? &*plans : nullptr,
                                       compiled->memory_statistics(), gears);
      !status.is_ok())
    return fail(status);
  std::error_code error;
  const uintmax_t size = fs::file_size(*options.output, error);
  std::cout << "compiled '" << options.model->string() << "' for " << options.backend << " -O" << options.passes.opt_level
            << " into '" << options.output->string() << "' (" << size << " bytes) in " << elapsed_ms(compile_start)
            << " ms (plugins loaded in " << plugins_ms << " ms)\n";
  if (options.precision) {
    std::cout << "precision: " << precision_name(info.precision);
    if (info.precision != *options.precision) {
      std::cout << " (" << precision_name(*options.precision) << " asked; backend " << options.backend << " has none)";
    }
    std::cout << "\n";
  }
  if (plans) {
    std::cout << "execution plans: " << plans->streams.stream_count << " stream(s), " << plans->streams.events.size()
              << " event(s), feature map " << plans->feature_map_bytes << " bytes"
              << (plans->has_memory_plan ? " (memory plan by " + plans->assigner + ")" : std::string(" (first-fit)"))
              << "\n";
  } else {
    std::cout << "execution: per op (no task-sink plans: dynamic shapes, control flow or sequences)"
              << (gears.empty() ? "" : "; dynamic gears hold static plans for their shapes") << "\n";
  }
  return 0;
}

}  // namespace
}  // namespace ge::tools

int main(int argc, char** argv) {
  try {
    return ge::tools::run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "ge-compile: internal error: unexpected exception: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "ge-compile: internal error: unexpected non-standard exception\n";
  }
  return 2;
}
