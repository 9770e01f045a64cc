/// ge-opt: runs passes on a graph and prints the result as text IR, for writing and
/// testing passes (MLIR's mlir-opt is the model). The input is text IR (a .ge file, or
/// stdin) or a model a parser plugin reads (.onnx); --passes a,b,c runs exactly those,
/// -O N the pipeline of that level; with neither the graph is only inferred and printed.
/// --split-input-file treats each part between lines "// -----" as its own input, and
/// prints each result, or "// error (CODE): MESSAGE" for a part that fails, between the
/// same lines: the form the pass tests (tests/passes/*.ge) are written in.
/// Exit status: 0 success, 1 user error (or any part failed), 2 internal error.

#include <algorithm>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "ge/graph_text.h"
#include "ge/logging.h"
#include "ge/pass_manager.h"
#include "ge/pass_order.h"
#include "ge/pass_phase.h"
#include "ge/plugin_host.h"
#include "ge/status.h"
#include "option_values.h"
#include "session_flags.h"
#include "tool_driver.h"

namespace ge::tools {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kTool = "ge-opt";
constexpr std::string_view kSplitMarker = "// -----";

/// The options the tools share (session_flags.h: --plugins, --backend, -v, -O and the pass
/// options) and ge-opt's own.
struct OptOptions : SessionFlags {
  std::optional<fs::path> input;  // absent or "-": stdin (text IR)
  std::optional<fs::path> output;
  bool split_input_file = false;
  bool list_passes = false;
  std::optional<int64_t> max_constant_elements;
  bool help = false;
};

std::string usage() {
  return std::string("usage: ge-opt [INPUT.ge|INPUT.onnx|-] [--passes a,b,c] [-O N] [--disable-pass NAME]...\n"
         "              [--backend cpu|npu_sim] [--verify-each] [--check-passes [--check-rtol R] [--check-atol A]]\n"
         "              [--split-input-file]\n"
         "              [--elide-constants N] [-o OUT.ge] [--plugins FILE]... [--list-passes] [-v]\n"
         "Reads a graph (text IR from a file or stdin; a model file any parser plugin claims by its\n"
         "extension, such as .onnx), infers its shapes, runs passes and prints the graph as text IR.\n"
         "  --passes a,b,c      exactly these passes, in this order (--list-passes names them)\n"
         "  -O N                the pipeline of level N (0-3) for --backend, as ge-run -O N runs it;\n"
         "                      with --passes, the level the passes see (default 2). Neither: no\n"
         "                      passes, the graph is only inferred and printed\n"
         "  --verify-each       verify the graph after every pass\n"
         "  --check-passes      run the graph on the cpu backend before the passes and after each one\n"
         "                      that changes it; a pass that changes the outputs beyond |after - before|\n"
         "                      <= A + R * |before| (default 1e-5, 1e-4) is an error naming it\n"
         "  --split-input-file  each part of the input between lines '// -----' is a graph of its own;\n"
         "                      the results are printed between the same lines, a failing part as\n"
         "                      '// error (CODE): MESSAGE' (exit status 1 when any part failed)\n"
         "  --elide-constants N print constants of more than N elements as a checksum\n"
         "Options shared with ge-run and ge-compile (one table, tools/common/session_flags.h):\n") +
         shared_options_help(kPluginFlags | kPassFlags);
}

Result<OptOptions> parse_arguments(const std::vector<std::string>& args) {
  OptOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&](const std::string& flag) -> Result<std::string> {
      if (i + 1 >= args.size()) return invalid_argument(flag + " needs a value");
      return args[++i];
    };
    // The options the tools share: one table (session_flags.h).
    GE_ASSIGN_OR_RETURN(bool shared, take_shared_option(args, i, kPluginFlags | kPassFlags, options));
    if (shared) continue;
    if (arg == "--help" || arg == "-h") {
      options.help = true;
    } else if (arg == "-o") {
      GE_ASSIGN_OR_RETURN(std::string file, value(arg));
      options.output = fs::path(file);
    } else if (arg == "--elide-constants") {
      GE_ASSIGN_OR_RETURN(std::string text, value(arg));
      GE_ASSIGN_OR_RETURN(int count, parse_int_value(arg, text, 0, 1 << 30));
      options.max_constant_elements = count;
    } else if (arg == "--split-input-file") {
      options.split_input_file = true;
    } else if (arg == "--list-passes") {
      options.list_passes = true;
    } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
      return invalid_argument("unknown option '" + arg + "'");
    } else if (options.input) {
      return invalid_argument("one input only: '" + options.input->string() + "' and '" + arg + "'");
    } else {
      options.input = fs::path(arg);
    }
  }
  if (options.split_input_file && options.input && options.input->extension() != ".ge" && *options.input != "-") {
    return invalid_argument("--split-input-file reads text IR (a .ge file or stdin), not '" +
                            options.input->string() + "'");
  }
  return options;
}

Result<std::string> read_text(const std::optional<fs::path>& input) {
  if (!input || *input == "-") return std::string(std::istreambuf_iterator<char>(std::cin), {});
  std::ifstream file(*input, std::ios::binary);
  if (!file) return not_found("cannot open '" + input->string() + "'");
  return std::string(std::istreambuf_iterator<char>(file), {});
}

