// Ops the executor runs on the host: control flow, sequences, optionals (host_ops.h).
#include "host_ops.h"

#include <limits>
#include <set>

#include "ge/graph_queries.h"
#include "../ir/tensor_along_axis.h"

namespace ge::detail {
namespace {

Result<int64_t> normalize_axis(int64_t axis, int64_t rank, const Node& node, const char* what) {
  if (axis < -rank || axis >= rank) {
    return invalid_argument(node.describe() + ": " + what + " " + std::to_string(axis) + " is out of range for rank " +
                            std::to_string(rank));
  }
  return axis < 0 ? axis + rank : axis;
}

Result<bool> read_condition(const RuntimeValue* value, const Node& node, const char* what) {
  if (value == nullptr || !value->holds_tensor() || value->tensor.element_count() != 1) {
    return invalid_argument(node.describe() + ": " + what + " must be a one-element tensor");
  }
  return value->tensor.scalar_as_double(0) != 0.0;
}

Result<int64_t> read_index(const RuntimeValue* value, const Node& node, const char* what) {
  if (value == nullptr || !value->holds_tensor() || value->tensor.element_count() != 1) {
    return invalid_argument(node.describe() + ": " + what + " must be a one-element integer tensor");
  }
  return value->tensor.scalar_as_int64(0);
}

Result<Graph*> subgraph(const Node& node, const char* name) {
  const Attribute* attr = node.attribute(name);
  if (attr == nullptr || !attr->holds<Attribute::GraphPtr>() || !attr->get<Attribute::GraphPtr>()) {
    return invalid_argument(node.describe() + " has no graph attribute '" + name + "'");
  }
  return attr->get<Attribute::GraphPtr>().get();
}

Tensor scalar_int64(int64_t v) { return Tensor::from_vector<int64_t>({}, {v}); }
Tensor scalar_bool(bool v) {
  Tensor t = Tensor::zeros(DataType::kBool, {});
  t.data<uint8_t>()[0] = v ? 1 : 0;
  return t;
}

const std::vector<Tensor>* sequence_of(const RuntimeValue* v) { return v && v->holds_sequence() ? &v->sequence : nullptr; }

Status run_if(const Node& node, const std::vector<const RuntimeValue*>& in, std::vector<RuntimeValue>& out,
              const SubgraphRunner& run) {
  GE_ASSIGN_OR_RETURN(bool cond, read_condition(in.empty() ? nullptr : in[0], node, "the condition"));
  GE_ASSIGN_OR_RETURN(Graph * branch, subgraph(node, cond ? "then_branch" : "else_branch"));
  GE_RETURN_IF_ERROR(run(*branch, {}, out));
  if (out.size() != node.output_count()) {
    return invalid_argument(node.describe() + ": branch '" + branch->name() + "' produced " + std::to_string(out.size()) +
                            " outputs but the node has " + std::to_string(node.output_count()));
  }
  return Status::ok();
}

Result<Tensor> stack_or_empty(const std::vector<Tensor>& items, const Value* body_output) {
  if (!items.empty()) return stack_along(items, 0);
  std::vector<int64_t> dims{0};
  const TensorDesc& d = body_output->desc();
  if (d.is_static()) {
    for (int64_t x : d.static_dims()) dims.push_back(x);
  }
  return Tensor::zeros(d.dtype == DataType::kUndefined ? DataType::kFloat32 : d.dtype, dims);
}

Status run_loop(const Node& node, const std::vector<const RuntimeValue*>& in, std::vector<RuntimeValue>& out,
                const SubgraphRunner& run) {
  GE_ASSIGN_OR_RETURN(Graph * body, subgraph(node, "body"));
  int64_t max_trips = std::numeric_limits<int64_t>::max();
  bool cond = true;
  if (in.size() > 0 && in[0] != nullptr) {
    GE_ASSIGN_OR_RETURN(max_trips, read_index(in[0], node, "the trip count M"));
  }
  if (in.size() > 1 && in[1] != nullptr) {
    GE_ASSIGN_OR_RETURN(cond, read_condition(in[1], node, "the condition"));
  }
  std::vector<RuntimeValue> carried;
  for (size_t i = 2; i < in.size(); ++i) {
    if (in[i] == nullptr) return invalid_argument(node.describe() + ": loop-carried input " + std::to_string(i) + " is missing");
    carried.push_back(*in[i]);
  }
  const size_t n = carried.size();
  if (body->outputs().size() < 1 + n) {
    return invalid_argument(node.describe() + ": body has " + std::to_string(body->outputs().size()) +
                            " outputs, fewer than 1 + " + std::to_string(n) + " loop-carried values");
  }
  const size_t k = body->outputs().size() - 1 - n;
  std::vector<std::vector<Tensor>> scans(k);
  std::vector<RuntimeValue> body_in, body_out;
  for (int64_t i = 0; i < max_trips && cond; ++i) {
    body_in.clear();
    body_in.push_back(RuntimeValue::of(scalar_int64(i)));
    body_in.push_back(RuntimeValue::of(scalar_bool(cond)));
    for (const RuntimeValue& v : carried) body_in.push_back(v);
    GE_RETURN_IF_ERROR(run(*body, body_in, body_out));
    GE_ASSIGN_OR_RETURN(cond, read_condition(&body_out[0], node, "the body's condition output"));
    for (size_t j = 0; j < n; ++j) carried[j] = body_out[1 + j];
    for (size_t j = 0; j < k; ++j) {
      if (!body_out[1 + n + j].holds_tensor()) return unsupported(node.describe() + ": scan outputs must be tensors");
      scans[j].push_back(body_out[1 + n + j].tensor);
    }
  }
  out = std::move(carried);
  for (size_t j = 0; j < k; ++j) {
    GE_ASSIGN_OR_RETURN(Tensor stacked, stack_or_empty(scans[j], body->outputs()[1 + n + j]));
    out.push_back(RuntimeValue::of(std::move(stacked)));
  }
  return Status::ok();
}

// Scan from opset 9 on: no batch axis. `states` and `scan_inputs` are tensors.
Status scan_once(const Node& node, Graph& body, std::vector<RuntimeValue> states, const std::vector<Tensor>& scan_inputs,
                 std::vector<RuntimeValue>& out, const SubgraphRunner& run, bool legacy_batch) {
  const size_t m = scan_inputs.size();
  const size_t n = states.size();
  std::vector<int64_t> in_axes = node.get_ints("scan_input_axes", std::vector<int64_t>(m, 0));
  std::vector<int64_t> in_dirs = node.get_ints(legacy_batch ? "directions" : "scan_input_directions", std::vector<int64_t>(m, 0));
  if (in_axes.size() != m || in_dirs.size() != m) return invalid_argument(node.describe() + ": scan input attributes do not match num_scan_inputs");
  int64_t length = -1;
  for (size_t i = 0; i < m; ++i) {
    GE_ASSIGN_OR_RETURN(in_axes[i], normalize_axis(in_axes[i], scan_inputs[i].rank(), node, "scan_input_axes entry"));
    const int64_t len = scan_inputs[i].shape()[in_axes[i]];
    if (length >= 0 && len != length) return invalid_argument(node.describe() + ": scan inputs have different lengths");
    length = len;
  }
  if (length < 0) length = 0;
  const size_t k = body.outputs().size() - n;
  std::vector<std::vector<Tensor>> scans(k);
  std::vector<RuntimeValue> body_in, body_out;
  for (int64_t t = 0; t < length; ++t) {
    body_in = states;
    for (size_t i = 0; i < m; ++i) {
      const int64_t index = in_dirs[i] ? length - 1 - t : t;
      body_in.push_back(RuntimeValue::of(slice_along(scan_inputs[i], in_axes[i], index)));
    }
    GE_RETURN_IF_ERROR(run(body, body_in, body_out));
    for (size_t j = 0; j < n; ++j) states[j] = body_out[j];
    for (size_t j = 0; j < k; ++j) scans[j].push_back(body_out[n + j].tensor);
  }
  std::vector<int64_t> out_axes = node.get_ints("scan_output_axes", std::vector<int64_t>(k, 0));
  std::vector<int64_t> out_dirs = node.get_ints("scan_output_directions", std::vector<int64_t>(k, 0));
  // A list shorter than the scan outputs left the rest stacked along axis 0, forwards.
  if (out_axes.size() != k || out_dirs.size() != k) {
    return invalid_argument(node.describe() + ": scan_output_axes and scan_output_directions have " +
                            std::to_string(out_axes.size()) + " and " + std::to_string(out_dirs.size()) +
                            " entries, expected one per scan output (" + std::to_string(k) + ")");
  }
  out = std::move(states);
  for (size_t j = 0; j < k; ++j) {
    if (out_dirs[j]) std::reverse(scans[j].begin(), scans[j].end());
    int64_t axis = out_axes[j];
    if (scans[j].empty()) {
      GE_ASSIGN_OR_RETURN(Tensor empty, stack_or_empty(scans[j], body.outputs()[n + j]));
      out.push_back(RuntimeValue::of(std::move(empty)));
      continue;
    }
    GE_ASSIGN_OR_RETURN(axis, normalize_axis(axis, scans[j][0].rank() + 1, node, "scan_output_axes entry"));
    GE_ASSIGN_OR_RETURN(Tensor stacked, stack_along(scans[j], axis));
    out.push_back(RuntimeValue::of(std::move(stacked)));
  }
  return Status::ok();
}

Status run_scan(const Node& node, const std::vector<const RuntimeValue*>& in, std::vector<RuntimeValue>& out,
                const SubgraphRunner& run) {
  GE_ASSIGN_OR_RETURN(Graph * body, subgraph(node, "body"));
  const int64_t m = node.get_int("num_scan_inputs", 0);
  const bool legacy = node.graph() != nullptr && node.graph()->opset_version("") < 9;
  const size_t first = legacy ? 1 : 0;  // opset 8 starts with the optional sequence_lens
  if (m <= 0 || in.size() < first + static_cast<size_t>(m)) return invalid_argument(node.describe() + ": bad num_scan_inputs");
  const size_t n = in.size() - first - static_cast<size_t>(m);
  for (size_t i = first; i < in.size(); ++i) {
    if (in[i] == nullptr || !in[i]->holds_tensor()) return invalid_argument(node.describe() + ": Scan inputs must be tensors");
  }
  if (!legacy) {
    std::vector<RuntimeValue> states;
    std::vector<Tensor> scans;
    for (size_t i = 0; i < n; ++i) states.push_back(*in[i]);
    for (size_t i = n; i < in.size(); ++i) scans.push_back(in[i]->tensor);
    return scan_once(node, *body, std::move(states), scans, out, run, false);
  }
  if (in[0] != nullptr) return unsupported(node.describe() + ": opset-8 Scan with sequence_lens is not supported");
  // Opset 8: axis 0 is a batch axis; scan each batch entry along (its) axis 0.
  const int64_t batch = in[first]->tensor.shape().empty() ? 0 : in[first]->tensor.shape()[0];
  std::vector<std::vector<RuntimeValue>> per_batch;
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<RuntimeValue> states;
    std::vector<Tensor> scans;
    for (size_t i = first; i < first + n; ++i) states.push_back(RuntimeValue::of(slice_along(in[i]->tensor, 0, b)));
    for (size_t i = first + n; i < in.size(); ++i) scans.push_back(slice_along(in[i]->tensor, 0, b));
    std::vector<RuntimeValue> result;
    GE_RETURN_IF_ERROR(scan_once(node, *body, std::move(states), scans, result, run, true));
    per_batch.push_back(std::move(result));
  }
  out.clear();
  for (size_t j = 0; j < node.output_count(); ++j) {
    std::vector<Tensor> items;
    for (auto& r : per_batch) items.push_back(r[j].tensor);
    GE_ASSIGN_OR_RETURN(Tensor stacked, stack_along(items, 0));
    out.push_back(RuntimeValue::of(std::move(stacked)));
  }
  return Status::ok();
}

Status run_sequence_map(const Node& node, const std::vector<const RuntimeValue*>& in, std::vector<RuntimeValue>& out,
                        const SubgraphRunner& run) {
  GE_ASSIGN_OR_RETURN(Graph * body, subgraph(node, "body"));
  const std::vector<Tensor>* first = sequence_of(in.empty() ? nullptr : in[0]);
  if (first == nullptr) return invalid_argument(node.describe() + ": input 0 must be a sequence");
  std::vector<std::vector<Tensor>> results(node.output_count());
  std::vector<RuntimeValue> body_in, body_out;
  for (size_t i = 0; i < first->size(); ++i) {
    body_in.clear();
    for (const RuntimeValue* v : in) {
      if (v == nullptr) return invalid_argument(node.describe() + ": missing input");
      if (const auto* seq = sequence_of(v)) {
        if (i >= seq->size()) return invalid_argument(node.describe() + ": input sequences differ in length");
        body_in.push_back(RuntimeValue::of((*seq)[i]));
      } else {
        body_in.push_back(*v);
      }
    }
    GE_RETURN_IF_ERROR(run(*body, body_in, body_out));
    for (size_t j = 0; j < results.size(); ++j) results[j].push_back(body_out[j].tensor);
  }
  out.clear();
  for (size_t j = 0; j < results.size(); ++j) {
    const Value* o = body->outputs()[j];
    out.push_back(RuntimeValue::of_sequence(std::move(results[j]), o->desc().dtype));
  }
  return Status::ok();
}

Result<int64_t> sequence_position(const Node& node, const RuntimeValue* position, int64_t size, int64_t fallback,
                                  bool allow_end) {
  if (position == nullptr) return fallback;
  GE_ASSIGN_OR_RETURN(int64_t p, read_index(position, node, "the position"));
  const int64_t upper = allow_end ? size : size - 1;
  if (p < -size || p > upper) {
    return invalid_argument(node.describe() + ": position " + std::to_string(p) + " is out of range for a sequence of length " +
                            std::to_string(size));
  }
  return p < 0 ? p + size : p;
}

Status run_sequence_op(const Node& node, const std::vector<const RuntimeValue*>& in, std::vector<RuntimeValue>& out) {
  const std::string& op = node.op_type();
  auto input = [&](size_t i) -> const RuntimeValue* { return i < in.size() ? in[i] : nullptr; };
  auto need_sequence = [&](size_t i) -> Result<const std::vector<Tensor>*> {
    const auto* seq = sequence_of(input(i));
    if (seq == nullptr) return invalid_argument(node.describe() + ": input " + std::to_string(i) + " must be a sequence");
    return seq;
  };
  const DataType out_type = node.output_count() ? node.output(0)->desc().dtype : DataType::kUndefined;
  out.assign(node.output_count(), RuntimeValue());
  if (op == "SequenceEmpty") {
    out[0] = RuntimeValue::of_sequence({}, static_cast<DataType>(node.get_int("dtype", 1)));
  } else if (op == "SequenceConstruct") {
    std::vector<Tensor> items;
    for (const RuntimeValue* v : in) {
      if (v == nullptr || !v->holds_tensor()) return invalid_argument(node.describe() + ": inputs must be tensors");
      items.push_back(v->tensor);
    }
    out[0] = RuntimeValue::of_sequence(std::move(items), items.empty() ? out_type : items[0].dtype());
  } else if (op == "SequenceLength") {
    GE_ASSIGN_OR_RETURN(auto seq, need_sequence(0));
    out[0] = RuntimeValue::of(scalar_int64(static_cast<int64_t>(seq->size())));
  } else if (op == "SequenceAt") {
    GE_ASSIGN_OR_RETURN(auto seq, need_sequence(0));
    GE_ASSIGN_OR_RETURN(int64_t p, sequence_position(node, input(1), static_cast<int64_t>(seq->size()), 0, false));
    if (input(1) == nullptr) return invalid_argument(node.describe() + ": position is required");
    out[0] = RuntimeValue::of((*seq)[p]);
  } else if (op == "SequenceInsert") {
    GE_ASSIGN_OR_RETURN(auto seq, need_sequence(0));
    if (input(1) == nullptr || !input(1)->holds_tensor()) return invalid_argument(node.describe() + ": tensor input is required");
    const auto size = static_cast<int64_t>(seq->size());
    GE_ASSIGN_OR_RETURN(int64_t p, sequence_position(node, input(2), size, size, true));
    std::vector<Tensor> items = *seq;
    items.insert(items.begin() + p, input(1)->tensor);
    out[0] = RuntimeValue::of_sequence(std::move(items), input(1)->tensor.dtype());
  } else if (op == "SequenceErase") {
    GE_ASSIGN_OR_RETURN(auto seq, need_sequence(0));
    const auto size = static_cast<int64_t>(seq->size());
    if (size == 0) return invalid_argument(node.describe() + ": cannot erase from an empty sequence");
    GE_ASSIGN_OR_RETURN(int64_t p, sequence_position(node, input(1), size, size - 1, false));
    std::vector<Tensor> items = *seq;
    items.erase(items.begin() + p);
    out[0] = RuntimeValue::of_sequence(std::move(items), input(0)->element_type);
  } else if (op == "ConcatFromSequence") {
    GE_ASSIGN_OR_RETURN(auto seq, need_sequence(0));
    if (seq->empty()) return invalid_argument(node.describe() + ": cannot concatenate an empty sequence");
    const bool new_axis = node.get_int("new_axis", 0) != 0;
    const int64_t rank = (*seq)[0].rank() + (new_axis ? 1 : 0);
    GE_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(node.get_int("axis", 0), rank, node, "axis"));
    Result<Tensor> joined = new_axis ? stack_along(*seq, axis) : concat_along(*seq, axis);
    if (!joined) return joined.status().with_context(node.describe());
    out[0] = RuntimeValue::of(std::move(joined).value());
  } else if (op == "SplitToSequence") {
    if (input(0) == nullptr || !input(0)->holds_tensor()) return invalid_argument(node.describe() + ": input must be a tensor");
    const Tensor& t = input(0)->tensor;
    GE_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(node.get_int("axis", 0), t.rank(), node, "axis"));
    const int64_t dim = t.shape()[axis];
    std::vector<int64_t> sizes;
    bool squeeze = false;
    if (input(1) == nullptr) {
      sizes.assign(static_cast<size_t>(dim), 1);
      squeeze = node.get_int("keepdims", 1) == 0;
    } else if (input(1)->tensor.rank() == 0) {
      const int64_t chunk = input(1)->tensor.scalar_as_int64(0);
      if (chunk <= 0) return invalid_argument(node.describe() + ": split must be positive");
      for (int64_t b = 0; b < dim; b += chunk) sizes.push_back(std::min(chunk, dim - b));
    } else {
      GE_ASSIGN_OR_RETURN(sizes, input(1)->tensor.to_int64_vector());
      // Each size checked on its own: [-1, 5] (or sizes whose sum wraps) sums to the
      // extent too, and would slice before the tensor's start.
      int64_t total = 0;
      for (int64_t s : sizes) {
        if (s < 0 || s > dim - total) {
          return invalid_argument(node.describe() + ": split sizes " + shape_to_string(sizes) + " do not divide axis " +
                                  std::to_string(axis) + " of extent " + std::to_string(dim) +
                                  " into non-negative parts");
        }
        total += s;
      }
      if (total != dim) return invalid_argument(node.describe() + ": split sizes sum to " + std::to_string(total) + ", not " + std::to_string(dim));
    }
    std::vector<Tensor> items;
    int64_t begin = 0;
    for (int64_t s : sizes) {
      items.push_back(squeeze ? slice_along(t, axis, begin) : narrow(t, axis, begin, s));
      begin += s;
    }
    out[0] = RuntimeValue::of_sequence(std::move(items), t.dtype());
  } else if (op == "Optional") {
    const ValueKind kind = node.output(0)->desc().kind;
    if (input(0) == nullptr) {
      out[0] = RuntimeValue::empty_optional(kind == ValueKind::kOptionalSequence ? kind : ValueKind::kOptional, out_type);
    } else {
      out[0] = *input(0);
      out[0].kind = input(0)->holds_sequence() ? ValueKind::kOptionalSequence : ValueKind::kOptional;
      out[0].has_element = true;
    }
  } else if (op == "OptionalHasElement") {
    out[0] = RuntimeValue::of(scalar_bool(input(0) != nullptr && input(0)->has_element));
  } else if (op == "OptionalGetElement") {
    const RuntimeValue* v = input(0);
    if (v == nullptr || !v->has_element) return invalid_argument(node.describe() + ": the optional is empty");
    out[0] = *v;
    out[0].kind = v->holds_sequence() ? ValueKind::kSequence : ValueKind::kTensor;
  } else if (op == "Identity") {
    if (input(0) == nullptr) return invalid_argument(node.describe() + ": missing input");
    out[0] = *input(0);
  } else {
    return internal_error("not a host op: " + node.describe());
  }
  return Status::ok();
}

}  // namespace

