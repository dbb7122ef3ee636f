#include "analysis/kernel_symbols.h"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>

namespace warplens {

std::string strip_nvcc_static_prefix(std::string_view s) {
  constexpr std::string_view prefix = "__nv_static_";
  if (s.substr(0, prefix.size()) != prefix) return std::string(s);
  std::size_t i = prefix.size();
  std::size_t n = 0;
  std::size_t digits = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    n = n * 10 + static_cast<std::size_t>(s[i] - '0');
    ++i;
    ++digits;
  }
  if (digits == 0 || s.substr(i, 2) != "__" || i + 2 + n > s.size()) return std::string(s);
  return std::string(s.substr(i + 2 + n));
}

std::string demangle(std::string_view symbol) {
  std::string name = strip_nvcc_static_prefix(symbol);
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || !out) return name;
  return out.get();
}

namespace {

bool opens(char c) { return c == '<' || c == '(' || c == '['; }
bool closes(char c) { return c == '>' || c == ')' || c == ']'; }

// Index of the bracket matching the closing one at `close`, scanning back.
std::size_t matching_open(std::string_view s, std::size_t close) {
  int depth = 0;
  for (std::size_t i = close + 1; i-- > 0;) {
    if (closes(s[i])) ++depth;
    else if (opens(s[i]) && --depth == 0) return i;
  }
  return std::string_view::npos;
}

std::vector<std::string> split_top_level(std::string_view s, char sep) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : s) {
    if (opens(c)) ++depth;
    if (closes(c)) --depth;
    if (c == sep && depth == 0) {
      out.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  out.push_back(cur);
  for (auto& p : out) {
    auto b = p.find_first_not_of(' ');
    auto e = p.find_last_not_of(' ');
    p = b == std::string::npos ? "" : p.substr(b, e - b + 1);
  }
  return out;
}

// Splits "void ns::scale<float, 256>" at its last top-level space: drops the
// return type that the demangler prints for template instantiations.
std::string_view drop_return_type(std::string_view s) {
  int depth = 0;
  std::size_t cut = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (opens(s[i])) ++depth;
    else if (closes(s[i])) --depth;
    else if (s[i] == ' ' && depth == 0) cut = i + 1;
  }
  return s.substr(cut);
}

}  // namespace

DemangledSignature parse_demangled(std::string_view d) {
  DemangledSignature sig;
  std::string_view head = d;
  // Trailing qualifiers of member functions ("... const") are not ours; the
  // parameter list is the last top-level (...) group.
  std::size_t close = d.rfind(')');
  if (close != std::string_view::npos) {
    std::size_t open = matching_open(d, close);
    if (open != std::string_view::npos && open > 0) {
      sig.has_params = true;
      std::string_view inside = d.substr(open + 1, close - open - 1);
      if (!inside.empty() && inside != "void") sig.params = split_top_level(inside, ',');
      head = d.substr(0, open);
    }
  }
  head = drop_return_type(head);
  if (!head.empty() && head.back() == '>') {
    std::size_t lt = matching_open(head, head.size() - 1);
    if (lt != std::string_view::npos) {
      sig.template_args = std::string(head.substr(lt));
      head = head.substr(0, lt);
    }
  }
  sig.qualified_name = std::string(head);
  sig.name = unqualified_name(head);
  return sig;
}

std::string unqualified_name(std::string_view name) {
  // Remove template arguments, then take the last top-level "::" component.
  std::string plain;
  int depth = 0;
  for (char c : name) {
    if (c == '<') ++depth;
    else if (c == '>') --depth;
    else if (depth == 0) plain += c;
  }
  auto pos = plain.rfind("::");
  std::string out = pos == std::string::npos ? plain : plain.substr(pos + 2);
  auto b = out.find_first_not_of(' ');
  auto e = out.find_last_not_of(' ');
  return b == std::string::npos ? "" : out.substr(b, e - b + 1);
}

namespace {

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::vector<std::string> tokenize(std::string_view s) {
  std::vector<std::string> toks;
  for (std::size_t i = 0; i < s.size();) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (is_word_char(c)) {
      std::size_t j = i;
      while (j < s.size() && is_word_char(s[j])) ++j;
      toks.emplace_back(s.substr(i, j - i));
      i = j;
    } else if (c == ':' && i + 1 < s.size() && s[i + 1] == ':') {
      toks.emplace_back("::");
      i += 2;
    } else {
      toks.emplace_back(1, c);
      ++i;
    }
  }
  return toks;
}

