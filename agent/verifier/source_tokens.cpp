#include "agent/verifier/source_tokens.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace warplens::verifier {

const Macro* TokenizedSource::find_macro(std::string_view name) const {
  // Last definition wins, like the preprocessor (ignoring #undef).
  for (auto it = macros.rbegin(); it != macros.rend(); ++it)
    if (it->name == name) return &*it;
  return nullptr;
}

namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

class Lexer {
 public:
  explicit Lexer(std::string_view text) : s_(text) {}

  // Lexes tokens until the end of the current logical line when `line_mode`
  // (preprocessor directives), or to the end of the input.
  void run(TokenizedSource& out) {
    bool at_line_start = true;
    while (i_ < s_.size()) {
      char c = s_[i_];
      if (c == '\n') {
        ++line_;
        ++i_;
        at_line_start = true;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++i_;
        continue;
      }
      if (c == '\\' && i_ + 1 < s_.size() && s_[i_ + 1] == '\n') {  // line splice
        i_ += 2;
        ++line_;
        continue;
      }
      if (c == '/' && peek(1) == '/') {
        line_comment(out);
        continue;
      }
      if (c == '/' && peek(1) == '*') {
        block_comment();
        continue;
      }
      if (c == '#' && at_line_start) {
        directive(out);
        at_line_start = true;
        continue;
      }
      at_line_start = false;
      Token t = next_token();
      out.tokens.push_back(std::move(t));
    }
  }

