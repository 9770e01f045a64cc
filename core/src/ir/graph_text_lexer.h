#pragma once
/// The text IR's lexer: splits text into tokens (identifiers, `%` value names, strings,
/// numbers, punctuation), each with its line and column. Private to the core.

#include <string>
#include <string_view>

#include "ge/status.h"

namespace ge::text_ir {

struct Token {
  enum Kind { kEnd, kIdent, kValue, kString, kNumber, kPunct };
  Kind kind = kEnd;
  std::string text;  // identifier, value name or string contents (unescaped), number, punctuation
  int line = 1;
  int column = 1;
  bool newline_before = false;  // a line break separates this token from the previous one
};

/// How a message names a token: `'graph'`, `value "x"`, `end of input`.
std::string describe_token(const Token& t);

/// A parse error at a position of the text: "line L, column C: message".
Status error_at(int line, int column, const std::string& message);

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  /// The next token into `token`; kEnd at the end of the text. `//` comments are skipped.
  Status next(Token* token);

 private:
  Status error_here(const std::string& message) const;
  std::string describe_char() const;
  bool skip_space_and_comments();
  void lex_number(Token* token);
  Status lex_string(Token* token);

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;
};

}  // namespace ge::text_ir
