#include "importer.h"

#include <cstring>
#include <sstream>

namespace ge::torchscript {
namespace {

/// Ops that read only a tensor's metadata: their results are constants of the example
/// shapes, whatever the data.
bool reads_metadata_only(const jit::Node* node) {
  static const std::unordered_set<std::string> kinds = {"aten::size", "aten::dim", "prim::dtype", "prim::device",
                                                        "aten::numel", "prim::shape", "prim::layout",
                                                        // Values of the shape alone:
                                                        "aten::zeros_like", "aten::ones_like", "aten::full_like",
                                                        "aten::new_zeros", "aten::new_ones", "aten::new_full"};
  return kinds.count(node->kind().toQualString()) != 0;
}

std::string source_of(const jit::Node* node) {
  if (!node->sourceRange().source()) return "an unknown source line (a node TorchScript's passes made)";
  const auto flc = node->sourceRange().file_line_col();
  if (flc) {
    const auto& [file, line, col] = *flc;
    return file + ":" + std::to_string(line);
  }
  std::string text = node->sourceRange().text().str();
  const size_t newline = text.find('\n');
  if (newline != std::string::npos) text.resize(newline);
  return text.empty() ? "an unknown source line" : "'" + text + "'";
}

bool is_number(const jit::Value* value) {
  const c10::TypeKind kind = value->type()->kind();
  return kind == c10::TypeKind::IntType || kind == c10::TypeKind::FloatType || kind == c10::TypeKind::BoolType ||
         kind == c10::TypeKind::NumberType;
}

std::string schema_of(const jit::Node* node) {
  if (const c10::FunctionSchema* schema = node->maybeSchema()) {
    std::ostringstream s;
    s << *schema;
    return s.str();
  }
  return node->kind().toQualString();
}

Tensor to_ge_tensor(const at::Tensor& source) {
  const at::Tensor t = source.detach().contiguous().cpu();
  const DataType dtype = to_data_type(t.scalar_type());
  std::vector<int64_t> shape(t.sizes().begin(), t.sizes().end());
  Tensor out = Tensor::zeros(dtype, shape);
  if (out.byte_size() != 0) std::memcpy(out.raw_data(), t.data_ptr(), out.byte_size());
  return out;
}

/// Whether any value `block` (and the blocks in it) uses from outside is in `dynamic`.
bool uses_dynamic(const jit::Block* block, const std::unordered_set<const jit::Value*>& dynamic) {
  for (const jit::Node* node : block->nodes()) {
    for (const jit::Value* in : node->inputs()) {
      if (dynamic.count(in)) return true;
    }
    for (const jit::Block* inner : node->blocks()) {
      if (uses_dynamic(inner, dynamic)) return true;
    }
  }
  for (const jit::Value* out : block->outputs()) {
    if (dynamic.count(out)) return true;
  }
  return false;
}

/// Whether a block of `node` (or of a node in them) raises an exception.
bool raises(const jit::Node* node) {
  for (const jit::Block* block : node->blocks()) {
    for (const jit::Node* inner : block->nodes()) {
      if (inner->kind() == c10::prim::RaiseException || raises(inner)) return true;
    }
  }
  return false;
}

}  // namespace

void fail(const std::string& message) { throw MappingError{message}; }

std::string clean_name(const std::string& debug_name) {
  std::string name = debug_name;
  const size_t dot = name.rfind('.');
  if (dot != std::string::npos && dot + 1 < name.size() &&
      name.find_first_not_of("0123456789", dot + 1) == std::string::npos) {
    name.resize(dot);
  }
  return name;
}

void extend_data_dependent(const jit::Block* block, std::unordered_set<const jit::Value*>& dynamic) {
  for (const jit::Node* node : block->nodes()) {
    if (reads_metadata_only(node)) continue;
    bool any = false;
    for (const jit::Value* in : node->inputs()) any = any || dynamic.count(in) != 0;
    for (const jit::Block* inner : node->blocks()) any = any || uses_dynamic(inner, dynamic);
    if (any) {
      for (const jit::Value* o : node->outputs()) dynamic.insert(o);
    }
  }
}

std::unordered_set<const jit::Value*> data_dependent_values(const jit::Graph& graph) {
  std::unordered_set<const jit::Value*> dynamic;
  for (size_t i = 1; i < graph.inputs().size(); ++i) dynamic.insert(graph.inputs()[i]);
  extend_data_dependent(graph.block(), dynamic);
  return dynamic;
}

c10::ScalarType to_scalar_type(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat32: return at::kFloat;
    case DataType::kFloat64: return at::kDouble;
    case DataType::kFloat16: return at::kHalf;
    case DataType::kBFloat16: return at::kBFloat16;
    case DataType::kInt64: return at::kLong;
    case DataType::kInt32: return at::kInt;
    case DataType::kInt16: return at::kShort;
    case DataType::kInt8: return at::kChar;
    case DataType::kUInt8: return at::kByte;
    case DataType::kBool: return at::kBool;
    default: fail("GE's dtype " + std::string(data_type_name(dtype)) + " has no ATen scalar type");
  }
}

