// The text IR's lexer (graph_text_lexer.h).
#include "graph_text_lexer.h"

#include <cstring>
#include <string>

#include "graph_text_syntax.h"

namespace ge::text_ir {
namespace {

std::string printable_snippet(std::string_view s) {
  constexpr size_t kMax = 32;
  std::string out = quoted(s.substr(0, kMax));
  if (s.size() > kMax) out.insert(out.size() - 1, "...");
  return out;
}

}  // namespace

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

Status Lexer::next(Token* token) {
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

Status Lexer::error_here(const std::string& message) const {
  return error_at(line_, static_cast<int>(pos_ - line_start_) + 1, message);
}

std::string Lexer::describe_char() const {
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
bool Lexer::skip_space_and_comments() {
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
void Lexer::lex_number(Token* token) {
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

Status Lexer::lex_string(Token* token) {
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

}  // namespace ge::text_ir
