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

namespace ge::tools {

/// One `--input` binding: `NAME=SOURCE` or a bare `SOURCE` bound by position.
struct InputSpec {
  std::optional<std::string> name;  ///< absent: bind to the next runtime input in order
  std::string source;               ///< a .npy or .pb file, or the literal "random"
  bool is_random() const { return source == "random"; }
};

struct RunOptions {
  std::vector<std::filesystem::path> plugin_files;  ///< --plugins, in order
  std::optional<std::filesystem::path> model;       ///< the one positional argument
  std::vector<InputSpec> inputs;
  std::optional<std::filesystem::path> output_dir;
  std::string backend = "cpu";
  bool backend_given = false;  ///< --backend was given (a .gem otherwise runs on the backend it was compiled for)
  PassManagerOptions passes;  ///< -O, --passes, --disable-pass, ...
  /// The compile-only options given (-O, --passes, --dump-graph, ...), in order: a .gem
  /// model is compiled already, and refuses them.
  std::vector<std::string> compile_options;
  std::optional<int> repeat;  ///< --repeat N (N >= 1)
  std::optional<double> duration_seconds;  ///< --duration S (S > 0)
  size_t memory_limit = 0;  ///< --memory-limit BYTES; 0: the machine's physical memory
  bool shrink = false;      ///< --shrink: drop the host copies of weights once on the device
  bool list_plugins = false;
  int verbosity = 0;  ///< count of -v
  std::optional<std::filesystem::path> expected_dir;
  double rtol = 1e-5;
  double atol = 1e-5;
  std::vector<std::string> memory_assigners;  ///< --memory-assigner, in order
  size_t specialisations = 8;  ///< --specialisations: shape-keyed compilations kept (0: per op)
  int threads = 0;  ///< --threads: intra-op threads per kernel; 0: the backend's default
  int streams = 1;  ///< --streams: most streams independent branches go on
  /// --stream-memory-ratio: their feature map at most this times one stream's (0: no limit)
  double stream_memory_ratio = 1.1;
  size_t super_kernel_max_bytes = 0;  ///< --super-kernels
  ExecutionOrder memory_order = ExecutionOrder::kStable;  ///< --memory-order
  std::optional<std::filesystem::path> profile;           ///< --profile FILE (Chrome trace JSON)
  std::optional<std::filesystem::path> dump_tensors;      ///< --dump-tensors DIR (tensor_dump.h)
  /// --precision: what the heavy float32 ops compute in; absent: fp32 (a .gem: its own).
  std::optional<Precision> precision;
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
