#include "agent/verifier/reassociation.h"

#include <cmath>
#include <limits>

namespace warplens::verifier {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::optional<std::int64_t> parse_count(std::string_view s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  std::int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v > 0 ? std::optional<std::int64_t>(v) : std::nullopt;
}

// "p3*p2*4" -> extents; "inputs" -> empty.
std::optional<std::vector<Extent>> parse_terms(std::string_view s, std::string* error) {
  std::vector<Extent> out;
  if (s == "inputs") return out;
  while (true) {
    const std::size_t star = s.find('*');
    std::string_view f = trim(s.substr(0, star));
    Extent e;
    if (!f.empty() && f.front() == 'p') {
      auto index = parse_count(f.substr(1));
      if (!index && f.substr(1) != "0") {
        *error = "terms: '" + std::string(f) + "' is not a parameter index (p0, p1, ...)";
        return std::nullopt;
      }
      e.param = static_cast<int>(index.value_or(0));
    } else if (auto v = parse_count(f)) {
      e.constant = *v;
    } else {
      *error = "terms: '" + std::string(f) + "' is neither pN nor a positive integer (or the whole value 'inputs')";
      return std::nullopt;
    }
    out.push_back(e);
    if (star == std::string_view::npos) break;
    s.remove_prefix(star + 1);
  }
  return out;
}

}  // namespace

std::string describe(const Reassociation& r) {
  if (r.terms.empty()) return "inputs";
  std::string s;
  for (const Extent& e : r.terms)
    s += (s.empty() ? "" : "*") + (e.param >= 0 ? "p" + std::to_string(e.param) : std::to_string(e.constant));
  return s;
}

std::optional<Reassociation> parse_reassociation(std::string_view terms, std::string* error) {
  std::string why;
  auto parsed = parse_terms(trim(terms), &why);
  if (!parsed) {
    if (error) *error = why;
    return std::nullopt;
  }
  return Reassociation{*parsed};
}

double unit_roundoff(ElementType t) {
  switch (t) {
    case ElementType::F32: return std::ldexp(1.0, -24);
    case ElementType::F16: return std::ldexp(1.0, -11);
    case ElementType::BF16: return std::ldexp(1.0, -8);
    case ElementType::F64: return std::ldexp(1.0, -53);
    default: return 0;
  }
}

std::uint64_t reassociated_terms(const Reassociation& r, const ParamValues& params, std::uint64_t input_elements) {
  if (r.terms.empty()) return input_elements;
  long double n = 1;
  for (const Extent& e : r.terms) {
    std::int64_t v = e.constant;
    if (e.param >= 0) {
      auto it = params.find(e.param);
      if (it == params.end() || it->second <= 0) return input_elements;
      v = it->second;
    }
    n *= static_cast<long double>(v);
  }
  if (n >= static_cast<long double>(input_elements)) return input_elements;
  return static_cast<std::uint64_t>(n);
}

double reassociation_atol(ElementType t, std::uint64_t terms, double scale) {
  if (terms <= 1 || !std::isfinite(scale)) return 0;
  return kReassociationLambda * std::sqrt(static_cast<double>(terms)) * unit_roundoff(t) * scale;
}

}  // namespace warplens::verifier
