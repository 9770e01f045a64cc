#pragma once
/// Maps a frozen, inlined TorchScript graph to GE's IR. Values that do not depend on the
/// data of a graph input (weights, sizes, lists, masks built in forward) are constants:
/// the parser runs the graph once on example inputs of the given shapes and records them.
/// What remains, the tensors computed from the inputs, becomes ONNX-domain nodes.

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>
#include <torch/csrc/jit/ir/ir.h>

#include "ge/graph.h"
#include "ge/status.h"

namespace ge::torchscript {

namespace jit = torch::jit;

/// Thrown by the mapping helpers (caught by the importer, which turns it into a Status
/// naming the node, its schema and its source line). Never escapes the plugin.
struct MappingError {
  std::string message;
};

/// ATen's scalar type as GE's dtype; throws MappingError for one GE has not.
DataType to_data_type(c10::ScalarType type);
/// GE's dtype as ATen's scalar type; throws MappingError for one ATen has not.
c10::ScalarType to_scalar_type(DataType dtype);

/// The values of `graph` computed from the data of its inputs (after `self`): a node's
/// outputs are when any input is, or any value its blocks use from outside; ops that
/// read only a tensor's metadata (aten::size, zeros_like, ...) make constants.
std::unordered_set<const jit::Value*> data_dependent_values(const jit::Graph& graph);
/// Adds to `dynamic` the values of `block` (a branch) computed from values in it.
void extend_data_dependent(const jit::Block* block, std::unordered_set<const jit::Value*>& dynamic);

/// What each value held on the example run, and why a branch has no recording (a
/// branch the run did not take is run on its own, on the recorded values it reads; it may
/// fail there: it raises, or indexes past what these values allow).
struct Recording {
  std::unordered_map<const jit::Value*, c10::IValue> values;
  std::unordered_map<const jit::Block*, std::string> failed_blocks;
};

class Importer;
/// Maps one node. Binds each tensor output it computes (Importer::bind, bind_list).
using Mapping = std::function<void(Importer&, const jit::Node*)>;
using MappingTable = std::unordered_map<std::string, Mapping>;

/// The table of every mapped op kind ("aten::relu"), built once.
const MappingTable& mappings();

class Importer {
 public:
  /// `recorded`: what each value of `graph` held on the example run, the values of both
  /// branches of an If whose condition depends on the inputs' data included.
  Importer(Graph& out, const jit::Graph& graph, Recording recorded);

  /// Imports the whole graph into `out`: inputs named `input_names`.
  Status run(const std::vector<std::string>& input_names);

  // ---- for mappings: the node's inputs ----
  /// Input `i` as a GE tensor: the mapped value, or a constant (an initializer made once
  /// per jit value; a Python number becomes a 0-d tensor of `scalar_dtype`, default its
  /// own kind's: int64, float32, bool).
  Value* tensor(const jit::Node* node, size_t i, std::optional<DataType> scalar_dtype = std::nullopt);
  /// The same for a value: the tensor it was mapped to (here or in an enclosing graph,
  /// captured), else its constant; throws when it depends on the input's data unmapped
  /// (naming it `what`, else its name).
  Value* value_tensor(const jit::Value* value, std::optional<DataType> scalar_dtype = std::nullopt,
                      const std::string& what = {});
  /// A tensor-list input (prim::ListConstruct of tensors, or a list a mapping bound).
  std::vector<Value*> tensor_list(const jit::Node* node, size_t i);
  /// The constant (or recorded) value of input `i`; throws when it depends on input data.
  const c10::IValue& constant(const jit::Node* node, size_t i) const;
  bool is_none(const jit::Node* node, size_t i) const;
  int64_t integer(const jit::Node* node, size_t i) const;
  double real(const jit::Node* node, size_t i) const;
  bool boolean(const jit::Node* node, size_t i) const;
  std::vector<int64_t> ints(const jit::Node* node, size_t i) const;
  /// The example run's tensor of a value (input i's, output o's): dtype and sizes.
  const at::Tensor& example(const jit::Value* value) const;
  const at::Tensor& input_example(const jit::Node* node, size_t i) const { return example(node->inputs().at(i)); }
  const at::Tensor& output_example(const jit::Node* node, size_t o = 0) const { return example(node->outputs()[o]); }
  /// The example run's tensors of a list-valued output.
  std::vector<at::Tensor> example_list(const jit::Value* value) const;
  int64_t input_rank(const jit::Node* node, size_t i) const { return input_example(node, i).dim(); }
  DataType output_dtype(const jit::Node* node, size_t o = 0) const {
    return to_data_type(output_example(node, o).scalar_type());
  }
  bool is_tensor_input(const jit::Node* node, size_t i) const;

