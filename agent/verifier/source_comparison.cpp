#include "agent/verifier/source_comparison.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "agent/verifier/input_generation.h"

namespace warplens::verifier {

namespace {

// Named constants defined outside the body: `constexpr int N = 1024;`,
// `const float kAlpha = 2.5f;`, `static const ...`. name -> value tokens.
std::map<std::string, std::vector<Token>, std::less<>> named_constants(const TokenizedSource& src,
                                                                        std::size_t body_begin, std::size_t body_end) {
  std::map<std::string, std::vector<Token>, std::less<>> out;
  const auto& t = src.tokens;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (i >= body_begin && i <= body_end) continue;
    if (t[i].text != "constexpr" && t[i].text != "const") continue;
    // Find `NAME =` before the next ';' on a simple declaration.
    std::size_t j = i + 1;
    while (j + 1 < t.size() && t[j].text != ";" && t[j].text != "=" && t[j].text != "(" && t[j].text != "{" &&
           t[j].text != ")" && t[j].text != ",")
      ++j;
    if (j + 1 >= t.size() || t[j].text != "=" || t[j - 1].kind != TokenKind::Identifier) continue;
    std::size_t k = j + 1;
    std::vector<Token> value;
    while (k < t.size() && t[k].text != ";" && t[k].text != ",") value.push_back(t[k++]);
    out[t[j - 1].text] = std::move(value);
  }
  return out;
}

struct Expander {
  const TokenizedSource& src;
  const std::map<std::string, std::vector<Token>, std::less<>>& constants;
  std::vector<Token> out;

  void expand(const std::vector<Token>& toks, std::size_t begin, std::size_t end, std::set<std::string>& active,
              int depth) {
    for (std::size_t i = begin; i < end; ++i) {
      const Token& tok = toks[i];
      out.push_back(tok);
      if (tok.kind != TokenKind::Identifier || depth > 8) continue;
      if (i > begin && (toks[i - 1].text == "." || toks[i - 1].text == "->")) continue;
      if (active.count(tok.text)) continue;
      if (const Macro* m = src.find_macro(tok.text)) {
        active.insert(tok.text);
        expand(m->body, 0, m->body.size(), active, depth + 1);
        active.erase(tok.text);
        continue;
      }
      auto c = constants.find(tok.text);
      if (c != constants.end()) {
        active.insert(tok.text);
        expand(c->second, 0, c->second.size(), active, depth + 1);
        active.erase(tok.text);
      }
    }
  }
};

bool is_trivial(const CapturedScalar& s) {
  double v = std::fabs(s.value);
  if (s.is_integer) return v <= 2;
  return v == 0 || v == 1 || v == 0.5 || v == 2;
}

bool same_value(double literal, const CapturedScalar& s) {
  if (s.is_integer) return literal == s.value;
  return std::fabs(literal - s.value) <= 1e-6 * std::fabs(s.value);
}

std::string display_name(const KernelSourceFacts& f, int param) {
  if (param >= 0 && static_cast<std::size_t>(param) < f.param_names.size() && !f.param_names[param].empty())
    return "`" + f.param_names[param] + "`";
  return "parameter " + std::to_string(param);
}

std::string number_text(const CapturedScalar& s) {
  char buf[64];
  if (s.is_integer) std::snprintf(buf, sizeof buf, "%.0f", s.value);
  else std::snprintf(buf, sizeof buf, "%.9g", s.value);
  return buf;
}

}  // namespace

KernelSourceFacts kernel_source_facts(const TokenizedSource& source, const KernelDefinition& kernel) {
  KernelSourceFacts f;
  f.kernel = kernel.name;
  for (const auto& p : kernel.params) f.param_names.push_back(p.name);
  f.param_uses.assign(kernel.params.size(), 0);
  if (!kernel.has_body) return f;
  f.found = true;
  auto constants = named_constants(source, kernel.body_open, kernel.body_close);
  Expander ex{source, constants, {}};
  std::set<std::string> active;
  ex.expand(source.tokens, kernel.body_open + 1, std::min(kernel.body_close, source.tokens.size()), active, 0);

  static const std::set<std::string, std::less<>> device_launch = {"cudaLaunchDevice", "cudaGetParameterBuffer",
                                                                    "cudaStreamFireAndForget", "cudaStreamTailLaunch"};
  static const std::set<std::string, std::less<>> half_words = {
      "half", "__half", "half2", "__half2", "__float2half", "__float2half_rn", "__half2float", "__hmul", "__hadd",
      "__hfma", "__hmul2", "__hadd2", "__hfma2", "__nv_bfloat16", "nv_bfloat16", "__float2bfloat16",
      "__bfloat162float", "__float22half2_rn", "__half22float2"};
  for (std::size_t i = 0; i < ex.out.size(); ++i) {
    const Token& t = ex.out[i];
    if (t.kind == TokenKind::Identifier) {
      bool member = i > 0 && (ex.out[i - 1].text == "." || ex.out[i - 1].text == "->");
      if (!member)
        for (std::size_t p = 0; p < f.param_names.size(); ++p)
          if (!f.param_names[p].empty() && t.text == f.param_names[p]) ++f.param_uses[p];
      if (device_launch.count(t.text)) f.device_side_launch = true;
      if (half_words.count(t.text)) f.half_precision = true;
    } else if (t.kind == TokenKind::Number) {
      bool is_int = true;
      if (auto v = numeric_literal_value(t.text, &is_int)) f.literals.push_back({*v, is_int, t.text, t.line});
    } else if (t.text == "<<<") {
      f.device_side_launch = true;
    }
  }
  return f;
}

