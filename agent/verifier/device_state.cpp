#include "agent/verifier/device_state.h"

#include <algorithm>
#include <set>

namespace warplens::verifier {

namespace {

// The token stream with object-like macros expanded one level (a
// `#define DEVICE __device__` must not hide a global).
std::vector<Token> expanded_tokens(const TokenizedSource& src) {
  std::vector<Token> out;
  out.reserve(src.tokens.size());
  for (const Token& t : src.tokens) {
    const Macro* m = t.kind == TokenKind::Identifier ? src.find_macro(t.text) : nullptr;
    if (!m || m->function_like) {
      out.push_back(t);
      continue;
    }
    for (Token b : m->body) {
      b.line = t.line;
      out.push_back(std::move(b));
    }
  }
  return out;
}

bool is_word(const Token& t, const char* w) { return t.kind == TokenKind::Identifier && t.text == w; }

bool contains_word(const std::vector<Token>& t, std::size_t b, std::size_t e, const char* w) {
  for (std::size_t i = b; i < e && i < t.size(); ++i)
    if (is_word(t[i], w)) return true;
  return false;
}

std::size_t close_of(const std::vector<Token>& t, std::size_t open) {
  std::size_t c = matching_close(t, open);
  return c >= t.size() ? t.size() - 1 : c;
}

class Scanner {
 public:
  explicit Scanner(const std::vector<Token>& t) : t_(t) {}

  DeviceStateFacts run() {
    if (!t_.empty()) scope(0, t_.size(), true);
    return facts_;
  }

 private:
  // A namespace-like scope (file, namespace, extern "C") when `globals`,
  // else a class body (only its member functions matter).
  void scope(std::size_t begin, std::size_t end, bool globals) {
    std::size_t start = begin;
    for (std::size_t i = begin; i < end; ++i) {
      const std::string& w = t_[i].text;
      if (t_[i].kind == TokenKind::Punct && (w == "(" || w == "[")) {
        i = close_of(t_, i);
        continue;
      }
      if (t_[i].kind != TokenKind::Punct) continue;
      if (w == ";") {
        if (globals) declaration(start, i);
        start = i + 1;
      } else if (w == "{") {
        const std::size_t close = close_of(t_, i);
        if (contains_word(t_, start, i, "namespace") || (contains_word(t_, start, i, "extern") && i > start &&
                                                         t_[i - 1].kind == TokenKind::String)) {
          scope(i + 1, close, true);
          start = close + 1;
        } else if (is_function(start, i)) {
          if (contains_word(t_, start, i, "__device__") || contains_word(t_, start, i, "__global__"))
            body(i + 1, close, function_name(start, i));
          start = close + 1;
        } else if (has_top_level(start, i, "=")) {
          // A brace initialiser: the declaration goes on to its ';'.
          i = close;
          continue;
        } else {
          // struct / class / union / enum body: member functions may be
          // device code; what follows the body (`} x;`) is a declaration.
          if (contains_word(t_, start, i, "struct") || contains_word(t_, start, i, "class") ||
              contains_word(t_, start, i, "union"))
            scope(i + 1, close, false);
          i = close;
          start = close + 1;
          continue;
        }
        i = close;
      }
    }
  }

  bool has_top_level(std::size_t b, std::size_t e, const char* punct) const {
    for (std::size_t i = b; i < e; ++i) {
      if (t_[i].text == "(" || t_[i].text == "[") {
        i = close_of(t_, i);
        continue;
      }
      if (t_[i].kind == TokenKind::Punct && t_[i].text == punct) return true;
    }
    return false;
  }

  // `... name ( params ) [qualifiers] {`
  bool is_function(std::size_t b, std::size_t e) const {
    if (has_top_level(b, e, "=")) return false;
    for (std::size_t i = b; i < e; ++i) {
      if (t_[i].text != "(") continue;
      if (i > b && t_[i - 1].kind == TokenKind::Identifier && !is_word(t_[i - 1], "__launch_bounds__") &&
          !is_word(t_[i - 1], "__attribute__") && !is_word(t_[i - 1], "alignas") &&
          !is_word(t_[i - 1], "__align__"))
        return true;
      i = close_of(t_, i);
    }
    return false;
  }

  std::string function_name(std::size_t b, std::size_t e) const {
    std::string name;
    for (std::size_t i = b; i < e; ++i) {
      if (t_[i].text != "(") continue;
      if (i > b && t_[i - 1].kind == TokenKind::Identifier && !is_word(t_[i - 1], "__launch_bounds__") &&
          !is_word(t_[i - 1], "__attribute__"))
        return t_[i - 1].text;
      i = close_of(t_, i);
    }
    return name;
  }

