// The text IR's printer: print_graph (ge/graph_text.h).
#include "ge/graph_text.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "graph_text_syntax.h"

namespace ge::text_ir {
namespace {

void append_name(std::string& out, std::string_view s) {
  if (is_bare_ident(s))
    out += s;
  else
    append_quoted(out, s);
}

void append_float32(std::string& out, float v) {
  if (std::isnan(v)) {
    auto bits = std::bit_cast<uint32_t>(v);
    if (bits == kCanonicalNan32)
      out += "nan";
    else
      append_hex(out, bits, 8);  // keep sign and payload exact
  } else if (std::isinf(v)) {
    out += v < 0 ? "-inf" : "inf";
  } else {
    append_number(out, v);  // shortest text that reads back to the same float
  }
}

void append_float64(std::string& out, double v) {
  if (std::isnan(v)) {
    auto bits = std::bit_cast<uint64_t>(v);
    if (bits == kCanonicalNan64)
      out += "nan";
    else
      append_hex(out, bits, 16);
  } else if (std::isinf(v)) {
    out += v < 0 ? "-inf" : "inf";
  } else {
    append_number(out, v);
  }
}

void append_dims(std::string& out, const std::vector<Dim>& dims) {
  out += '[';
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ',';
    const Dim& d = dims[i];
    if (!d.symbol.empty())
      append_name(out, d.symbol);
    else if (d.value >= 0)
      append_number(out, d.value);
    else
      out += '?';
  }
  out += ']';
}

void append_type(std::string& out, const TensorDesc& desc) {
  std::string element = dtype_text(desc.dtype);
  if (desc.shape)
    append_dims(element, *desc.shape);
  else
    element += "[*]";
  if (!desc.format.empty()) {
    element += '{';
    append_name(element, desc.format);
    element += '}';
  }
  switch (desc.kind) {
    case ValueKind::kTensor:
      out += element;
      break;
    case ValueKind::kSequence:
      out += "seq(" + element + ")";
      break;
    case ValueKind::kOptional:
      out += "opt(" + element + ")";
      break;
    case ValueKind::kOptionalSequence:
      out += "opt(seq(" + element + "))";
      break;
  }
}

TensorDesc desc_of_tensor(const Tensor& t) {
  std::vector<Dim> dims;
  for (int64_t d : t.shape()) dims.push_back(Dim::of(d));
  return TensorDesc(t.dtype(), std::move(dims));
}

template <typename T>
T load(const Tensor& t, int64_t i) {
  T v;
  std::memcpy(&v, static_cast<const char*>(t.raw_data()) + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

void append_element(std::string& out, const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DataType::kFloat32:
      append_float32(out, load<float>(t, i));
      break;
    case DataType::kFloat64:
      append_float64(out, load<double>(t, i));
      break;
    case DataType::kFloat16:
    case DataType::kBFloat16:
      append_hex(out, load<uint16_t>(t, i), 4);
      break;
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
    case DataType::kFloat4E2M1:
      append_hex(out, load<uint8_t>(t, i), 2);
      break;
    case DataType::kInt4:
      append_number(out, load<int8_t>(t, i));
      break;
    case DataType::kUInt4:
      append_number(out, load<uint8_t>(t, i));
      break;
    case DataType::kComplex64:
      out += '(';
      append_float32(out, load<float>(t, 2 * i));
      out += ", ";
      append_float32(out, load<float>(t, 2 * i + 1));
      out += ')';
      break;
    case DataType::kComplex128:
      out += '(';
      append_float64(out, load<double>(t, 2 * i));
      out += ", ";
      append_float64(out, load<double>(t, 2 * i + 1));
      out += ')';
      break;
    case DataType::kInt8:
      append_number(out, load<int8_t>(t, i));
      break;
    case DataType::kInt16:
      append_number(out, load<int16_t>(t, i));
      break;
    case DataType::kInt32:
      append_number(out, load<int32_t>(t, i));
      break;
    case DataType::kInt64:
      append_number(out, load<int64_t>(t, i));
      break;
    case DataType::kUInt8:
      append_number(out, load<uint8_t>(t, i));
      break;
    case DataType::kUInt16:
      append_number(out, load<uint16_t>(t, i));
      break;
    case DataType::kUInt32:
      append_number(out, load<uint32_t>(t, i));
      break;
    case DataType::kUInt64:
      append_number(out, load<uint64_t>(t, i));
      break;
    // Read the byte, not a bool: storage filled by other code may hold any non-zero value.
    case DataType::kBool:
      out += load<uint8_t>(t, i) ? "true" : "false";
      break;
    case DataType::kString:
      append_quoted(out, t.data<std::string>()[i]);
      break;
    case DataType::kUndefined:
      out += '?';
      break;
  }
}

void append_elements(std::string& out, const Tensor& t) {
  out += '[';
  int64_t count = t.raw_data() ? t.element_count() : 0;
  for (int64_t i = 0; i < count; ++i) {
    if (i) out += ", ";
    append_element(out, t, i);
  }
  out += ']';
}

void append_tensor_literal(std::string& out, const Tensor& t) {
  if (!t.defined()) {
    out += "undefined";
    return;
  }
  out += dtype_text(t.dtype());
  append_shape(out, t.shape());
  out += ' ';
  append_elements(out, t);
}

// XXH3-64 of a tensor's data. Strings hash as (length, bytes) each, so that ["ab", "c"]
// and ["a", "bc"] differ.
uint64_t tensor_checksum(const Tensor& t) {
  if (!t.raw_data()) return XXH3_64bits(nullptr, 0);
  if (t.dtype() != DataType::kString) return XXH3_64bits(t.raw_data(), t.byte_size());
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  for (const std::string& element : t.values<std::string>()) {
    const uint64_t length = element.size();
    XXH3_64bits_update(&state, &length, sizeof(length));
    XXH3_64bits_update(&state, element.data(), element.size());
  }
  return XXH3_64bits_digest(&state);
}

// `elided(N elements, xxh3 0xH)`: what a dump prints in place of `[e, ...]`.
void append_elided_elements(std::string& out, const Tensor& t) {
  out += "elided(";
  append_number(out, t.element_count());
  out += " elements, xxh3 ";
  append_hex(out, tensor_checksum(t), 16);
  out += ')';
}

class Printer {
 public:
  explicit Printer(const PrintOptions& options = {}) : options_(options) {}

  std::string print(const Graph& graph) {
    print_graph_block(graph, 0);
    out_ += '\n';
    return std::move(out_);
  }

 private:
  void indent(int depth) { out_.append(static_cast<size_t>(2 * depth), ' '); }

  void value_ref(const Value* v) {
    if (!v) {
      out_ += '_';
      return;
    }
    out_ += '%';
    if (is_bare_value_name(v->name()))
      out_ += v->name();
    else
      append_quoted(out_, v->name());
  }

  void typed_value(const Value* v) {
    value_ref(v);
    if (v && v->desc() != TensorDesc()) {
      out_ += " : ";
      append_type(out_, v->desc());
    }
  }

  void print_graph_block(const Graph& g, int depth) {
    stack_.push_back(&g);
    out_ += "graph ";
    append_name(out_, g.name());
    if (!g.opset_imports().empty()) {
      out_ += " (opset ";
      bool first = true;
      for (const auto& [domain, version] : g.opset_imports()) {
        if (!first) out_ += ", ";
        first = false;
        append_quoted(out_, domain);
        out_ += '=';
        append_number(out_, version);
      }
      out_ += ')';
    }
    out_ += " {\n";
    print_inputs_and_initializers(g, depth + 1);
    for (const Value* capture : g.captures()) {
      indent(depth + 1);
      out_ += "capture ";
      typed_value(capture);
      out_ += '\n';
    }
    NodeRefs refs(g);
    for (const auto& node : g.nodes()) print_node(*node, refs, depth + 1);
    for (const Value* output : g.outputs()) {
      indent(depth + 1);
      out_ += "output ";
      value_ref(output);
      out_ += '\n';
    }
    indent(depth);
    out_ += '}';
    stack_.pop_back();
  }

  // Graph inputs and initializers are kept in two lists that share the initializers which
  // are also inputs. Printing a merge of both orders lets the parser rebuild both lists.
  void print_inputs_and_initializers(const Graph& g, int depth) {
    const auto& inputs = g.inputs();
    const auto& inits = g.initializers();
    std::unordered_set<const Value*> input_set(inputs.begin(), inputs.end());
    std::unordered_set<const Value*> init_set(inits.begin(), inits.end());
    std::unordered_set<const Value*> printed;
    size_t i = 0, j = 0;
    while (i < inputs.size() || j < inits.size()) {
      if (i < inputs.size() && printed.count(inputs[i])) {
        ++i;
      } else if (j < inits.size() && printed.count(inits[j])) {
        ++j;
      } else if (i < inputs.size() && !init_set.count(inputs[i])) {
        print_input(inputs[i], depth);
        printed.insert(inputs[i++]);
      } else if (j < inits.size() && !input_set.count(inits[j])) {
        print_initializer(inits[j], false, depth);
        printed.insert(inits[j++]);
      } else {
        const Value* v = i < inputs.size() ? inputs[i] : inits[j];
        print_initializer(v, true, depth);
        printed.insert(v);
      }
    }
  }

  void print_input(const Value* v, int depth) {
    indent(depth);
    out_ += "input ";
    typed_value(v);
    out_ += '\n';
  }

  void print_initializer(const Value* v, bool also_input, int depth) {
    indent(depth);
    out_ += also_input ? "init input " : "init ";
    typed_value(v);
    out_ += " = ";
    const Tensor* data = v ? v->constant() : nullptr;
    if (!data) {
      out_ += "undefined";
    } else if (data->defined() && v->desc() != TensorDesc() && v->desc() == desc_of_tensor(*data)) {
      // The declared type already says dtype and shape.
      if (elide(*data))
        append_elided_elements(out_, *data);
      else
        append_elements(out_, *data);
    } else {
      tensor_literal(*data);
    }
    out_ += '\n';
  }

  bool elide(const Tensor& t) const {
    return options_.max_constant_elements && t.defined() && t.element_count() > *options_.max_constant_elements;
  }

  void tensor_literal(const Tensor& t) {
    if (!elide(t)) {
      append_tensor_literal(out_, t);
      return;
    }
    out_ += dtype_text(t.dtype());
    append_shape(out_, t.shape());
    out_ += ' ';
    append_elided_elements(out_, t);
  }

  // How a control edge names its predecessor: by name when that is unique in the graph,
  // else by position ("#3") so that any graph round-trips.
  struct NodeRefs {
    explicit NodeRefs(const Graph& g) {
      size_t index = 0;
      for (const auto& node : g.nodes()) {
        position[node.get()] = index++;
        ++name_count[node->name()];
      }
    }
    std::unordered_map<const Node*, size_t> position;
    std::unordered_map<std::string, size_t> name_count;
  };

  void print_node(const Node& node, const NodeRefs& refs, int depth) {
    indent(depth);
    if (!node.outputs().empty()) {
      bool first = true;
      for (const Value* out : node.outputs()) {
        if (!first) out_ += ", ";
        first = false;
        if (out && out->name().empty()) {
          out_ += '_';
          if (out->desc() != TensorDesc()) {
            out_ += " : ";
            append_type(out_, out->desc());
          }
        } else {
          typed_value(out);
        }
      }
      out_ += " = ";
    }
    if (!node.domain().empty()) {
      append_op_word(node.domain());
      out_ += "::";
    }
    append_op_word(node.op_type());
    out_ += '(';
    for (size_t i = 0; i < node.inputs().size(); ++i) {
      if (i) out_ += ", ";
      value_ref(node.inputs()[i]);
    }
    out_ += ')';
    if (!node.attributes().empty()) {
      out_ += " {";
      bool first = true;
      for (const auto& [name, attr] : node.attributes()) {
        if (!first) out_ += ", ";
        first = false;
        append_name(out_, name);
        out_ += ": ";
        out_ += attribute_type_text(attr.type());
        out_ += " = ";
        print_attribute_value(attr, depth);
      }
      out_ += '}';
    }
    if (!node.name().empty()) {
      out_ += ' ';
      append_quoted(out_, node.name());
    }
    if (!node.control_predecessors().empty()) {
      out_ += " after [";
      bool first = true;
      for (const Node* pred : node.control_predecessors()) {
        if (!first) out_ += ", ";
        first = false;
        auto pos = pred ? refs.position.find(pred) : refs.position.end();
        auto count = pred ? refs.name_count.find(pred->name()) : refs.name_count.end();
        if (pos != refs.position.end() &&
            (pred->name().empty() || count == refs.name_count.end() || count->second != 1)) {
          out_ += '#';
          append_number(out_, pos->second);
        } else {
          append_quoted(out_, pred ? pred->name() : std::string());
        }
      }
      out_ += ']';
    }
    out_ += '\n';
  }

  void append_op_word(const std::string& word) {
    if (is_bare_ident(word) && !is_statement_keyword(word))
      out_ += word;
    else
      append_quoted(out_, word);
  }

  void print_subgraph(const Attribute::GraphPtr& g, int depth) {
    if (!g) {
      out_ += "null";
    } else if (std::find(stack_.begin(), stack_.end(), g.get()) != stack_.end()) {
      out_ += "recursive ";  // a graph holding itself: print a marker, not forever
      append_name(out_, g->name());
    } else {
      print_graph_block(*g, depth);
    }
  }

  void print_attribute_value(const Attribute& attr, int depth) {
    const auto& s = attr.storage();
    switch (attr.type()) {
      case AttributeType::kInt:
        append_number(out_, std::get<int64_t>(s));
        break;
      case AttributeType::kFloat:
        append_float32(out_, std::get<float>(s));
        break;
      case AttributeType::kString:
        append_quoted(out_, std::get<std::string>(s));
        break;
      case AttributeType::kTensor:
        tensor_literal(std::get<Tensor>(s));
        break;
      case AttributeType::kGraph:
        print_subgraph(std::get<Attribute::GraphPtr>(s), depth);
        break;
      case AttributeType::kInts:
        list(std::get<std::vector<int64_t>>(s), [&](int64_t v) { append_number(out_, v); });
        break;
      case AttributeType::kFloats:
        list(std::get<std::vector<float>>(s), [&](float v) { append_float32(out_, v); });
        break;
      case AttributeType::kStrings:
        list(std::get<std::vector<std::string>>(s), [&](const std::string& v) { append_quoted(out_, v); });
        break;
      case AttributeType::kTensors:
        list(std::get<std::vector<Tensor>>(s), [&](const Tensor& v) { tensor_literal(v); });
        break;
      case AttributeType::kGraphs:
        list(std::get<std::vector<Attribute::GraphPtr>>(s),
             [&](const Attribute::GraphPtr& v) { print_subgraph(v, depth); });
        break;
      case AttributeType::kType:
        append_type(out_, std::get<TensorDesc>(s));
        break;
      case AttributeType::kTypes:
        list(std::get<std::vector<TensorDesc>>(s), [&](const TensorDesc& v) { append_type(out_, v); });
        break;
    }
  }

  template <typename T, typename F>
  void list(const std::vector<T>& items, F&& print_item) {
    out_ += '[';
    for (size_t i = 0; i < items.size(); ++i) {
      if (i) out_ += ", ";
      print_item(items[i]);
    }
    out_ += ']';
  }

  PrintOptions options_;
  std::string out_;
  std::vector<const Graph*> stack_;
};

}  // namespace
}  // namespace ge::text_ir

namespace ge {

std::string print_graph(const Graph& graph) { return text_ir::Printer().print(graph); }

std::string print_graph(const Graph& graph, const PrintOptions& options) {
  return text_ir::Printer(options).print(graph);
}

}  // namespace ge