std::vector<CapturedScalar> captured_scalars(const capture::LaunchRecord& launch, const KernelSignature& signature) {
  std::vector<CapturedScalar> out;
  if (signature.params.size() != launch.params.size()) return out;
  std::set<int> pointer_params;
  for (const auto& p : launch.pointers) pointer_params.insert(p.param);
  for (std::size_t i = 0; i < launch.params.size(); ++i) {
    const auto& info = signature.params[i];
    if (info.is_pointer || pointer_params.count(static_cast<int>(i))) continue;
    ElementType t = info.element;
    if (t == ElementType::Bytes || t == ElementType::Bool) continue;
    if (static_cast<std::uint64_t>(element_size(t)) != launch.params[i].size) continue;
    if (launch.params[i].offset + launch.params[i].size > launch.param_buffer.size()) continue;
    double v = load_as_double(t, launch.param_buffer.data() + launch.params[i].offset);
    out.push_back({static_cast<int>(i), !is_floating(t), v});
  }
  return out;
}

bool same_scalar_in_every_record(const std::vector<capture::LaunchRecord>& records, const KernelSignature& signature,
                                 std::size_t p, std::size_t q) {
  if (p >= signature.params.size() || q >= signature.params.size()) return false;
  const bool integers = is_integer_type(signature.params[p].element) && is_integer_type(signature.params[q].element);
  for (const auto& r : records) {
    if (p >= r.params.size() || q >= r.params.size()) return false;
    const auto& a = r.params[p];
    const auto& b = r.params[q];
    if (a.offset + a.size > r.param_buffer.size() || b.offset + b.size > r.param_buffer.size()) return false;
    const auto* base = r.param_buffer.data();
    const bool same_bytes = a.size == b.size && std::equal(base + a.offset, base + a.offset + a.size, base + b.offset);
    if (same_bytes) continue;
    if (!integers || a.size != static_cast<std::uint64_t>(element_size(signature.params[p].element)) ||
        b.size != static_cast<std::uint64_t>(element_size(signature.params[q].element)) ||
        read_integer(r.param_buffer, a.offset, signature.params[p].element) !=
            read_integer(r.param_buffer, b.offset, signature.params[q].element))
      return false;
  }
  return !records.empty();
}

std::vector<SourceFinding> compare_kernel_sources(const KernelSourceFacts& original, const KernelSourceFacts& candidate,
                                                  const std::vector<CapturedScalar>& scalars) {
  std::vector<SourceFinding> out;
  if (!original.found || !candidate.found) {
    SourceFinding f;
    f.rule = "not-compared";
    f.message = std::string("source comparison skipped: the ") + (original.found ? "candidate" : "original") +
                " source has no definition of `" + (original.found ? candidate.kernel : original.kernel) + "`";
    out.push_back(f);
    return out;
  }
  const std::size_t n = std::min(original.param_uses.size(), candidate.param_uses.size());
  for (std::size_t p = 0; p < n; ++p) {
    if (original.param_uses[p] > 0 && candidate.param_uses[p] == 0) {
      SourceFinding f;
      f.rule = "ignored-parameter";
      f.demotes = true;
      f.param = static_cast<int>(p);
      f.message = "the candidate never reads " + display_name(candidate, static_cast<int>(p)) + " (parameter " +
                  std::to_string(p) + "), which the original uses " + std::to_string(original.param_uses[p]) +
                  " time(s): it cannot be right for other arguments";
      out.push_back(f);
    }
  }
  for (const auto& s : scalars) {
    if (s.param < 0 || static_cast<std::size_t>(s.param) >= n || is_trivial(s)) continue;
    if (original.param_uses[s.param] == 0) continue;
    int in_original = 0, in_candidate = 0, line = 0;
    for (const auto& l : original.literals)
      if (same_value(l.value, s)) ++in_original;
    for (const auto& l : candidate.literals)
      if (same_value(l.value, s)) {
        ++in_candidate;
        if (!line) line = l.line;
      }
    if (in_candidate > in_original && candidate.param_uses[s.param] < original.param_uses[s.param]) {
      SourceFinding f;
      f.rule = "hard-coded-argument";
      f.demotes = true;
      f.param = s.param;
      f.line = line;
      f.message = "the candidate hard-codes " + number_text(s) + ", the captured value of " +
                  display_name(original, s.param) + " (line " + std::to_string(line) + "), and reads the parameter " +
                  std::to_string(candidate.param_uses[s.param]) + " time(s) where the original reads it " +
                  std::to_string(original.param_uses[s.param]) + ": it would be wrong for other arguments";
      out.push_back(f);
    }
  }
  if (candidate.device_side_launch && !original.device_side_launch) {
    SourceFinding f;
    f.rule = "device-side-launch";
    f.message = "the candidate launches kernels from device code (dynamic parallelism); child grids finish before "
                "their parent and the timer waits for the whole device, so their work is timed";
    out.push_back(f);
  }
  if (candidate.half_precision && !original.half_precision) {
    SourceFinding f;
    f.rule = "half-precision";
    f.message = "the candidate uses half / bfloat16 arithmetic that the original does not; its outputs are held to "
                "the original's tolerance";
    out.push_back(f);
  }
  return out;
}

}  // namespace warplens::verifier
