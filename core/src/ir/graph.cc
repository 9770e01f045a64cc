// The core IR (ge/graph.h): Graph, Node and Value and their edits.
#include "ge/graph.h"

#include <algorithm>
#include <queue>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace ge {

// ---------------------------------------------------------------------------------------
// Node

namespace {
void erase_use(std::vector<Use>& uses, const Use& use) {
  auto it = std::find(uses.begin(), uses.end(), use);
  if (it != uses.end()) uses.erase(it);
}
}  // namespace

void Node::set_input(size_t i, Value* value) {
  if (i >= inputs_.size()) inputs_.resize(i + 1, nullptr);
  if (inputs_[i] != nullptr) erase_use(inputs_[i]->uses_, Use{this, static_cast<int>(i)});
  inputs_[i] = value;
  if (value != nullptr) value->uses_.push_back(Use{this, static_cast<int>(i)});
}

void Node::add_input(Value* value) { set_input(inputs_.size(), value); }

void Node::truncate_inputs(size_t count) {
  while (inputs_.size() > count) {
    set_input(inputs_.size() - 1, nullptr);
    inputs_.pop_back();
  }
}

const Attribute* Node::attribute(const std::string& name) const {
  auto it = attributes_.find(name);
  return it == attributes_.end() ? nullptr : &it->second;
}

int64_t Node::get_int(const std::string& name, int64_t fallback) const {
  const Attribute* a = attribute(name);
  return a && a->holds<int64_t>() ? a->get<int64_t>() : fallback;
}

float Node::get_float(const std::string& name, float fallback) const {
  const Attribute* a = attribute(name);
  if (a && a->holds<float>()) return a->get<float>();
  if (a && a->holds<int64_t>()) return static_cast<float>(a->get<int64_t>());
  return fallback;
}

std::string Node::get_string(const std::string& name, const std::string& fallback) const {
  const Attribute* a = attribute(name);
  return a && a->holds<std::string>() ? a->get<std::string>() : fallback;
}

std::vector<int64_t> Node::get_ints(const std::string& name, std::vector<int64_t> fallback) const {
  const Attribute* a = attribute(name);
  return a && a->holds<std::vector<int64_t>>() ? a->get<std::vector<int64_t>>() : fallback;
}

std::vector<float> Node::get_floats(const std::string& name, std::vector<float> fallback) const {
  const Attribute* a = attribute(name);
  return a && a->holds<std::vector<float>>() ? a->get<std::vector<float>>() : fallback;
}

std::vector<Graph*> Node::subgraphs() const {
  std::vector<Graph*> result;
  for (const auto& [name, attr] : attributes_) {
    if (attr.holds<Attribute::GraphPtr>()) {
      if (attr.get<Attribute::GraphPtr>()) result.push_back(attr.get<Attribute::GraphPtr>().get());
    } else if (attr.holds<std::vector<Attribute::GraphPtr>>()) {
      for (const auto& g : attr.get<std::vector<Attribute::GraphPtr>>()) {
        if (g) result.push_back(g.get());
      }
    }
  }
  return result;
}

void Node::add_control_predecessor(Node* node) {
  if (node == nullptr || node == this) return;
  if (std::find(control_predecessors_.begin(), control_predecessors_.end(), node) != control_predecessors_.end()) return;
  control_predecessors_.push_back(node);
  node->control_successors_.push_back(this);
}

void Node::remove_control_predecessor(Node* node) {
  auto it = std::find(control_predecessors_.begin(), control_predecessors_.end(), node);
  if (it == control_predecessors_.end()) return;
  control_predecessors_.erase(it);
  auto& succ = node->control_successors_;
  succ.erase(std::find(succ.begin(), succ.end(), this));
}

std::string Node::describe() const {
  std::string type = domain_.empty() ? op_type_ : domain_ + "::" + op_type_;
  return type + " '" + name_ + "'";
}

// ---------------------------------------------------------------------------------------
// Graph

Graph::Graph(std::string name) : name_(std::move(name)) {}

Graph::~Graph() {
  // Nodes reference values and each other; drop the cross references in bulk.
  nodes_.clear();
  values_.clear();
}

