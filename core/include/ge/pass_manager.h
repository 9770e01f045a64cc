#pragma once
/// Runs a pipeline of passes with timing, dumps, verification, re-inference and (in check
/// mode) a numeric check of each pass on the reference backend.

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ge/graph.h"
#include "ge/graph_text.h"
#include "ge/op_registry.h"
#include "ge/plugin_api/pass.h"
#include "ge/status.h"
#include "ge/tensor.h"

namespace ge {

struct PassManagerOptions {
  int opt_level = 2;                         ///< -O0 (no passes) ... -O3
  std::optional<std::vector<std::string>> explicit_passes;  ///< --passes: exact pipeline
  std::set<std::string> disabled_passes;     ///< --disable-pass
  std::optional<std::filesystem::path> dump_dir;  ///< --dump-graph: text IR + DOT per pass
  /// How the dumps print the text IR: large constants elided by default, so that a dump
  /// of a large model stays small (--dump-graph-constants clears the limit).
  PrintOptions dump_print{.max_constant_elements = kDumpMaxConstantElements};
  bool verify_each = false;                  ///< --verify-each (always on in debug builds)

  /// --check-passes: run the model on the reference backend before the pipeline and after
  /// every pass that changed the graph; the first pass whose outputs differ from the
  /// unoptimised model's beyond |after - before| <= check_atol + check_rtol * |before|
  /// fails the run with a kInternal error naming that pass, the output and the element.
  bool check_passes = false;
  double check_rtol = 1e-4;
  double check_atol = 1e-5;
  /// Inputs for the check runs by graph input name. A runtime input not listed here is
  /// generated from a fixed seed (floats in [-1, 1], integers in {0, 1}, unknown and
  /// named dims as 1), so check runs are reproducible.
  std::vector<std::pair<std::string, Tensor>> check_inputs;
};

/// Timing of one pass run, reported at -v.
struct PassTiming {
  std::string name;
  double milliseconds = 0;
  bool changed = false;
  /// Check mode only: whether the model ran after this pass, and the largest absolute
  /// difference from the unoptimised model's outputs (0 for integer outputs that match).
  bool checked = false;
  double max_abs_difference = 0;
};

class PassManager {
 public:
  /// `available` are the registered passes; `ops` re-infers after each changing pass.
  PassManager(std::vector<PassInfo> available, const OpRegistry& ops, PassManagerOptions options);

  /// The pass names that will run, in order: explicit list, or those enabled at the opt
  /// level in order_passes() order (phase, constraints, registration), minus disabled ones.
  /// Unknown names and constraint cycles are errors.
  Result<std::vector<std::string>> pipeline() const;

  /// Called once with the graph as it is before the first pass of the layout phase runs
  /// (not at all when none runs): the session keeps that graph for the per-op executor,
  /// whose clusters are cut at plain-format boundaries and get their layout on their own.
  using BeforeLayout = std::function<void(const Graph&)>;

  /// Runs the pipeline on `graph`; the backends are handed to passes in PassContext.
  /// Check mode runs the model on `reference_backend` (an error when it is null).
  Status run(Graph& graph, Backend* target_backend = nullptr, Backend* reference_backend = nullptr,
             const BeforeLayout& before_layout = {});

  const std::vector<PassTiming>& timings() const { return timings_; }

 private:
  Status dump(const Graph& graph, int step, const std::string& pass, const char* when) const;

  std::vector<PassInfo> available_;
  const OpRegistry& ops_;
  PassManagerOptions options_;
  std::vector<PassTiming> timings_;
};

/// Inputs for running `graph` in check mode: `given` by name where present, otherwise
/// generated from a fixed seed as PassManagerOptions::check_inputs describes. Errors name
/// an input whose kind or dtype cannot be generated.
Result<std::vector<std::pair<std::string, Tensor>>> make_check_inputs(
    const Graph& graph, const std::vector<std::pair<std::string, Tensor>>& given);

/// Compares `after` with `before` output by output (dtype, shape, then elements within
/// |a - b| <= atol + rtol * |b|; NaN equals NaN; integers and bools exactly). Returns the
/// largest absolute difference, or kInternal naming the first differing output (by
/// `output_names`) and element.
Result<double> compare_check_outputs(const std::vector<Tensor>& before, const std::vector<Tensor>& after,
                                     const std::vector<std::string>& output_names, double rtol, double atol);

}  // namespace ge
