#pragma once
/// The core IR: a Graph owns Nodes and Values. A Value is one output of one node (SSA), a
/// graph input, an initializer (weights) or a capture of an outer-scope value by name.

#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ge/attribute.h"
#include "ge/status.h"
#include "ge/tensor.h"
#include "ge/tensor_desc.h"

namespace ge {

class Graph;
class Node;

/// One consumer of a Value: `user->input(input_index) == value`.
struct Use {
  Node* user = nullptr;
  int input_index = 0;
  bool operator==(const Use&) const = default;
};

class Value {
 public:
  const std::string& name() const { return name_; }
  /// Renames the value (the owning graph's name index follows).
  void set_name(std::string name);

  const TensorDesc& desc() const { return desc_; }
  TensorDesc& mutable_desc() { return desc_; }
  void set_desc(TensorDesc desc) { desc_ = std::move(desc); }

  /// The producing node, or null for graph inputs, initializers and captures.
  Node* producer() const { return producer_; }
  int producer_output_index() const { return output_index_; }
  Graph* graph() const { return graph_; }

  const std::vector<Use>& uses() const { return uses_; }
  bool has_uses() const { return !uses_.empty(); }

  /// Weights / constant data; set for initializers (and graph inputs that have one).
  const Tensor* constant() const { return constant_ ? &*constant_ : nullptr; }
  bool is_constant() const { return constant_.has_value(); }

  bool is_graph_input() const { return is_graph_input_; }
  /// A placeholder in a subgraph for an enclosing scope's value of the same name.
  bool is_capture() const { return is_capture_; }

 private:
  friend class Graph;
  friend class Node;
  Graph* graph_ = nullptr;
  std::string name_;
  TensorDesc desc_;
  Node* producer_ = nullptr;
  int output_index_ = 0;
  std::vector<Use> uses_;
  std::optional<Tensor> constant_;
  bool is_graph_input_ = false;
  bool is_capture_ = false;
};

class Node {
 public:
  const std::string& name() const { return name_; }
  /// Renames the node (the owning graph's name index follows).
  void set_name(std::string name);
  const std::string& op_type() const { return op_type_; }
  void set_op_type(std::string type) { op_type_ = std::move(type); }
  /// "" is the ONNX default domain ("ai.onnx").
  const std::string& domain() const { return domain_; }
  void set_domain(std::string domain) { domain_ = std::move(domain); }
  Graph* graph() const { return graph_; }

  /// Inputs in order; an omitted optional input is null.
  const std::vector<Value*>& inputs() const { return inputs_; }
  Value* input(size_t i) const { return i < inputs_.size() ? inputs_[i] : nullptr; }
  size_t input_count() const { return inputs_.size(); }
  /// Rebinds input `i` (may be null); keeps use lists consistent.
  void set_input(size_t i, Value* value);
  void add_input(Value* value);
  /// Drops trailing inputs from `count` on.
  void truncate_inputs(size_t count);

  /// Outputs in order; an omitted optional output is a Value with an empty name and no
  /// uses. Outputs are owned by the graph and created with the node.
  const std::vector<Value*>& outputs() const { return outputs_; }
  Value* output(size_t i) const { return i < outputs_.size() ? outputs_[i] : nullptr; }
  size_t output_count() const { return outputs_.size(); }

  const std::map<std::string, Attribute>& attributes() const { return attributes_; }
  bool has_attribute(const std::string& name) const { return attributes_.count(name) != 0; }
  const Attribute* attribute(const std::string& name) const;
  void set_attribute(const std::string& name, Attribute value) { attributes_[name] = std::move(value); }
  void remove_attribute(const std::string& name) { attributes_.erase(name); }
  /// Typed getters with a default for an absent attribute.
  int64_t get_int(const std::string& name, int64_t fallback) const;
  float get_float(const std::string& name, float fallback) const;
  std::string get_string(const std::string& name, const std::string& fallback) const;
  std::vector<int64_t> get_ints(const std::string& name, std::vector<int64_t> fallback = {}) const;
  std::vector<float> get_floats(const std::string& name, std::vector<float> fallback = {}) const;
  /// Subgraphs held by this node's attributes (If branches, Loop/Scan bodies).
  std::vector<Graph*> subgraphs() const;

  /// Control edges: nodes that must run before this one, with no data dependency.
  const std::vector<Node*>& control_predecessors() const { return control_predecessors_; }
  void add_control_predecessor(Node* node);
  void remove_control_predecessor(Node* node);

  /// "Conv 'conv1'" for messages.
  std::string describe() const;

 private:
  friend class Graph;
  Graph* graph_ = nullptr;
  std::string name_, op_type_, domain_;
  std::vector<Value*> inputs_;
  std::vector<Value*> outputs_;
  std::map<std::string, Attribute> attributes_;
  std::vector<Node*> control_predecessors_;
  std::vector<Node*> control_successors_;
};

/// Topological orders the IR offers; all are deterministic.
enum class TopoOrder {
  kStable,  ///< Kahn's algorithm, ties broken by insertion order
  kDfs,     ///< reverse post-order of a depth-first walk from graph outputs
  kBfs,     ///< level by level from the inputs
};

class Graph {
 public:
  explicit Graph(std::string name = "main");
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }

