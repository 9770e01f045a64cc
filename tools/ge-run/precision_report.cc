#include "precision_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "ge/data_type.h"

namespace ge::tools {
namespace {

std::string error_number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.3g", value);
  return buffer;
}

std::string describe_tensor(const Tensor& tensor) {
  std::string text(data_type_name(tensor.dtype()));
  text += "[";
  for (size_t i = 0; i < tensor.shape().size(); ++i) text += (i ? "," : "") + std::to_string(tensor.shape()[i]);
  return text + "]";
}

bool is_floating_type(DataType type) {
  return type == DataType::kFloat32 || type == DataType::kFloat64 || type == DataType::kFloat16 ||
         type == DataType::kBFloat16;
}

}  // namespace

std::string_view kernel_precision(std::string_view kernel_name) {
  const size_t dot = kernel_name.rfind('.');
  const std::string_view last = dot == std::string_view::npos ? std::string_view() : kernel_name.substr(dot + 1);
  if (last == "bf16") return "bf16";
  if (last == "f16") return "f16";
  return "fp32";
}

std::string format_node_precisions(const std::vector<TaskTraceRecord>& tasks, Precision session_precision,
                                   Precision requested, size_t max_names) {
  // Nodes in the order they first ran, per precision; a node run by kernels of two
  // precisions (per-op runs of other shapes) is listed under each.
  std::map<std::string_view, std::vector<std::string>> nodes;
  std::set<std::pair<std::string_view, std::string>> seen;
  for (const TaskTraceRecord& task : tasks) {
    if (task.node.empty()) continue;  // copies, memsets, events
    const std::string_view precision = kernel_precision(task.name);
    if (seen.emplace(precision, task.node).second) nodes[precision].push_back(task.node);
  }
  std::ostringstream out;
  out << "precision: " << precision_name(session_precision);
  if (requested != session_precision) out << " (" << precision_name(requested) << " asked; the backend has none)";
  out << "; nodes by the precision their kernels computed in:\n";
  if (nodes.empty()) out << "  (the device traced no kernel of a named node)\n";
  for (std::string_view precision : {std::string_view("bf16"), std::string_view("f16"), std::string_view("fp32")}) {
    auto found = nodes.find(precision);
    if (found == nodes.end()) continue;
    const std::vector<std::string>& names = found->second;
    out << "  " << precision << ": " << names.size() << (names.size() == 1 ? " node" : " nodes");
    if (precision == "fp32") out << " (the model's own types)";
    out << ":";
    const size_t shown = max_names == 0 ? names.size() : std::min(names.size(), max_names);
    for (size_t i = 0; i < shown; ++i) out << (i == 0 ? " " : ", ") << names[i];
    if (shown < names.size()) out << ", ... (" << names.size() - shown << " more; -vv lists all)";
    out << "\n";
  }
  return out.str();
}

PrecisionError compare_with_float32(const RuntimeValue& got, const RuntimeValue& float32) {
  PrecisionError error;
  if (!got.is_tensor() || !float32.is_tensor()) {
    error.note = "not compared: not a tensor";
    return error;
  }
  const Tensor& x = got.tensor;
  const Tensor& reference = float32.tensor;
  if (x.dtype() != reference.dtype() || x.shape() != reference.shape()) {
    error.note = "not compared: " + describe_tensor(x) + " against fp32's " + describe_tensor(reference);
    return error;
  }
  const DataType type = x.dtype();
  if (type == DataType::kString || type == DataType::kComplex64 || type == DataType::kComplex128) {
    error.note = "not compared: " + std::string(data_type_name(type));
    return error;
  }
  error.compared = true;
  error.floating = is_floating_type(type);
  error.elements = x.element_count();
  if (!error.floating) {
    for (int64_t i = 0; i < error.elements; ++i) {
      const double a = x.scalar_as_double(i), b = reference.scalar_as_double(i);
      if (a != b) {
        ++error.mismatches;
        error.max_abs = std::max(error.max_abs, std::fabs(a - b));
      }
    }
    return error;
  }
  for (int64_t i = 0; i < error.elements; ++i) {
    const double b = reference.scalar_as_double(i);
    if (std::isfinite(b)) error.reference_max = std::max(error.reference_max, std::fabs(b));
  }
  // Relative to each element, floored at a thousandth of the output's scale: elements
  // near zero (a ReLU's, a logit's crossing) do not make every error look huge.
  const double floor = 1e-3 * error.reference_max;
  for (int64_t i = 0; i < error.elements; ++i) {
    const double a = x.scalar_as_double(i), b = reference.scalar_as_double(i);
    if (!std::isfinite(b)) continue;  // float32 is not finite there either: no reference
    if (!std::isfinite(a)) {
      ++error.non_finite;
      continue;
    }
    const double difference = std::fabs(a - b);
    error.max_abs = std::max(error.max_abs, difference);
    const double scale = std::max(std::fabs(b), floor);
    if (scale > 0) error.max_rel = std::max(error.max_rel, difference / scale);
  }
  const int64_t last = x.shape().empty() ? 0 : x.shape().back();
  if (last >= 2) {
    error.rows = error.elements / last;
    for (int64_t row = 0; row < error.rows; ++row) {
      int64_t best = row * last, best_reference = row * last;
      for (int64_t i = row * last + 1; i < (row + 1) * last; ++i) {
        if (x.scalar_as_double(i) > x.scalar_as_double(best)) best = i;
        if (reference.scalar_as_double(i) > reference.scalar_as_double(best_reference)) best_reference = i;
      }
      if (best == best_reference) ++error.rows_same_argmax;
    }
  }
  return error;
}

std::string format_precision_check(Precision precision, Precision requested, const std::vector<std::string>& names,
                                   const std::vector<PrecisionError>& errors) {
  std::ostringstream out;
  out << "check precision: " << precision_name(precision);
  if (requested != precision) out << " (" << precision_name(requested) << " asked; the backend has none)";
  out << " against fp32 on the same inputs:\n";
  for (size_t k = 0; k < errors.size(); ++k) {
    const PrecisionError& e = errors[k];
    out << "  output " << k << " '" << (k < names.size() ? names[k] : std::string()) << "': ";
    if (!e.compared) {
      out << e.note << "\n";
      continue;
    }
    if (!e.floating) {
      out << e.mismatches << " of " << e.elements << " elements differ";
      if (e.mismatches > 0) out << " (max abs difference " << error_number(e.max_abs) << ")";
      out << "\n";
      continue;
    }
    out << "max abs error " << error_number(e.max_abs) << ", max rel error " << error_number(e.max_rel)
        << ", max abs / max |fp32| " << error_number(e.reference_max > 0 ? e.max_abs / e.reference_max : 0.0)
        << " (fp32 max |x| " << error_number(e.reference_max) << ", " << e.elements << " elements)";
    if (e.rows > 0)
      out << "; argmax over the last axis agrees in " << e.rows_same_argmax << " of " << e.rows << " rows";
    if (e.non_finite > 0) {
      out << "; NON-FINITE: " << e.non_finite << " of " << e.elements
          << " elements are NaN or inf where fp32's are finite";
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace ge::tools