int64_t Graph::opset_version(const std::string& domain) const {
  for (const Graph* g = this; g != nullptr; g = g->parent_) {
    auto it = g->opset_imports_.find(domain);
    if (it != g->opset_imports_.end()) return it->second;
    if (domain == "ai.onnx") {
      it = g->opset_imports_.find("");
      if (it != g->opset_imports_.end()) return it->second;
    }
  }
  return 0;
}

namespace {
template <typename T>
void erase_entry(std::unordered_multimap<std::string, T*>& index, const std::string& name, const T* item) {
  auto [begin, end] = index.equal_range(name);
  for (auto it = begin; it != end; ++it) {
    if (it->second == item) {
      index.erase(it);
      return;
    }
  }
}
}  // namespace

void Value::set_name(std::string name) {
  if (graph_ != nullptr) {
    graph_->rename_value(this, std::move(name));
  } else {
    name_ = std::move(name);
  }
}

void Node::set_name(std::string name) {
  if (graph_ != nullptr) {
    graph_->rename_node(this, std::move(name));
  } else {
    name_ = std::move(name);
  }
}

void Graph::rename_value(Value* value, std::string name) {
  erase_entry(values_by_name_, value->name_, value);
  value->name_ = std::move(name);
  values_by_name_.emplace(value->name_, value);
}

void Graph::rename_node(Node* node, std::string name) {
  erase_entry(nodes_by_name_, node->name_, node);
  node->name_ = std::move(name);
  nodes_by_name_.emplace(node->name_, node);
}

Value* Graph::new_value(std::string name) {
  values_.push_back(std::make_unique<Value>());
  Value* value = values_.back().get();
  value->graph_ = this;
  value->name_ = std::move(name);
  value_slots_[value] = std::prev(values_.end());
  values_by_name_.emplace(value->name_, value);
  return value;
}

void Graph::erase_value(Value* value) {
  auto drop = [value](std::vector<Value*>& list) { list.erase(std::remove(list.begin(), list.end(), value), list.end()); };
  // Only the lists the value can be in: node outputs are in none but (maybe) outputs_.
  if (value->is_graph_input_) drop(inputs_);
  if (value->constant_.has_value()) drop(initializers_);
  if (value->is_capture_) drop(captures_);
  drop(outputs_);
  erase_entry(values_by_name_, value->name_, value);
  auto slot = value_slots_.find(value);
  if (slot != value_slots_.end()) {
    values_.erase(slot->second);
    value_slots_.erase(slot);
  }
}

Value* Graph::add_input(std::string name, TensorDesc desc) {
  Value* value = new_value(std::move(name));
  value->desc_ = std::move(desc);
  value->is_graph_input_ = true;
  inputs_.push_back(value);
  return value;
}

Value* Graph::add_initializer(std::string name, Tensor data, bool also_input) {
  Value* value = new_value(std::move(name));
  set_constant(value, std::move(data));
  initializers_.push_back(value);
  if (also_input) {
    value->is_graph_input_ = true;
    inputs_.push_back(value);
  }
  return value;
}

Value* Graph::add_capture(std::string name, TensorDesc desc) {
  Value* value = new_value(std::move(name));
  value->desc_ = std::move(desc);
  value->is_capture_ = true;
  captures_.push_back(value);
  return value;
}

void Graph::set_constant(Value* value, Tensor data) {
  value->desc_ = TensorDesc::of(data.dtype(), data.shape());
  value->constant_ = std::move(data);
}

std::vector<Value*> Graph::runtime_inputs() const {
  std::vector<Value*> result;
  for (Value* v : inputs_) {
    if (!v->is_constant()) result.push_back(v);
  }
  return result;
}

bool Graph::is_output(const Value* value) const {
  return std::find(outputs_.begin(), outputs_.end(), value) != outputs_.end();
}

Value* Graph::find_value(const std::string& name) const {
  if (name.empty()) return nullptr;
  auto [begin, end] = values_by_name_.equal_range(name);
  if (begin == end) return nullptr;
  if (std::next(begin) == end) return begin->second;
  for (const auto& v : values_) {  // several share the name: the first created
    if (v->name_ == name) return v.get();
  }
  return nullptr;
}

