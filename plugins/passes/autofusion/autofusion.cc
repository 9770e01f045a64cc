#include "autofusion.h"

#include <algorithm>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ge/autofuse/loop_ir.h"
#include "ge/plugin_api/backend.h"
#include "ge/graph_queries.h"
#include "ge/logging.h"
#include "ge/plugin_api/graph_rewrite.h"

namespace ge::passes {
namespace {

using autofuse::Op;
using Dims = std::vector<int64_t>;

constexpr const char* kFusedDomain = "ge_autofuse";

/// How a candidate node lowers to loop IR.
enum class Lowering {
  kInstruction,  ///< one instruction, `op`
  kAlias,        ///< none: a Cast that changes no value (the output is its operand's value)
  kSoftmax,      ///< reduce_max, sub, exp, reduce_sum, div over the reduced axes
  kLogSoftmax,   ///< reduce_max, sub, exp, reduce_sum, log, sub
};

/// What a candidate node computes, in loop IR terms.
struct Candidate {
  Op op = Op::kConst;
  Lowering lowering = Lowering::kInstruction;
  int reduced_axes = 0;          ///< reductions and softmaxes: how many (contiguous) axes they reduce
  int inner_axes = 0;            ///< reductions and softmaxes: how many axes follow the reduced ones
  bool keepdims = true;          ///< reductions
  std::vector<Value*> operands;  ///< the data inputs (a reduction's axes are not one)

  /// Whether the node works on whole rows: a reduction, or a softmax.
  bool needs_rows() const {
    return autofuse::is_reduction(op) || lowering == Lowering::kSoftmax || lowering == Lowering::kLogSoftmax;
  }
};

/// A static tensor of one of `types`, plain and not empty.
bool is_static_tensor(const Value* value, std::initializer_list<DataType> types) {
  if (value == nullptr) return false;
  const TensorDesc& desc = value->desc();
  return desc.kind == ValueKind::kTensor && std::find(types.begin(), types.end(), desc.dtype) != types.end() &&
         desc.is_static() && desc.is_plain() && desc.element_count() > 0;
}

bool is_static_float(const Value* value) { return is_static_tensor(value, {DataType::kFloat32}); }

Dims dims_of(const Value* value) { return value->desc().static_dims(); }

/// A one-element float32, float16 or bool constant no caller can override: the program
/// holds its value (a float16 widens exactly).
bool is_inlined_constant(const Value* value) {
  if (!is_constant_value(value) || value->constant()->element_count() != 1) return false;
  const DataType type = value->constant()->dtype();
  return type == DataType::kFloat32 || type == DataType::kFloat16 || type == DataType::kBool;
}

float inlined_value(const Value* value) { return static_cast<float>(value->constant()->scalar_as_double(0)); }

int64_t product(const Dims& dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= dims[i];
  return p;
}

bool all_ones(const Dims& dims) {
  return std::all_of(dims.begin(), dims.end(), [](int64_t d) { return d == 1; });
}

/// Numpy broadcasting of `dims` to `shape` without changing `shape` (right-aligned).
bool broadcasts_to(const Dims& dims, const Dims& shape) {
  if (dims.size() > shape.size()) return false;
  const size_t offset = shape.size() - dims.size();
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] != 1 && dims[i] != shape[offset + i]) return false;
  }
  return true;
}

/// Whether `dims` (broadcasting to `shape`) is 1 (or absent) along every axis of
/// [begin, end) of `shape`, or exactly the shape's dims there.
bool constant_or_whole(const Dims& dims, const Dims& shape, size_t begin, size_t end) {
  const size_t rank = shape.size();
  bool ones = true, full = dims.size() >= rank - begin;
  for (size_t i = 0; i < dims.size(); ++i) {
    const size_t axis = rank - dims.size() + i;
    if (axis < begin || axis >= end) continue;
    ones = ones && dims[i] == 1;
    full = full && dims[i] == shape[axis];
  }
  return ones || full;
}