  // A declaration at namespace scope: a writable device variable?
  void declaration(std::size_t b, std::size_t e) {
    if (b >= e) return;
    const bool device = contains_word(t_, b, e, "__device__") || contains_word(t_, b, e, "__managed__");
    if (!device || contains_word(t_, b, e, "__constant__") || contains_word(t_, b, e, "__shared__") ||
        contains_word(t_, b, e, "typedef") || contains_word(t_, b, e, "using"))
      return;
    // Declarators separated by top-level commas; each ends at its first
    // '=', '[', ',' or the end. '(' before any of them: a function.
    std::size_t i = b;
    bool first = true;
    while (i < e) {
      std::size_t name = e;
      bool is_const = false;
      std::size_t k = i;
      for (; k < e; ++k) {
        const Token& tk = t_[k];
        if (is_word(tk, "const") || is_word(tk, "constexpr")) is_const = true;
        if (tk.text == "(") {
          const bool attribute = k > b && (is_word(t_[k - 1], "__align__") || is_word(t_[k - 1], "alignas") ||
                                           is_word(t_[k - 1], "__attribute__") || is_word(t_[k - 1], "__declspec"));
          if (first && !attribute) return;  // a function declaration
          k = close_of(t_, k);
          continue;
        }
        if (tk.text == "{" && tk.kind == TokenKind::Punct) {
          k = close_of(t_, k);
          continue;
        }
        if (tk.kind == TokenKind::Punct && (tk.text == "=" || tk.text == "[" || tk.text == ",")) break;
        if (tk.kind == TokenKind::Identifier) name = k;
      }
      // A `const` after the last '*' makes the pointer read-only; before any
      // '*' the object. Either way nothing the kernel may write.
      if (name < e && !is_const) facts_.writable_globals.push_back({t_[name].text, "", t_[name].line});
      // Skip the initialiser to the next top-level comma.
      for (; k < e && t_[k].text != ","; ++k)
        if (t_[k].text == "(" || t_[k].text == "[" || t_[k].text == "{") k = close_of(t_, k);
      i = k + 1;
      first = false;
    }
  }

  void body(std::size_t b, std::size_t e, const std::string& fn) {
    static const std::set<std::string, std::less<>> alloc_calls = {
        "malloc", "calloc", "realloc", "cudaMalloc", "cudaMallocAsync", "__nv_aligned_device_malloc"};
    for (std::size_t i = b; i < e; ++i) {
      const Token& tk = t_[i];
      if (tk.kind != TokenKind::Identifier) continue;
      if (tk.text == "new" || (alloc_calls.count(tk.text) && i + 1 < e && t_[i + 1].text == "(" &&
                               !(i > b && (t_[i - 1].text == "." || t_[i - 1].text == "->")))) {
        facts_.device_allocations.push_back({tk.text, fn, tk.line});
        continue;
      }
      if (tk.text != "static") continue;
      // The declaration up to its name.
      bool skip = false;
      std::size_t name = e;
      std::size_t k = i + 1;
      for (; k < e; ++k) {
        const Token& d = t_[k];
        if (is_word(d, "__shared__") || is_word(d, "const") || is_word(d, "constexpr")) skip = true;
        if (d.kind == TokenKind::Punct && (d.text == "=" || d.text == ";" || d.text == "[" || d.text == "(" ||
                                           d.text == "{" || d.text == ","))
          break;
        if (d.kind == TokenKind::Identifier) name = k;
      }
      if (!skip && name < e) facts_.static_locals.push_back({t_[name].text, fn, t_[name].line});
      i = k;
    }
  }

  const std::vector<Token>& t_;
  DeviceStateFacts facts_;
};

std::string list(const std::vector<DeviceStateItem>& items, bool with_function) {
  std::string s;
  for (std::size_t i = 0; i < items.size() && i < 4; ++i) {
    if (i) s += ", ";
    s += "`" + items[i].name + "`";
    if (with_function && !items[i].function.empty()) s += " in " + items[i].function;
    s += " (line " + std::to_string(items[i].line) + ")";
  }
  if (items.size() > 4) s += " and " + std::to_string(items.size() - 4) + " more";
  return s;
}

}  // namespace

DeviceStateFacts device_state_facts(const TokenizedSource& source) {
  const std::vector<Token> tokens = expanded_tokens(source);
  return Scanner(tokens).run();
}

std::vector<SourceFinding> compare_device_state(const DeviceStateFacts& original, const DeviceStateFacts& candidate) {
  std::vector<SourceFinding> out;
  auto finding = [&](const std::string& what, const std::vector<DeviceStateItem>& items, bool with_function) {
    SourceFinding f;
    f.rule = "device-state";
    f.needs_review = true;
    f.line = items.front().line;
    f.message = "the candidate keeps state on the device that the original does not: " + what + " " +
                list(items, with_function) +
                "; it could carry results from one run to the next, so it is not offered without review";
    out.push_back(std::move(f));
  };
  std::set<std::string> original_globals;
  for (const auto& g : original.writable_globals) original_globals.insert(g.name);
  std::vector<DeviceStateItem> new_globals;
  for (const auto& g : candidate.writable_globals)
    if (!original_globals.count(g.name)) new_globals.push_back(g);
  if (!new_globals.empty()) finding("writable __device__ variable(s)", new_globals, false);

  std::set<std::string> original_statics;
  for (const auto& s : original.static_locals) original_statics.insert(s.function + "::" + s.name);
  std::vector<DeviceStateItem> new_statics;
  for (const auto& s : candidate.static_locals)
    if (!original_statics.count(s.function + "::" + s.name)) new_statics.push_back(s);
  if (!new_statics.empty()) finding("static local(s) in device code", new_statics, true);

  if (candidate.device_allocations.size() > original.device_allocations.size())
    finding("device-side allocation", candidate.device_allocations, true);
  return out;
}

}  // namespace warplens::verifier