  /// The enclosing graph for a subgraph, null at top level.
  Graph* parent() const { return parent_; }
  void set_parent(Graph* parent) { parent_ = parent; }

  /// Opset version per domain ("" for ai.onnx).
  const std::map<std::string, int64_t>& opset_imports() const { return opset_imports_; }
  void set_opset_import(const std::string& domain, int64_t version) { opset_imports_[domain] = version; }
  int64_t opset_version(const std::string& domain) const;

  // ---- values ----
  /// Adds a graph input (bound by the caller at run time).
  Value* add_input(std::string name, TensorDesc desc);
  /// Adds an initializer: a named constant. `also_input` keeps it listed as a graph
  /// input whose value may be overridden (ONNX IR < 4 style).
  Value* add_initializer(std::string name, Tensor data, bool also_input = false);
  /// Adds a capture of an enclosing scope's value called `name`.
  Value* add_capture(std::string name, TensorDesc desc);
  /// Replaces the constant data of an initializer (desc updated to match).
  void set_constant(Value* value, Tensor data);

  const std::vector<Value*>& inputs() const { return inputs_; }
  /// Graph inputs that are not initializers: what a caller must bind.
  std::vector<Value*> runtime_inputs() const;
  const std::vector<Value*>& initializers() const { return initializers_; }
  const std::vector<Value*>& captures() const { return captures_; }
  const std::vector<Value*>& outputs() const { return outputs_; }
  void add_output(Value* value) { outputs_.push_back(value); }
  void set_output(size_t i, Value* value) { outputs_.at(i) = value; }
  void set_outputs(std::vector<Value*> values) { outputs_ = std::move(values); }
  bool is_output(const Value* value) const;

  /// Looks up a value by name in this graph only (inputs, initializers, captures, node
  /// outputs); null when absent. Constant time (through a name index); when several
  /// values share the name, the first created.
  Value* find_value(const std::string& name) const;
  /// Looks up in this graph, then in enclosing graphs.
  Value* resolve_name(const std::string& name) const;

  // ---- nodes ----
  /// Adds a node with `output_count` fresh outputs named `output_names` (missing names
  /// are generated). Inputs may be null for omitted optionals.
  Node* add_node(std::string op_type, std::vector<Value*> inputs, size_t output_count,
                 std::string name = {}, std::vector<std::string> output_names = {},
                 std::string domain = {});
  /// Removes a node whose outputs have no uses and are not graph outputs.
  Status remove_node(Node* node);
  /// Points every use of `from` (and graph outputs) at `to`.
  void replace_all_uses(Value* from, Value* to);
  /// Inserts `node_type` on the edge into `user`'s input `input_index`: the new node takes
  /// that value as its single input and feeds `user` instead. Returns the new node.
  Node* insert_between(Node* user, int input_index, std::string op_type, std::string name = {});
  /// Removes inputs/initializers/captures with no uses that are not graph outputs;
  /// returns how many were removed.
  size_t remove_unused_values();

  /// Nodes in insertion order.
  const std::list<std::unique_ptr<Node>>& nodes() const { return nodes_; }
  size_t node_count() const { return nodes_.size(); }
  Node* find_node(const std::string& name) const;

  /// A topological order of all nodes (data edges, control edges and the implicit edges
  /// from values captured by subgraphs). Fails naming a node on a cycle.
  Result<std::vector<Node*>> topological_order(TopoOrder order = TopoOrder::kStable) const;

  /// Names of outer-scope values this graph's subgraphs (transitively) capture and that
  /// this graph does not define itself. Used by DCE and topological ordering.
  std::vector<std::string> free_captured_names() const;
  /// Values of this graph a node uses implicitly through its subgraphs' captures.
  std::vector<Value*> implicit_inputs(const Node& node) const;

  /// A fresh name with `prefix` not used by any value or node in this graph.
  std::string unique_name(const std::string& prefix);

  /// Deep copy (subgraphs included).
  std::unique_ptr<Graph> clone() const;

 private:
  friend class Value;  // set_name keeps the name index
  friend class Node;

  Value* new_value(std::string name);
  void erase_value(Value* value);
  void rename_value(Value* value, std::string name);
  void rename_node(Node* node, std::string name);

  using ValueList = std::list<std::unique_ptr<Value>>;
  using NodeList = std::list<std::unique_ptr<Node>>;

  std::string name_;
  Graph* parent_ = nullptr;
  std::map<std::string, int64_t> opset_imports_;
  std::list<std::unique_ptr<Node>> nodes_;
  std::list<std::unique_ptr<Value>> values_;
  std::vector<Value*> inputs_, initializers_, captures_, outputs_;
  uint64_t name_counter_ = 0;
  // Indexes that make lookups by name and removals constant time on large graphs.
  std::unordered_map<const Value*, ValueList::iterator> value_slots_;
  std::unordered_map<const Node*, NodeList::iterator> node_slots_;
  std::unordered_multimap<std::string, Value*> values_by_name_;
  std::unordered_multimap<std::string, Node*> nodes_by_name_;
};

}  // namespace ge
