#include "agent/verifier/kernel_signature.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>

namespace warplens::verifier {

namespace {

const std::set<std::string, std::less<>>& qualifiers() {
  static const std::set<std::string, std::less<>> q = {
      "const", "volatile", "__restrict__", "__restrict", "restrict", "struct", "class", "enum",
      "typename", "register", "__grid_constant__", "__device__", "__constant__", "__shared__"};
  return q;
}

const std::set<std::string, std::less<>>& builtin_type_words() {
  static const std::set<std::string, std::less<>> w = {"void", "bool", "char", "short", "int", "long", "float",
                                                       "double", "signed", "unsigned", "__int128", "wchar_t"};
  return w;
}

// Analyses one parameter's tokens (default argument already removed).
ParamInfo analyse_param(const std::vector<Token>& toks) {
  ParamInfo p;
  for (std::size_t i = 0; i < toks.size(); ++i) {
    bool word = toks[i].kind == TokenKind::Identifier || toks[i].kind == TokenKind::Number;
    bool prev_word = i && (toks[i - 1].kind == TokenKind::Identifier || toks[i - 1].kind == TokenKind::Number);
    if (i && ((word && prev_word) || ((toks[i].text == "*" || toks[i].text == "&") && prev_word))) p.type += ' ';
    p.type += toks[i].text;
  }
  // The name: the last identifier that is not a qualifier or builtin type
  // word, provided something type-like precedes it.
  std::size_t end = toks.size();
  std::size_t array_at = toks.size();
  for (std::size_t i = 0; i < toks.size(); ++i)
    if (toks[i].text == "[") {
      array_at = i;
      break;
    }
  end = array_at;
  std::ptrdiff_t name_at = -1;
  if (end > 0 && toks[end - 1].kind == TokenKind::Identifier && !qualifiers().count(toks[end - 1].text) &&
      !builtin_type_words().count(toks[end - 1].text)) {
    bool type_before = false;
    for (std::size_t i = 0; i + 1 < end; ++i)
      if (!qualifiers().count(toks[i].text) && toks[i].text != "::") type_before = true;
    if (type_before) name_at = static_cast<std::ptrdiff_t>(end - 1);
  }
  if (name_at >= 0) p.name = toks[static_cast<std::size_t>(name_at)].text;
  std::size_t type_end = name_at >= 0 ? static_cast<std::size_t>(name_at) : end;

  std::size_t first_star = type_end;
  for (std::size_t i = 0; i < type_end; ++i)
    if (toks[i].text == "*") {
      first_star = i;
      break;
    }
  p.is_pointer = first_star < type_end || array_at < toks.size();
  // Base type words before the first '*', without qualifiers; for a
  // qualified name keep the last component (cuda::std::int32_t -> int32_t).
  std::vector<std::string> words;
  int angle = 0;
  for (std::size_t i = 0; i < first_star; ++i) {
    const std::string& t = toks[i].text;
    if (t == "<") ++angle;
    if (t == ">") --angle;
    if (t == ">>") angle -= 2;
    if (angle > 0 || t == ">" || t == ">>") {
      if (!words.empty() && t == "<") words.back() += "<...>";
      continue;
    }
    if (t == "const") {
      if (p.is_pointer) p.pointee_const = true;
      continue;
    }
    if (qualifiers().count(t) || t == "&") continue;
    if (t == "::") {
      if (!words.empty()) words.pop_back();
      continue;
    }
    if (t == "(" || t == ")") continue;
    words.push_back(t);
  }
  for (std::size_t i = 0; i < words.size(); ++i) p.base_type += (i ? " " : "") + words[i];
  // "const" after the base type but before '*' is also pointee const
  // (the demangler writes "float const*").
  p.element = element_type_of_c_type(p.base_type);
  if (p.is_pointer) {
    // A pointer to pointers is a table of addresses: never re-drawn.
    int stars = 0;
    for (std::size_t i = 0; i < type_end; ++i)
      if (toks[i].text == "*") ++stars;
    if (stars + (array_at < toks.size() ? 1 : 0) > 1) p.element = ElementType::Bytes;
  }
  return p;
}

// Splits the tokens of a parameter list (exclusive bounds) at top-level commas.
std::vector<std::vector<Token>> split_params(const std::vector<Token>& toks, std::size_t begin, std::size_t end) {
  std::vector<std::vector<Token>> out;
  std::vector<Token> cur;
  int paren = 0, angle = 0, bracket = 0;
  bool in_default = false;
  for (std::size_t i = begin; i < end; ++i) {
    const Token& t = toks[i];
    if (t.kind == TokenKind::Punct) {
      if (t.text == "(") ++paren;
      else if (t.text == ")") --paren;
      else if (t.text == "[") ++bracket;
      else if (t.text == "]") --bracket;
      else if (t.text == "<") ++angle;
      else if (t.text == ">") angle = std::max(0, angle - 1);
      else if (t.text == ">>") angle = std::max(0, angle - 2);
      else if (t.text == "," && paren == 0 && angle == 0 && bracket == 0) {
        out.push_back(std::move(cur));
        cur.clear();
        in_default = false;
        continue;
      } else if (t.text == "=" && paren == 0 && angle == 0 && bracket == 0) {
        in_default = true;
      }
    }
    if (!in_default) cur.push_back(t);
  }
  if (!cur.empty() || !out.empty()) out.push_back(std::move(cur));
  // "(void)" is an empty list.
  if (out.size() == 1 && out[0].size() == 1 && out[0][0].text == "void") out.clear();
  return out;
}

// typedef / using / object-like #define aliases: name -> replacement tokens.
std::map<std::string, std::vector<Token>, std::less<>> collect_aliases(const TokenizedSource& src) {
  std::map<std::string, std::vector<Token>, std::less<>> aliases;
  const auto& t = src.tokens;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i].text == "typedef") {
      std::size_t j = i + 1;
      while (j < t.size() && t[j].text != ";" && t[j].text != "{" && t[j].text != "(") ++j;
      if (j < t.size() && t[j].text == ";" && j >= i + 3 && t[j - 1].kind == TokenKind::Identifier)
        aliases[t[j - 1].text] = std::vector<Token>(t.begin() + static_cast<std::ptrdiff_t>(i + 1),
                                                    t.begin() + static_cast<std::ptrdiff_t>(j - 1));
    } else if (t[i].text == "using" && i + 3 < t.size() && t[i + 1].kind == TokenKind::Identifier &&
               t[i + 2].text == "=") {
      std::size_t j = i + 3;
      while (j < t.size() && t[j].text != ";") ++j;
      aliases[t[i + 1].text] = std::vector<Token>(t.begin() + static_cast<std::ptrdiff_t>(i + 3),
                                                  t.begin() + static_cast<std::ptrdiff_t>(j));
    }
  }
  for (const auto& m : src.macros) {
    if (m.function_like || m.body.empty() || m.body.size() > 4) continue;
    bool type_like = true;
    for (const auto& b : m.body)
      if (b.kind != TokenKind::Identifier && b.text != "*" && b.text != "::") type_like = false;
    if (type_like && (builtin_type_words().count(m.body[0].text) ||
                      element_type_of_c_type(m.body[0].text) != ElementType::Bytes || aliases.count(m.body[0].text)))
      aliases[m.name] = m.body;
  }
  return aliases;
}