 private:
  char peek(std::size_t k) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }

  void line_comment(TokenizedSource& out) {
    std::size_t start = i_ + 2;
    while (i_ < s_.size() && s_[i_] != '\n') ++i_;
    std::string_view body = s_.substr(start, i_ - start);
    std::size_t k = body.find_first_not_of(" \t");
    if (k != std::string_view::npos && body.substr(k, 9) == "warplens:") {
      std::string text(body.substr(k + 9));
      std::size_t a = text.find_first_not_of(" \t");
      std::size_t b = text.find_last_not_of(" \t\r");
      out.directives.push_back({line_, a == std::string::npos ? "" : text.substr(a, b - a + 1)});
    }
  }

  void block_comment() {
    i_ += 2;
    while (i_ < s_.size() && !(s_[i_] == '*' && peek(1) == '/')) {
      if (s_[i_] == '\n') ++line_;
      ++i_;
    }
    i_ = std::min(s_.size(), i_ + 2);
  }

  // A preprocessor line. #define bodies are lexed into Macro; #include
  // targets are recorded; everything else is skipped.
  void directive(TokenizedSource& out) {
    int start_line = line_;
    ++i_;  // '#'
    // Collect the logical line (with splices and comments removed).
    std::string logical;
    while (i_ < s_.size() && s_[i_] != '\n') {
      if (s_[i_] == '\\' && peek(1) == '\n') {
        i_ += 2;
        ++line_;
        logical.push_back(' ');
        continue;
      }
      if (s_[i_] == '/' && peek(1) == '*') {
        block_comment();
        logical.push_back(' ');
        continue;
      }
      if (s_[i_] == '/' && peek(1) == '/') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
        break;
      }
      logical.push_back(s_[i_++]);
    }
    Lexer sub(logical);
    sub.line_ = start_line;
    TokenizedSource tmp;
    while (sub.i_ < sub.s_.size()) {
      char c = sub.s_[sub.i_];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++sub.i_;
        continue;
      }
      tmp.tokens.push_back(sub.next_token());
    }
    auto& toks = tmp.tokens;
    if (toks.empty()) return;
    if (toks[0].text == "include" && toks.size() >= 2) {
      std::string target;
      for (std::size_t k = 1; k < toks.size(); ++k) target += toks[k].text;
      out.includes.push_back(target);
      return;
    }
    if (toks[0].text != "define" || toks.size() < 2 || toks[1].kind != TokenKind::Identifier) return;
    Macro m;
    m.name = toks[1].text;
    m.line = start_line;
    std::size_t k = 2;
    // Function-like only when '(' follows the name without whitespace.
    std::size_t name_end = toks[1].offset + m.name.size();
    if (toks.size() > 2 && toks[2].text == "(" && name_end < logical.size() && logical[name_end] == '(') {
      m.function_like = true;
      k = 3;
      while (k < toks.size() && toks[k].text != ")") {
        if (toks[k].kind == TokenKind::Identifier || toks[k].text == "...") m.params.push_back(toks[k].text);
        ++k;
      }
      ++k;
    }
    for (; k < toks.size(); ++k) m.body.push_back(toks[k]);
    out.macros.push_back(std::move(m));
  }

  Token next_token() {
    Token t;
    t.line = line_;
    t.offset = i_;
    char c = s_[i_];
    // Raw string literal R"delim(...)delim" (with optional prefix).
    if ((c == 'R' && peek(1) == '"') || (c == 'u' && peek(1) == '8' && peek(2) == 'R' && peek(3) == '"') ||
        ((c == 'u' || c == 'U' || c == 'L') && peek(1) == 'R' && peek(2) == '"')) {
      std::size_t q = s_.find('"', i_);
      std::size_t paren = s_.find('(', q);
      if (paren != std::string_view::npos) {
        std::string close = ")" + std::string(s_.substr(q + 1, paren - q - 1)) + "\"";
        std::size_t end = s_.find(close, paren);
        end = end == std::string_view::npos ? s_.size() : end + close.size();
        for (std::size_t k = i_; k < end; ++k)
          if (s_[k] == '\n') ++line_;
        t.kind = TokenKind::String;
        t.text = std::string(s_.substr(i_, end - i_));
        i_ = end;
        return t;
      }
    }
    if (ident_start(c)) {
      // String/char prefixes: u8"..", L'..'
      std::size_t j = i_;
      while (j < s_.size() && ident_char(s_[j])) ++j;
      std::string_view word = s_.substr(i_, j - i_);
      if (j < s_.size() && (s_[j] == '"' || s_[j] == '\'') &&
          (word == "u8" || word == "u" || word == "U" || word == "L")) {
        i_ = j;
        Token q = quoted(s_[j]);
        q.text = std::string(word) + q.text;
        q.offset = t.offset;
        return q;
      }
      t.kind = TokenKind::Identifier;
      t.text = std::string(word);
      i_ = j;
      return t;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && std::isdigit(static_cast<unsigned char>(peek(1))))) {
      std::size_t j = i_ + 1;
      while (j < s_.size()) {
        char d = s_[j];
        if (ident_char(d) || d == '.' || d == '\'') {
          ++j;
        } else if ((d == '+' || d == '-') && (s_[j - 1] == 'e' || s_[j - 1] == 'E' || s_[j - 1] == 'p' || s_[j - 1] == 'P')) {
          ++j;
        } else {
          break;
        }
      }
      t.kind = TokenKind::Number;
      t.text = std::string(s_.substr(i_, j - i_));
      i_ = j;
      return t;
    }
    if (c == '"' || c == '\'') return quoted(c);
    static const char* multi[] = {"<<<", ">>>", "<<=", ">>=", "...", "->*", "::", "->", "<<", ">>", "<=", ">=",
                                  "==", "!=", "&&", "||", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=",
                                  "|=", "^=", ".*", "##"};
    for (const char* m : multi) {
      std::size_t n = std::char_traits<char>::length(m);
      if (s_.substr(i_, n) == m) {
        t.kind = TokenKind::Punct;
        t.text = m;
        i_ += n;
        return t;
      }
    }
    t.kind = TokenKind::Punct;
    t.text = std::string(1, c);
    ++i_;
    return t;
  }

  Token quoted(char q) {
    Token t;
    t.line = line_;
    t.offset = i_;
    t.kind = q == '"' ? TokenKind::String : TokenKind::CharLiteral;
    std::size_t j = i_ + 1;
    while (j < s_.size() && s_[j] != q && s_[j] != '\n') {
      if (s_[j] == '\\' && j + 1 < s_.size()) ++j;
      ++j;
    }
    j = std::min(s_.size(), j + 1);
    t.text = std::string(s_.substr(i_, j - i_));
    i_ = j;
    return t;
  }

  std::string_view s_;
  std::size_t i_ = 0;
  int line_ = 1;
};

}  // namespace