/// What autofuse::validate() asks of an input along the `k` reduced axes before the `m`
/// inner ones, and along those inner ones: 1 (or absent) along every one of them, or
/// exactly the shape's dims.
bool fits_reduced_axes(const Dims& dims, const Dims& shape, int k, int m) {
  if (k == 0) return true;
  const size_t rank = shape.size(), inner_from = rank - static_cast<size_t>(m);
  return constant_or_whole(dims, shape, inner_from - static_cast<size_t>(k), inner_from) &&
         constant_or_whole(dims, shape, inner_from, rank);
}

/// The dims of a row value: `shape` with the `k` dims before its `m` innermost ones set
/// to 1 or dropped.
Dims row_dims(const Dims& shape, int k, int m, bool keepdims) {
  const auto first = shape.end() - k - m;
  Dims dims(shape.begin(), first);
  if (keepdims) dims.insert(dims.end(), static_cast<size_t>(k), 1);
  dims.insert(dims.end(), first + k, shape.end());
  return dims;
}

/// The dtypes an elementwise op takes and gives in a group (values compute as float32;
/// bool ones are 0 or 1). "float" is float32 or float16, alike for every operand and the
/// result: a group of float16 ops computes in float32 and rounds once, where it stores.
enum class Signature {
  kArithmetic,  ///< float operands, float result
  kCompare,     ///< float operands, bool result
  kEqual,       ///< float or bool operands (all alike), bool result
  kLogic,       ///< bool operands, bool result
  kSelect,      ///< a bool condition, then float or bool branches (both alike) and result
};

struct ElementwiseOp {
  Op op;
  Signature signature;
};

const std::map<std::string, ElementwiseOp>& elementwise_ops() {
  using S = Signature;
  static const std::map<std::string, ElementwiseOp> ops = {
      {"Neg", {Op::kNeg, S::kArithmetic}},         {"Abs", {Op::kAbs, S::kArithmetic}},
      {"Exp", {Op::kExp, S::kArithmetic}},         {"Log", {Op::kLog, S::kArithmetic}},
      {"Sqrt", {Op::kSqrt, S::kArithmetic}},       {"Reciprocal", {Op::kReciprocal, S::kArithmetic}},
      {"Relu", {Op::kRelu, S::kArithmetic}},       {"Sigmoid", {Op::kSigmoid, S::kArithmetic}},
      {"Tanh", {Op::kTanh, S::kArithmetic}},       {"Erf", {Op::kErf, S::kArithmetic}},
      {"Floor", {Op::kFloor, S::kArithmetic}},     {"Ceil", {Op::kCeil, S::kArithmetic}},
      {"Sin", {Op::kSin, S::kArithmetic}},         {"Cos", {Op::kCos, S::kArithmetic}},
      {"Add", {Op::kAdd, S::kArithmetic}},         {"Sub", {Op::kSub, S::kArithmetic}},
      {"Mul", {Op::kMul, S::kArithmetic}},         {"Div", {Op::kDiv, S::kArithmetic}},
      {"Pow", {Op::kPow, S::kArithmetic}},         {"Max", {Op::kMax, S::kArithmetic}},
      {"Min", {Op::kMin, S::kArithmetic}},         {"Equal", {Op::kEqual, S::kEqual}},
      {"Less", {Op::kLess, S::kCompare}},          {"Greater", {Op::kGreater, S::kCompare}},
      {"LessOrEqual", {Op::kLessOrEqual, S::kCompare}}, {"GreaterOrEqual", {Op::kGreaterOrEqual, S::kCompare}},
      {"Not", {Op::kNot, S::kLogic}},              {"And", {Op::kAnd, S::kLogic}},
      {"Or", {Op::kOr, S::kLogic}},                {"Xor", {Op::kXor, S::kLogic}},
      {"Where", {Op::kWhere, S::kSelect}}};
  return ops;
}

