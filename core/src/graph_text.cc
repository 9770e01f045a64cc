#include "ge/graph_text.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "ge/minifloat.h"

namespace ge {
namespace {

// Deeper nesting than this is rejected so that hostile input cannot exhaust the stack.
constexpr int kMaxGraphNesting = 64;

constexpr uint32_t kCanonicalNan32 = 0x7fc00000u;
constexpr uint64_t kCanonicalNan64 = 0x7ff8000000000000ull;

bool is_ident_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c) || c == '.'; }
bool is_value_name_char(char c) { return is_ident_char(c) || c == '-'; }
bool is_hex_digit(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

bool is_bare_ident(std::string_view s) {
  if (s.empty() || !is_ident_start(s[0])) return false;
  for (char c : s)
    if (!is_ident_char(c)) return false;
  return true;
}

bool is_bare_value_name(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_value_name_char(c)) return false;
  return true;
}

// Words that start statements (or stand for an omitted value) there; an op type or domain
// spelled like one is quoted so that a node with no outputs stays unambiguous.
bool is_statement_keyword(std::string_view s) {
  return s == "input" || s == "init" || s == "capture" || s == "output" || s == "_";
}

// Length of the well-formed UTF-8 sequence starting at s[i], or 0 when there is none.
size_t utf8_sequence_length(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  size_t length = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c <= 0xdf ? 2 : 0;
  if (length == 0 || i + length > s.size()) return 0;
  for (size_t k = 1; k < length; ++k)
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
  // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not well formed.
  if (c == 0xe0 && byte(i + 1) < 0xa0) return 0;
  if (c == 0xed && byte(i + 1) >= 0xa0) return 0;
  if (c == 0xf0 && byte(i + 1) < 0x90) return 0;
  if (c == 0xf4 && byte(i + 1) >= 0x90) return 0;
  return length;
}