TokenizedSource tokenize_source(std::string_view text) {
  TokenizedSource out;
  Lexer(text).run(out);
  return out;
}

std::optional<double> numeric_literal_value(std::string_view s, bool* is_integer) {
  std::string clean;
  for (char c : s)
    if (c != '\'') clean.push_back(c);
  if (clean.empty() || !(std::isdigit(static_cast<unsigned char>(clean[0])) || clean[0] == '.')) return std::nullopt;
  bool hex = clean.size() > 2 && clean[0] == '0' && (clean[1] == 'x' || clean[1] == 'X');
  bool bin = clean.size() > 2 && clean[0] == '0' && (clean[1] == 'b' || clean[1] == 'B');
  bool floating = !hex && !bin &&
                  (clean.find('.') != std::string::npos || clean.find_first_of("eE") != std::string::npos);
  if (hex && clean.find_first_of("pP") != std::string::npos) floating = true;
  if (floating) {
    // Strip f/F/l/L suffixes.
    while (!clean.empty() && (clean.back() == 'f' || clean.back() == 'F' || clean.back() == 'l' || clean.back() == 'L'))
      clean.pop_back();
    char* end = nullptr;
    double v = std::strtod(clean.c_str(), &end);
    if (end == clean.c_str() || *end != '\0') return std::nullopt;
    if (is_integer) *is_integer = false;
    return v;
  }
  while (!clean.empty() && (clean.back() == 'u' || clean.back() == 'U' || clean.back() == 'l' || clean.back() == 'L'))
    clean.pop_back();
  int base = 10;
  std::size_t start = 0;
  if (hex) {
    base = 16;
    start = 2;
  } else if (bin) {
    base = 2;
    start = 2;
  } else if (clean.size() > 1 && clean[0] == '0') {
    base = 8;
  }
  if (start >= clean.size()) return std::nullopt;
  char* end = nullptr;
  unsigned long long v = std::strtoull(clean.c_str() + start, &end, base);
  if (*end != '\0') return std::nullopt;
  if (is_integer) *is_integer = true;
  return static_cast<double>(v);
}

std::size_t matching_close(const std::vector<Token>& tokens, std::size_t open) {
  if (open >= tokens.size()) return tokens.size();
  const std::string& o = tokens[open].text;
  std::string c = o == "(" ? ")" : o == "[" ? "]" : o == "{" ? "}" : o == "<" ? ">" : "";
  if (c.empty()) return tokens.size();
  if (o == "<") {
    int depth = 0;
    for (std::size_t i = open; i < tokens.size(); ++i) {
      const std::string& t = tokens[i].text;
      if (t == "<") ++depth;
      else if (t == ">") --depth;
      else if (t == ">>") depth -= 2;
      else if (t == "(") i = matching_close(tokens, i);
      else if (t == ";" || t == "{" || t == "}") return tokens.size();
      if (depth <= 0) return i;
    }
    return tokens.size();
  }
  int depth = 0;
  for (std::size_t i = open; i < tokens.size(); ++i) {
    const std::string& t = tokens[i].text;
    if (tokens[i].kind != TokenKind::Punct) continue;
    if (t == o) ++depth;
    else if (t == c) {
      if (--depth == 0) return i;
    }
  }
  return tokens.size();
}

}  // namespace warplens::verifier
