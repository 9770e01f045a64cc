#include "gradient_expansion.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ge/graph_queries.h"

namespace ge::onnx_parser {
namespace {

using Shape = std::vector<int64_t>;

bool is_training_gradient(const Node& node) { return node.domain() == kTrainingDomain && node.op_type() == "Gradient"; }

bool differentiable(const Node& node) {
  static const std::set<std::string> ops = {"Add", "Sub", "Mul", "Div", "Neg", "Identity", "Relu"};
  return is_onnx_domain(node) && ops.count(node.op_type()) != 0;
}

Tensor filled(DataType dtype, const Shape& shape, double value) {
  Tensor t = Tensor::zeros(dtype, shape);
  for (int64_t i = 0; i < t.element_count(); ++i) {
    if (dtype == DataType::kFloat32) t.data<float>()[i] = static_cast<float>(value);
    if (dtype == DataType::kFloat64) t.data<double>()[i] = value;
  }
  return t;
}

/// Rewrites one Gradient node.
class GradientExpander {
 public:
  GradientExpander(Graph& graph, Node& gradient) : graph_(graph), gradient_(gradient) {}

  Status run() {
    GE_ASSIGN_OR_RETURN(Value * y, named_value(gradient_.get_string("y", ""), "y"));
    std::vector<Value*> xs;
    const Attribute* xs_attribute = gradient_.attribute("xs");
    if (xs_attribute == nullptr || !xs_attribute->holds<std::vector<std::string>>()) {
      return invalid_argument(gradient_.describe() + " needs a strings attribute 'xs'");
    }
    const std::vector<std::string>& x_names = xs_attribute->get<std::vector<std::string>>();
    if (x_names.size() != gradient_.output_count()) {
      return error("has " + std::to_string(gradient_.output_count()) + " outputs for " +
                   std::to_string(x_names.size()) + " names in 'xs'");
    }
    for (const std::string& name : x_names) {
      GE_ASSIGN_OR_RETURN(Value * x, named_value(name, "xs"));
      xs.push_back(x);
    }
    GE_ASSIGN_OR_RETURN(std::vector<Node*> active, active_nodes(xs, y));
    for (Node* node : active) GE_RETURN_IF_ERROR(forward_shape(*node));
    GE_ASSIGN_OR_RETURN(Shape y_shape, shape_of(y));
    GE_ASSIGN_OR_RETURN(dtype_, dtype_of(y));
    gradients_[y] = constant("ones", filled(dtype_, y_shape, 1.0));
    for (auto it = active.rbegin(); it != active.rend(); ++it) GE_RETURN_IF_ERROR(backward(**it));

    for (size_t i = 0; i < xs.size(); ++i) {
      Value* result = gradients_.count(xs[i]) ? gradients_[xs[i]] : nullptr;
      if (result == nullptr) {
        GE_ASSIGN_OR_RETURN(Shape x_shape, shape_of(xs[i]));
        result = constant("zeros", filled(dtype_, x_shape, 0.0));
      }
      // The output keeps its name: an Identity takes over the Gradient output's uses.
      Value* old_output = gradient_.output(i);
      Node* identity = add("Identity", {result});
      graph_.replace_all_uses(old_output, identity->output(0));
      const std::string name = old_output->name();
      old_output->set_name(graph_.unique_name(name + "_replaced"));
      identity->output(0)->set_name(name);
    }
    return graph_.remove_node(&gradient_);
  }

 private:
  Status error(const std::string& what) const { return unsupported(gradient_.describe() + " " + what); }

  Result<Value*> named_value(const std::string& name, const char* attribute) const {
    if (name.empty()) return invalid_argument(gradient_.describe() + ": attribute '" + attribute + "' names no value");
    Value* value = graph_.find_value(name);
    if (value == nullptr) {
      return invalid_argument(gradient_.describe() + ": attribute '" + attribute + "' names '" + name +
                              "', which is not a value of graph '" + graph_.name() + "'");
    }
    return value;
  }