  // ---- for mappings: building ----
  /// Adds an ONNX-domain node with `outputs` outputs; returns it.
  Node* add(const std::string& op_type, std::vector<Value*> inputs, size_t outputs = 1,
            std::map<std::string, Attribute> attributes = {});
  /// add() of one output, returned.
  Value* op(const std::string& op_type, std::vector<Value*> inputs, std::map<std::string, Attribute> attributes = {});
  Value* const_i64(const std::vector<int64_t>& values);  ///< a 1-D int64 initializer
  Value* scalar(double value, DataType dtype);          ///< a 0-d initializer
  Value* cast(Value* value, DataType to);                ///< a Cast node (none if `from` is `to`)
  /// `value` cast to `to` unless its dtype (the example run's, of jit value `of`) is `to`.
  Value* cast_to(Value* value, DataType from, DataType to) { return from == to ? value : cast(value, to); }
  void bind(const jit::Value* out, Value* value);
  void bind_list(const jit::Value* out, std::vector<Value*> values);

 private:
  /// A branch's importer: `out` is the subgraph, `prefix` starts its names.
  Importer(Graph& out, Importer& parent, const jit::Block* block, std::string prefix);
  Value* constant_tensor(const jit::Value* value, std::optional<DataType> scalar_dtype);
  Status map_nodes(const jit::Block* block);
  Status map_node(const jit::Node* node);
  /// prim::If: the recorded branch inlined when the condition is known, else an ONNX If
  /// of both branches (which must return the same dtypes and shapes).
  void map_if(const jit::Node* node);
  /// Maps a branch's nodes into this (sub)graph and makes its outputs the graph's.
  Status import_branch();
  /// The tensor an enclosing importer mapped `value` to, captured into this graph by
  /// name; null when none did (for lists: empty).
  Value* outer_tensor(const jit::Value* value);
  std::vector<Value*> outer_list(const jit::Value* value);
  std::string fresh_name(const std::string& hint);

  Graph& out_;
  const jit::Graph& graph_;
  Importer* parent_ = nullptr;
  const jit::Block* block_ = nullptr;  // a branch's block
  std::string prefix_;                 // a branch's name prefix
  std::shared_ptr<Recording> recording_;
  const std::unordered_map<const jit::Value*, c10::IValue>& recorded_;
  std::unordered_set<const jit::Value*> dynamic_;
  std::unordered_map<const jit::Value*, Value*> tensors_;
  std::unordered_map<const jit::Value*, std::vector<Value*>> lists_;
  std::map<std::pair<const jit::Value*, int>, Value*> constants_;
  size_t next_name_ = 0;
};

/// The families' registrations (one file each).
void add_nn_mappings(MappingTable& table);
void add_elementwise_mappings(MappingTable& table);
void add_shape_mappings(MappingTable& table);
void add_transformer_mappings(MappingTable& table);

/// A TorchScript value's debug name without the ".N" TorchScript appends to repeated names.
std::string clean_name(const std::string& debug_name);

/// Throws MappingError(message).
[[noreturn]] void fail(const std::string& message);

}  // namespace ge::torchscript