std::vector<Token> expand_aliases(const std::vector<Token>& toks,
                                  const std::map<std::string, std::vector<Token>, std::less<>>& aliases, int depth = 0) {
  if (depth > 8) return toks;
  std::vector<Token> out;
  bool changed = false;
  for (std::size_t i = 0; i < toks.size(); ++i) {
    const Token& t = toks[i];
    auto it = t.kind == TokenKind::Identifier ? aliases.find(t.text) : aliases.end();
    // Keep the parameter's own name (the last identifier) untouched.
    bool is_last_identifier = i + 1 == toks.size() && i > 0;
    if (it != aliases.end() && !is_last_identifier) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      changed = true;
    } else {
      out.push_back(t);
    }
  }
  return changed ? expand_aliases(out, aliases, depth + 1) : out;
}

}  // namespace

bool is_mangled_symbol(std::string_view symbol) { return symbol.size() > 2 && symbol.substr(0, 2) == "_Z"; }

std::string demangle_symbol(std::string_view symbol) {
  if (!is_mangled_symbol(symbol)) return std::string(symbol);
  int status = 0;
  std::string s(symbol);
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(s.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : s;
}

namespace {
// Tokenizes a demangled name and locates the name and the parameter list.
struct DemangledParts {
  std::vector<Token> toks;
  std::size_t open = 0, close = 0;  // the parameter list parens
  std::string name, qualified;
  bool ok = false;
};

DemangledParts split_demangled(const std::string& demangled) {
  DemangledParts d;
  d.toks = tokenize_source(demangled).tokens;
  auto& t = d.toks;
  if (t.empty()) return d;
  // The parameter list is the last top-level parenthesised group.
  std::size_t i = t.size();
  while (i > 0 && t[i - 1].text != ")") --i;
  if (i == 0) {
    // No parameter list: a plain (extern "C") name.
    for (auto& tok : t) d.qualified += tok.text;
    d.name = t.back().text;
    return d;
  }
  d.close = i - 1;
  int depth = 0;
  std::size_t k = d.close + 1;
  while (k-- > 0) {
    if (t[k].text == ")") ++depth;
    else if (t[k].text == "(" && --depth == 0) break;
  }
  d.open = k;
  // Walk back from '(' over template arguments to the name.
  std::size_t j = d.open;
  std::size_t name_end = j;
  if (j > 0 && (t[j - 1].text == ">" || t[j - 1].text == ">>")) {
    int a = 0;
    while (j-- > 0) {
      if (t[j].text == ">") ++a;
      else if (t[j].text == ">>") a += 2;
      else if (t[j].text == "<") {
        if (--a == 0) break;
      }
    }
  }
  if (j == 0 || t[j - 1].kind != TokenKind::Identifier) return d;
  d.name = t[j - 1].text;
  std::size_t q = j - 1;
  while (q >= 2 && t[q - 1].text == "::" && t[q - 2].kind == TokenKind::Identifier) q -= 2;
  for (std::size_t m = q; m < name_end; ++m) d.qualified += t[m].text + (t[m].text == "," ? " " : "");
  d.ok = true;
  return d;
}
}  // namespace

std::string kernel_base_name(std::string_view symbol) {
  std::string demangled = demangle_symbol(symbol);
  if (demangled.find('(') == std::string::npos && demangled.find('<') == std::string::npos &&
      demangled.find("::") == std::string::npos)
    return demangled;
  DemangledParts d = split_demangled(demangled);
  return d.name.empty() ? demangled : d.name;
}

std::optional<KernelSignature> signature_from_symbol(std::string_view symbol) {
  if (!is_mangled_symbol(symbol)) return std::nullopt;
  std::string demangled = demangle_symbol(symbol);
  DemangledParts d = split_demangled(demangled);
  if (!d.ok) return std::nullopt;
  KernelSignature sig;
  sig.name = d.name;
  sig.qualified = d.qualified;
  sig.origin = "symbol";
  for (auto& p : split_params(d.toks, d.open + 1, d.close)) sig.params.push_back(analyse_param(p));
  return sig;
}

std::vector<KernelDefinition> find_kernels(const TokenizedSource& source) {
  std::vector<KernelDefinition> out;
  const auto aliases = collect_aliases(source);
  const auto& t = source.tokens;
  for (std::size_t g = 0; g < t.size(); ++g) {
    if (t[g].text != "__global__") continue;
    // `__global__` might be a macro argument or inside an attribute list;
    // walk forward to the declarator: the identifier followed by '(' that is
    // not an attribute.
    KernelDefinition def;
    std::size_t i = g + 1;
    bool found = false;
    for (; i + 1 < t.size(); ++i) {
      const std::string& w = t[i].text;
      if (w == ";" || w == "{" || w == "}") break;
      if (t[i].kind == TokenKind::Identifier && t[i + 1].text == "(") {
        if (w == "__launch_bounds__" || w == "__attribute__" || w == "__declspec" || w == "alignas" ||
            w == "__maxnreg__" || w == "__cluster_dims__") {
          std::size_t close = matching_close(t, i + 1);
          if (w == "__launch_bounds__")
            for (std::size_t k = i; k <= close && k < t.size(); ++k) def.launch_bounds += t[k].text;
          i = close;
          continue;
        }
        found = true;
        break;
      }
    }
    if (!found) continue;
    def.name = t[i].text;
    def.line = t[i].line;
    def.name_token = i;
    def.params_open = i + 1;
    def.params_close = matching_close(t, i + 1);
    if (def.params_close >= t.size()) continue;
    // Template parameters: `template < ... >` right before the declaration.
    std::size_t back = g;
    while (back > 0 && (t[back - 1].kind == TokenKind::Identifier || t[back - 1].text == "\"C\"" ||
                        t[back - 1].kind == TokenKind::String)) {
      if (t[back - 1].text == "template") break;
      --back;
    }
    if (back > 0 && t[back - 1].text == ">") {
      // find the matching "template <"
      int depth = 0;
      std::size_t k = back;
      while (k-- > 0) {
        if (t[k].text == ">") ++depth;
        else if (t[k].text == ">>") depth += 2;
        else if (t[k].text == "<" && --depth == 0) break;
      }
      if (k > 0 && t[k - 1].text == "template") {
        for (auto& tp : split_params(t, k + 1, back - 1))
          if (!tp.empty() && tp.back().kind == TokenKind::Identifier) def.template_params.push_back(tp.back().text);
      }
    }
    std::size_t after = def.params_close + 1;
    while (after < t.size() && t[after].kind == TokenKind::Identifier && t[after].text != "{") ++after;  // e.g. noexcept
    if (after < t.size() && t[after].text == "{") {
      def.has_body = true;
      def.body_open = after;
      def.body_close = matching_close(t, after);
    }
    for (auto& p : split_params(t, def.params_open + 1, def.params_close)) {
      // The name must survive alias expansion: analyse names on the
      // original tokens, types on the expanded ones.
      ParamInfo named = analyse_param(p);
      ParamInfo typed = analyse_param(expand_aliases(p, aliases));
      typed.name = named.name;
      typed.type = named.type;
      bool is_template_type = false;
      for (const auto& tp : def.template_params)
        if (typed.base_type == tp) is_template_type = true;
      if (is_template_type) typed.element = ElementType::Bytes;
      def.params.push_back(std::move(typed));
    }
    g = def.params_close;
    out.push_back(std::move(def));
  }
  return out;
}

const KernelDefinition* find_kernel(const std::vector<KernelDefinition>& kernels, std::string_view name) {
  const KernelDefinition* declaration = nullptr;
  for (const auto& k : kernels) {
    if (k.name != name) continue;
    if (k.has_body) return &k;
    if (!declaration) declaration = &k;
  }
  return declaration;
}

std::optional<KernelSignature> resolve_signature(std::string_view symbol, const KernelDefinition* definition,
                                                 std::string* error) {
  auto from_symbol = signature_from_symbol(symbol);
  if (from_symbol) {
    if (definition) {
      if (definition->params.size() != from_symbol->params.size()) {
        if (error)
          *error = "the source declares " + std::to_string(definition->params.size()) + " parameters for `" +
                   definition->name + "`, the captured symbol has " + std::to_string(from_symbol->params.size());
        return std::nullopt;
      }
      for (std::size_t i = 0; i < definition->params.size(); ++i) {
        from_symbol->params[i].name = definition->params[i].name;
        from_symbol->params[i].type = definition->params[i].type;
      }
    }
    return from_symbol;
  }
  if (!definition) {
    if (error) *error = "no __global__ function `" + std::string(symbol) + "` found in the source";
    return std::nullopt;
  }
  KernelSignature sig;
  sig.name = definition->name;
  sig.qualified = definition->name;
  sig.params = definition->params;
  sig.origin = "source";
  return sig;
}

}  // namespace warplens::verifier
