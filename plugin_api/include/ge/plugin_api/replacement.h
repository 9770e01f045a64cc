#pragma once
/// What a fusion builds in place of a match. New nodes go into a scratch graph first, so
/// the framework can infer and check them before anything in the real graph changes.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ge/graph.h"
#include "ge/plugin_api/pattern_match.h"
#include "ge/status.h"

namespace ge {

class Replacement {
 public:
  /// `graph` is the graph holding `match`.
  Replacement(const Graph& graph, const Match& match);
  ~Replacement();
  Replacement(const Replacement&) = delete;
  Replacement& operator=(const Replacement&) = delete;

  /// A stand-in for `original`, a value of the matched graph that stays after the rewrite
  /// (a captured input of the match, or any value outside it). Null stays null.
  Value* use(Value* original);
  /// use(match.value(capture)); null when the capture is absent.
  Value* use(std::string_view capture);
  /// A new initializer named after `name_hint` (made unique in the graph on commit).
  Value* constant(const std::string& name_hint, Tensor data);
  /// A new node; `name_hint` defaults to the root node's name. A non-default `domain`
  /// is imported (version 1) unless the graph already imports it.
  Node* add_node(const std::string& op_type, std::vector<Value*> inputs, const std::string& name_hint = {},
                 const std::string& domain = {}, size_t output_count = 1);
  /// Says that `value` replaces output `index` of the matched root node. By default
  /// output i of the last node added replaces root output i.
  void set_output(size_t index, Value* value);

  /// The scratch graph the new nodes live in (for reading their inferred descs).
  Graph& scratch() { return *scratch_; }
  const Match& match() const { return match_; }

  // ---- used by the framework ----
  /// The values replacing root outputs 0..n-1 (null where none was given).
  std::vector<Value*> outputs() const;
  /// The original value a stand-in was made for; null for new values.
  Value* original_of(const Value* stand_in) const;
  /// The opset version the scratch graph imports for `domain` (0 when none).
  int64_t scratch_opset(const std::string& domain) const;
  /// The scratch nodes in the order they were added.
  const std::vector<Node*>& new_nodes() const { return new_nodes_; }
  /// Initializers made with constant(), in order.
  const std::vector<Value*>& new_constants() const { return new_constants_; }

 private:
  const Graph& graph_;
  const Match& match_;
  std::unique_ptr<Graph> scratch_;
  std::map<Value*, Value*> stand_ins_;          // original -> scratch stand-in
  std::map<const Value*, Value*> originals_;    // stand-in -> original
  std::vector<Node*> new_nodes_;
  std::vector<Value*> new_constants_;
  std::map<size_t, Value*> outputs_;
  size_t stand_in_counter_ = 0;
};

}  // namespace ge