Value* Graph::resolve_name(const std::string& name) const {
  for (const Graph* g = this; g != nullptr; g = g->parent_) {
    Value* v = g->find_value(name);
    // A capture only forwards to the enclosing scope; keep looking for the definition.
    if (v != nullptr && !v->is_capture()) return v;
  }
  return nullptr;
}

std::string Graph::unique_name(const std::string& prefix) {
  while (true) {
    std::string candidate = prefix + "_" + std::to_string(name_counter_++);
    if (find_value(candidate) == nullptr && find_node(candidate) == nullptr) return candidate;
  }
}

Node* Graph::add_node(std::string op_type, std::vector<Value*> inputs, size_t output_count, std::string name,
                      std::vector<std::string> output_names, std::string domain) {
  if (name.empty()) name = unique_name(op_type);
  nodes_.push_back(std::make_unique<Node>());
  Node* node = nodes_.back().get();
  node_slots_[node] = std::prev(nodes_.end());
  node->graph_ = this;
  node->op_type_ = std::move(op_type);
  node->name_ = std::move(name);
  nodes_by_name_.emplace(node->name_, node);
  node->domain_ = std::move(domain);
  for (Value* input : inputs) node->add_input(input);
  for (size_t i = 0; i < output_count; ++i) {
    std::string out_name = i < output_names.size() ? output_names[i] : unique_name(node->name_ + "_out");
    Value* out = new_value(std::move(out_name));
    out->producer_ = node;
    out->output_index_ = static_cast<int>(i);
    node->outputs_.push_back(out);
  }
  return node;
}

Status Graph::remove_node(Node* node) {
  if (node == nullptr || node->graph_ != this) return invalid_argument("remove_node: node is not in graph '" + name_ + "'");
  for (Value* out : node->outputs_) {
    if (out->has_uses()) {
      return invalid_argument("cannot remove " + node->describe() + ": its output '" + out->name_ + "' still has " +
                              std::to_string(out->uses_.size()) + " use(s)");
    }
    if (is_output(out)) {
      return invalid_argument("cannot remove " + node->describe() + ": its output '" + out->name_ + "' is a graph output");
    }
  }
  for (size_t i = 0; i < node->inputs_.size(); ++i) node->set_input(i, nullptr);
  while (!node->control_predecessors_.empty()) node->remove_control_predecessor(node->control_predecessors_.back());
  while (!node->control_successors_.empty()) node->control_successors_.back()->remove_control_predecessor(node);
  for (Value* out : node->outputs_) erase_value(out);
  erase_entry(nodes_by_name_, node->name_, node);
  auto slot = node_slots_.find(node);
  if (slot != node_slots_.end()) {
    nodes_.erase(slot->second);
    node_slots_.erase(slot);
  }
  return Status::ok();
}

namespace {
// Subgraphs refer to outer values by name: when a value is replaced, captures of it in
// nested subgraphs must follow the new name (unless a nested scope shadows it).
void rename_captures(const Graph& graph, const std::string& from, const std::string& to) {
  for (const auto& node : graph.nodes()) {
    for (Graph* sub : node->subgraphs()) {
      bool shadowed = false;
      for (Value* c : sub->captures()) {
        if (c->name() == from) c->set_name(to);
      }
      Value* local = sub->find_value(from);
      if (local != nullptr && !local->is_capture()) shadowed = true;
      if (!shadowed) rename_captures(*sub, from, to);
    }
  }
}
}  // namespace

void Graph::replace_all_uses(Value* from, Value* to) {
  if (from == to) return;
  std::vector<Use> uses = from->uses_;
  for (const Use& use : uses) use.user->set_input(static_cast<size_t>(use.input_index), to);
  for (Value*& out : outputs_) {
    if (out == from) out = to;
  }
  if (to != nullptr && !from->name_.empty() && !to->name_.empty()) rename_captures(*this, from->name_, to->name_);
}

