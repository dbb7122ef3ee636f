#include "corpus_labels.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace warplens::corpus {

namespace {

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

std::optional<Severity> severity_named(const std::string& s) {
  if (s == "error") return Severity::Error;
  if (s == "warning") return Severity::Warning;
  if (s == "info") return Severity::Information;
  if (s == "hint") return Severity::Hint;
  return std::nullopt;
}

bool is_access_code(const std::string& code) {
  return code == codes::kUncoalescedGlobal || code == codes::kSharedBankConflict || code == codes::kIndirectAccess;
}

// Splits "a(b, c)@d e f(g)" into labels, respecting parentheses.
std::vector<std::string> split_labels(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : s) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (std::isspace(static_cast<unsigned char>(c)) && depth == 0) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::string key_text(const std::string& file, int line, const std::string& code, const std::string& kind) {
  std::string base = file.substr(file.find_last_of('/') + 1);
  std::string s = base + ":" + std::to_string(line) + " " + code;
  if (!kind.empty()) s += "(" + kind + ")";
  return s;
}

}  // namespace

const std::vector<std::string>& labelled_codes() {
  static const std::vector<std::string> codes_list = {codes::kUncoalescedGlobal, codes::kSharedBankConflict,
                                                      codes::kIndirectAccess, codes::kDivergentBarrier,
                                                      codes::kWarpDivergence, codes::kFusableIntermediate};
  return codes_list;
}

std::vector<Label> parse_labels(const std::string& file, const std::string& text, std::vector<std::string>& errors) {
  std::vector<Label> out;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  const std::string marker = "// expect:";
  while (std::getline(in, line)) {
    ++number;
    auto pos = line.find(marker);
    if (pos == std::string::npos) continue;
    for (const std::string& item : split_labels(trim(line.substr(pos + marker.size())))) {
      Label l;
      l.file = file;
      l.line = number;
      std::string body = item;
      auto at = body.rfind('@');
      if (at != std::string::npos && body.find(')', at) == std::string::npos) {
        l.severity = severity_named(body.substr(at + 1));
        if (!l.severity) errors.push_back(key_text(file, number, body, "") + ": unknown severity");
        body = body.substr(0, at);
      }
      auto open = body.find('(');
      l.code = body.substr(0, open);
      if (std::find(labelled_codes().begin(), labelled_codes().end(), l.code) == labelled_codes().end()) {
        errors.push_back(key_text(file, number, l.code, "") + ": unknown code");
        continue;
      }
      if (open != std::string::npos) {
        auto close = body.rfind(')');
        if (close == std::string::npos || close < open) {
          errors.push_back(key_text(file, number, body, "") + ": unbalanced parentheses");
          continue;
        }
        std::stringstream args(body.substr(open + 1, close - open - 1));
        std::string arg;
        while (std::getline(args, arg, ',')) {
          arg = trim(arg);
          if (arg == "load" || arg == "store" || arg == "atomic") {
            l.kind = arg;
          } else if (arg.size() > 4 && arg.compare(arg.size() - 4, 4, "-way") == 0) {
            l.degree = std::stoi(arg.substr(0, arg.size() - 4));
          } else if (!arg.empty() && arg.back() == 'x') {
            l.ratio = std::stod(arg.substr(0, arg.size() - 1));
          } else {
            errors.push_back(key_text(file, number, l.code, "") + ": unknown argument `" + arg + "`");
          }
        }
      }
      // fusable-intermediate: the severity is the verdict (proven or not),
      // so it is matched like an access kind, not reported as a detail.
      if (l.code == codes::kFusableIntermediate) {
        if (!l.severity) errors.push_back(key_text(file, number, l.code, "") + ": fusable-intermediate needs @warning or @info");
        else l.kind = to_string(*l.severity);
      }
      if (is_access_code(l.code) && l.kind.empty())
        errors.push_back(key_text(file, number, l.code, "") + ": access codes need load/store/atomic");
      out.push_back(l);
    }
  }
  return out;
}

std::vector<Observed> observed_findings(const std::string& file, const std::vector<Finding>& findings) {
  // Labels speak of lines: several findings with one (line, code, kind), e.g.
  // two uncoalesced loads on one line, are one observation (the first).
  std::vector<Observed> out;
  for (const auto& f : findings) {
    if (std::find(labelled_codes().begin(), labelled_codes().end(), f.code) == labelled_codes().end()) continue;
    Observed o;
    o.file = file;
    o.line = f.location.range.start.line + 1;
    o.code = f.code;
    if (const EvidenceValue* v = f.data.get("access"))
      if (auto s = std::get_if<std::string>(v)) o.kind = *s;
    if (f.code == codes::kFusableIntermediate) o.kind = to_string(f.severity);
    o.finding = &f;
    bool seen = false;
    for (const auto& p : out) seen |= p.line == o.line && p.code == o.code && p.kind == o.kind;
    if (!seen) out.push_back(o);
  }
  return out;
}

void compare(const std::vector<Label>& expected, const std::vector<Observed>& observed, Comparison& out) {
  for (const auto& code : labelled_codes()) out.by_code[code];
  std::vector<bool> used(observed.size(), false);
  for (const auto& l : expected) {
    Confusion& c = out.by_code[l.code];
    std::optional<std::size_t> match;
    for (std::size_t i = 0; i < observed.size() && !match; ++i) {
      const Observed& o = observed[i];
      if (used[i] || o.file != l.file || o.line != l.line || o.code != l.code) continue;
      if (!l.kind.empty() && o.kind != l.kind) continue;
      match = i;
    }
    if (!match) {
      ++c.fn;
      out.false_negatives.push_back(key_text(l.file, l.line, l.code, l.kind));
      continue;
    }
    used[*match] = true;
    ++c.tp;
    const Finding& f = *observed[*match].finding;
    std::string where = key_text(l.file, l.line, l.code, l.kind);
    if (l.severity && *l.severity != f.severity)
      out.detail_mismatches.push_back(where + ": severity " + to_string(f.severity) + ", expected " +
                                      to_string(*l.severity));
    if (l.degree)
      if (const EvidenceValue* v = f.data.get("degree"))
        if (auto d = std::get_if<std::int64_t>(v); d && *d != *l.degree)
          out.detail_mismatches.push_back(where + ": " + std::to_string(*d) + "-way, expected " +
                                          std::to_string(*l.degree) + "-way");
    if (l.ratio)
      if (const EvidenceValue* v = f.data.get("ratio"))
        if (auto r = std::get_if<double>(v); r && std::fabs(*r - *l.ratio) > 0.05 * *l.ratio) {
          std::ostringstream os;
          os << where << ": ratio " << *r << ", expected " << *l.ratio;
          out.detail_mismatches.push_back(os.str());
        }
  }
  for (std::size_t i = 0; i < observed.size(); ++i) {
    if (used[i]) continue;
    const Observed& o = observed[i];
    ++out.by_code[o.code].fp;
    out.false_positives.push_back(key_text(o.file, o.line, o.code, o.kind) + ": " + o.finding->message);
  }
}

}  // namespace warplens::corpus