DataType to_data_type(c10::ScalarType type) {
  switch (type) {
    case c10::ScalarType::Float: return DataType::kFloat32;
    case c10::ScalarType::Double: return DataType::kFloat64;
    case c10::ScalarType::Half: return DataType::kFloat16;
    case c10::ScalarType::BFloat16: return DataType::kBFloat16;
    case c10::ScalarType::Long: return DataType::kInt64;
    case c10::ScalarType::Int: return DataType::kInt32;
    case c10::ScalarType::Short: return DataType::kInt16;
    case c10::ScalarType::Char: return DataType::kInt8;
    case c10::ScalarType::Byte: return DataType::kUInt8;
    case c10::ScalarType::Bool: return DataType::kBool;
    default: fail(std::string("tensors of dtype ") + c10::toString(type) + " have no GE dtype");
  }
}

Importer::Importer(Graph& out, const jit::Graph& graph, Recording recorded)
    : out_(out),
      graph_(graph),
      recording_(std::make_shared<Recording>(std::move(recorded))),
      recorded_(recording_->values) {}

Importer::Importer(Graph& out, Importer& parent, const jit::Block* block, std::string prefix)
    : out_(out),
      graph_(parent.graph_),
      parent_(&parent),
      block_(block),
      prefix_(std::move(prefix)),
      recording_(parent.recording_),
      recorded_(recording_->values) {}

std::string Importer::fresh_name(const std::string& hint) {
  // A branch's names carry its If's name: unique in the whole model, so none shadows a
  // value of an enclosing graph (ONNX's rule for subgraphs).
  std::string base = prefix_ + (hint.empty() ? "v" : hint);
  std::string name = base;
  while (out_.resolve_name(name) != nullptr) name = base + "_" + std::to_string(next_name_++);
  return name;
}

Value* Importer::outer_tensor(const jit::Value* value) {
  if (auto it = tensors_.find(value); it != tensors_.end()) return it->second;
  if (parent_ == nullptr) return nullptr;
  Value* outer = parent_->outer_tensor(value);
  if (outer == nullptr) return nullptr;
  Value* capture = out_.add_capture(outer->name(), outer->desc());
  tensors_[value] = capture;
  return capture;
}

std::vector<Value*> Importer::outer_list(const jit::Value* value) {
  if (auto it = lists_.find(value); it != lists_.end()) return it->second;
  if (parent_ == nullptr) return {};
  std::vector<Value*> captures;
  for (Value* outer : parent_->outer_list(value)) captures.push_back(out_.add_capture(outer->name(), outer->desc()));
  if (!captures.empty()) lists_[value] = captures;
  return captures;
}