bool is_host_op_type(const Node& node) {
  static const std::set<std::string> kOps = {
      "If", "Loop", "Scan", "SequenceMap", "SequenceEmpty", "SequenceConstruct", "SequenceLength", "SequenceAt",
      "SequenceInsert", "SequenceErase", "ConcatFromSequence", "SplitToSequence", "Optional", "OptionalHasElement",
      "OptionalGetElement"};
  if (!is_onnx_domain(node)) return false;
  if (kOps.count(node.op_type())) return true;
  return node.op_type() == "Identity" && node.input(0) != nullptr && node.input(0)->desc().kind != ValueKind::kTensor;
}

Status run_host_op(const Node& node, const std::vector<const RuntimeValue*>& inputs, std::vector<RuntimeValue>& outputs,
                   const SubgraphRunner& run_subgraph) {
  const std::string& op = node.op_type();
  if (op == "If") return run_if(node, inputs, outputs, run_subgraph);
  if (op == "Loop") return run_loop(node, inputs, outputs, run_subgraph);
  if (op == "Scan") return run_scan(node, inputs, outputs, run_subgraph);
  if (op == "SequenceMap") return run_sequence_map(node, inputs, outputs, run_subgraph);
  return run_sequence_op(node, inputs, outputs);
}

}  // namespace ge::detail
