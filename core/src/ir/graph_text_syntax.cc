// The text IR's spelling (graph_text_syntax.h): quoting, bare names, dtype and attribute
// type words.
#include "graph_text_syntax.h"

#include <optional>
#include <string>

namespace ge::text_ir {
namespace {

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

}  // namespace

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

bool is_statement_keyword(std::string_view s) {
  return s == "input" || s == "init" || s == "capture" || s == "output" || s == "_";
}

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

void append_hex(std::string& out, uint64_t bits, int digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += "0x";
  for (int i = digits - 1; i >= 0; --i) out += kHex[(bits >> (4 * i)) & 15];
}

std::string dtype_text(DataType type) {
  if (type == DataType::kUndefined) return "undefined";
  if (!is_valid_data_type(static_cast<int32_t>(type)))
    return "invalid_dtype_" + std::to_string(static_cast<int32_t>(type));
  return std::string(data_type_name(type));
}

std::optional<DataType> dtype_from_text(std::string_view s) {
  if (s == "undefined") return DataType::kUndefined;
  return data_type_from_name(s);
}

void append_shape(std::string& out, const std::vector<int64_t>& shape) {
  out += '[';
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ',';
    append_number(out, shape[i]);
  }
  out += ']';
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

}  // namespace ge::text_ir