  /// Nodes that depend on some x and that y depends on, in topological order.
  Result<std::vector<Node*>> active_nodes(const std::vector<Value*>& xs, Value* y) const {
    std::set<const Node*> ancestors;
    std::vector<const Node*> stack;
    if (y->producer() != nullptr) stack.push_back(y->producer());
    while (!stack.empty()) {
      const Node* node = stack.back();
      stack.pop_back();
      if (!ancestors.insert(node).second) continue;
      for (const Value* in : node->inputs()) {
        if (in != nullptr && in->producer() != nullptr) stack.push_back(in->producer());
      }
    }
    GE_ASSIGN_OR_RETURN(std::vector<Node*> order, graph_.topological_order());
    std::set<const Value*> depends_on_x(xs.begin(), xs.end());
    std::vector<Node*> active;
    for (Node* node : order) {
      if (!ancestors.count(node)) continue;
      const bool reached = std::any_of(node->inputs().begin(), node->inputs().end(),
                                       [&](const Value* in) { return in != nullptr && depends_on_x.count(in); });
      if (!reached) continue;
      if (!differentiable(*node)) {
        return error("cannot differentiate " + node->describe() +
                     ": the expansion supports Add, Sub, Mul, Div, Neg, Identity and Relu");
      }
      // Before opset 7 an `axis` lines B up with A from that axis; the expansion
      // broadcasts (and sums gradients back) as numpy does, from the right.
      if (node->has_attribute("axis") && node->get_int("broadcast", 0) != 0) {
        return error("cannot differentiate " + node->describe() + ": it broadcasts B from axis " +
                     std::to_string(node->get_int("axis", 0)) + " (opset " + std::to_string(graph_.opset_version("")) +
                     "), and the expansion broadcasts as numpy does");
      }
      for (const Value* out : node->outputs()) depends_on_x.insert(out);
      active.push_back(node);
    }
    return active;
  }

  Result<DataType> dtype_of(const Value* value) const {
    const DataType dtype = value->constant() != nullptr ? value->constant()->dtype() : value->desc().dtype;
    auto found = dtypes_.find(value);
    const DataType known = found != dtypes_.end() ? found->second : dtype;
    if (known != DataType::kFloat32 && known != DataType::kFloat64) {
      return error("needs float32 or float64 values; '" + value->name() + "' is " +
                   (known == DataType::kUndefined ? std::string("of unknown type") : std::string(data_type_name(known))));
    }
    return known;
  }

  Result<Shape> shape_of(const Value* value) const {
    if (auto found = shapes_.find(value); found != shapes_.end()) return found->second;
    if (value->constant() != nullptr) return value->constant()->shape();
    if (value->desc().is_static()) return value->desc().static_dims();
    return error("needs static shapes; '" + value->name() + "' is " + value->desc().to_string());
  }

  Status forward_shape(const Node& node) {
    Shape out;
    DataType dtype = DataType::kUndefined;
    for (const Value* in : node.inputs()) {
      if (in == nullptr) continue;
      GE_ASSIGN_OR_RETURN(Shape s, shape_of(in));
      GE_ASSIGN_OR_RETURN(DataType t, dtype_of(in));
      if (dtype != DataType::kUndefined && t != dtype) return error("found mixed dtypes at " + node.describe());
      dtype = t;
      if (s.size() > out.size()) out.insert(out.begin(), s.size() - out.size(), 1);
      for (size_t i = 0; i < s.size(); ++i) {
        int64_t& d = out[out.size() - s.size() + i];
        if (d == 1) {
          d = s[i];
        } else if (s[i] != 1 && s[i] != d) {
          return invalid_argument(node.describe() + ": input shapes do not broadcast");
        }
      }
    }
    shapes_[node.output(0)] = out;
    dtypes_[node.output(0)] = dtype;
    return Status::ok();
  }

  Node* add(const std::string& op, std::vector<Value*> inputs) {
    return graph_.add_node(op, std::move(inputs), 1, graph_.unique_name(gradient_.name() + "/" + op));
  }

  Value* constant(const std::string& what, Tensor data) {
    return graph_.add_initializer(graph_.unique_name(gradient_.name() + "/" + what), std::move(data));
  }

