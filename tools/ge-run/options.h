#pragma once
/// ge-run's command line: what the user asked for, parsed strictly (an unknown option, a
/// missing or malformed value is an error naming the option, never ignored).

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ge/memory_plan.h"
#include "ge/pass_manager.h"
#include "ge/precision.h"
#include "ge/status.h"
#include "ge/input_shapes.h"
#include "session_flags.h"

namespace ge::tools {

/// One `--input` binding: `NAME=SOURCE` or a bare `SOURCE` bound by position.
struct InputSpec {
  std::optional<std::string> name;  ///< absent: bind to the next runtime input in order
  std::string source;               ///< a .npy or .pb file, or the literal "random"
  bool is_random() const { return source == "random"; }
};

/// ge-run's options: the ones the tools share (session_flags.h: --plugins, --backend, -v,
/// -O and the pass options, --threads, --memory-limit, --memory-assigner, --streams,
/// --stream-memory-ratio, --precision), and its own.
struct RunOptions : SessionFlags {
  std::optional<std::filesystem::path> model;       ///< the one positional argument
  std::vector<InputSpec> inputs;
  std::optional<std::filesystem::path> output_dir;
  /// The compile-only options given (-O, --passes, --dump-graph, ...), in order: a .gem
  /// model is compiled already, and refuses them.
  std::vector<std::string> compile_options;
  std::optional<int> repeat;  ///< --repeat N (N >= 1)
  std::optional<double> duration_seconds;  ///< --duration S (S > 0)
  bool shrink = false;      ///< --shrink: drop the host copies of weights once on the device
  bool list_plugins = false;
  std::optional<std::filesystem::path> expected_dir;
  double rtol = 1e-5;
  double atol = 1e-5;
  std::vector<InputShape> input_shapes;  ///< --input-shape, in order
  size_t specialisations = 8;  ///< --specialisations: shape-keyed compilations kept (0: per op)
  int specialise_after = 2;    ///< --specialise-after: a signature is compiled on its Kth run
  size_t super_kernel_max_bytes = 0;  ///< --super-kernels
  ExecutionOrder memory_order = ExecutionOrder::kStable;  ///< --memory-order
  std::optional<std::filesystem::path> profile;           ///< --profile FILE (Chrome trace JSON)
  std::optional<std::filesystem::path> dump_tensors;      ///< --dump-tensors DIR (tensor_dump.h)
  /// --check-precision: also run the model in float32 and report each output's error.
  bool check_precision = false;
  /// --autofusion: "off" (the pass disabled), "interpret", "codegen", or "" (not given).
  std::string autofusion;
  bool help = false;
};

/// Parses the arguments after the program name. Accepts `--opt VALUE` and `--opt=VALUE`,
/// `-O2` and `-O 2`, `-v`/`-vv`/`--verbose`, and `--` before a model path starting with
/// '-'. A model is required unless --list-plugins or --help is given. Errors are
/// kInvalidArgument naming the offending argument.
Result<RunOptions> parse_options(const std::vector<std::string>& args);

/// The usage text printed by --help and after an argument error.
std::string usage();

}  // namespace ge::tools