Status Importer::map_nodes(const jit::Block* block) {
  for (const jit::Node* node : block->nodes()) {
    bool computes = false;
    for (const jit::Value* o : node->outputs()) computes = computes || dynamic_.count(o) != 0;
    // An If on the input's data that returns nothing still matters when it raises.
    if (node->kind() == c10::prim::If && dynamic_.count(node->inputs().at(0))) computes = true;
    if (!computes) continue;  // a constant: recorded, made an initializer where a tensor is needed
    GE_RETURN_IF_ERROR(map_node(node));
  }
  return Status::ok();
}

Status Importer::import_branch() {
  dynamic_ = parent_->dynamic_;
  extend_data_dependent(block_, dynamic_);
  GE_RETURN_IF_ERROR(map_nodes(block_));
  for (const jit::Value* result : block_->outputs()) {
    Value* value = nullptr;
    try {
      value = value_tensor(result);
    } catch (const MappingError& e) {
      return invalid_argument("a branch's output " + result->debugName() + ": " + e.message);
    }
    const std::string name = fresh_name("output");
    out_.add_output(out_.add_node("Identity", {value}, 1, name, {name})->output(0));
  }
  return Status::ok();
}

void Importer::map_if(const jit::Node* node) {
  const jit::Value* condition = node->inputs().at(0);
  if (dynamic_.count(condition) && raises(node)) {
    fail("a branch on the input's data raises an exception (a check of the input): GE cannot raise at run time, "
         "and dropping the check would run inputs the module refuses");
  }
  if (node->outputs().empty()) return;  // nothing observable
  for (const jit::Value* o : node->outputs()) {
    if (o->type()->kind() != c10::TypeKind::TensorType) {
      fail("the If returns a " + o->type()->str() + " ('" + o->debugName() + "'); GE maps branches returning tensors");
    }
  }
  if (!dynamic_.count(condition)) {
    // Known from the example run (a branch inside a branch): the branch it took, inlined.
    const jit::Block* taken = node->blocks().at(boolean(node, 0) ? 0 : 1);
    if (auto failed = recording_->failed_blocks.find(taken); failed != recording_->failed_blocks.end()) {
      fail("its branch could not be run on the example values: " + failed->second);
    }
    extend_data_dependent(taken, dynamic_);
    const Status status = map_nodes(taken);
    if (!status.is_ok()) fail("in its branch: " + status.message());
    for (size_t i = 0; i < node->outputs().size(); ++i) bind(node->outputs()[i], value_tensor(taken->outputs()[i]));
    return;
  }
  // Both branches run on the example values: each output's dtype and shape must agree,
  // since what follows the If was recorded (and is mapped) for one of them.
  for (const jit::Block* block : node->blocks()) {
    if (auto failed = recording_->failed_blocks.find(block); failed != recording_->failed_blocks.end()) {
      fail("its condition depends on the input's data, and the branch the example run did not take could not be "
           "run on the example values: " + failed->second);
    }
  }
  for (size_t i = 0; i < node->outputs().size(); ++i) {
    const at::Tensor& a = example(node->blocks()[0]->outputs()[i]);
    const at::Tensor& b = example(node->blocks()[1]->outputs()[i]);
    if (a.scalar_type() != b.scalar_type() || a.sizes() != b.sizes()) {
      std::ostringstream s;
      s << "its branches return output " << i << " as " << c10::toString(a.scalar_type()) << a.sizes() << " and "
        << c10::toString(b.scalar_type()) << b.sizes()
        << "; GE imports a module for static shapes, so both branches must return the same dtypes and shapes";
      fail(s.str());
    }
  }
  Value* cond = tensor(node, 0);  // aten::Bool's one-element bool tensor
  const std::string name = fresh_name("If_" + std::to_string(next_name_++));
  std::shared_ptr<Graph> branches[2];
  const char* labels[2] = {"then", "else"};
  for (int b = 0; b < 2; ++b) {
    branches[b] = std::make_shared<Graph>(name + "_" + labels[b]);
    branches[b]->set_parent(&out_);
    Importer branch(*branches[b], *this, node->blocks()[static_cast<size_t>(b)], name + "/" + labels[b] + "/");
    const Status status = branch.import_branch();
    if (!status.is_ok()) fail(std::string("in its ") + labels[b] + " branch: " + status.message());
  }
  Node* node_if = add("If", {cond}, node->outputs().size(),
                      {{"then_branch", Attribute(branches[0])}, {"else_branch", Attribute(branches[1])}});
  for (size_t i = 0; i < node->outputs().size(); ++i) bind(node->outputs()[i], node_if->output(i));
}