/// Whether `node`'s operands and output have the dtypes `signature` asks for.
bool fits_signature(const Node& node, Signature signature) {
  const Value* out = node.output(0);
  auto all = [&](size_t from, DataType type) {
    for (size_t i = from; i < node.input_count(); ++i) {
      if (!is_static_tensor(node.input(i), {type})) return false;
    }
    return true;
  };
  auto all_float = [&](size_t from) { return all(from, DataType::kFloat32) || all(from, DataType::kFloat16); };
  const DataType first = node.input_count() > 0 && node.input(0) != nullptr ? node.input(0)->desc().dtype : DataType::kFloat32;
  switch (signature) {
    case Signature::kArithmetic: return all_float(0) && is_static_tensor(out, {first});
    case Signature::kCompare: return all_float(0) && is_static_tensor(out, {DataType::kBool});
    case Signature::kEqual: return (all_float(0) || all(0, DataType::kBool)) && is_static_tensor(out, {DataType::kBool});
    case Signature::kLogic: return all(0, DataType::kBool) && is_static_tensor(out, {DataType::kBool});
    case Signature::kSelect: {
      const DataType type = out->desc().dtype;
      return is_static_tensor(node.input(0), {DataType::kBool}) &&
             (type == DataType::kFloat32 || type == DataType::kFloat16 || type == DataType::kBool) && all(1, type) &&
             is_static_tensor(out, {type});
    }
  }
  return false;
}

/// The ai.onnx opset `node` is read with, as the cpu kernels read it.
int64_t onnx_opset(const Node& node) {
  const Graph* graph = node.graph();
  int64_t version = graph != nullptr ? graph->opset_version("") : 0;
  if (version <= 0 && graph != nullptr) version = graph->opset_version("ai.onnx");
  return version > 0 ? version : 13;
}

/// A Softmax or LogSoftmax of a float32 tensor (opset 13 and later: over `axis`, any of
/// them; before: over the flattened axes from `axis` on), or nullopt.
std::optional<Candidate> softmax_candidate(const Node& node, Lowering lowering) {
  if (node.input_count() != 1 || node.output_count() != 1) return std::nullopt;
  Value* x = node.input(0);
  if (!is_static_float(x) || !is_static_float(node.output(0))) return std::nullopt;
  const Dims dims = dims_of(x);
  const int64_t rank = static_cast<int64_t>(dims.size());
  if (rank == 0 || dims_of(node.output(0)) != dims) return std::nullopt;
  const bool coerced = onnx_opset(node) < 13;
  int64_t axis = node.get_int("axis", coerced ? 1 : -1);
  if (axis < -rank || axis >= rank) return std::nullopt;
  if (axis < 0) axis += rank;
  const int64_t k = coerced ? rank - axis : 1;
  // A row of one element is the full value; the loop IR keeps the two apart.
  if (product(dims, static_cast<size_t>(axis), static_cast<size_t>(axis + k)) <= 1) return std::nullopt;
  Candidate candidate;
  candidate.op = Op::kReduceMax;  // its first instruction; lower() spells out the rest
  candidate.lowering = lowering;
  candidate.reduced_axes = static_cast<int>(k);
  candidate.inner_axes = static_cast<int>(rank - axis - k);
  candidate.operands = {x};
  return candidate;
}

/// A Cast between float32, bool and (from) float16 or int64, or nullopt. Casts to float32
/// and bool to bool keep the value (float16 inputs load exactly, int64 ones round to the
/// nearest float32 as the Cast does); the rest to bool is cast_bool (an int64 is not 0
/// exactly when its float32 is not). An int64 input enters a group only through such a
/// Cast (an integer mask), as no other op of a group takes one.
std::optional<Candidate> cast_candidate(const Node& node) {
  if (node.input_count() != 1 || node.output_count() != 1) return std::nullopt;
  Value* x = node.input(0);
  const int64_t to = node.get_int("to", 0);
  if (!is_static_tensor(x, {DataType::kFloat32, DataType::kBool, DataType::kFloat16, DataType::kInt64})) {
    return std::nullopt;
  }
  if (to != static_cast<int64_t>(DataType::kFloat32) && to != static_cast<int64_t>(DataType::kBool)) return std::nullopt;
  if (!is_static_tensor(node.output(0), {static_cast<DataType>(to)}) || dims_of(node.output(0)) != dims_of(x)) {
    return std::nullopt;
  }
  Candidate candidate;
  candidate.operands = {x};
  if (to == static_cast<int64_t>(DataType::kBool) && x->desc().dtype != DataType::kBool) {
    candidate.op = Op::kCastBool;
  } else {
    candidate.lowering = Lowering::kAlias;
  }
  return candidate;
}