Node* Graph::insert_between(Node* user, int input_index, std::string op_type, std::string name) {
  Value* value = user->input(static_cast<size_t>(input_index));
  Node* node = add_node(std::move(op_type), {value}, 1, std::move(name));
  if (value != nullptr) node->output(0)->set_desc(value->desc());
  user->set_input(static_cast<size_t>(input_index), node->output(0));
  return node;
}

size_t Graph::remove_unused_values() {
  std::vector<Value*> dead;
  for (Value* v : initializers_) {
    if (!v->has_uses() && !is_output(v) && !v->is_graph_input_) dead.push_back(v);
  }
  for (Value* v : captures_) {
    if (!v->has_uses() && !is_output(v)) dead.push_back(v);
  }
  // Values still named by nested subgraphs' captures stay.
  std::unordered_set<std::string> needed;
  for (const auto& node : nodes_) {
    for (Graph* sub : node->subgraphs()) {
      for (const std::string& n : sub->free_captured_names()) needed.insert(n);
    }
  }
  size_t removed = 0;
  for (Value* v : dead) {
    if (needed.count(v->name_)) continue;
    erase_value(v);
    ++removed;
  }
  return removed;
}

Node* Graph::find_node(const std::string& name) const {
  auto [begin, end] = nodes_by_name_.equal_range(name);
  if (begin == end) return nullptr;
  if (std::next(begin) == end) return begin->second;
  for (const auto& n : nodes_) {  // several share the name: the first created
    if (n->name_ == name) return n.get();
  }
  return nullptr;
}

std::vector<std::string> Graph::free_captured_names() const {
  std::vector<std::string> names;
  std::unordered_set<std::string> seen;
  for (Value* c : captures_) {
    if (seen.insert(c->name_).second) names.push_back(c->name_);
  }
  std::unordered_set<std::string> defined;
  for (const auto& v : values_) {
    if (!v->is_capture_ && !v->name_.empty()) defined.insert(v->name_);
  }
  for (const auto& node : nodes_) {
    for (Graph* sub : node->subgraphs()) {
      for (const std::string& n : sub->free_captured_names()) {
        if (!defined.count(n) && seen.insert(n).second) names.push_back(n);
      }
    }
  }
  return names;
}

std::vector<Value*> Graph::implicit_inputs(const Node& node) const {
  std::vector<Value*> result;
  for (Graph* sub : node.subgraphs()) {
    for (const std::string& name : sub->free_captured_names()) {
      Value* v = find_value(name);
      if (v != nullptr && std::find(result.begin(), result.end(), v) == result.end()) result.push_back(v);
    }
  }
  return result;
}

Result<std::vector<Node*>> Graph::topological_order(TopoOrder order) const {
  std::unordered_map<const Node*, size_t> index;
  std::vector<Node*> nodes;
  nodes.reserve(nodes_.size());
  for (const auto& n : nodes_) {
    index[n.get()] = nodes.size();
    nodes.push_back(n.get());
  }
  // Predecessor lists: data, implicit (captures) and control edges.
  std::vector<std::vector<size_t>> preds(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    auto add = [&](const Node* p) {
      if (p == nullptr) return;
      auto it = index.find(p);
      if (it != index.end()) preds[i].push_back(it->second);
    };
    for (Value* in : nodes[i]->inputs_) {
      if (in != nullptr) add(in->producer_);
    }
    if (!nodes[i]->attributes_.empty()) {
      for (Value* in : implicit_inputs(*nodes[i])) add(in->producer_);
    }
    for (Node* p : nodes[i]->control_predecessors_) add(p);
  }
  std::vector<std::vector<size_t>> succs(nodes.size());
  std::vector<size_t> pending(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    pending[i] = preds[i].size();
    for (size_t p : preds[i]) succs[p].push_back(i);
  }
  std::vector<Node*> result;
  result.reserve(nodes.size());
  if (order == TopoOrder::kDfs) {
    // Post-order over predecessor edges emits every node after all its predecessors.
    std::vector<int> state(nodes.size(), 0);  // 0 new, 1 on stack, 2 done
    for (size_t root = 0; root < nodes.size(); ++root) {
      if (state[root]) continue;
      std::vector<std::pair<size_t, size_t>> stack{{root, 0}};
      state[root] = 1;
      while (!stack.empty()) {
        auto& [n, next] = stack.back();
        if (next < preds[n].size()) {
          size_t p = preds[n][next++];
          if (state[p] == 1) return invalid_argument("graph '" + name_ + "' has a cycle through " + nodes[p]->describe());
          if (state[p] == 0) {
            state[p] = 1;
            stack.push_back({p, 0});
          }
        } else {
          state[n] = 2;
          result.push_back(nodes[n]);
          stack.pop_back();
        }
      }
    }
    return result;
  }
  std::vector<int64_t> level(nodes.size(), 0);
  using Entry = std::pair<int64_t, size_t>;  // (level or 0, insertion index)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (pending[i] == 0) ready.push({0, i});
  }
  while (!ready.empty()) {
    size_t n = ready.top().second;
    ready.pop();
    result.push_back(nodes[n]);
    for (size_t s : succs[n]) {
      level[s] = std::max(level[s], level[n] + 1);
      if (--pending[s] == 0) ready.push({order == TopoOrder::kBfs ? level[s] : 0, s});
    }
  }
  if (result.size() != nodes.size()) {
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (pending[i] != 0) return invalid_argument("graph '" + name_ + "' has a cycle through " + nodes[i]->describe());
    }
  }
  return result;
}