Status Importer::run(const std::vector<std::string>& input_names) {
  dynamic_ = data_dependent_values(graph_);
  for (size_t i = 1; i < graph_.inputs().size(); ++i) {
    const jit::Value* in = graph_.inputs()[i];
    const at::Tensor& t = example(in);
    TensorDesc desc;
    desc.dtype = to_data_type(t.scalar_type());
    std::vector<Dim> dims;
    for (int64_t d : t.sizes()) dims.push_back(Dim::of(d));
    desc.shape = std::move(dims);
    tensors_[in] = out_.add_input(input_names.at(i - 1), std::move(desc));
  }
  GE_RETURN_IF_ERROR(map_nodes(graph_.block()));
  size_t index = 0;
  for (const jit::Value* result : graph_.outputs()) {
    std::vector<Value*> values;
    if (auto it = lists_.find(result); it != lists_.end()) {
      values = it->second;
    } else if (result->type()->kind() == c10::TypeKind::TensorType) {
      try {
        values.push_back(value_tensor(result));
      } catch (const MappingError& e) {
        return invalid_argument("the graph's output " + result->debugName() + ": " + e.message);
      }
    } else {
      return unsupported("the graph returns a " + result->type()->str() +
                           " ('" + result->debugName() + "'): GE returns tensors, tuples and lists of tensors");
    }
    for (Value* v : values) {
      Node* identity = out_.add_node("Identity", {v}, 1, fresh_name("output_" + std::to_string(index)),
                                     {fresh_name("output_" + std::to_string(index))});
      out_.add_output(identity->output(0));
      ++index;
    }
  }
  return Status::ok();
}

