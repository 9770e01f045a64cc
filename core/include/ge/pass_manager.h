#pragma once
/// Runs a pipeline of passes with timing, dumps, verification and re-inference.

#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ge/graph.h"
#include "ge/op_registry.h"
#include "ge/pass.h"
#include "ge/status.h"

namespace ge {

struct PassManagerOptions {
  int opt_level = 2;                         ///< -O0 (no passes) ... -O3
  std::optional<std::vector<std::string>> explicit_passes;  ///< --passes: exact pipeline
  std::set<std::string> disabled_passes;     ///< --disable-pass
  std::optional<std::filesystem::path> dump_dir;  ///< --dump-graph: text IR + DOT per pass
  bool verify_each = false;                  ///< --verify-each (always on in debug builds)
};

/// Timing of one pass run, reported at -v.
struct PassTiming {
  std::string name;
  double milliseconds = 0;
  bool changed = false;
};

class PassManager {
 public:
  /// `available` are the registered passes; `ops` re-infers after each changing pass.
  PassManager(std::vector<PassInfo> available, const OpRegistry& ops, PassManagerOptions options);

  /// The pass names that will run, in order: explicit list, or those enabled at the opt
  /// level sorted by (order, name), minus disabled ones. Unknown names are errors.
  Result<std::vector<std::string>> pipeline() const;

  /// Runs the pipeline on `graph`; the backends are handed to passes in PassContext.
  Status run(Graph& graph, Backend* target_backend = nullptr, Backend* reference_backend = nullptr);

  const std::vector<PassTiming>& timings() const { return timings_; }

 private:
  Status dump(const Graph& graph, int step, const std::string& pass, const char* when) const;

  std::vector<PassInfo> available_;
  const OpRegistry& ops_;
  PassManagerOptions options_;
  std::vector<PassTiming> timings_;
};

}  // namespace ge
