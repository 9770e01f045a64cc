#pragma once
/// The text IR's spelling, shared by its printer, lexer and parser (graph_text_*.cc):
/// which characters make names and numbers, how strings are quoted, and the words for
/// dtypes and attribute types. Private to the core; the format is described in
/// ge/graph_text.h.

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ge/attribute.h"
#include "ge/data_type.h"

namespace ge::text_ir {

/// The NaN that prints as `nan`; any other NaN prints as its raw bits.
inline constexpr uint32_t kCanonicalNan32 = 0x7fc00000u;
inline constexpr uint64_t kCanonicalNan64 = 0x7ff8000000000000ull;

inline bool is_ident_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c) || c == '.'; }
inline bool is_value_name_char(char c) { return is_ident_char(c) || c == '-'; }
inline bool is_hex_digit(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/// Whether a graph, attribute, op, domain or dim name prints without quotes.
bool is_bare_ident(std::string_view s);
/// Whether a value name prints after `%` without quotes.
bool is_bare_value_name(std::string_view s);

/// Words that start statements (or stand for an omitted value) there; an op type or domain
/// spelled like one is quoted so that a node with no outputs stays unambiguous.
bool is_statement_keyword(std::string_view s);

/// A double-quoted string literal. Control characters and bytes that are not well-formed
/// UTF-8 are escaped as \xHH, so the text is always valid UTF-8 and any byte string
/// round-trips.
void append_quoted(std::string& out, std::string_view s);
std::string quoted(std::string_view s);

/// `0x` and `digits` lower-case hex digits of `bits`.
void append_hex(std::string& out, uint64_t bits, int digits);

template <typename T>
void append_number(std::string& out, T value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out.append(buffer, result.ptr);
}

/// `float32`, `undefined`, or `invalid_dtype_N` for a value outside DataType.
std::string dtype_text(DataType type);
std::optional<DataType> dtype_from_text(std::string_view s);

/// `[d0,d1,...]`.
void append_shape(std::string& out, const std::vector<int64_t>& shape);

/// `int`, `floats`, `graph`, ...: an attribute's type as the text IR spells it.
const char* attribute_type_text(AttributeType type);
std::optional<AttributeType> attribute_type_from_text(std::string_view s);

}  // namespace ge::text_ir