Status Importer::map_node(const jit::Node* node) {
  const std::string kind = node->kind().toQualString();
  try {
    if (kind == "prim::ListConstruct" || kind == "prim::TupleConstruct") {
      // A list of tensors; one with other elements (Tensor?[] with None) is left to the
      // op that reads it (aten::index reads its ListConstruct).
      std::vector<Value*> values;
      for (size_t i = 0; i < node->inputs().size(); ++i) {
        if (!is_tensor_input(node, i)) return Status::ok();
        values.push_back(tensor(node, i));
      }
      bind_list(node->output(), std::move(values));
      return Status::ok();
    }
    if (kind == "prim::DictConstruct") {  // (key, value, key, value, ...): the values, in order
      std::vector<Value*> values;
      for (size_t i = 1; i < node->inputs().size(); i += 2) {
        if (!is_tensor_input(node, i)) fail("a dict whose values are not tensors is not mapped");
        values.push_back(tensor(node, i));
      }
      bind_list(node->output(), std::move(values));
      return Status::ok();
    }
    if (kind == "prim::ListUnpack" || kind == "prim::TupleUnpack") {
      const std::vector<Value*> values = tensor_list(node, 0);
      if (values.size() != node->outputs().size()) fail("unpacks " + std::to_string(node->outputs().size()) +
                                                        " values from a list of " + std::to_string(values.size()));
      for (size_t i = 0; i < values.size(); ++i) bind(node->outputs()[i], values[i]);
      return Status::ok();
    }
    if (kind == "aten::__getitem__" || kind == "prim::TupleIndex" || (kind == "aten::select" && !is_tensor_input(node, 0))) {
      const std::vector<Value*> values = tensor_list(node, 0);
      int64_t i = integer(node, 1);
      if (i < 0) i += static_cast<int64_t>(values.size());
      if (i < 0 || i >= static_cast<int64_t>(values.size())) fail("index out of the list's range");
      bind(node->output(), values[static_cast<size_t>(i)]);
      return Status::ok();
    }
    if (kind == "prim::If") {
      try {
        map_if(node);
      } catch (const MappingError& e) {
        return unsupported("'prim::If' at " + source_of(node) + ": " + e.message);
      }
      return Status::ok();
    }
    if (kind == "prim::Loop") {
      return unsupported("'prim::Loop' at " + source_of(node) +
                         ": a loop whose trip count or condition depends on the input's data is not mapped (GE maps "
                         "If branches on the data; loops whose trip count follows from the input shapes are unrolled)");
    }
    const MappingTable& table = mappings();
    auto it = table.find(kind);
    bool makes_numbers_only = true;
    for (const jit::Value* o : node->outputs()) makes_numbers_only = makes_numbers_only && is_number(o);
    if (it == table.end() && makes_numbers_only) {
      return unsupported("'" + kind + "' (schema: " + schema_of(node) + ") at " + source_of(node) +
                         " turns a tensor computed from the inputs into a Python number: values and control flow "
                         "that depend on the input's data are not mapped (GE imports the module for its input "
                         "shapes, as torch.jit.trace records it)");
    }
    if (it == table.end()) {
      return unsupported("unsupported TorchScript op '" + kind + "' (schema: " + schema_of(node) + ") at " +
                           source_of(node));
    }
    it->second(*this, node);
    for (const jit::Value* o : node->outputs()) {
      if (dynamic_.count(o) && !o->uses().empty() && !tensors_.count(o) && !lists_.count(o)) {
        fail("output '" + o->debugName() + "' (" + o->type()->str() +
             ") is computed from the input's data but GE maps only tensors of it");
      }
    }
  } catch (const MappingError& e) {
    return invalid_argument("'" + kind + "' (schema: " + schema_of(node) + ") at " + source_of(node) + ": " +
                            e.message);
  } catch (const std::exception& e) {
    return internal_error("'" + kind + "' at " + source_of(node) + ": " + e.what());
  }
  return Status::ok();
}

const at::Tensor& Importer::example(const jit::Value* value) const {
  auto it = recorded_.find(value);
  if (it == recorded_.end() || !it->second.isTensor()) fail("'" + value->debugName() + "' has no example tensor");
  return it->second.toTensor();
}

std::vector<at::Tensor> Importer::example_list(const jit::Value* value) const {
  auto it = recorded_.find(value);
  if (it == recorded_.end()) fail("'" + value->debugName() + "' has no example value");
  if (it->second.isTensorList()) return it->second.toTensorVector();
  if (it->second.isTuple()) {
    std::vector<at::Tensor> tensors;
    for (const c10::IValue& item : it->second.toTuple()->elements()) {
      if (!item.isTensor()) fail("'" + value->debugName() + "' holds a " + item.tagKind() + ", not a tensor");
      tensors.push_back(item.toTensor());
    }
    return tensors;
  }
  fail("'" + value->debugName() + "' is a " + it->second.tagKind() + ", not a list of tensors");
}

bool Importer::is_tensor_input(const jit::Node* node, size_t i) const {
  const jit::Value* v = node->inputs().at(i);
  for (const Importer* scope = this; scope != nullptr; scope = scope->parent_) {
    if (scope->tensors_.count(v)) return true;
  }
  auto it = recorded_.find(v);
  if (it != recorded_.end()) return it->second.isTensor();
  if (v->node()->kind() == c10::prim::Constant) return v->type()->kind() == c10::TypeKind::TensorType;
  return false;
}

