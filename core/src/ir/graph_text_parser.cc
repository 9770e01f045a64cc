// The text IR's parser: parse_graph (ge/graph_text.h).
#include "ge/graph_text.h"

#include <bit>
#include <charconv>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ge/minifloat.h"
#include "graph_text_lexer.h"
#include "graph_text_syntax.h"

namespace ge::text_ir {
namespace {

// Deeper nesting than this is rejected so that hostile input cannot exhaust the stack.
constexpr int kMaxGraphNesting = 64;

// "an int8", "a float32": for messages.
std::string with_article(const std::string& word) {
  // "a uint8" is read "a you-int"; every other leading vowel takes "an".
  bool vowel = !word.empty() && std::strchr("aeiou", word[0]) != nullptr && word.rfind("uint", 0) != 0;
  return (vowel ? "an " : "a ") + word;
}

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
}  // namespace ge::text_ir

namespace ge {

Result<std::unique_ptr<Graph>> parse_graph(std::string_view text) { return text_ir::Parser(text).parse(); }

}  // namespace ge