const std::map<std::string, Op>& reduction_ops() {
  static const std::map<std::string, Op> ops = {{"ReduceSum", Op::kReduceSum},
                                                {"ReduceMean", Op::kReduceMean},
                                                {"ReduceMax", Op::kReduceMax},
                                                {"ReduceMin", Op::kReduceMin}};
  return ops;
}

/// A reduction over a contiguous range of its input's axes, or nullopt.
std::optional<Candidate> reduction_candidate(const Node& node, Op op) {
  if (node.input_count() < 1 || node.input_count() > 2 || node.output_count() != 1) return std::nullopt;
  Value* x = node.input(0);
  if (!is_static_float(x) || !is_static_float(node.output(0))) return std::nullopt;
  if (node.get_int("noop_with_empty_axes", 0) != 0) return std::nullopt;
  const Dims x_dims = dims_of(x);
  const int64_t rank = static_cast<int64_t>(x_dims.size());
  // An `axes` input (ReduceSum from opset 13, the others from 18) or else the attribute,
  // as the kernels read them; both at once is no valid node.
  std::vector<int64_t> axes = node.get_ints("axes");
  if (Value* given = node.input(1); given != nullptr) {
    if (node.has_attribute("axes") || !is_constant_value(given) || given->constant()->dtype() != DataType::kInt64) {
      return std::nullopt;
    }
    std::optional<std::vector<int64_t>> ints = constant_ints(given);
    if (!ints) return std::nullopt;
    axes = *ints;
  }
  std::set<int64_t> reduced;
  if (axes.empty()) {
    for (int64_t axis = 0; axis < rank; ++axis) reduced.insert(axis);
  }
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank) return std::nullopt;
    reduced.insert(axis < 0 ? axis + rank : axis);
  }
  // Distinct axes below rank: contiguous exactly when the largest is the smallest + k - 1.
  const int64_t k = static_cast<int64_t>(reduced.size());
  if (k == 0 || *reduced.rbegin() != *reduced.begin() + k - 1) return std::nullopt;
  const int64_t first = *reduced.begin();
  // Over extents of 1 a row value and a full value coincide, which the loop IR rejects.
  if (product(x_dims, static_cast<size_t>(first), static_cast<size_t>(first + k)) <= 1) return std::nullopt;
  Candidate candidate;
  candidate.op = op;
  candidate.reduced_axes = static_cast<int>(k);
  candidate.inner_axes = static_cast<int>(rank - first - k);
  candidate.keepdims = node.get_int("keepdims", 1) != 0;
  candidate.operands = {x};
  if (dims_of(node.output(0)) != row_dims(x_dims, candidate.reduced_axes, candidate.inner_axes, candidate.keepdims)) {
    return std::nullopt;
  }
  return candidate;
}

/// What `node` computes when autofusion may group it, or nullopt.
std::optional<Candidate> candidate_of(const Node& node) {
  if (!is_onnx_domain(node)) return std::nullopt;
  if (auto it = reduction_ops().find(node.op_type()); it != reduction_ops().end()) {
    return reduction_candidate(node, it->second);
  }
  if (node.op_type() == "Softmax") return softmax_candidate(node, Lowering::kSoftmax);
  if (node.op_type() == "LogSoftmax") return softmax_candidate(node, Lowering::kLogSoftmax);
  if (node.op_type() == "Cast") return cast_candidate(node);
  auto it = elementwise_ops().find(node.op_type());
  if (it == elementwise_ops().end() || node.output_count() != 1) return std::nullopt;
  // Before opset 7 an `axis` lines B up with A from that axis; a program aligns its
  // operands from the right.
  if (onnx_opset(node) < 7 && node.has_attribute("axis") && node.get_int("broadcast", 0) != 0) return std::nullopt;
  const size_t expected_inputs = static_cast<size_t>(autofuse::arity(it->second.op));
  if (node.input_count() != expected_inputs || !fits_signature(node, it->second.signature)) return std::nullopt;
  Candidate candidate;
  candidate.op = it->second.op;
  candidate.operands.assign(node.inputs().begin(), node.inputs().end());
  return candidate;
}

