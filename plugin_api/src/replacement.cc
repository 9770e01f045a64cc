// What a fusion builds in place of a match (ge/plugin_api/replacement.h).
#include "ge/plugin_api/replacement.h"

#include "ge/plugin_api/graph_rewrite.h"

namespace ge {

Replacement::Replacement(const Graph& graph, const Match& match)
    : graph_(graph), match_(match), scratch_(std::make_unique<Graph>("replacement")) {
  // Nearest import wins, as Graph::opset_version resolves it.
  for (const Graph* g = &graph; g != nullptr; g = g->parent()) {
    for (const auto& [domain, version] : g->opset_imports()) {
      if (!scratch_->opset_imports().count(domain)) scratch_->set_opset_import(domain, version);
    }
  }
}

Replacement::~Replacement() = default;

Value* Replacement::use(Value* original) {
  if (original == nullptr) return nullptr;
  if (original->graph() == scratch_.get()) return original;
  auto it = stand_ins_.find(original);
  if (it != stand_ins_.end()) return it->second;
  // Names of stand-ins only need to be unique in the scratch graph.
  std::string name = original->name().empty() ? "stand_in" : original->name();
  if (scratch_->find_value(name) != nullptr) name = scratch_->unique_name(name);
  Value* stand_in = is_constant_value(original) ? scratch_->add_initializer(name, *original->constant())
                                                : scratch_->add_input(name, original->desc());
  stand_ins_[original] = stand_in;
  originals_[stand_in] = original;
  return stand_in;
}

Value* Replacement::use(std::string_view capture) { return use(match_.value(capture)); }

Value* Replacement::constant(const std::string& name_hint, Tensor data) {
  const std::string name = scratch_->find_value(name_hint) == nullptr && !name_hint.empty()
                               ? name_hint
                               : scratch_->unique_name(name_hint.empty() ? "constant" : name_hint);
  Value* value = scratch_->add_initializer(name, std::move(data));
  new_constants_.push_back(value);
  return value;
}

Node* Replacement::add_node(const std::string& op_type, std::vector<Value*> inputs, const std::string& name_hint,
                            const std::string& domain, size_t output_count) {
  for (Value*& in : inputs) in = use(in);  // values of the real graph get stand-ins
  std::string name = name_hint;
  if (name.empty()) name = match_.root() != nullptr ? match_.root()->name() : op_type;
  if (scratch_->find_node(name) != nullptr) name = scratch_->unique_name(name);
  if (!domain.empty() && domain != "ai.onnx" && scratch_->opset_version(domain) <= 0) {
    scratch_->set_opset_import(domain, 1);
  }
  std::vector<std::string> output_names;
  for (size_t i = 0; i < output_count; ++i) output_names.push_back(scratch_->unique_name(name + "_out"));
  Node* node = scratch_->add_node(op_type, std::move(inputs), output_count, name, output_names, domain);
  new_nodes_.push_back(node);
  return node;
}

void Replacement::set_output(size_t index, Value* value) { outputs_[index] = use(value); }

std::vector<Value*> Replacement::outputs() const {
  const Node* root = match_.root();
  const size_t count = root != nullptr ? root->output_count() : 0;
  std::vector<Value*> result(count, nullptr);
  for (size_t i = 0; i < count; ++i) {
    auto it = outputs_.find(i);
    if (it != outputs_.end()) {
      result[i] = it->second;
    } else if (!new_nodes_.empty() && i < new_nodes_.back()->output_count()) {
      result[i] = new_nodes_.back()->output(i);
    }
  }
  return result;
}

int64_t Replacement::scratch_opset(const std::string& domain) const { return scratch_->opset_version(domain); }

Value* Replacement::original_of(const Value* stand_in) const {
  auto it = originals_.find(stand_in);
  return it == originals_.end() ? nullptr : it->second;
}

}  // namespace ge