const c10::IValue& Importer::constant(const jit::Node* node, size_t i) const {
  const jit::Value* v = node->inputs().at(i);
  if (dynamic_.count(v)) {
    fail("input " + std::to_string(i) + " ('" + v->debugName() + "') is computed from the input's data; GE needs it constant");
  }
  auto it = recorded_.find(v);
  if (it == recorded_.end()) fail("input " + std::to_string(i) + " ('" + v->debugName() + "') has no recorded value");
  return it->second;
}

bool Importer::is_none(const jit::Node* node, size_t i) const {
  if (i >= node->inputs().size()) return true;
  const jit::Value* v = node->inputs()[i];
  if (dynamic_.count(v)) return false;
  auto it = recorded_.find(v);
  return it != recorded_.end() && it->second.isNone();
}

int64_t Importer::integer(const jit::Node* node, size_t i) const {
  const c10::IValue& v = constant(node, i);
  if (v.isInt()) return v.toInt();
  if (v.isBool()) return v.toBool() ? 1 : 0;
  if (v.isTensor() && v.toTensor().numel() == 1) return v.toTensor().item<int64_t>();
  fail("input " + std::to_string(i) + " is a " + v.tagKind() + ", not an integer");
}

double Importer::real(const jit::Node* node, size_t i) const {
  const c10::IValue& v = constant(node, i);
  if (v.isDouble()) return v.toDouble();
  if (v.isInt()) return static_cast<double>(v.toInt());
  if (v.isBool()) return v.toBool() ? 1.0 : 0.0;
  if (v.isTensor() && v.toTensor().numel() == 1) return v.toTensor().item<double>();
  fail("input " + std::to_string(i) + " is a " + v.tagKind() + ", not a number");
}

bool Importer::boolean(const jit::Node* node, size_t i) const {
  const c10::IValue& v = constant(node, i);
  if (v.isBool()) return v.toBool();
  if (v.isInt()) return v.toInt() != 0;
  fail("input " + std::to_string(i) + " is a " + v.tagKind() + ", not a bool");
}

std::vector<int64_t> Importer::ints(const jit::Node* node, size_t i) const {
  const c10::IValue& v = constant(node, i);
  if (v.isIntList()) return v.toIntVector();
  if (v.isInt()) return {v.toInt()};
  fail("input " + std::to_string(i) + " is a " + v.tagKind() + ", not a list of integers");
}

Value* Importer::constant_tensor(const jit::Value* value, std::optional<DataType> scalar_dtype) {
  const int key = scalar_dtype ? static_cast<int>(*scalar_dtype) : -1;
  if (auto it = constants_.find({value, key}); it != constants_.end()) return it->second;
  auto rec = recorded_.find(value);
  if (rec == recorded_.end()) fail("'" + value->debugName() + "' has no recorded value");
  const c10::IValue& v = rec->second;
  Tensor data;
  if (v.isTensor()) {
    data = to_ge_tensor(v.toTensor());
  } else if (v.isDouble() || v.isInt() || v.isBool()) {
    const DataType dtype = scalar_dtype.value_or(v.isDouble() ? DataType::kFloat32
                                                  : v.isInt() ? DataType::kInt64 : DataType::kBool);
    const double number = v.isDouble() ? v.toDouble() : v.isInt() ? static_cast<double>(v.toInt()) : v.toBool();
    data = to_ge_tensor(at::scalar_tensor(number, at::TensorOptions().dtype(at::kDouble)).to(to_scalar_type(dtype)));
  } else if (v.isIntList()) {
    const std::vector<int64_t> values = v.toIntVector();
    data = Tensor::from_vector<int64_t>({static_cast<int64_t>(values.size())}, values);
  } else {
    fail("'" + value->debugName() + "' is a " + v.tagKind() + ", not a tensor");
  }
  Value* init = out_.add_initializer(fresh_name(clean_name(value->debugName())), std::move(data));
  constants_[{value, key}] = init;
  return init;
}

Value* Importer::tensor(const jit::Node* node, size_t i, std::optional<DataType> scalar_dtype) {
  const jit::Value* v = node->inputs().at(i);
  return value_tensor(v, scalar_dtype, "input " + std::to_string(i) + " ('" + v->debugName() + "')");
}