/// A value of a group: one element per point of the iteration shape, or one per row (its
/// dims are the shape's with the reduced dims set to 1, or dropped).
enum class Level { kFull, kRowKept, kRowDropped };

struct Group {
  Dims shape;
  int reduced_axes = 0;
  int inner_axes = 0;  ///< axes after the reduced ones (see autofuse::Program)
  std::vector<Node*> nodes;                        ///< in topological order
  std::unordered_map<const Value*, Level> levels;  ///< of the values its nodes produce
  std::vector<Value*> inputs;                      ///< external operands the program loads
  /// Groups from which a path into one of its nodes leads through ungrouped nodes only;
  /// the contracted graph's edges into this group.
  std::set<int> depends_on;
};

/// How a node enters a group.
struct Join {
  Level level = Level::kFull;
  int reduced_axes = 0;           ///< the group's, after the node joins
  int inner_axes = 0;             ///< the group's, after the node joins
  std::vector<Value*> new_inputs;  ///< external operands the group did not load yet
};

/// Builds the groups greedily, node by node in topological order.
class Grouper {
 public:
  Grouper(const Graph& graph, const AutofusionOptions& options) : graph_(graph), options_(options) {}

  void add(Node& node, const std::optional<Candidate>& candidate) {
    if (candidate) {
      std::vector<int> tried;
      for (Value* operand : candidate->operands) {
        auto grouped = group_of_.find(operand->producer());
        if (operand->producer() == nullptr || grouped == group_of_.end()) continue;
        const int id = grouped->second;
        if (std::find(tried.begin(), tried.end(), id) != tried.end()) continue;
        tried.push_back(id);
        if (std::optional<Join> join = fit(id, node, *candidate)) {
          commit(id, node, *candidate, *join);
          return;
        }
      }
      if (seed(node, *candidate)) return;
    }
    std::set<int>& reach = reach_[&node];
    auto merge = [&](const Node* producer) {
      if (producer == nullptr) return;
      const std::set<int> from = origin(producer);
      reach.insert(from.begin(), from.end());
    };
    for (const Value* input : node.inputs()) {
      if (input != nullptr) merge(input->producer());
    }
    if (!node.subgraphs().empty()) {
      for (const Value* input : graph_.implicit_inputs(node)) merge(input->producer());
    }
    for (const Node* predecessor : node.control_predecessors()) merge(predecessor);
  }

  const std::vector<Group>& groups() const { return groups_; }

 private:
  /// The groups `producer`'s output depends on: its own, or those reaching it.
  std::set<int> origin(const Node* producer) const {
    if (auto it = group_of_.find(producer); it != group_of_.end()) return {it->second};
    auto it = reach_.find(producer);
    return it == reach_.end() ? std::set<int>() : it->second;
  }

  /// Whether group `target` is among `from` or what they (transitively) depend on.
  bool reaches(const std::set<int>& from, int target) const {
    std::vector<int> work(from.begin(), from.end());
    std::unordered_set<int> seen(from.begin(), from.end());
    while (!work.empty()) {
      const int id = work.back();
      work.pop_back();
      if (id == target) return true;
      for (int next : groups_[static_cast<size_t>(id)].depends_on) {
        if (seen.insert(next).second) work.push_back(next);
      }
    }
    return false;
  }