std::unique_ptr<Graph> Graph::clone() const {
  auto copy = std::make_unique<Graph>(name_);
  copy->parent_ = parent_;
  copy->opset_imports_ = opset_imports_;
  copy->name_counter_ = name_counter_;
  std::unordered_map<const Value*, Value*> map;
  for (const auto& v : values_) {
    if (v->producer_ != nullptr) continue;
    Value* c = copy->new_value(v->name_);
    c->desc_ = v->desc_;
    c->constant_ = v->constant_;
    c->is_graph_input_ = v->is_graph_input_;
    c->is_capture_ = v->is_capture_;
    map[v.get()] = c;
  }
  for (Value* v : inputs_) copy->inputs_.push_back(map.at(v));
  for (Value* v : initializers_) copy->initializers_.push_back(map.at(v));
  for (Value* v : captures_) copy->captures_.push_back(map.at(v));
  std::unordered_map<const Node*, Node*> node_map;
  for (const auto& n : nodes_) {
    std::vector<std::string> out_names;
    for (Value* o : n->outputs_) out_names.push_back(o->name_);
    Node* c = copy->add_node(n->op_type_, {}, n->outputs_.size(), n->name_, out_names, n->domain_);
    for (size_t i = 0; i < n->outputs_.size(); ++i) {
      c->outputs_[i]->desc_ = n->outputs_[i]->desc_;
      c->outputs_[i]->constant_ = n->outputs_[i]->constant_;
      map[n->outputs_[i]] = c->outputs_[i];
    }
    for (const auto& [key, attr] : n->attributes_) {
      if (attr.holds<Attribute::GraphPtr>() && attr.get<Attribute::GraphPtr>()) {
        std::shared_ptr<Graph> sub = attr.get<Attribute::GraphPtr>()->clone();
        sub->parent_ = copy.get();
        c->attributes_[key] = Attribute(sub);
      } else if (attr.holds<std::vector<Attribute::GraphPtr>>()) {
        std::vector<Attribute::GraphPtr> subs;
        for (const auto& g : attr.get<std::vector<Attribute::GraphPtr>>()) {
          std::shared_ptr<Graph> sub = g ? std::shared_ptr<Graph>(g->clone()) : nullptr;
          if (sub) sub->parent_ = copy.get();
          subs.push_back(sub);
        }
        c->attributes_[key] = Attribute(subs);
      } else {
        c->attributes_[key] = attr;
      }
    }
    node_map[n.get()] = c;
  }
  for (const auto& n : nodes_) {
    Node* c = node_map.at(n.get());
    for (Value* in : n->inputs_) c->add_input(in ? map.at(in) : nullptr);
    for (Node* p : n->control_predecessors_) c->add_control_predecessor(node_map.at(p));
  }
  for (Value* v : outputs_) copy->outputs_.push_back(map.at(v));
  return copy;
}

}  // namespace ge
