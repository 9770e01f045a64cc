#include "options.h"

#include <charconv>
#include <cmath>
#include <system_error>
#include <span>
#include <string_view>

#include "ge/memory_limit.h"
#include "option_values.h"

namespace ge::tools {
namespace {

/// Options that take a value (given as the next argument or after '=').
/// The options ge-run shares with the other tools (session_flags.h).
constexpr uint32_t kSharedGroups = kPluginFlags | kPassFlags | kDumpFlags | kCompileFlags;

/// ge-run's own options that take a value (given as the next argument or after '=').
constexpr std::string_view kValueOptions[] = {
    "--input", "--output-dir", "--repeat",       "--expected-dir", "--rtol",          "--atol",          "--memory-order",
    "--profile", "--specialisations", "--specialise-after", "--duration", "--autofusion",  "--dump-tensors", "--super-kernels",
    "--input-shape",
};
// Its own options that shape compilation: a compiled .gem has run its passes and stored its plan.
constexpr std::string_view kCompileOptions[] = {"--memory-order", "--super-kernels", "--input-shape"};

/// Its own options that take none.
constexpr std::string_view kFlagOptions[] = {"--list-plugins", "--help", "--shrink", "--check-precision"};

bool contains(std::span<const std::string_view> list, std::string_view name) {
  for (std::string_view entry : list) {
    if (entry == name) return true;
  }
  return false;
}

Result<InputSpec> parse_input(const std::string& text) {
  InputSpec spec;
  const size_t eq = text.find('=');
  if (eq == std::string::npos) {
    spec.source = text;
  } else {
    spec.name = text.substr(0, eq);
    spec.source = text.substr(eq + 1);
    if (spec.name->empty()) return invalid_argument("--input '" + text + "': empty input name before '='");
  }
  if (spec.source.empty()) {
    return invalid_argument("--input '" + text + "': expected a .npy, .pb or .npz file or 'random' after '='");
  }
  return spec;
}

Status apply_value(RunOptions& options, const std::string& option, const std::string& value, bool& tolerance_given) {
  if (option == "--input") {
    GE_ASSIGN_OR_RETURN(InputSpec spec, parse_input(value));
    options.inputs.push_back(std::move(spec));
  } else if (option == "--output-dir") {
    if (value.empty()) return invalid_argument("--output-dir expects a directory");
    options.output_dir = value;
  } else if (option == "--repeat") {
    GE_ASSIGN_OR_RETURN(options.repeat, parse_int_value(option, value, 1, 1000000000));
  } else if (option == "--duration") {
    double seconds = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (error != std::errc() || end != value.data() + value.size() || !(seconds > 0) || !std::isfinite(seconds)) {
      return invalid_argument("--duration expects a positive number of seconds, got '" + value + "'");
    }
    options.duration_seconds = seconds;
  } else if (option == "--autofusion") {
    if (value != "off" && value != "interpret" && value != "codegen") {
      return invalid_argument("--autofusion expects off, interpret or codegen, got '" + value + "'");
    }
    if (value == "off") options.passes.disabled_passes.insert("autofusion");
    options.autofusion = value;
  } else if (option == "--expected-dir") {
    if (value.empty()) return invalid_argument("--expected-dir expects a directory");
    options.expected_dir = value;
  } else if (option == "--rtol") {
    GE_ASSIGN_OR_RETURN(options.rtol, parse_non_negative(option, value));
    tolerance_given = true;
  } else if (option == "--atol") {
    GE_ASSIGN_OR_RETURN(options.atol, parse_non_negative(option, value));
    tolerance_given = true;
  } else if (option == "--super-kernels") {
    GE_ASSIGN_OR_RETURN(int bytes, parse_int_value(option, value, 0, 1 << 30));
    options.super_kernel_max_bytes = static_cast<size_t>(bytes);
  } else if (option == "--input-shape") {
    GE_ASSIGN_OR_RETURN(std::vector<InputShape> shapes, parse_input_shapes(value));
    options.input_shapes.insert(options.input_shapes.end(), shapes.begin(), shapes.end());
  } else if (option == "--specialisations") {
    GE_ASSIGN_OR_RETURN(int cached, parse_int_value(option, value, 0, 4096));
    options.specialisations = static_cast<size_t>(cached);
  } else if (option == "--specialise-after") {
    GE_ASSIGN_OR_RETURN(options.specialise_after, parse_int_value(option, value, 1, 1 << 20));
  } else if (option == "--memory-order") {
    if (value == "stable") {
      options.memory_order = ExecutionOrder::kStable;
    } else if (value == "priority") {
      options.memory_order = ExecutionOrder::kMemoryPriority;
    } else {
      return invalid_argument("--memory-order expects 'stable' or 'priority', got '" + value + "'");
    }
  } else if (option == "--profile") {
    if (value.empty()) return invalid_argument("--profile expects a file to write the trace to");
    options.profile = value;
  } else if (option == "--dump-tensors") {
    if (value.empty()) return invalid_argument("--dump-tensors expects a directory");
    options.dump_tensors = value;
  }
  return Status::ok();
}

}  // namespace

Result<RunOptions> parse_options(const std::vector<std::string>& args) {
  RunOptions options;
  bool tolerance_given = false;
  bool options_ended = false;

  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (options_ended || arg.empty() || arg[0] != '-' || arg == "-") {
      if (options.model) {
        return invalid_argument("unexpected argument '" + arg + "': the model is already '" + options.model->string() +
                                "' (inputs go after --input)");
      }
      options.model = arg;
      continue;
    }
    if (arg == "--") {
      options_ended = true;
      continue;
    }
    if (arg == "-h") {
      options.help = true;
      continue;
    }
    // The options the tools share: one table (session_flags.h).
    GE_ASSIGN_OR_RETURN(bool shared, take_shared_option(args, i, kSharedGroups, options));
    if (shared) {
      const SharedOption* option = find_shared_option(options.given.back(), kSharedGroups);
      if (option != nullptr && option->compile_only) options.compile_options.push_back(options.given.back());
      continue;
    }
    if (arg.rfind("--", 0) != 0) return invalid_argument("unknown option '" + arg + "'");

    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    std::optional<std::string> attached;
    if (eq != std::string::npos) attached = arg.substr(eq + 1);

    if (contains(kFlagOptions, name)) {
      if (attached) return invalid_argument("option " + name + " takes no value, got '" + arg + "'");
      if (name == "--list-plugins") options.list_plugins = true;
      if (name == "--help") options.help = true;
      if (name == "--shrink") options.shrink = true;
      if (name == "--check-precision") options.check_precision = true;
      if (contains(kCompileOptions, name)) options.compile_options.push_back(name);
      continue;
    }
    if (!contains(kValueOptions, name)) {
      return invalid_argument("unknown option '" + name + "' (see --help)");
    }
    GE_ASSIGN_OR_RETURN(std::string value, shared_option_value(args, i, name, attached));
    GE_RETURN_IF_ERROR(apply_value(options, name, value, tolerance_given));
    if (contains(kCompileOptions, name)) options.compile_options.push_back(name);
  }