Value* Importer::value_tensor(const jit::Value* v, std::optional<DataType> scalar_dtype, const std::string& what) {
  if (Value* mapped = outer_tensor(v)) return mapped;
  if (dynamic_.count(v)) fail((what.empty() ? "'" + v->debugName() + "'" : what) + " was not mapped to a tensor");
  return constant_tensor(v, scalar_dtype);
}

std::vector<Value*> Importer::tensor_list(const jit::Node* node, size_t i) {
  const jit::Value* v = node->inputs().at(i);
  if (std::vector<Value*> mapped = outer_list(v); !mapped.empty()) return mapped;
  if (dynamic_.count(v)) fail("input " + std::to_string(i) + " is a list GE could not map");
  auto rec = recorded_.find(v);
  if (rec == recorded_.end() || !(rec->second.isTensorList() || rec->second.isTuple())) {
    fail("input " + std::to_string(i) + " is not a list of tensors");
  }
  std::vector<Value*> values;
  std::vector<c10::IValue> items;
  if (rec->second.isTensorList()) {
    for (const at::Tensor& t : rec->second.toTensorVector()) items.emplace_back(t);
  } else {
    items = rec->second.toTuple()->elements().vec();
  }
  for (const c10::IValue& item : items) {
    if (!item.isTensor()) fail("input " + std::to_string(i) + " holds a " + item.tagKind() + ", not a tensor");
    values.push_back(out_.add_initializer(fresh_name(clean_name(v->debugName())), to_ge_tensor(item.toTensor())));
  }
  lists_[v] = values;
  return values;
}

Node* Importer::add(const std::string& op_type, std::vector<Value*> inputs, size_t outputs,
                    std::map<std::string, Attribute> attributes) {
  const std::string name = fresh_name(op_type + "_" + std::to_string(next_name_++));
  std::vector<std::string> names;
  for (size_t i = 0; i < outputs; ++i) names.push_back(fresh_name(name + "_out" + std::to_string(i)));
  Node* node = out_.add_node(op_type, std::move(inputs), outputs, name, std::move(names));
  for (auto& [key, value] : attributes) node->set_attribute(key, std::move(value));
  return node;
}

Value* Importer::op(const std::string& op_type, std::vector<Value*> inputs, std::map<std::string, Attribute> attributes) {
  return add(op_type, std::move(inputs), 1, std::move(attributes))->output(0);
}

Value* Importer::const_i64(const std::vector<int64_t>& values) {
  return out_.add_initializer(fresh_name("const"),
                              Tensor::from_vector<int64_t>({static_cast<int64_t>(values.size())}, values));
}

Value* Importer::scalar(double value, DataType dtype) {
  Tensor t = Tensor::zeros(dtype, {});
  switch (dtype) {
    case DataType::kFloat32: *t.data<float>() = static_cast<float>(value); break;
    case DataType::kFloat64: *t.data<double>() = value; break;
    case DataType::kInt64: *t.data<int64_t>() = static_cast<int64_t>(value); break;
    case DataType::kInt32: *t.data<int32_t>() = static_cast<int32_t>(value); break;
    case DataType::kBool: *t.data<bool>() = value != 0; break;
    default: {
      Tensor f = Tensor::from_vector<float>({}, {static_cast<float>(value)});
      return cast(out_.add_initializer(fresh_name("const"), std::move(f)), dtype);
    }
  }
  return out_.add_initializer(fresh_name("const"), std::move(t));
}

Value* Importer::cast(Value* value, DataType to) {
  return op("Cast", {value}, {{"to", static_cast<int64_t>(to)}});
}

void Importer::bind(const jit::Value* out, Value* value) { tensors_[out] = value; }

void Importer::bind_list(const jit::Value* out, std::vector<Value*> values) { lists_[out] = std::move(values); }

}  // namespace ge::torchscript