  /// `g` (of shape `from`) summed down to `to`, numpy's broadcasting undone.
  Value* unbroadcast(Value* g, const Shape& from, const Shape& to) {
    if (from == to) return g;
    std::vector<int64_t> axes;
    const size_t lead = from.size() - to.size();
    for (size_t i = 0; i < from.size(); ++i) {
      if (i < lead || (to[i - lead] == 1 && from[i] != 1)) axes.push_back(static_cast<int64_t>(i));
    }
    Node* sum = nullptr;
    if (graph_.opset_version("") >= 13) {
      sum = add("ReduceSum", {g, constant("axes", Tensor::from_vector<int64_t>({static_cast<int64_t>(axes.size())}, axes))});
    } else {
      sum = add("ReduceSum", {g});
      sum->set_attribute("axes", axes);
    }
    sum->set_attribute("keepdims", int64_t{1});
    Value* shape = constant("shape", Tensor::from_vector<int64_t>({static_cast<int64_t>(to.size())}, to));
    return add("Reshape", {sum->output(0), shape})->output(0);
  }

  /// Adds `g` (of shape `g_shape`) to the gradient of `input`, whose shape backward()
  /// has checked.
  void accumulate(Value* input, Value* g, const Shape& g_shape) {
    const Shape to = shape_of(input).value();
    Value* reduced = unbroadcast(g, g_shape, to);
    Value*& slot = gradients_[input];
    slot = slot == nullptr ? reduced : add("Add", {slot, reduced})->output(0);
  }

  Status backward(Node& node) {
    auto found = gradients_.find(node.output(0));
    if (found == gradients_.end()) return Status::ok();  // y does not depend on this output's use
    Value* gy = found->second;
    const Shape g_shape = shapes_.at(node.output(0));
    const std::string& op = node.op_type();
    Value* a = node.input_count() > 0 ? node.input(0) : nullptr;
    Value* b = node.input_count() > 1 ? node.input(1) : nullptr;
    for (Value* in : {a, b}) {
      if (in != nullptr) GE_RETURN_IF_ERROR(shape_of(in).status());
    }
    if (op == "Add" || op == "Identity") {
      accumulate(a, gy, g_shape);
      if (op == "Add") accumulate(b, gy, g_shape);
    } else if (op == "Sub") {
      accumulate(a, gy, g_shape);
      accumulate(b, add("Neg", {gy})->output(0), g_shape);
    } else if (op == "Mul") {
      accumulate(a, add("Mul", {gy, b})->output(0), g_shape);
      accumulate(b, add("Mul", {gy, a})->output(0), g_shape);
    } else if (op == "Div") {
      // d(a/b)/da = 1/b; d(a/b)/db = -a/b^2.
      accumulate(a, add("Div", {gy, b})->output(0), g_shape);
      Value* b_squared = add("Mul", {b, b})->output(0);
      Value* ratio = add("Div", {add("Mul", {gy, a})->output(0), b_squared})->output(0);
      accumulate(b, add("Neg", {ratio})->output(0), g_shape);
    } else if (op == "Neg") {
      accumulate(a, add("Neg", {gy})->output(0), g_shape);
    } else if (op == "Relu") {
      Value* zero = constant("zero", filled(dtype_, {}, 0.0));
      Node* mask = add("Cast", {add("Greater", {a, zero})->output(0)});
      mask->set_attribute("to", static_cast<int64_t>(dtype_));
      accumulate(a, add("Mul", {gy, mask->output(0)})->output(0), g_shape);
    }
    return Status::ok();
  }

  Graph& graph_;
  Node& gradient_;
  DataType dtype_ = DataType::kFloat32;
  std::map<const Value*, Shape> shapes_;
  std::map<const Value*, DataType> dtypes_;
  std::map<const Value*, Value*> gradients_;
};

bool holds_gradient(const Graph& graph) {
  for (const auto& node : graph.nodes()) {
    if (is_training_gradient(*node)) return true;
    for (const Graph* sub : node->subgraphs()) {
      if (holds_gradient(*sub)) return true;
    }
  }
  return false;
}

}  // namespace

Status expand_gradients(Graph& graph) {
  std::vector<Node*> gradients;
  for (const auto& node : graph.nodes()) {
    if (is_training_gradient(*node)) gradients.push_back(node.get());
    for (const Graph* sub : node->subgraphs()) {
      if (holds_gradient(*sub)) {
        return unsupported(node->describe() + ": a Gradient node inside a subgraph is not supported");
      }
    }
  }
  for (Node* gradient : gradients) GE_RETURN_IF_ERROR(GradientExpander(graph, *gradient).run());
  return Status::ok();
}

}  // namespace ge::onnx_parser
