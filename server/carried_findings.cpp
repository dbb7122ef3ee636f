#include "server/carried_findings.h"

#include <optional>

namespace warplens::server {

namespace {

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i)
    if (i == text.size() || text[i] == '\n') {
      lines.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  return lines;
}

// Old line -> new line outside the changed block [prefix, old_size - suffix).
struct LineMap {
  int prefix = 0;      // lines equal at the start
  int old_end = 0;     // first old line of the equal tail
  int shift = 0;       // new line = old line + shift in the tail

  std::optional<int> map(int old_line) const {
    if (old_line < prefix) return old_line;
    if (old_line >= old_end) return old_line + shift;
    return std::nullopt;
  }
};

LineMap line_map(std::string_view old_text, std::string_view new_text) {
  auto a = split_lines(old_text), b = split_lines(new_text);
  int n = static_cast<int>(a.size()), m = static_cast<int>(b.size());
  LineMap map;
  while (map.prefix < n && map.prefix < m && a[map.prefix] == b[map.prefix]) ++map.prefix;
  int suffix = 0;
  while (suffix < n - map.prefix && suffix < m - map.prefix && a[n - 1 - suffix] == b[m - 1 - suffix]) ++suffix;
  map.old_end = n - suffix;
  map.shift = m - n;
  return map;
}

std::optional<Range> map_range(const Range& r, const LineMap& map) {
  // Every line the range covers must be unchanged. A range that ends at
  // column 0 of the next line (a whole line) does not cover that line.
  const bool whole_lines = r.end.column == 0 && r.end.line > r.start.line;
  const int last = whole_lines ? r.end.line - 1 : r.end.line;
  for (int line = r.start.line; line <= last; ++line)
    if (!map.map(line)) return std::nullopt;
  int start = *map.map(r.start.line);
  int end = whole_lines ? *map.map(last) + 1 : *map.map(last);
  return Range{{start, r.start.column}, {end, r.end.column}};
}

bool in_file(const Location& l, const std::string& path) { return l.file.empty() || l.file == path; }

}  // namespace

std::vector<Finding> carry_findings(const std::vector<Finding>& findings, const std::string& path,
                                    std::string_view old_text, std::string_view new_text) {
  if (old_text == new_text) return findings;
  const LineMap map = line_map(old_text, new_text);
  std::vector<Finding> out;
  for (const Finding& f : findings) {
    Finding c = f;
    if (in_file(f.location, path) && !(f.location.range == Range{})) {
      auto r = map_range(f.location.range, map);
      if (!r) continue;
      c.location.range = *r;
    }
    c.related.clear();
    for (const auto& rel : f.related) {
      if (!in_file(rel.location, path)) {
        c.related.push_back(rel);
      } else if (auto r = map_range(rel.location.range, map)) {
        c.related.push_back(rel);
        c.related.back().location.range = *r;
      }
    }
    c.fixes.clear();
    for (const Fix& fix : f.fixes) {
      Fix moved = fix;
      bool ok = true;
      if (fix.file.empty() || fix.file == path)
        for (auto& e : moved.edits) {
          auto r = map_range(e.range, map);
          if (!r) ok = false;
          else e.range = *r;
        }
      if (ok) c.fixes.push_back(std::move(moved));
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace warplens::server
