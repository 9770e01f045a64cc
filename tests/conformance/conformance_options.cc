#include "conformance_options.h"

#include <charconv>

namespace ge::conformance {
namespace {

Result<int> parse_int(const std::string& flag, const std::string& text, int min, int max) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    return invalid_argument(flag + " expects an integer from " + std::to_string(min) + " to " + std::to_string(max) +
                            ", got '" + text + "'");
  }
  return value;
}

Result<double> parse_seconds(const std::string& flag, const std::string& text) {
  try {
    size_t used = 0;
    const double value = std::stod(text, &used);
    if (used == text.size() && value > 0 && value <= 24 * 3600) return value;
  } catch (const std::exception&) {
    // Reported below with the flag's name.
  }
  return invalid_argument(flag + " expects a positive number of seconds, got '" + text + "'");
}

}  // namespace

const std::vector<std::string>& default_categories() {
  static const std::vector<std::string> categories = {"node", "simple", "pytorch-converted", "pytorch-operator"};
  return categories;
}

Result<ConformanceOptions> parse_options(const std::vector<std::string>& args) {
  ConformanceOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    // Flags taking a value accept it as the next argument.
    auto value = [&]() -> Result<std::string> {
      if (i + 1 >= args.size()) return invalid_argument(arg + " expects a value");
      return args[++i];
    };
    if (arg == "-h" || arg == "--help") {
      options.help = true;
    } else if (arg == "--category") {
      GE_ASSIGN_OR_RETURN(std::string category, value());
      options.categories.push_back(category);
    } else if (arg == "--filter") {
      GE_ASSIGN_OR_RETURN(std::string filter, value());
      options.filters.push_back(filter);
    } else if (arg == "-O" || (arg.size() > 2 && arg.rfind("-O", 0) == 0)) {
      std::string text;
      if (arg == "-O") {
        GE_ASSIGN_OR_RETURN(text, value());
      } else {
        text = arg.substr(2);
      }
      GE_ASSIGN_OR_RETURN(int level, parse_int("-O", text, 0, 3));
      options.opt_levels.push_back(level);
    } else if (arg == "--expectations") {
      GE_ASSIGN_OR_RETURN(std::string path, value());
      options.expectations = path;
    } else if (arg == "--update-expectations") {
      GE_ASSIGN_OR_RETURN(std::string path, value());
      options.update_expectations = path;
    } else if (arg == "--list-failures") {
      options.list_failures = true;
    } else if (arg == "-j" || (arg.size() > 2 && arg.rfind("-j", 0) == 0)) {
      std::string text;
      if (arg == "-j") {
        GE_ASSIGN_OR_RETURN(text, value());
      } else {
        text = arg.substr(2);
      }
      GE_ASSIGN_OR_RETURN(options.jobs, parse_int("-j", text, 1, 256));
    } else if (arg == "--timeout") {
      GE_ASSIGN_OR_RETURN(std::string text, value());
      GE_ASSIGN_OR_RETURN(options.timeout_seconds, parse_seconds("--timeout", text));
    } else if (arg == "--data-dir") {
      GE_ASSIGN_OR_RETURN(std::string path, value());
      options.data_dir = path;
    } else if (arg == "--plugins") {
      GE_ASSIGN_OR_RETURN(std::string path, value());
      options.plugin_files.emplace_back(path);
    } else if (arg == "--opset") {
      GE_ASSIGN_OR_RETURN(std::string text, value());
      GE_ASSIGN_OR_RETURN(int opset, parse_int("--opset", text, 1, 1000));
      options.opset = opset;
    } else if (arg == "--no-fork") {
      options.no_fork = true;
    } else if (arg == "-v" || arg == "--verbose") {
      ++options.verbosity;
    } else if (arg.size() > 2 && arg.find_first_not_of('v', 1) == std::string::npos && arg[0] == '-') {
      options.verbosity += static_cast<int>(arg.size()) - 1;  // -vv, -vvv
    } else {
      return invalid_argument("unknown argument '" + arg + "'");
    }
  }
  if (options.opt_levels.empty()) options.opt_levels.push_back(2);
  if (options.categories.empty()) options.categories = default_categories();
  return options;
}

std::string usage() {
  return R"(usage: ge-conformance [options]

Runs the ONNX backend test cases (libonnx-testdata) through the ge-run path: the ONNX
parser, the pass pipeline and the cpu backend, each case in a forked child process.
Prints per category a per-op table and "<category>: N passed, M failed".

options:
  --category NAME            node, simple, pytorch-converted, pytorch-operator (repeatable;
                             default: all four)
  --filter SUBSTRING         only cases whose "<category>/<case>" contains it (repeatable)
  -O N                       optimisation level 0-3 (default 2; repeatable: each level is run)
  --expectations FILE        expected failures; exit 1 when a case not listed fails
  --update-expectations FILE rewrite FILE with this run's failures and their reasons
                             (entries of cases this run did not run are kept)
  --list-failures            print every failing case with its reason
  -j N                       cases run at a time (default 2)
  --timeout S                per-case limit in seconds (default 20)
  --data-dir DIR             test data (default /usr/share/libonnx-testdata/data)
  --plugins FILE             plugin registry (repeatable); then GE_PLUGINS, then
                             ge_plugins.toml beside the executable
  --opset N                  the opset-bump suite: run each case with its ai.onnx opset import
                             raised to N, if none of its ops changed semantics in between
                             (the others are counted as not bumped)
  --no-fork                  run cases in this process, one at a time (for a debugger)
  -v                         one line per case; -vv and more also raise GE's log level
  -h, --help                 this text

exit status: 0 no unexpected failure, 1 a case not listed failed or bad usage, 2 internal error
)";
}

}  // namespace ge::conformance
