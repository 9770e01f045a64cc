#pragma once
/// ge-run's precision reports: -v's nodes per precision, from the kernels that ran, and
/// --check-precision's error of each output against the float32 run.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ge/plugin_api/device.h"
#include "ge/precision.h"
#include "ge/runtime_value.h"

namespace ge::tools {

/// The precision a kernel computes in, from its name's last '.' part as the cpu backend's
/// fast kernels name it: "bf16" ("cpu.Conv.dnnl:brg:avx512_core.bf16") or "f16"; any
/// other kernel computes in the model's own types, "fp32" for a float32 model.
std::string_view kernel_precision(std::string_view kernel_name);

/// The lines -v prints: per precision its count of nodes and their names (at most
/// `max_names` each, 0: all), from the kernel tasks of `tasks` that name their node. The
/// first line says the session's precision, and `requested` when it differs (the backend
/// had no such arithmetic).
std::string format_node_precisions(const std::vector<TaskTraceRecord>& tasks, Precision session_precision,
                                   Precision requested, size_t max_names);

/// One output of the chosen precision against the same output in float32.
struct PrecisionError {
  bool compared = false;  ///< false: `note` says why not (a sequence, a string, other shapes)
  std::string note;
  bool floating = false;  ///< a floating-point output: the errors below; else `mismatches`
  int64_t elements = 0;
  double max_abs = 0;        ///< max |x - x32| over elements finite in both
  double max_rel = 0;        ///< max |x - x32| / max(|x32|, 1e-3 * max |x32|) over the same
  double reference_max = 0;  ///< max |x32| over its finite elements
  /// Rows along the last axis (of 2 or more elements) and those whose largest element is
  /// at the same index in both: a classifier's top-1.
  int64_t rows = 0, rows_same_argmax = 0;
  int64_t non_finite = 0;  ///< elements NaN or inf where float32's are finite
  int64_t mismatches = 0;  ///< elements that differ (integer and bool outputs)
};

/// Compares `got` with `float32` element by element.
PrecisionError compare_with_float32(const RuntimeValue& got, const RuntimeValue& float32);

/// The --check-precision report: a header naming `precision` (and `requested` when the
/// backend had none of it), then one line per output "output K 'NAME': ..." with its
/// errors (max abs, max rel, max abs / max |fp32|, the rows whose argmax agrees); an
/// output with NaN or inf where float32 had none ends in "NON-FINITE: ...".
std::string format_precision_check(Precision precision, Precision requested, const std::vector<std::string>& names,
                                   const std::vector<PrecisionError>& errors);

}  // namespace ge::tools
