// Annotated snippets for the static analyses: the front end's parse_snippet
// (front end only) plus the static analyses' findings, and a check that the
// findings of a code sit exactly on the ranges marked in the snippet.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/static_analyses.h"
#include "tests/unit/analysis/frontend_snippets.h"

namespace warplens::testing {

inline Snippet analyzed(std::string_view annotated, Toolchain toolchain = Toolchain::Cuda) {
  Snippet s = parse_snippet(annotated, toolchain);
  for (auto& f : run_static_analyses(s.result.model, AnalysisOptions{})) s.result.findings.push_back(std::move(f));
  return s;
}

inline std::string access_of(const Finding& f) {
  if (const EvidenceValue* v = f.data.get("access"))
    if (auto s = std::get_if<std::string>(v)) return *s;
  return {};
}

// The findings of `code` (and access kind, when given) are exactly at the
// ranges named `name` (none when the snippet has no such range).
inline void check_ranges(const Snippet& s, const char* code, const std::string& name, const std::string& kind = {}) {
  std::vector<Range> got;
  for (const Finding* f : s.findings(code))
    if (kind.empty() || access_of(*f) == kind) got.push_back(f->location.range);
  std::vector<Range> want = s.source.has_range(name) ? s.source.ranges(name) : std::vector<Range>{};
  auto order = [](const Range& a, const Range& b) { return a.start < b.start; };
  std::sort(got.begin(), got.end(), order);
  std::sort(want.begin(), want.end(), order);
  INFO(code, " ", kind, "\n", s.dump());
  CHECK(got == want);
}

}  // namespace warplens::testing
