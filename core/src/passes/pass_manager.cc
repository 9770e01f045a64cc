// The pass manager: runs the ordered pass pipeline with inference, dumps and checks between passes (ge/pass_manager.h).
#include "ge/pass_manager.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

#include "ge/executor.h"
#include "../ir/graph_dot.h"
#include "ge/graph_text.h"
#include "ge/logging.h"
#include "ge/minifloat.h"
#include "ge/pass_order.h"
#include "ge/tensor_compare.h"
#include "ge/verifier.h"
#include "../plugin_host/plugin_call.h"

namespace ge {
namespace {

bool is_float_type(DataType type) {
  return type == DataType::kFloat32 || type == DataType::kFloat64 || type == DataType::kFloat16 ||
         type == DataType::kBFloat16;
}

bool is_integer_type(DataType type) {
  switch (type) {
    case DataType::kInt8: case DataType::kInt16: case DataType::kInt32: case DataType::kInt64:
    case DataType::kUInt8: case DataType::kUInt16: case DataType::kUInt32: case DataType::kUInt64:
      return true;
    default:
      return false;
  }
}

template <typename T>
void fill_uniform(Tensor& tensor, std::mt19937& rng) {
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  T* data = tensor.data<T>();
  for (int64_t i = 0; i < tensor.element_count(); ++i) data[i] = static_cast<T>(dist(rng));
}

// float16 / bfloat16 bits of values uniform in [-1, 1], rounded to the type.
void fill_uniform_half(Tensor& tensor, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  auto* data = tensor.data<uint16_t>();
  const bool bf16 = tensor.dtype() == DataType::kBFloat16;
  for (int64_t i = 0; i < tensor.element_count(); ++i) {
    const float value = dist(rng);
    data[i] = bf16 ? bfloat16_from_float(value) : float16_from_float(value);
  }
}

template <typename T>
void fill_binary(Tensor& tensor, std::mt19937& rng) {
  T* data = tensor.data<T>();
  for (int64_t i = 0; i < tensor.element_count(); ++i) data[i] = static_cast<T>(rng() & 1u);
}

Result<Tensor> generate_input(const Value& input, std::mt19937& rng) {
  const TensorDesc& desc = input.desc();
  const std::string what = "--check-passes: cannot generate graph input '" + input.name() + "' (" + desc.to_string() + ")";
  if (desc.kind != ValueKind::kTensor) return unsupported(what + ": not a tensor; give it in check_inputs");
  if (!desc.has_rank()) return unsupported(what + ": unknown rank; give it in check_inputs");
  std::vector<int64_t> dims;
  for (const Dim& d : *desc.shape) dims.push_back(d.is_static() ? d.value : 1);
  Tensor tensor = Tensor::zeros(desc.dtype, dims);
  switch (desc.dtype) {
    case DataType::kFloat32: fill_uniform<float>(tensor, rng); break;
    case DataType::kFloat64: fill_uniform<double>(tensor, rng); break;
    case DataType::kFloat16: case DataType::kBFloat16: fill_uniform_half(tensor, rng); break;
    case DataType::kInt8: fill_binary<int8_t>(tensor, rng); break;
    case DataType::kInt16: fill_binary<int16_t>(tensor, rng); break;
    case DataType::kInt32: fill_binary<int32_t>(tensor, rng); break;
    case DataType::kInt64: fill_binary<int64_t>(tensor, rng); break;
    case DataType::kUInt8: case DataType::kBool: fill_binary<uint8_t>(tensor, rng); break;
    case DataType::kUInt16: fill_binary<uint16_t>(tensor, rng); break;
    case DataType::kUInt32: fill_binary<uint32_t>(tensor, rng); break;
    case DataType::kUInt64: fill_binary<uint64_t>(tensor, rng); break;
    default:
      return unsupported(what + ": no generator for dtype " + std::string(data_type_name(desc.dtype)) +
                         "; give it in check_inputs");
  }
  return tensor;
}

std::string element_text(const Tensor& t, int64_t i) {
  if (is_integer_type(t.dtype())) return std::to_string(t.scalar_as_int64(i));
  std::ostringstream out;
  out.precision(9);
  out << t.scalar_as_double(i);
  return out.str();
}

/// Runs `graph` once on `backend` (a clone: the executor takes ownership).
Result<std::vector<Tensor>> run_model(const Graph& graph, Backend& backend, const OpRegistry& ops,
                                      const std::vector<std::pair<std::string, Tensor>>& inputs) {
  GE_ASSIGN_OR_RETURN(std::unique_ptr<Executor> executor, Executor::create(graph.clone(), backend, ops));
  std::vector<Tensor> outputs;
  GE_RETURN_IF_ERROR(executor->run(inputs, outputs));
  return outputs;
}

}  // namespace

Result<std::vector<std::pair<std::string, Tensor>>> make_check_inputs(
    const Graph& graph, const std::vector<std::pair<std::string, Tensor>>& given) {
  std::vector<std::pair<std::string, Tensor>> inputs;
  std::mt19937 rng(20240601u);
  for (const Value* input : graph.runtime_inputs()) {
    auto it = std::find_if(given.begin(), given.end(), [&](const auto& g) { return g.first == input->name(); });
    if (it != given.end()) {
      inputs.push_back(*it);
      continue;
    }
    GE_ASSIGN_OR_RETURN(Tensor tensor, generate_input(*input, rng));
    inputs.emplace_back(input->name(), std::move(tensor));
  }
  return inputs;
}

Result<double> compare_check_outputs(const std::vector<Tensor>& before, const std::vector<Tensor>& after,
                                     const std::vector<std::string>& output_names, double rtol, double atol) {
  if (before.size() != after.size()) {
    return internal_error("the model has " + std::to_string(after.size()) + " outputs, it had " +
                          std::to_string(before.size()));
  }
  double max_difference = 0;
  for (size_t o = 0; o < before.size(); ++o) {
    const Tensor& b = before[o];
    const Tensor& a = after[o];
    const std::string what =
        "output " + std::to_string(o) + (o < output_names.size() ? " '" + output_names[o] + "'" : std::string());
    if (a.dtype() != b.dtype() || a.shape() != b.shape()) {
      return internal_error(what + " is " + std::string(data_type_name(a.dtype())) + shape_to_string(a.shape()) +
                            ", it was " + std::string(data_type_name(b.dtype())) + shape_to_string(b.shape()));
    }
    if (b.dtype() == DataType::kComplex64 || b.dtype() == DataType::kComplex128 || b.dtype() == DataType::kUndefined) {
      continue;  // complex: compared by the op's own tests, not here
    }
    const TensorComparison comparison = compare_tensors(a, b, Tolerance{.rtol = rtol, .atol = atol});
    if (!comparison.matches) {
      const int64_t i = comparison.first_mismatch;
      if (i < 0) return internal_error(what + ": " + comparison.detail);
      const std::string where = what + " element " + std::to_string(i) + ": ";
      if (b.dtype() == DataType::kString) {
        return internal_error(where + "\"" + a.data<std::string>()[i] + "\", it was \"" + b.data<std::string>()[i] +
                              "\"");
      }
      std::string tolerance;
      if (is_float_type(b.dtype()) || is_minifloat(b.dtype())) {
        char text[96];
        std::snprintf(text, sizeof(text), " (|difference| %.3g > atol %g + rtol %g * |before|)",
                      std::fabs(a.scalar_as_double(i) - b.scalar_as_double(i)), atol, rtol);
        tolerance = text;
      }
      return internal_error(where + element_text(a, i) + ", it was " + element_text(b, i) + tolerance);
    }
    max_difference = std::max(max_difference, comparison.max_abs_error);
  }
  return max_difference;
}

PassManager::PassManager(std::vector<PassInfo> available, const OpRegistry& ops, PassManagerOptions options)
    : available_(std::move(available)), ops_(ops), options_(std::move(options)) {}

Result<std::vector<std::string>> PassManager::pipeline() const {
  auto find = [this](const std::string& name) -> const PassInfo* {
    for (const PassInfo& p : available_) {
      if (p.name == name) return &p;
    }
    return nullptr;
  };
  auto known_names = [this] {
    std::string names;
    for (const PassInfo& p : available_) names += (names.empty() ? "" : ", ") + p.name;
    return names.empty() ? std::string("none") : names;
  };
  for (const std::string& name : options_.disabled_passes) {
    if (find(name) == nullptr) return not_found("--disable-pass " + name + ": no such pass (available: " + known_names() + ")");
  }
  std::vector<std::string> names;
  if (options_.explicit_passes) {
    for (const std::string& name : *options_.explicit_passes) {
      if (find(name) == nullptr) return not_found("--passes: no pass named '" + name + "' (available: " + known_names() + ")");
      if (!options_.disabled_passes.count(name)) names.push_back(name);
    }
    return names;
  }
  if (options_.opt_level < 0 || options_.opt_level > 3) {
    return invalid_argument("optimisation level -O" + std::to_string(options_.opt_level) + " is not one of -O0..-O3");
  }
  // All passes are ordered, then those off at this level dropped: a constraint through a
  // pass that does not run still holds, and each level's pipeline is a subsequence of -O3's.
  GE_ASSIGN_OR_RETURN(std::vector<const PassInfo*> ordered, order_passes(available_));
  for (const PassInfo* p : ordered) {
    if (options_.opt_level >= p->min_opt_level && !options_.disabled_passes.count(p->name)) names.push_back(p->name);
  }
  return names;
}

Status PassManager::dump(const Graph& graph, int step, const std::string& pass, const char* when) const {
  if (!options_.dump_dir) return Status::ok();
  std::error_code ec;
  std::filesystem::create_directories(*options_.dump_dir, ec);
  if (ec) return invalid_argument("--dump-graph: cannot create '" + options_.dump_dir->string() + "': " + ec.message());
  char prefix[32];
  std::snprintf(prefix, sizeof(prefix), "%03d_", step);
  const std::string stem = prefix + pass + "_" + when;
  for (const auto& [extension, text] :
       {std::pair<const char*, std::string>{".ir", print_graph(graph, options_.dump_print)},
        std::pair<const char*, std::string>{".dot", graph_to_dot(graph)}}) {
    std::filesystem::path path = *options_.dump_dir / (stem + extension);
    std::ofstream out(path);
    out << text;
    if (!out) return invalid_argument("--dump-graph: cannot write '" + path.string() + "'");
  }
  return Status::ok();
}

Status PassManager::run(Graph& graph, Backend* target_backend, Backend* reference_backend,
                        const BeforeLayout& before_layout) {
  timings_.clear();
  GE_ASSIGN_OR_RETURN(std::vector<std::string> names, pipeline());
#ifndef NDEBUG
  const bool verify = true;  // debug builds always verify after each pass
#else
  const bool verify = options_.verify_each;
#endif
  // Check mode: the unoptimised model's outputs are the reference every pass is held to.
  std::vector<std::pair<std::string, Tensor>> check_inputs;
  std::vector<Tensor> reference_outputs;
  std::vector<std::string> output_names;
  if (options_.check_passes && !names.empty()) {
    if (reference_backend == nullptr) {
      return invalid_argument("--check-passes needs the reference backend 'cpu', which is not loaded");
    }
    GE_ASSIGN_OR_RETURN(check_inputs, make_check_inputs(graph, options_.check_inputs));
    Result<std::vector<Tensor>> outputs = run_model(graph, *reference_backend, ops_, check_inputs);
    if (!outputs.is_ok()) {
      return outputs.status().with_context("--check-passes: the model does not run on backend '" +
                                           reference_backend->name() + "' before any pass");
    }
    reference_outputs = std::move(outputs).value();
    for (const Value* out : graph.outputs()) output_names.push_back(out != nullptr ? out->name() : std::string());
  }
  PassContext context{&ops_, options_.opt_level, target_backend, reference_backend};
  int step = 0;
  bool before_layout_called = false;
  for (const std::string& name : names) {
    const PassInfo& info = *std::find_if(available_.begin(), available_.end(), [&](const PassInfo& p) { return p.name == name; });
    std::unique_ptr<Pass> pass = info.create ? info.create() : nullptr;
    if (!pass) return internal_error("pass '" + name + "': its factory returned no pass");
    if (before_layout && !before_layout_called && info.phase == PassPhase::kLayout) {
      before_layout(graph);
      before_layout_called = true;
    }
    ++step;
    GE_RETURN_IF_ERROR(dump(graph, step, name, "before"));
    bool changed = false;
    const auto start = std::chrono::steady_clock::now();
    Status status = detail::guard_plugin_call("pass '" + name + "' (run)",
                                              [&] { return pass->run(graph, context, changed); });
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!status.is_ok()) return status.with_context("pass '" + name + "'");
    if (changed) GE_RETURN_IF_ERROR(ops_.infer_graph(graph).with_context("after pass '" + name + "'"));
    PassTiming timing{name, ms, changed};
    GE_LOG_INFO("pass {:<24} {:>9.3f} ms {}", name, ms, changed ? "changed" : "unchanged");
    GE_RETURN_IF_ERROR(dump(graph, step, name, "after"));
    if (verify) GE_RETURN_IF_ERROR(verify_graph(graph).with_context("verifier after pass '" + name + "'"));
    if (options_.check_passes && changed) {
      Result<std::vector<Tensor>> outputs = run_model(graph, *reference_backend, ops_, check_inputs);
      if (!outputs.is_ok()) {
        return internal_error("--check-passes: pass '" + name + "' broke the model: it no longer runs on backend '" +
                              reference_backend->name() + "': " + outputs.status().message());
      }
      Result<double> difference =
          compare_check_outputs(reference_outputs, *outputs, output_names, options_.check_rtol, options_.check_atol);
      if (!difference.is_ok()) {
        return internal_error("--check-passes: pass '" + name + "' is the first pass that changed the outputs: " +
                              difference.status().message());
      }
      timing.checked = true;
      timing.max_abs_difference = *difference;
      GE_LOG_INFO("pass {:<24} checked on '{}': max |difference| {:.3g}", name, reference_backend->name(), *difference);
    }
    timings_.push_back(std::move(timing));
  }
  return Status::ok();
}

}  // namespace ge