bool is_cv(const std::string& t) { return t == "const" || t == "volatile"; }
bool is_word(const std::string& t) { return !t.empty() && is_word_char(t[0]); }

// Builtin spellings to one canonical form; common typedefs to what they are
// on the LP64 platforms nvcc supports.
const std::map<std::string, std::vector<std::string>>& synonyms() {
  static const std::map<std::string, std::vector<std::string>> m = {
      {"size_t", {"unsigned", "long"}},   {"ssize_t", {"long"}},
      {"ptrdiff_t", {"long"}},            {"int8_t", {"signed", "char"}},
      {"uint8_t", {"unsigned", "char"}},  {"int16_t", {"short"}},
      {"uint16_t", {"unsigned", "short"}}, {"int32_t", {"int"}},
      {"uint32_t", {"unsigned", "int"}},  {"int64_t", {"long"}},
      {"uint64_t", {"unsigned", "long"}}, {"uint", {"unsigned", "int"}},
  };
  return m;
}

bool is_builtin_word(const std::string& t) {
  static const char* words[] = {"unsigned", "signed", "int",  "long",   "short", "char",
                                "float",    "double", "bool", "void",   "__int128"};
  return std::any_of(std::begin(words), std::end(words), [&](const char* w) { return t == w; });
}

// `unsigned` -> `unsigned int`, `long int` -> `long`, `signed int` -> `int`.
std::vector<std::string> canonical_builtin(std::vector<std::string> words) {
  bool has_int = std::find(words.begin(), words.end(), "int") != words.end();
  bool has_other = std::any_of(words.begin(), words.end(), [](const std::string& w) {
    return w == "long" || w == "short" || w == "char";
  });
  if (has_int && has_other) words.erase(std::find(words.begin(), words.end(), "int"));
  if (words.size() >= 1 && words[0] == "signed" && (words.size() == 1 || words[1] != "char")) {
    words.erase(words.begin());
    if (words.empty()) words.push_back("int");
  }
  if (words.size() == 1 && words[0] == "unsigned") words.push_back("int");
  return words;
}

std::vector<std::string> canonical_tokens(std::string_view type) {
  std::vector<std::string> in;
  for (auto& t : tokenize(type)) {
    if (t == "__restrict__" || t == "__restrict" || t == "restrict" || t == "struct" ||
        t == "class" || t == "typename" || t == "enum")
      continue;
    auto syn = synonyms().find(t);
    if (syn != synonyms().end()) in.insert(in.end(), syn->second.begin(), syn->second.end());
    else in.push_back(t);
  }
  // Group runs of builtin words, and move a leading cv-qualifier behind the
  // type it qualifies (east const, as the demangler prints).
  std::vector<std::string> out;
  std::vector<std::string> pending_cv;
  for (std::size_t i = 0; i < in.size();) {
    if (is_cv(in[i])) {
      bool leads_type = i + 1 < in.size() && is_word(in[i + 1]) && !is_cv(in[i + 1]);
      if (leads_type) {
        pending_cv.push_back(in[i]);
      } else {
        out.push_back(in[i]);
      }
      ++i;
      continue;
    }
    if (is_builtin_word(in[i])) {
      std::vector<std::string> words;
      while (i < in.size() && (is_builtin_word(in[i]) || is_cv(in[i]))) {
        if (is_cv(in[i])) pending_cv.push_back(in[i]);
        else words.push_back(in[i]);
        ++i;
      }
      for (auto& w : canonical_builtin(words)) out.push_back(w);
    } else if (is_word(in[i])) {
      // A possibly qualified, possibly templated name.
      out.push_back(in[i++]);
      while (i < in.size()) {
        if (in[i] == "::" && i + 1 < in.size()) {
          out.push_back(in[i++]);
          out.push_back(in[i++]);
        } else if (in[i] == "<") {
          int depth = 0;
          do {
            if (in[i] == "<") ++depth;
            if (in[i] == ">") --depth;
            out.push_back(in[i++]);
          } while (i < in.size() && depth > 0);
        } else {
          break;
        }
      }
    } else {
      out.push_back(in[i++]);
      continue;
    }
    for (auto& cv : pending_cv) out.push_back(cv);
    pending_cv.clear();
  }
  for (auto& cv : pending_cv) out.push_back(cv);
  return out;
}