  std::optional<Join> fit(int id, const Node& node, const Candidate& candidate) const {
    const Group& group = groups_[static_cast<size_t>(id)];
    if (group.nodes.size() >= options_.max_ops) return std::nullopt;
    const Dims& shape = group.shape;
    const int k = group.reduced_axes, m = group.inner_axes;
    const Dims out = dims_of(node.output(0));
    auto level_of = [&](const Value* value) -> std::optional<Level> {
      auto it = group.levels.find(value);
      return it == group.levels.end() ? std::nullopt : std::optional<Level>(it->second);
    };
    Join join;
    join.reduced_axes = k;
    join.inner_axes = m;
    if (candidate.needs_rows()) {
      if (level_of(candidate.operands[0]) != Level::kFull) return std::nullopt;
      if (k != 0 && (k != candidate.reduced_axes || m != candidate.inner_axes)) return std::nullopt;
      join.reduced_axes = candidate.reduced_axes;
      join.inner_axes = candidate.inner_axes;
      if (k == 0) {
        // The group's first reduction: what it loads must now suit the reduced axes.
        for (const Value* input : group.inputs) {
          if (!fits_reduced_axes(dims_of(input), shape, join.reduced_axes, join.inner_axes)) return std::nullopt;
        }
      }
      join.level = !autofuse::is_reduction(candidate.op) ? Level::kFull
                   : candidate.keepdims                  ? Level::kRowKept
                                                         : Level::kRowDropped;
      return join;
    }
    if (out == shape) {
      join.level = Level::kFull;
    } else if (k > 0 && out == row_dims(shape, k, m, true)) {
      join.level = Level::kRowKept;
    } else if (k > 0 && out == row_dims(shape, k, m, false)) {
      join.level = Level::kRowDropped;
    } else {
      return std::nullopt;
    }
    for (Value* operand : candidate.operands) {
      if (std::optional<Level> level = level_of(operand)) {
        // Numpy aligns dims from the right: a row value with its reduced dims dropped only
        // lines up with other such values.
        const bool aligned = join.level == Level::kFull ? *level != Level::kRowDropped : *level == join.level;
        if (!aligned) return std::nullopt;
        continue;
      }
      if (is_inlined_constant(operand)) continue;
      const Dims dims = dims_of(operand);
      // A row operand must be constant along the reduced axes; with those dropped, the
      // program (which aligns inputs to the full shape) could only load it as all ones.
      const bool fits = (join.level == Level::kRowDropped ? all_ones(dims) : broadcasts_to(dims, out)) &&
                        broadcasts_to(dims, shape) && fits_reduced_axes(dims, shape, k, m);
      if (!fits) return std::nullopt;
      // Joining must not close a cycle: the operand may not come out of this group.
      if (operand->producer() != nullptr && reaches(origin(operand->producer()), id)) return std::nullopt;
      const bool loaded = std::find(group.inputs.begin(), group.inputs.end(), operand) != group.inputs.end() ||
                          std::find(join.new_inputs.begin(), join.new_inputs.end(), operand) != join.new_inputs.end();
      if (!loaded) join.new_inputs.push_back(operand);
    }
    if (group.inputs.size() + join.new_inputs.size() > options_.max_inputs) return std::nullopt;
    return join;
  }

  /// Starts a group with `node`; false when it cannot (then the node stays on its own).
  bool seed(Node& node, const Candidate& candidate) {
    Group group;
    Join join;
    if (candidate.needs_rows()) {
      group.shape = dims_of(candidate.operands[0]);
      join.reduced_axes = candidate.reduced_axes;
      join.inner_axes = candidate.inner_axes;
      join.level = !autofuse::is_reduction(candidate.op) ? Level::kFull
                   : candidate.keepdims                  ? Level::kRowKept
                                                         : Level::kRowDropped;
    } else {
      group.shape = dims_of(node.output(0));
      if (group.shape.empty()) return false;  // the loop IR needs an iteration axis
    }
    for (Value* operand : candidate.operands) {
      if (is_inlined_constant(operand)) continue;
      if (!broadcasts_to(dims_of(operand), group.shape)) return false;
      if (std::find(join.new_inputs.begin(), join.new_inputs.end(), operand) == join.new_inputs.end()) {
        join.new_inputs.push_back(operand);
      }
    }
    if (join.new_inputs.size() > options_.max_inputs) return false;
    groups_.push_back(std::move(group));
    commit(static_cast<int>(groups_.size() - 1), node, candidate, join);
    return true;
  }