// A double-quoted string literal. Control characters and bytes that are not well-formed
// UTF-8 are escaped as \xHH, so the text is always valid UTF-8 and any byte string
// round-trips.
void append_quoted(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (size_t i = 0; i < s.size(); ++i) {
    char ch = s[i];
    auto c = static_cast<unsigned char>(ch);
    if (c >= 0x80) {
      size_t length = utf8_sequence_length(s, i);
      if (length == 0) {
        out += "\\x";
        out += kHex[c >> 4];
        out += kHex[c & 15];
      } else {
        out.append(s.substr(i, length));
        i += length - 1;
      }
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += "\\x";
          out += kHex[c >> 4];
          out += kHex[c & 15];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

std::string quoted(std::string_view s) {
  std::string out;
  append_quoted(out, s);
  return out;
}

void append_name(std::string& out, std::string_view s) {
  if (is_bare_ident(s))
    out += s;
  else
    append_quoted(out, s);
}

void append_hex(std::string& out, uint64_t bits, int digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += "0x";
  for (int i = digits - 1; i >= 0; --i) out += kHex[(bits >> (4 * i)) & 15];
}

template <typename T>
void append_number(std::string& out, T value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out.append(buffer, result.ptr);
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

std::string dtype_text(DataType type) {
  if (type == DataType::kUndefined) return "undefined";
  if (!is_valid_data_type(static_cast<int32_t>(type)))
    return "invalid_dtype_" + std::to_string(static_cast<int32_t>(type));
  return std::string(data_type_name(type));
}

// "an int8", "a float32": for messages.
std::string with_article(const std::string& word) {
  // "a uint8" is read "a you-int"; every other leading vowel takes "an".
  bool vowel = !word.empty() && std::strchr("aeiou", word[0]) != nullptr && word.rfind("uint", 0) != 0;
  return (vowel ? "an " : "a ") + word;
}

std::optional<DataType> dtype_from_text(std::string_view s) {
  if (s == "undefined") return DataType::kUndefined;
  return data_type_from_name(s);
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

void append_shape(std::string& out, const std::vector<int64_t>& shape) {
  out += '[';
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ',';
    append_number(out, shape[i]);
  }
  out += ']';
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

const char* attribute_type_text(AttributeType type) {
  switch (type) {
    case AttributeType::kInt:
      return "int";
    case AttributeType::kFloat:
      return "float";
    case AttributeType::kString:
      return "string";
    case AttributeType::kTensor:
      return "tensor";
    case AttributeType::kGraph:
      return "graph";
    case AttributeType::kInts:
      return "ints";
    case AttributeType::kFloats:
      return "floats";
    case AttributeType::kStrings:
      return "strings";
    case AttributeType::kTensors:
      return "tensors";
    case AttributeType::kGraphs:
      return "graphs";
    case AttributeType::kType:
      return "type";
    case AttributeType::kTypes:
      return "types";
  }
  return "?";
}

std::optional<AttributeType> attribute_type_from_text(std::string_view s) {
  for (int i = 0; i <= static_cast<int>(AttributeType::kTypes); ++i) {
    auto type = static_cast<AttributeType>(i);
    if (s == attribute_type_text(type)) return type;
  }
  return std::nullopt;
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

// ---------------------------------------------------------------------------------------
// Printer

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

// ---------------------------------------------------------------------------------------
// Lexer

struct Token {
  enum Kind { kEnd, kIdent, kValue, kString, kNumber, kPunct };
  Kind kind = kEnd;
  std::string text;  // identifier, value name or string contents (unescaped), number, punctuation
  int line = 1;
  int column = 1;
  bool newline_before = false;  // a line break separates this token from the previous one
};

std::string printable_snippet(std::string_view s) {
  constexpr size_t kMax = 32;
  std::string out = quoted(s.substr(0, kMax));
  if (s.size() > kMax) out.insert(out.size() - 1, "...");
  return out;
}

std::string describe_token(const Token& t) {
  switch (t.kind) {
    case Token::kEnd:
      return "end of input";
    case Token::kIdent:
    case Token::kNumber:
    case Token::kPunct:
      return "'" + (t.text.size() > 32 ? t.text.substr(0, 32) + "..." : t.text) + "'";
    case Token::kValue:
      return "value " + printable_snippet(t.text);
    case Token::kString:
      return "string " + printable_snippet(t.text);
  }
  return "?";
}

Status error_at(int line, int column, const std::string& message) {
  return parse_error("line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + message);
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  Status next(Token* token) {
    bool newline = skip_space_and_comments();
    token->newline_before = newline;
    token->line = line_;
    token->column = static_cast<int>(pos_ - line_start_) + 1;
    token->text.clear();
    if (pos_ >= text_.size()) {
      token->kind = Token::kEnd;
      return Status::ok();
    }
    char c = text_[pos_];
    if (is_ident_start(c)) {
      token->kind = Token::kIdent;
      size_t start = pos_;
      while (pos_ < text_.size() && is_ident_char(text_[pos_])) ++pos_;
      token->text = std::string(text_.substr(start, pos_ - start));
      return Status::ok();
    }
    if (is_digit(c) ||
        ((c == '-' || c == '+' || c == '.') && pos_ + 1 < text_.size() && (is_ident_char(text_[pos_ + 1])))) {
      token->kind = Token::kNumber;
      lex_number(token);
      return Status::ok();
    }
    if (c == '"') {
      token->kind = Token::kString;
      return lex_string(token);
    }
    if (c == '%') {
      token->kind = Token::kValue;
      ++pos_;
      if (pos_ < text_.size() && text_[pos_] == '"') return lex_string(token);
      size_t start = pos_;
      while (pos_ < text_.size() && is_value_name_char(text_[pos_])) ++pos_;
      if (pos_ == start) return error_here("expected a value name after '%' but found " + describe_char());
      token->text = std::string(text_.substr(start, pos_ - start));
      return Status::ok();
    }
    token->kind = Token::kPunct;
    if (c == ':' && pos_ + 1 < text_.size() && text_[pos_ + 1] == ':') {
      token->text = "::";
      pos_ += 2;
      return Status::ok();
    }
    if (std::strchr("(){}[],=:?*#", c) != nullptr) {
      token->text = std::string(1, c);
      ++pos_;
      return Status::ok();
    }
    return error_here("expected a token but found " + describe_char());
  }

 private:
  Status error_here(const std::string& message) const {
    return error_at(line_, static_cast<int>(pos_ - line_start_) + 1, message);
  }

  std::string describe_char() const {
    if (pos_ >= text_.size()) return "end of input";
    auto c = static_cast<unsigned char>(text_[pos_]);
    if (c == '\n') return "end of line";
    if (c < 0x20 || c >= 0x7f) {
      std::string out = "byte ";
      append_hex(out, c, 2);
      return out;
    }
    return std::string("'") + static_cast<char>(c) + "'";
  }

  // Returns whether a line break was skipped.
  bool skip_space_and_comments() {
    bool newline = false;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '\n') {
        newline = true;
        ++pos_;
        ++line_;
        line_start_ = pos_;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
    return newline;
  }

  // A number is one run of identifier characters with an optional sign, plus the sign
  // of a decimal exponent; the parser validates it for the type it expects.
  void lex_number(Token* token) {
    size_t start = pos_;
    if (text_[pos_] == '-' || text_[pos_] == '+') ++pos_;
    bool hex = text_.substr(pos_, 2) == "0x" || text_.substr(pos_, 2) == "0X";
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      bool exponent_sign = (c == '+' || c == '-') && !hex && (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E');
      if (!is_ident_char(c) && !exponent_sign) break;
      ++pos_;
    }
    token->text = std::string(text_.substr(start, pos_ - start));
  }

  Status lex_string(Token* token) {
    int line = line_;
    int column = static_cast<int>(pos_ - line_start_) + 1;
    ++pos_;  // opening quote
    std::string& out = token->text;
    while (true) {
      if (pos_ >= text_.size() || text_[pos_] == '\n')
        return error_at(line, column, "unterminated string: expected '\"' but found " + describe_char());
      char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return Status::ok();
      }
      if (c != '\\') {
        out += c;
        ++pos_;
        continue;
      }
      ++pos_;
      if (pos_ >= text_.size()) return error_here("expected an escape character after '\\' but found end of input");
      char e = text_[pos_];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'x': {
          if (pos_ + 2 >= text_.size() || !is_hex_digit(text_[pos_ + 1]) || !is_hex_digit(text_[pos_ + 2])) {
            ++pos_;
            return error_here("expected two hex digits after '\\x' but found " + describe_char());
          }
          out += static_cast<char>(std::stoi(std::string(text_.substr(pos_ + 1, 2)), nullptr, 16));
          pos_ += 2;
          break;
        }
        default:
          return error_here("expected an escape (\\\" \\\\ \\n \\t \\r \\xHH) but found " + describe_char());
      }
      ++pos_;
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;
};

// ---------------------------------------------------------------------------------------
// Number conversions

std::optional<uint64_t> parse_hex_bits(std::string_view s, int max_digits) {
  if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return std::nullopt;
  s.remove_prefix(2);
  if (static_cast<int>(s.size()) > max_digits) return std::nullopt;
  uint64_t bits = 0;
  auto result = std::from_chars(s.data(), s.data() + s.size(), bits, 16);
  if (result.ec != std::errc() || result.ptr != s.data() + s.size()) return std::nullopt;
  return bits;
}

template <typename F, typename Bits>
std::optional<F> parse_floating(const Token& t, Bits canonical_nan) {
  if (t.kind == Token::kIdent) {
    if (t.text == "nan") return std::bit_cast<F>(canonical_nan);
    if (t.text == "inf") return std::numeric_limits<F>::infinity();
    return std::nullopt;
  }
  if (t.kind != Token::kNumber) return std::nullopt;
  std::string_view s = t.text;
  if (s == "-inf") return -std::numeric_limits<F>::infinity();
  if (auto bits = parse_hex_bits(s, 2 * sizeof(F))) return std::bit_cast<F>(static_cast<Bits>(*bits));
  if (!s.empty() && s[0] == '+') return std::nullopt;
  F value{};
  auto result = std::from_chars(s.data(), s.data() + s.size(), value, std::chars_format::general);
  if (result.ec != std::errc() || result.ptr != s.data() + s.size()) return std::nullopt;
  return value;
}

std::optional<float> parse_float32(const Token& t) { return parse_floating<float>(t, kCanonicalNan32); }
std::optional<double> parse_float64(const Token& t) { return parse_floating<double>(t, kCanonicalNan64); }

template <typename I>
std::optional<I> parse_integer(const Token& t) {
  if (t.kind != Token::kNumber) return std::nullopt;
  std::string_view s = t.text;
  I value{};
  auto result = std::from_chars(s.data(), s.data() + s.size(), value, 10);
  if (result.ec != std::errc() || result.ptr != s.data() + s.size()) return std::nullopt;
  return value;
}

// ---------------------------------------------------------------------------------------
// Parser

class Parser {
 public:
  explicit Parser(std::string_view text) : lexer_(text) {}

  Result<std::unique_ptr<Graph>> parse() {
    GE_RETURN_IF_ERROR(advance());
    GE_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, parse_graph_block(nullptr, 1));
    if (tok_.kind != Token::kEnd) return expected("end of input");
    GE_RETURN_IF_ERROR(check_captures());
    return graph;
  }

 private:
  struct InputRef {
    Node* node;
    size_t index;
    std::string name;
    int line, column;
  };
  struct ControlRef {
    Node* node;
    bool by_position;
    std::string name;
    int64_t position;
    int line, column;
  };
  struct OutputRef {
    bool omitted;
    std::string name;
    int line, column;
  };
  struct PendingCapture {
    const Graph* graph;
    std::string name;
    int line, column;
  };
  // What one graph block defines and refers to; references resolve when the block closes
  // because nodes may use values defined further down (nodes print in insertion order).
  struct Scope {
    Graph* graph = nullptr;
    std::unordered_map<std::string, Value*> values;
    std::vector<Node*> nodes;
    std::vector<InputRef> inputs;
    std::vector<ControlRef> controls;
    std::vector<OutputRef> outputs;
  };

  // ---- tokens ----
  Status advance() { return lexer_.next(&tok_); }
  bool at_punct(std::string_view p) const { return tok_.kind == Token::kPunct && tok_.text == p; }
  bool at_ident(std::string_view w) const { return tok_.kind == Token::kIdent && tok_.text == w; }
  Status expected(const std::string& what) const {
    return error_at(tok_.line, tok_.column, "expected " + what + " but found " + describe_token(tok_));
  }
  // At `elided(...)`: the printer left this constant's data out (PrintOptions), so the
  // graph cannot be rebuilt from this text.
  Status elided_constant(const std::string& what) const {
    return error_at(tok_.line, tok_.column,
                    "the data of " + what +
                        " was elided when the graph was printed (a dump prints large constants as "
                        "dtype, shape and checksum); this text cannot be loaded: print the graph with every "
                        "constant (PrintOptions without max_constant_elements, ge-run --dump-graph-constants)");
  }
  Status expect_punct(std::string_view p) {
    if (!at_punct(p)) return expected("'" + std::string(p) + "'");
    return advance();
  }
  Status expect_ident(std::string_view w) {
    if (!at_ident(w)) return expected("'" + std::string(w) + "'");
    return advance();
  }
  // An identifier or a quoted string.
  Status parse_name(const std::string& what, std::string* out) {
    if (tok_.kind != Token::kIdent && tok_.kind != Token::kString) return expected(what);
    *out = tok_.text;
    return advance();
  }

  // ---- graph blocks ----
  Result<std::unique_ptr<Graph>> parse_graph_block(Graph* parent, int depth) {
    if (depth > kMaxGraphNesting)
      return error_at(tok_.line, tok_.column,
                      "graphs are nested more than " + std::to_string(kMaxGraphNesting) + " deep");
    GE_RETURN_IF_ERROR(expect_ident("graph"));
    std::string name;
    GE_RETURN_IF_ERROR(parse_name("a graph name", &name));
    auto graph = std::make_unique<Graph>(name);
    graph->set_name(name);
    graph->set_parent(parent);
    if (at_punct("(")) {
      GE_RETURN_IF_ERROR(advance());
      GE_RETURN_IF_ERROR(expect_ident("opset"));
      std::unordered_set<std::string> seen;
      while (!at_punct(")")) {
        if (!seen.empty()) GE_RETURN_IF_ERROR(expect_punct(","));
        int line = tok_.line, column = tok_.column;
        std::string domain;
        GE_RETURN_IF_ERROR(parse_name("an opset domain string", &domain));
        if (!seen.insert(domain).second)
          return error_at(line, column, "opset domain " + quoted(domain) + " is imported twice");
        GE_RETURN_IF_ERROR(expect_punct("="));
        GE_ASSIGN_OR_RETURN(int64_t version, parse_int64_token("an opset version (an integer)"));
        graph->set_opset_import(domain, version);
      }
      GE_RETURN_IF_ERROR(advance());
    }
    GE_RETURN_IF_ERROR(expect_punct("{"));
    Scope scope;
    scope.graph = graph.get();
    while (!at_punct("}")) {
      if (tok_.kind == Token::kEnd) return expected("a statement or '}'");
      if (at_ident("input")) {
        GE_RETURN_IF_ERROR(parse_input(scope));
      } else if (at_ident("init")) {
        GE_RETURN_IF_ERROR(parse_initializer(scope));
      } else if (at_ident("capture")) {
        GE_RETURN_IF_ERROR(parse_capture(scope));
      } else if (at_ident("output")) {
        GE_RETURN_IF_ERROR(parse_output(scope));
      } else {
        GE_RETURN_IF_ERROR(parse_node(scope, depth));
      }
      if (!at_punct("}") && !tok_.newline_before) return expected("end of line");
    }
    GE_RETURN_IF_ERROR(advance());
    GE_RETURN_IF_ERROR(resolve(scope));
    scopes_[graph.get()] = std::move(scope.values);
    return graph;
  }

  Status resolve(Scope& scope) {
    Graph& g = *scope.graph;
    for (const InputRef& ref : scope.inputs) {
      auto it = scope.values.find(ref.name);
      if (it == scope.values.end()) return undefined_value(ref.line, ref.column, ref.name, g);
      ref.node->set_input(ref.index, it->second);
    }
    for (const OutputRef& ref : scope.outputs) {
      if (ref.omitted) {
        g.add_output(nullptr);
        continue;
      }
      auto it = scope.values.find(ref.name);
      if (it == scope.values.end()) return undefined_value(ref.line, ref.column, ref.name, g);
      g.add_output(it->second);
    }
    std::unordered_map<std::string, std::vector<Node*>> by_name;
    for (Node* node : scope.nodes) by_name[node->name()].push_back(node);
    for (const ControlRef& ref : scope.controls) {
      Node* pred = nullptr;
      if (ref.by_position) {
        if (ref.position < 0 || ref.position >= static_cast<int64_t>(scope.nodes.size()))
          return error_at(ref.line, ref.column,
                          "node #" + std::to_string(ref.position) + " does not exist in graph '" + g.name() +
                              "', which has " + std::to_string(scope.nodes.size()) + " nodes");
        pred = scope.nodes[static_cast<size_t>(ref.position)];
      } else {
        auto it = by_name.find(ref.name);
        if (ref.name.empty() || it == by_name.end())
          return error_at(ref.line, ref.column, "no node named " + quoted(ref.name) + " in graph '" + g.name() + "'");
        if (it->second.size() != 1)
          return error_at(ref.line, ref.column,
                          "node name " + quoted(ref.name) + " is ambiguous in graph '" + g.name() + "'" +
                              "; refer to the node by position (#N)");
        pred = it->second.front();
      }
      ref.node->add_control_predecessor(pred);
    }
    return Status::ok();
  }

  static Status undefined_value(int line, int column, const std::string& name, const Graph& g) {
    return error_at(line, column,
                    "value %" + printable_value_name(name) + " is not defined in graph '" + g.name() + "'");
  }

  static std::string printable_value_name(const std::string& name) {
    return is_bare_value_name(name) ? name : quoted(name);
  }

  // Captures may name values of any enclosing graph, so they are checked once every
  // graph is complete.
  Status check_captures() {
    for (const PendingCapture& capture : captures_) {
      bool found = false;
      for (const Graph* g = capture.graph->parent(); g && !found; g = g->parent()) {
        auto scope = scopes_.find(g);
        found = scope != scopes_.end() && scope->second.count(capture.name) != 0;
      }
      if (!found)
        return error_at(capture.line, capture.column,
                        "capture %" + printable_value_name(capture.name) +
                            " does not name a value of an enclosing graph of graph '" + capture.graph->name() + "'");
    }
    return Status::ok();
  }

  // ---- statements ----
  Status define(Scope& scope, const std::string& name, Value* value, int line, int column) {
    if (name.empty()) return Status::ok();  // omitted outputs share the empty name
    if (!scope.values.emplace(name, value).second)
      return error_at(
          line, column,
          "value %" + printable_value_name(name) + " is defined twice in graph '" + scope.graph->name() + "'");
    return Status::ok();
  }

  Status check_new_name(Scope& scope, const std::string& name, int line, int column) {
    if (!name.empty() && scope.values.count(name))
      return error_at(
          line, column,
          "value %" + printable_value_name(name) + " is defined twice in graph '" + scope.graph->name() + "'");
    return Status::ok();
  }

  // `%name` and, when present, `: type`.
  Status parse_typed_value(std::string* name, TensorDesc* desc) {
    if (tok_.kind != Token::kValue) return expected("a value name (%name)");
    *name = tok_.text;
    GE_RETURN_IF_ERROR(advance());
    *desc = TensorDesc();
    if (at_punct(":")) {
      GE_RETURN_IF_ERROR(advance());
      GE_ASSIGN_OR_RETURN(*desc, parse_type());
    }
    return Status::ok();
  }

  Status parse_input(Scope& scope) {
    GE_RETURN_IF_ERROR(advance());
    int line = tok_.line, column = tok_.column;
    std::string name;
    TensorDesc desc;
    GE_RETURN_IF_ERROR(parse_typed_value(&name, &desc));
    GE_RETURN_IF_ERROR(check_new_name(scope, name, line, column));
    Value* value = scope.graph->add_input(name, desc);
    value->set_name(name);
    return define(scope, name, value, line, column);
  }

  Status parse_initializer(Scope& scope) {
    GE_RETURN_IF_ERROR(advance());
    bool also_input = false;
    if (at_ident("input")) {
      also_input = true;
      GE_RETURN_IF_ERROR(advance());
    }
    int line = tok_.line, column = tok_.column;
    std::string name;
    TensorDesc desc;
    GE_RETURN_IF_ERROR(parse_typed_value(&name, &desc));
    GE_RETURN_IF_ERROR(check_new_name(scope, name, line, column));
    GE_RETURN_IF_ERROR(expect_punct("="));
    if (at_ident("elided")) return elided_constant("initializer %" + printable_value_name(name));
    Tensor data;
    if (at_punct("[")) {
      if (desc.kind != ValueKind::kTensor || !is_static_desc(desc) || desc.dtype == DataType::kUndefined)
        return expected("a tensor literal (the type of %" + printable_value_name(name) +
                        " is not a static tensor type, so the data must say its own)");
      std::vector<int64_t> dims;
      for (const Dim& d : *desc.shape) dims.push_back(d.value);
      GE_ASSIGN_OR_RETURN(data, parse_elements(desc.dtype, std::move(dims)));
    } else {
      if (at_ident("undefined")) return expected("initializer data");
      GE_ASSIGN_OR_RETURN(data, parse_tensor_literal());
    }
    Value* value = scope.graph->add_initializer(name, std::move(data), also_input);
    value->set_name(name);
    value->set_desc(desc);
    return define(scope, name, value, line, column);
  }

  static bool is_static_desc(const TensorDesc& desc) {
    if (!desc.shape) return false;
    for (const Dim& d : *desc.shape)
      if (d.value < 0 || !d.symbol.empty()) return false;
    return true;
  }

  Status parse_capture(Scope& scope) {
    GE_RETURN_IF_ERROR(advance());
    int line = tok_.line, column = tok_.column;
    std::string name;
    TensorDesc desc;
    GE_RETURN_IF_ERROR(parse_typed_value(&name, &desc));
    GE_RETURN_IF_ERROR(check_new_name(scope, name, line, column));
    Value* value = scope.graph->add_capture(name, desc);
    value->set_name(name);
    if (scope.graph->parent()) captures_.push_back({scope.graph, name, line, column});
    return define(scope, name, value, line, column);
  }

  Status parse_output(Scope& scope) {
    GE_RETURN_IF_ERROR(advance());
    if (at_ident("_")) {
      scope.outputs.push_back({true, {}, tok_.line, tok_.column});
      return advance();
    }
    if (tok_.kind != Token::kValue) return expected("a value name (%name) or '_'");
    scope.outputs.push_back({false, tok_.text, tok_.line, tok_.column});
    return advance();
  }

  struct ParsedOutput {
    std::string name;
    TensorDesc desc;
    int line, column;
  };

  Status parse_node(Scope& scope, int depth) {
    std::vector<ParsedOutput> outputs;
    if (tok_.kind == Token::kValue || at_ident("_")) {
      while (true) {
        ParsedOutput out{{}, {}, tok_.line, tok_.column};
        if (at_ident("_")) {
          GE_RETURN_IF_ERROR(advance());
          if (at_punct(":")) {
            GE_RETURN_IF_ERROR(advance());
            GE_ASSIGN_OR_RETURN(out.desc, parse_type());
          }
        } else {
          GE_RETURN_IF_ERROR(parse_typed_value(&out.name, &out.desc));
          GE_RETURN_IF_ERROR(check_new_name(scope, out.name, out.line, out.column));
          for (const ParsedOutput& other : outputs)
            if (!out.name.empty() && other.name == out.name)
              return error_at(out.line, out.column,
                              "value %" + printable_value_name(out.name) + " is defined twice in graph '" +
                                  scope.graph->name() + "'");
        }
        outputs.push_back(std::move(out));
        if (at_punct("=")) break;
        if (!at_punct(",")) return expected("',' or '='");
        GE_RETURN_IF_ERROR(advance());
        if (tok_.kind != Token::kValue && !at_ident("_")) return expected("a value name (%name) or '_'");
      }
      GE_RETURN_IF_ERROR(advance());
    } else if (tok_.kind != Token::kIdent && tok_.kind != Token::kString) {
      return expected("a statement");
    }

    std::string domain, op_type;
    GE_RETURN_IF_ERROR(parse_name("an op type", &op_type));
    if (at_punct("::")) {
      GE_RETURN_IF_ERROR(advance());
      domain = std::move(op_type);
      GE_RETURN_IF_ERROR(parse_name("an op type", &op_type));
    }

    struct ParsedInput {
      bool omitted;
      std::string name;
      int line, column;
    };
    std::vector<ParsedInput> inputs;
    GE_RETURN_IF_ERROR(expect_punct("("));
    while (!at_punct(")")) {
      if (!inputs.empty()) GE_RETURN_IF_ERROR(expect_punct(","));
      if (at_ident("_")) {
        inputs.push_back({true, {}, tok_.line, tok_.column});
      } else if (tok_.kind == Token::kValue) {
        inputs.push_back({false, tok_.text, tok_.line, tok_.column});
      } else {
        return expected(inputs.empty() ? "an input (%name or '_') or ')'" : "an input (%name or '_')");
      }
      GE_RETURN_IF_ERROR(advance());
    }
    GE_RETURN_IF_ERROR(advance());

    std::vector<std::pair<std::string, Attribute>> attributes;
    if (at_punct("{")) {
      GE_RETURN_IF_ERROR(advance());
      std::unordered_set<std::string> seen;
      while (!at_punct("}")) {
        if (!attributes.empty()) GE_RETURN_IF_ERROR(expect_punct(","));
        int line = tok_.line, column = tok_.column;
        std::string name;
        GE_RETURN_IF_ERROR(parse_name("an attribute name", &name));
        if (!seen.insert(name).second) return error_at(line, column, "attribute " + quoted(name) + " is given twice");
        GE_RETURN_IF_ERROR(expect_punct(":"));
        if (tok_.kind != Token::kIdent) return expected("an attribute type");
        auto type = attribute_type_from_text(tok_.text);
        if (!type) return expected("an attribute type (int, float, string, tensor, graph, ints, ...)");
        GE_RETURN_IF_ERROR(advance());
        GE_RETURN_IF_ERROR(expect_punct("="));
        GE_ASSIGN_OR_RETURN(Attribute value, parse_attribute_value(*type, scope.graph, depth));
        attributes.emplace_back(std::move(name), std::move(value));
      }
      GE_RETURN_IF_ERROR(advance());
    }

    std::string node_name;
    if (tok_.kind == Token::kString && !tok_.newline_before) {
      node_name = tok_.text;
      GE_RETURN_IF_ERROR(advance());
    }

    std::vector<ControlRef> controls;
    if (at_ident("after") && !tok_.newline_before) {
      GE_RETURN_IF_ERROR(advance());
      GE_RETURN_IF_ERROR(expect_punct("["));
      while (!at_punct("]")) {
        if (!controls.empty()) GE_RETURN_IF_ERROR(expect_punct(","));
        ControlRef ref{nullptr, false, {}, 0, tok_.line, tok_.column};
        if (tok_.kind == Token::kString) {
          ref.name = tok_.text;
        } else if (at_punct("#")) {
          GE_RETURN_IF_ERROR(advance());
          GE_ASSIGN_OR_RETURN(ref.position, parse_int64_token("a node position (an integer)"));
          ref.by_position = true;
          controls.push_back(std::move(ref));
          continue;
        } else {
          return expected("a node name string or #position");
        }
        GE_RETURN_IF_ERROR(advance());
        controls.push_back(std::move(ref));
      }
      GE_RETURN_IF_ERROR(advance());
    }

    // Build the node; inputs and control edges are bound when the block closes.
    std::vector<std::string> output_names;
    for (const ParsedOutput& out : outputs) output_names.push_back(out.name);
    Node* node = scope.graph->add_node(op_type, std::vector<Value*>(inputs.size(), nullptr), outputs.size(), node_name,
                                       output_names, domain);
    node->set_name(node_name);
    node->set_op_type(op_type);
    node->set_domain(domain);
    for (size_t i = 0; i < outputs.size(); ++i) {
      Value* value = node->output(i);
      value->set_name(outputs[i].name);
      value->set_desc(outputs[i].desc);
      GE_RETURN_IF_ERROR(define(scope, outputs[i].name, value, outputs[i].line, outputs[i].column));
    }
    for (auto& [name, value] : attributes) node->set_attribute(name, std::move(value));
    for (size_t i = 0; i < inputs.size(); ++i)
      if (!inputs[i].omitted) scope.inputs.push_back({node, i, inputs[i].name, inputs[i].line, inputs[i].column});
    for (ControlRef& ref : controls) {
      ref.node = node;
      scope.controls.push_back(std::move(ref));
    }
    scope.nodes.push_back(node);
    return Status::ok();
  }

  // ---- types ----
  Result<TensorDesc> parse_type() {
    TensorDesc desc;
    int wrappers = 0;
    if (at_ident("seq")) {
      desc.kind = ValueKind::kSequence;
      GE_RETURN_IF_ERROR(advance());
      GE_RETURN_IF_ERROR(expect_punct("("));
      wrappers = 1;
    } else if (at_ident("opt")) {
      desc.kind = ValueKind::kOptional;
      GE_RETURN_IF_ERROR(advance());
      GE_RETURN_IF_ERROR(expect_punct("("));
      wrappers = 1;
      if (at_ident("seq")) {
        desc.kind = ValueKind::kOptionalSequence;
        GE_RETURN_IF_ERROR(advance());
        GE_RETURN_IF_ERROR(expect_punct("("));
        wrappers = 2;
      }
    }
    GE_ASSIGN_OR_RETURN(desc.dtype, parse_dtype());
    GE_RETURN_IF_ERROR(expect_punct("["));
    if (at_punct("*")) {
      GE_RETURN_IF_ERROR(advance());
    } else {
      std::vector<Dim> dims;
      while (!at_punct("]")) {
        if (!dims.empty()) GE_RETURN_IF_ERROR(expect_punct(","));
        if (at_punct("?")) {
          dims.push_back(Dim::unknown());
          GE_RETURN_IF_ERROR(advance());
        } else if (tok_.kind == Token::kNumber) {
          GE_ASSIGN_OR_RETURN(int64_t extent, parse_extent());
          dims.push_back(Dim::of(extent));
        } else if (tok_.kind == Token::kIdent || tok_.kind == Token::kString) {
          if (tok_.text.empty()) return expected("a dimension (a non-empty symbol name)");
          dims.push_back(Dim::named(tok_.text));
          GE_RETURN_IF_ERROR(advance());
        } else {
          return expected(dims.empty() ? "a dimension, '*' or ']'" : "a dimension");
        }
      }
      desc.shape = std::move(dims);
    }
    GE_RETURN_IF_ERROR(expect_punct("]"));
    if (at_punct("{")) {  // a storage format: float32[1,64,8,8]{nChw16c}
      GE_RETURN_IF_ERROR(advance());
      if ((tok_.kind != Token::kIdent && tok_.kind != Token::kString) || tok_.text.empty())
        return expected("a tensor format name");
      desc.format = tok_.text;
      GE_RETURN_IF_ERROR(advance());
      GE_RETURN_IF_ERROR(expect_punct("}"));
    }
    for (int i = 0; i < wrappers; ++i) GE_RETURN_IF_ERROR(expect_punct(")"));
    return desc;
  }

  Result<DataType> parse_dtype() {
    if (tok_.kind != Token::kIdent) return expected("an element type");
    auto type = dtype_from_text(tok_.text);
    if (!type) return expected("an element type (float32, int64, ...)");
    GE_RETURN_IF_ERROR(advance());
    return *type;
  }

  Result<int64_t> parse_extent() {
    auto value = parse_integer<int64_t>(tok_);
    if (!value || *value < 0) return expected("a dimension (an integer >= 0, '?' or a symbol)");
    GE_RETURN_IF_ERROR(advance());
    return *value;
  }

  Result<int64_t> parse_int64_token(const std::string& what) {
    auto value = parse_integer<int64_t>(tok_);
    if (!value) return expected(what);
    GE_RETURN_IF_ERROR(advance());
    return *value;
  }

  Result<float> parse_float_token() {
    auto value = parse_float32(tok_);
    if (!value) return expected("a float32 value");
    GE_RETURN_IF_ERROR(advance());
    return *value;
  }

  // ---- tensors ----
  Result<Tensor> parse_tensor_literal() {
    if (at_ident("undefined")) {
      GE_RETURN_IF_ERROR(advance());
      return Tensor();
    }
    if (tok_.kind != Token::kIdent) return expected("a tensor literal (dtype[dims] [values])");
    GE_ASSIGN_OR_RETURN(DataType dtype, parse_dtype());
    GE_RETURN_IF_ERROR(expect_punct("["));
    std::vector<int64_t> dims;
    while (!at_punct("]")) {
      if (!dims.empty()) GE_RETURN_IF_ERROR(expect_punct(","));
      if (tok_.kind != Token::kNumber) return expected("a static dimension (an integer >= 0)");
      GE_ASSIGN_OR_RETURN(int64_t extent, parse_extent());
      dims.push_back(extent);
    }
    GE_RETURN_IF_ERROR(advance());
    if (at_ident("elided")) return elided_constant("this constant");
    return parse_elements(dtype, std::move(dims));
  }

  template <typename T>
  static void store(std::string& bytes, T value) {
    bytes.append(reinterpret_cast<const char*>(&value), sizeof(T));
  }

  template <typename I>
  Status parse_integer_element(std::string& bytes, DataType dtype) {
    auto value = parse_integer<I>(tok_);
    if (!value) return expected(with_article(dtype_text(dtype)) + " value");
    store(bytes, *value);
    return advance();
  }

  Status parse_float_element(std::string& bytes, DataType dtype) {
    if (dtype == DataType::kFloat64) {
      auto value = parse_float64(tok_);
      if (!value) return expected("a float64 value");
      store(bytes, *value);
    } else if (dtype == DataType::kFloat32) {
      auto value = parse_float32(tok_);
      if (!value) return expected("a float32 value");
      store(bytes, *value);
    } else {
      // float16/bfloat16: raw bits as printed, or a number rounded to nearest even.
      uint16_t bits = 0;
      bool hex = tok_.kind == Token::kNumber && (tok_.text.rfind("0x", 0) == 0 || tok_.text.rfind("0X", 0) == 0);
      if (auto raw = parse_hex_bits(tok_.text, 4); raw && hex) {
        bits = static_cast<uint16_t>(*raw);
      } else if (auto value = parse_float32(tok_); value && !hex) {
        bits = dtype == DataType::kFloat16 ? float16_from_float(*value) : bfloat16_from_float(*value);
      } else {
        return expected(with_article(dtype_text(dtype)) + " value (0xHHHH bits or a number)");
      }
      store(bytes, bits);
    }
    return advance();
  }

  // float8/float4: raw bits as printed (0xHH), or a number rounded to nearest even and
  // saturated.
  Status parse_minifloat_element(std::string& bytes, DataType dtype) {
    const MinifloatFormat format = *minifloat_format(dtype);
    const bool hex = tok_.kind == Token::kNumber && (tok_.text.rfind("0x", 0) == 0 || tok_.text.rfind("0X", 0) == 0);
    uint8_t bits = 0;
    if (auto raw = parse_hex_bits(tok_.text, 2); raw && hex) {
      bits = static_cast<uint8_t>(*raw);
      if ((bits & ~(format.sign_bit | format.magnitude_mask)) != 0) {
        return expected(with_article(dtype_text(dtype)) + " bit pattern (at most 0x" +
                        (format.sign_bit == 0x08 ? std::string("0F") : std::string("FF")) + ")");
      }
    } else if (auto value = parse_float64(tok_); value && !hex) {
      bits = float_to_minifloat(*value, format);
    } else {
      return expected(with_article(dtype_text(dtype)) + " value (0xHH bits or a number)");
    }
    store(bytes, bits);
    return advance();
  }

  // int4/uint4: an integer in [-8, 7] / [0, 15], one byte each.
  Status parse_int4_element(std::string& bytes, DataType dtype) {
    auto value = parse_integer<int64_t>(tok_);
    const bool is_signed = dtype == DataType::kInt4;
    if (!value || *value < (is_signed ? -8 : 0) || *value > (is_signed ? 7 : 15)) {
      return expected(with_article(dtype_text(dtype)) + (is_signed ? " value in [-8, 7]" : " value in [0, 15]"));
    }
    store(bytes, static_cast<int8_t>(*value));
    return advance();
  }

  Status parse_element(DataType dtype, std::string& bytes, std::vector<std::string>& strings) {
    switch (dtype) {
      case DataType::kFloat32:
      case DataType::kFloat64:
      case DataType::kFloat16:
      case DataType::kBFloat16:
        return parse_float_element(bytes, dtype);
      case DataType::kFloat8E4M3FN:
      case DataType::kFloat8E4M3FNUZ:
      case DataType::kFloat8E5M2:
      case DataType::kFloat8E5M2FNUZ:
      case DataType::kFloat4E2M1:
        return parse_minifloat_element(bytes, dtype);
      case DataType::kInt4:
      case DataType::kUInt4:
        return parse_int4_element(bytes, dtype);
      case DataType::kComplex64:
      case DataType::kComplex128: {
        DataType part = dtype == DataType::kComplex64 ? DataType::kFloat32 : DataType::kFloat64;
        GE_RETURN_IF_ERROR(expect_punct("("));
        GE_RETURN_IF_ERROR(parse_float_element(bytes, part));
        GE_RETURN_IF_ERROR(expect_punct(","));
        GE_RETURN_IF_ERROR(parse_float_element(bytes, part));
        return expect_punct(")");
      }
      case DataType::kInt8:
        return parse_integer_element<int8_t>(bytes, dtype);
      case DataType::kInt16:
        return parse_integer_element<int16_t>(bytes, dtype);
      case DataType::kInt32:
        return parse_integer_element<int32_t>(bytes, dtype);
      case DataType::kInt64:
        return parse_integer_element<int64_t>(bytes, dtype);
      case DataType::kUInt8:
        return parse_integer_element<uint8_t>(bytes, dtype);
      case DataType::kUInt16:
        return parse_integer_element<uint16_t>(bytes, dtype);
      case DataType::kUInt32:
        return parse_integer_element<uint32_t>(bytes, dtype);
      case DataType::kUInt64:
        return parse_integer_element<uint64_t>(bytes, dtype);
      case DataType::kBool:
        if (!at_ident("true") && !at_ident("false")) return expected("a bool value (true or false)");
        store(bytes, static_cast<uint8_t>(at_ident("true") ? 1 : 0));
        return advance();
      case DataType::kString:
        if (tok_.kind != Token::kString) return expected("a string value");
        strings.push_back(tok_.text);
        return advance();
      case DataType::kUndefined:
        break;
    }
    return expected("a value of a defined element type");
  }

  // `[v, v, ...]` holding exactly as many values as `dims` says.
  Result<Tensor> parse_elements(DataType dtype, std::vector<int64_t> dims) {
    std::string shape_text = dtype_text(dtype);
    append_shape(shape_text, dims);
    if (dtype == DataType::kUndefined) return expected("a tensor element type other than undefined");
    // The product of the non-zero extents must fit, so that no later size computation
    // overflows even for tensors with no elements.
    int64_t expected_count = 1;
    bool has_zero = false;
    for (int64_t d : dims) {
      if (d == 0)
        has_zero = true;
      else if (__builtin_mul_overflow(expected_count, d, &expected_count) ||
               expected_count > std::numeric_limits<int64_t>::max() / 16)
        return expected("a tensor shape with fewer elements than " + shape_text);
    }
    if (has_zero) expected_count = 0;
    GE_RETURN_IF_ERROR(expect_punct("["));
    std::string bytes;
    std::vector<std::string> strings;
    int64_t count = 0;
    while (!at_punct("]")) {
      if (count == expected_count)
        return expected("']' after " + std::to_string(expected_count) + " values of " + shape_text);
      if (count) GE_RETURN_IF_ERROR(expect_punct(","));
      GE_RETURN_IF_ERROR(parse_element(dtype, bytes, strings));
      ++count;
    }
    if (count != expected_count)
      return error_at(tok_.line, tok_.column,
                      "expected " + std::to_string(expected_count) + " values for " + shape_text + " but found " +
                          std::to_string(count));
    GE_RETURN_IF_ERROR(advance());
    Tensor tensor = Tensor::zeros(dtype, std::move(dims));
    if (dtype == DataType::kString) {
      for (size_t i = 0; i < strings.size(); ++i) tensor.data<std::string>()[i] = std::move(strings[i]);
    } else if (!bytes.empty()) {
      std::memcpy(tensor.raw_data(), bytes.data(), bytes.size());
    }
    return tensor;
  }

  // ---- attributes ----
  Result<Attribute::GraphPtr> parse_subgraph(Graph* owner, int depth) {
    GE_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, parse_graph_block(owner, depth + 1));
    return Attribute::GraphPtr(std::move(graph));
  }

  template <typename T, typename F>
  Result<std::vector<T>> parse_list(F&& parse_item) {
    GE_RETURN_IF_ERROR(expect_punct("["));
    std::vector<T> items;
    while (!at_punct("]")) {
      if (!items.empty()) GE_RETURN_IF_ERROR(expect_punct(","));
      GE_ASSIGN_OR_RETURN(T item, parse_item());
      items.push_back(std::move(item));
    }
    GE_RETURN_IF_ERROR(advance());
    return items;
  }

  Result<std::string> parse_string_value() {
    if (tok_.kind != Token::kString) return expected("a string");
    std::string value = tok_.text;
    GE_RETURN_IF_ERROR(advance());
    return value;
  }

  Result<Attribute> parse_attribute_value(AttributeType type, Graph* owner, int depth) {
    switch (type) {
      case AttributeType::kInt: {
        GE_ASSIGN_OR_RETURN(int64_t v, parse_int64_token("an int64 value"));
        return Attribute(v);
      }
      case AttributeType::kFloat: {
        GE_ASSIGN_OR_RETURN(float v, parse_float_token());
        return Attribute(v);
      }
      case AttributeType::kString: {
        GE_ASSIGN_OR_RETURN(std::string v, parse_string_value());
        return Attribute(std::move(v));
      }
      case AttributeType::kTensor: {
        GE_ASSIGN_OR_RETURN(Tensor v, parse_tensor_literal());
        return Attribute(std::move(v));
      }
      case AttributeType::kGraph: {
        GE_ASSIGN_OR_RETURN(Attribute::GraphPtr v, parse_subgraph(owner, depth));
        return Attribute(std::move(v));
      }
      case AttributeType::kInts: {
        GE_ASSIGN_OR_RETURN(auto v, parse_list<int64_t>([&] { return parse_int64_token("an int64 value"); }));
        return Attribute(std::move(v));
      }
      case AttributeType::kFloats: {
        GE_ASSIGN_OR_RETURN(auto v, parse_list<float>([&] { return parse_float_token(); }));
        return Attribute(std::move(v));
      }
      case AttributeType::kStrings: {
        GE_ASSIGN_OR_RETURN(auto v, parse_list<std::string>([&] { return parse_string_value(); }));
        return Attribute(std::move(v));
      }
      case AttributeType::kTensors: {
        GE_ASSIGN_OR_RETURN(auto v, parse_list<Tensor>([&] { return parse_tensor_literal(); }));
        return Attribute(std::move(v));
      }
      case AttributeType::kGraphs: {
        GE_ASSIGN_OR_RETURN(auto v, parse_list<Attribute::GraphPtr>([&] { return parse_subgraph(owner, depth); }));
        return Attribute(std::move(v));
      }
      case AttributeType::kType: {
        GE_ASSIGN_OR_RETURN(TensorDesc v, parse_type());
        return Attribute(std::move(v));
      }
      case AttributeType::kTypes: {
        GE_ASSIGN_OR_RETURN(auto v, parse_list<TensorDesc>([&] { return parse_type(); }));
        return Attribute(std::move(v));
      }
    }
    return expected("an attribute value");
  }

  Lexer lexer_;
  Token tok_;
  std::unordered_map<const Graph*, std::unordered_map<std::string, Value*>> scopes_;
  std::vector<PendingCapture> captures_;
};

}  // namespace

std::string print_graph(const Graph& graph) { return Printer().print(graph); }

std::string print_graph(const Graph& graph, const PrintOptions& options) { return Printer(options).print(graph); }

Result<std::unique_ptr<Graph>> parse_graph(std::string_view text) { return Parser(text).parse(); }

}  // namespace ge
