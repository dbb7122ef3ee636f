// A small C/CUDA tokenizer: enough to find a kernel's declaration, its body,
// the macros and named constants it uses, and `// warplens:` directives,
// without Clang (the GPU machine has none). Comments and string contents
// never produce identifier tokens, so a parameter name in a comment does not
// count as a use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warplens::verifier {

enum class TokenKind : std::uint8_t { Identifier, Number, String, CharLiteral, Punct };

struct Token {
  TokenKind kind = TokenKind::Punct;
  std::string text;
  int line = 0;            // 1-based
  std::size_t offset = 0;  // byte offset in the source
};

struct Macro {
  std::string name;
  bool function_like = false;
  std::vector<std::string> params;
  std::vector<Token> body;
  int line = 0;
};

// `// warplens: block=(256,1,1)` comments: the text after "warplens:".
struct Directive {
  int line = 0;
  std::string text;
};

struct TokenizedSource {
  std::vector<Token> tokens;        // code outside preprocessor lines
  std::vector<Macro> macros;        // #define, in order
  std::vector<Directive> directives;
  std::vector<std::string> includes;  // #include targets as written

  const Macro* find_macro(std::string_view name) const;
};

TokenizedSource tokenize_source(std::string_view text);

// Value of a numeric literal token ("1024", "0x400", "2.5f", "1e-3",
// "1'000u"); nullopt when it is not a number. `is_integer` tells which.
std::optional<double> numeric_literal_value(std::string_view spelling, bool* is_integer = nullptr);

// Index of the token that closes the bracket opened at `open` ((, [, {, <),
// or tokens.size() when unbalanced. Angle brackets count `>>` as two.
std::size_t matching_close(const std::vector<Token>& tokens, std::size_t open);

}  // namespace warplens::verifier