  void commit(int id, Node& node, const Candidate& candidate, const Join& join) {
    Group& group = groups_[static_cast<size_t>(id)];
    group.nodes.push_back(&node);
    group.reduced_axes = join.reduced_axes;
    group.inner_axes = join.inner_axes;
    group.inputs.insert(group.inputs.end(), join.new_inputs.begin(), join.new_inputs.end());
    for (const Value* operand : candidate.operands) {
      if (group.levels.count(operand) || operand->producer() == nullptr) continue;
      const std::set<int> from = origin(operand->producer());
      group.depends_on.insert(from.begin(), from.end());
    }
    group.levels[node.output(0)] = join.level;
    group_of_[&node] = id;
  }

  const Graph& graph_;
  const AutofusionOptions& options_;
  std::vector<Group> groups_;
  std::unordered_map<const Node*, int> group_of_;
  /// For each ungrouped node: the groups from which a path leads to it.
  std::unordered_map<const Node*, std::set<int>> reach_;
};

/// The loop IR program of `group`, the values it loads and those it gives back.
struct Lowered {
  autofuse::Program program;
  std::vector<Value*> inputs;
  std::vector<Value*> outputs;
};

Lowered lower(const Graph& graph, const Group& group, const std::set<std::string>& captured) {
  Lowered lowered;
  autofuse::Program& program = lowered.program;
  program.shape = group.shape;
  program.reduced_axes = group.reduced_axes;
  program.inner_axes = group.inner_axes;
  std::unordered_map<const Value*, int> defined;
  auto operand = [&](Value* value) -> int {
    if (auto it = defined.find(value); it != defined.end()) return it->second;
    autofuse::Instruction instruction;
    if (is_inlined_constant(value)) {
      instruction.op = Op::kConst;
      instruction.constant = inlined_value(value);
    } else {
      instruction.op = Op::kLoad;
      instruction.input = static_cast<int>(program.inputs.size());
      program.inputs.push_back({dims_of(value), value->desc().dtype});
      lowered.inputs.push_back(value);
    }
    program.code.push_back(instruction);
    return defined[value] = static_cast<int>(program.code.size() - 1);
  };
  const std::unordered_set<const Node*> members(group.nodes.begin(), group.nodes.end());
  auto emit = [&](Op op, int a, int b = -1) {
    autofuse::Instruction instruction;
    instruction.op = op;
    instruction.a = a;
    instruction.b = b;
    program.code.push_back(instruction);
    return static_cast<int>(program.code.size() - 1);
  };
  for (const Node* node : group.nodes) {
    const std::optional<Candidate> candidate = candidate_of(*node);
    Value* out = node->output(0);
    int value = operand(candidate->operands[0]);
    switch (candidate->lowering) {
      case Lowering::kAlias: break;
      case Lowering::kSoftmax:
      case Lowering::kLogSoftmax: {
        const int shifted = emit(Op::kSub, value, emit(Op::kReduceMax, value));
        const int exp = emit(Op::kExp, shifted);
        const int sum = emit(Op::kReduceSum, exp);
        value = candidate->lowering == Lowering::kSoftmax ? emit(Op::kDiv, exp, sum)
                                                          : emit(Op::kSub, shifted, emit(Op::kLog, sum));
        break;
      }
      case Lowering::kInstruction: {
        autofuse::Instruction instruction;
        instruction.op = candidate->op;
        instruction.a = value;
        // In order: the text of the program must not depend on argument evaluation order.
        if (candidate->operands.size() >= 2) instruction.b = operand(candidate->operands[1]);
        if (candidate->operands.size() >= 3) instruction.c = operand(candidate->operands[2]);
        program.code.push_back(instruction);
        value = static_cast<int>(program.code.size() - 1);
        break;
      }
    }
    defined[out] = value;
    bool escapes = graph.is_output(out) || captured.count(out->name()) != 0;
    for (const Use& use : out->uses()) escapes = escapes || !members.count(use.user);
    if (escapes) {
      program.outputs.push_back({value, dims_of(out), out->desc().dtype});
      lowered.outputs.push_back(out);
    }
  }
  return lowered;
}