/// The parts of `text` between lines that are "// -----" (trailing blanks allowed).
std::vector<std::string> split_parts(const std::string& text) {
  std::vector<std::string> parts(1);
  std::stringstream stream(text);
  for (std::string line; std::getline(stream, line);) {
    const size_t end = line.find_last_not_of(" \t\r");
    if (end != std::string::npos && std::string_view(line).substr(0, end + 1) == kSplitMarker) {
      parts.emplace_back();
    } else {
      parts.back() += line + "\n";
    }
  }
  return parts;
}

class Optimiser {
 public:
  Optimiser(const PluginHost& host, const OptOptions& options)
      : host_(host), options_(options), ops_(host.make_op_registry()) {}

  Result<std::string> run_text(std::string_view text) const {
    GE_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, parse_graph(text));
    return run(*graph);
  }

  Result<std::string> run_model(const fs::path& model) const {
    GE_ASSIGN_OR_RETURN(Parser * parser, host_.parser_for(model));
    GE_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, parser->parse_file(model));
    return run(*graph);
  }

 private:
  Result<std::string> run(Graph& graph) const {
    GE_RETURN_IF_ERROR(ops_.infer_graph(graph).with_context("inferring the input"));
    if (options_.passes.explicit_passes || options_.was_given("-O")) {
      PassManagerOptions pass_options;
      pass_options = options_.passes;
      GE_ASSIGN_OR_RETURN(Backend * target, host_.backend(options_.backend));
      // As a session does: the cpu backend is the reference that constant folding
      // evaluates nodes on and that --check-passes runs the model on.
      Result<Backend*> reference = host_.backend("cpu");
      if (options_.passes.check_passes && !reference.is_ok()) return reference.status().with_context("--check-passes");
      PassManager manager(host_.passes(), ops_, pass_options);
      GE_RETURN_IF_ERROR(manager.run(graph, target, reference.is_ok() ? *reference : nullptr));
    }
    PrintOptions print;
    print.max_constant_elements = options_.max_constant_elements;
    return print_graph(graph, print);
  }

  const PluginHost& host_;
  const OptOptions& options_;
  OpRegistry ops_;
};

std::string error_line(const Status& status) {
  return std::string("// error (") + status_code_name(status.code()) + "): " + status.message() + "\n";
}

int run(int argc, char** argv) {
  Result<OptOptions> parsed = parse_arguments(std::vector<std::string>(argv + 1, argv + argc));
  if (!parsed.is_ok()) {
    std::cerr << kTool << ": " << parsed.status().message() << "\n" << usage();
    return kExitUserError;
  }
  const OptOptions& options = *parsed;
  if (options.help) {
    std::cout << usage();
    return kExitOk;
  }
  if (options.verbosity > 0) increase_verbosity(options.verbosity);

  PluginHost host;
  if (Status status = load_plugins(host, options, default_registry(argv[0])); !status.is_ok()) {
    return fail(kTool, status);
  }
  for (const Status& failure : host.failures()) std::cerr << kTool << ": plugin failure: " << failure.to_string() << "\n";
  if (options.list_passes) {
    Result<std::vector<const PassInfo*>> ordered = order_passes(host.passes());
    if (!ordered.is_ok()) return fail(kTool, ordered.status());
    for (const PassInfo* pass : *ordered) {
      std::cout << pass->name << "  -O" << pass->min_opt_level << "  " << pass_phase_name(pass->phase) << "\n";
    }
    return kExitOk;
  }

  const Optimiser optimiser(host, options);
  std::string printed;
  int status_code = kExitOk;
  const bool text_input = !options.input || *options.input == "-" || options.input->extension() == ".ge";
  if (!text_input) {
    Result<std::string> result = optimiser.run_model(*options.input);
    if (!result.is_ok()) return fail(kTool, result.status().with_context("'" + options.input->string() + "'"));
    printed = *result;
  } else {
    Result<std::string> text = read_text(options.input);
    if (!text.is_ok()) return fail(kTool, text.status());
    if (!options.split_input_file) {
      Result<std::string> result = optimiser.run_text(*text);
      if (!result.is_ok()) return fail(kTool, result.status());
      printed = *result;
    } else {
      const std::vector<std::string> parts = split_parts(*text);
      for (size_t i = 0; i < parts.size(); ++i) {
        if (i > 0) printed += std::string(kSplitMarker) + "\n";
        Result<std::string> result = optimiser.run_text(parts[i]);
        if (result.is_ok()) {
          printed += *result;
          continue;
        }
        printed += error_line(result.status());
        status_code = result.status().code() == StatusCode::kInternal ? kExitInternalError
                                                                       : std::max(status_code, kExitUserError);
      }
    }
  }
  if (!options.output) {
    std::cout << printed;
    return status_code;
  }
  std::ofstream file(*options.output, std::ios::binary);
  if (!(file << printed) || !file.flush()) {
    return fail(kTool, invalid_argument("cannot write '" + options.output->string() + "'"));
  }
  return status_code;
}

}  // namespace
}  // namespace ge::tools

int main(int argc, char** argv) {
  try {
    return ge::tools::run(argc, argv);
  } catch (const std::exception& error) {
    std::cerr << "ge-opt: internal error: " << error.what() << "\n";
    return ge::tools::kExitInternalError;
  }
}