std::string join_tokens(const std::vector<std::string>& toks) {
  std::string s;
  for (std::size_t i = 0; i < toks.size(); ++i) {
    if (i > 0 && is_word(toks[i]) && is_word(toks[i - 1])) s += ' ';
    s += toks[i];
  }
  return s;
}

}  // namespace

std::string normalize_type_spelling(std::string_view type) {
  return join_tokens(canonical_tokens(type));
}

std::string normalize_parameter_type(std::string_view type) {
  auto toks = canonical_tokens(type);
  while (!toks.empty() && is_cv(toks.back())) toks.pop_back();
  return join_tokens(toks);
}

std::string normalize_template_args(std::string_view args) {
  std::vector<std::string> toks = tokenize(args);
  for (auto& t : toks) {
    // 256u, 256ul, 256ll -> 256: the demangler spells literal types this way.
    if (!t.empty() && std::isdigit(static_cast<unsigned char>(t[0]))) {
      while (t.size() > 1 && (t.back() == 'u' || t.back() == 'U' || t.back() == 'l' || t.back() == 'L'))
        t.pop_back();
    }
  }
  // Re-normalize each argument as a type (harmless for values).
  std::string joined;
  for (const auto& t : toks) joined += t + " ";
  std::string_view body = joined;
  auto lt = body.find('<');
  auto gt = body.rfind('>');
  if (lt == std::string_view::npos || gt == std::string_view::npos || gt < lt)
    return normalize_type_spelling(body);
  std::string out = "<";
  auto parts = split_top_level(body.substr(lt + 1, gt - lt - 1), ',');
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += ',';
    out += normalize_type_spelling(parts[i]);
  }
  return out + ">";
}

std::vector<int> match_function_symbols(const Function& fn, const std::vector<std::string>& symbols) {
  std::string want = unqualified_name(fn.name);
  std::vector<int> candidates;
  std::vector<DemangledSignature> sigs(symbols.size());
  for (std::size_t i = 0; i < symbols.size(); ++i) {
    sigs[i] = parse_demangled(symbols[i]);
    if (sigs[i].name == want) candidates.push_back(static_cast<int>(i));
  }
  if (candidates.empty()) return {};
  // A qualified model name must agree with the symbol's qualification.
  if (fn.name.find("::") != std::string::npos) {
    std::string q = fn.name.substr(0, fn.name.find('<'));
    std::erase_if(candidates, [&](int i) {
      const auto& qn = sigs[i].qualified_name;
      return qn.size() < q.size() || qn.compare(qn.size() - q.size(), q.size(), q) != 0;
    });
  }
  if (!fn.template_args.empty()) {
    std::string args = normalize_template_args(fn.template_args);
    std::erase_if(candidates, [&](int i) { return normalize_template_args(sigs[i].template_args) != args; });
  } else if (fn.is_template) {
    std::erase_if(candidates, [&](int i) { return sigs[i].template_args.empty(); });
  } else {
    // A non-template function is never an instantiation.
    std::vector<int> plain = candidates;
    std::erase_if(plain, [&](int i) { return !sigs[i].template_args.empty(); });
    if (!plain.empty()) candidates = plain;
  }
  if (candidates.size() <= 1 || fn.is_template) {
    // Patterns: keep instantiations with the right parameter count.
    if (fn.is_template && !fn.params.empty()) {
      std::vector<int> same_arity = candidates;
      std::erase_if(same_arity, [&](int i) {
        return sigs[i].has_params && sigs[i].params.size() != fn.params.size();
      });
      if (!same_arity.empty()) return same_arity;
    }
    return candidates;
  }
  // Overloads: compare parameter types.
  std::vector<std::string> want_params;
  for (const auto& p : fn.params) want_params.push_back(normalize_parameter_type(p.type));
  std::vector<int> exact;
  for (int i : candidates) {
    if (!sigs[i].has_params || sigs[i].params.size() != want_params.size()) continue;
    bool same = true;
    for (std::size_t k = 0; k < want_params.size() && same; ++k)
      same = normalize_parameter_type(sigs[i].params[k]) == want_params[k];
    if (same) exact.push_back(i);
  }
  if (!exact.empty()) return exact;
  std::vector<int> same_arity;
  for (int i : candidates)
    if (sigs[i].has_params && sigs[i].params.size() == want_params.size()) same_arity.push_back(i);
  if (same_arity.size() == 1) return same_arity;
  return {};  // ambiguous: better no numbers than another overload's
}

}  // namespace warplens