/// Why the Fused node cannot stay: `ops` (when given) cannot infer it, or `backend` (when
/// given) cannot run it; empty when it can.
std::string rejection(Node& fused, const OpRegistry* ops, const Backend* backend) {
  if (ops != nullptr) {
    if (Status inferred = ops->infer_node(fused); !inferred.is_ok()) return inferred.message();
  }
  std::string why;
  if (backend != nullptr && !backend->supports(fused, &why)) {
    return "backend '" + backend->name() + "' does not support it" + (why.empty() ? "" : ": " + why);
  }
  return {};
}

/// Replaces the group's nodes by one Fused node; false (graph untouched) when its program
/// does not validate or the node is rejected (see rejection()).
Result<bool> fuse(Graph& graph, const Group& group, const std::set<std::string>& captured, const OpRegistry* ops,
                  const Backend* backend) {
  Lowered lowered = lower(graph, group, captured);
  if (Status valid = autofuse::validate(lowered.program); !valid.is_ok()) {
    GE_LOG_DEBUG("autofusion: a group of {} nodes from {} stays unfused: {}", group.nodes.size(),
                 group.nodes.front()->describe(), valid.message());
    return false;
  }
  std::vector<std::string> names;
  for (const Value* out : lowered.outputs) names.push_back(out->name());
  // The outputs take over the names of the values they replace (briefly shared), so graph
  // outputs and subgraph captures keep naming them.
  Node* fused = graph.add_node("Fused", lowered.inputs, lowered.outputs.size(), graph.unique_name("autofuse"),
                               names, kFusedDomain);
  fused->set_attribute("program", Attribute(autofuse::print(lowered.program)));
  for (size_t i = 0; i < lowered.outputs.size(); ++i) fused->output(i)->set_desc(lowered.outputs[i]->desc());
  if (const std::string why = rejection(*fused, ops, backend); !why.empty()) {
    GE_LOG_DEBUG("autofusion: {} stays unfused: {}", fused->describe(), why);
    GE_RETURN_IF_ERROR(graph.remove_node(fused));
    return false;
  }
  for (size_t i = 0; i < lowered.outputs.size(); ++i) graph.replace_all_uses(lowered.outputs[i], fused->output(i));
  // Users before producers, so each removed node has no remaining uses.
  for (auto it = group.nodes.rbegin(); it != group.nodes.rend(); ++it) GE_RETURN_IF_ERROR(graph.remove_node(*it));
  return true;
}

}  // namespace

Status Autofusion::run(Graph& graph, PassContext& context, bool& changed) {
  GE_ASSIGN_OR_RETURN(std::vector<Node*> order, graph.topological_order());
  // Control edges order nodes for reasons the program cannot keep: such nodes stay out.
  std::unordered_set<const Node*> ordered;
  for (const Node* node : order) {
    if (!node->control_predecessors().empty()) ordered.insert(node);
    ordered.insert(node->control_predecessors().begin(), node->control_predecessors().end());
  }
  Grouper grouper(graph, options_);
  for (Node* node : order) {
    std::optional<Candidate> candidate;
    if (!ordered.count(node)) candidate = candidate_of(*node);
    grouper.add(*node, candidate);
  }
  const std::set<std::string> captured = captured_names(graph);
  bool fused_any = false;
  for (const Group& group : grouper.groups()) {
    if (group.nodes.size() < 2) continue;
    GE_ASSIGN_OR_RETURN(bool fused, fuse(graph, group, captured, context.ops, context.target_backend));
    fused_any = fused_any || fused;
  }
  if (fused_any) {
    ensure_opset_import(graph, kFusedDomain, 1);
    changed = true;
  }
  return Status::ok();
}

}  // namespace ge::passes