  if (options.help) return options;
  if (tolerance_given && !options.expected_dir) {
    return invalid_argument("--rtol/--atol apply only with --expected-dir DIR");
  }
  if ((options.was_given("--check-rtol") || options.was_given("--check-atol")) && !options.passes.check_passes) {
    return invalid_argument("--check-rtol/--check-atol apply only with --check-passes");
  }
  if (options.check_precision && options.precision.value_or(Precision::kFp32) == Precision::kFp32) {
    return invalid_argument(
        "--check-precision compares a reduced precision with float32: give --precision bf16 or "
        "--precision mixed");
  }
  if (!options.passes.dump_print.max_constant_elements && !options.passes.dump_dir) {
    return invalid_argument("--dump-graph-constants applies only with --dump-graph DIR");
  }
  if (!options.model && !options.list_plugins) {
    return invalid_argument("missing MODEL argument (e.g. ge-run model.onnx --input x=input.npy)");
  }
  return options;
}

std::string usage() {
  static_assert(kDumpMaxConstantElements == 32, "update --dump-graph in the usage text");
  return R"(usage: ge-run [--plugins FILE]... MODEL [options]
       ge-run [--plugins FILE]... --list-plugins

Compiles MODEL with GE's plugins and runs it once (or --repeat N times).

Plugins:
  --plugins FILE          plugin registry (TOML) to load; repeatable. Also read: every
                          file in GE_PLUGINS (colon-separated), then ge_plugins.toml
                          beside the ge-run executable
  --list-plugins          print the registries, libraries and components, then exit
Inputs and outputs:
  --input NAME=SOURCE     bind model input NAME; SOURCE is a .npy file, a .pb ONNX
                          TensorProto (SequenceProto, OptionalProto for sequence and
                          optional inputs; bfloat16 may be stored as uint16), the array
                          NAME (or the only array) of a .npz archive, or 'random'
                          (fixed seed; needs a static shape)
  --input SOURCE          bind the next model input in declaration order; a .npz
                          binds each of its arrays to the input of that name
                          (numpy.savez's arr_K: the K-th input)
  --output-dir DIR        write outputs as DIR/output_K.pb, as ONNX test data stores
                          them (TensorProto, SequenceProto, OptionalProto; bfloat16 as
                          uint16)
  --expected-dir DIR      compare outputs with DIR/output_K.pb; exit 1 on mismatch
  --rtol X, --atol Y      tolerances for --expected-dir (default 1e-5 each):
                          |got - expected| <= atol + rtol * |expected|
Compilation (a compiled .gem model refuses these, --backend and --threads aside):
  --backend NAME          backend to run on (default cpu; a .gem: the one it was
                          compiled for)
  -O N                    optimisation level 0..3 (default 2)
  --passes a,b,...        run exactly these passes, in this order
  --disable-pass NAME     leave a pass out of the pipeline; repeatable
  --autofusion MODE       off, interpret or codegen (default): how the autofusion
                          pass (-O3) runs its fused groups: generated code compiled
                          online (cached under $XDG_CACHE_HOME/ge/autofuse, or
                          GE_AUTOFUSE_CACHE_DIR) or the loop-IR interpreter
  --dump-graph DIR        write the graph (text IR and DOT) before/after each pass;
                          constants over 32 elements print as dtype, shape and an
                          XXH3-64 checksum (such a dump does not parse back)
  --dump-graph-constants  with --dump-graph: print every constant in full
  --verify-each           verify the graph after every pass
  --check-passes          run the model on the cpu backend before the passes and after
                          each pass that changes the graph (on the --input data, or
                          seeded random data); fail naming the first pass whose outputs
                          differ: |after - before| > check-atol + check-rtol * |before|
  --check-rtol X, --check-atol Y
                          tolerances for --check-passes (default 1e-4 and 1e-5)
Precision (--precision also applies to a .gem: it must be the one it was compiled with):
  --precision P           fp32 (default), bf16 or mixed: bf16 computes the Conv,
                          ConvTranspose, MatMul and Gemm of float32 tensors in
                          bfloat16 (float32 accumulation and output); mixed keeps
                          products of two activations and heavy ops writing a graph
                          output in float32. On a CPU without bfloat16 arithmetic it
                          says so once and runs float32. A .gem runs in the precision
                          it was compiled with (ge-compile --precision); another one
                          given here is an error. -v lists the nodes that ran in
                          each precision (from their kernels' names)
  --check-precision       with --precision bf16|mixed (not a .gem): also compile and
                          run the model in float32 on the same inputs and print, per
                          output, the max absolute error, the max relative error
                          |x - x32| / max(|x32|, 1e-3 * max |x32|), the max absolute
                          error over max |x32|, and in how many rows the argmax of the
                          last axis agrees (top-1); NaN or inf where float32 is finite
                          is flagged NON-FINITE; exit 0 (a report). With
                          --check-passes the passes are checked in float32, the loaded
                          model to 3e-2 of each output's scale
Memory (static-shape graphs run from one planned arena):
  --threads N             threads each heavy kernel (convolution, matmul) may use
                          (default: the machine's cores; tiny ops stay on one)
  --memory-assigner NAME  plan with this memory-assigner plugin (repeatable; the
                          smallest valid plan wins; default: every loaded one)
  --memory-order ORDER    'stable' (default) or 'priority': an execution order that
                          lowers the peak of live memory
  --streams N             put independent branches on up to N streams (default 1)
  --stream-memory-ratio R the streams' feature map may be at most R times one stream's
                          (default 1.1); over it buffers reuse bytes in order, with
                          events between the streams (0: no limit, branches side by side)
  --super-kernels BYTES   launch runs of consecutive kernels whose nodes write at most
                          BYTES each as one super kernel (default 0: off)
  --input-shape NAME:D0,D1,...
                          fix an input's dims (NAME=DTYPE[D0,D1,...] also its dtype; -1
                          or ? keeps a dim dynamic; ';' separates inputs; repeatable):
                          a model with dynamic dims compiles static, and a TorchScript
                          archive (which stores no input shapes) learns them
  --specialisations N     a model with dynamic input dims is compiled per input-shape
                          signature; keep up to N of them (default 8; 0: run it per op)
  --specialise-after K    compile a signature on its Kth run (default 2); until then it
                          runs per op on plans that share the kernels prepared for the
                          same node shapes (a decode loop compiles nothing per step)
  --memory-limit BYTES    most memory the session may hold (suffixes K, M, G, T:
                          e.g. 4G, 512M; default: the machine's physical memory); a
                          weight, prepacked copy, value, run or plan that needs
                          more fails naming it
  --shrink                once the weights are on a device the host cannot address
                          (npu_sim), drop their host copies (GE's Shrink); no effect
                          on cpu, whose kernels read the weights in place
Running:
  --repeat N              run N times and print the latency: median, p90, p99, min
                          and max (in constant memory however many runs)
  --duration S            run for S seconds (with --repeat: whichever ends first); on
                          a terminal, runs past a second show a progress line
  --dump-tensors DIR      before the runs, run once more with every intermediate
                          value of the compiled graph as an output and write each as
                          DIR/NAME.pb (ONNX TensorProto, plain layout; name sanitised)
                          plus DIR/index.tsv (value, file, dtype, shape, format, node,
                          op), to bisect against another engine. Values the passes
                          fused away at -O2/-O3 do not exist and are absent (-O0 keeps
                          them all); subgraph bodies are not dumped
  --profile FILE          write a Chrome trace (JSON; open in ui.perfetto.dev or
                          chrome://tracing): the compile stages, then every task of
                          every stream of the runs (wall time; simulated on npu_sim);
                          a kernel's event names its node (args.node)
  -v, -vv                 more logging; -v also prints per-pass timings and, after the
                          runs, the device time per op type (kernel, total, per run,
                          share, tasks), the ten slowest nodes and the operations
                          per second of the convolutions and matmuls (bench/peak
                          measures the core's peak); -vv adds the pattern-fusion
                          rejections
  -h, --help              print this help

Exit status: 0 success, 1 user error or output mismatch, 2 internal error.
)";
}

}  // namespace ge::tools
