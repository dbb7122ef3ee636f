#include "agent/text_diff.h"

#include <algorithm>

namespace warplens::agent {

namespace {

// Byte offset of (line, column) in `text`; npos when outside.
std::size_t offset_of(std::string_view text, Position p) {
  std::size_t off = 0;
  for (int line = 0; line < p.line; ++line) {
    std::size_t nl = text.find('\n', off);
    if (nl == std::string_view::npos) return std::string_view::npos;
    off = nl + 1;
  }
  std::size_t end = text.find('\n', off);
  if (end == std::string_view::npos) end = text.size();
  if (off + static_cast<std::size_t>(p.column) > end + (end < text.size() ? 1 : 0)) return std::string_view::npos;
  return off + static_cast<std::size_t>(p.column);
}

}  // namespace

std::vector<std::string_view> lines_of(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i] == '\n') {
      out.push_back(s.substr(start, i + 1 - start));
      start = i + 1;
    }
  if (start < s.size()) out.push_back(s.substr(start));
  return out;
}

std::vector<TextEdit> minimal_edits(std::string_view before, std::string_view after) {
  const auto a = lines_of(before), b = lines_of(after);
  std::size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
  std::size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
         a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
    ++suffix;
  const std::size_t n = a.size() - prefix - suffix, m = b.size() - prefix - suffix;
  // LCS table over the middle part; files are small enough (candidate edits
  // touch a kernel and a few launch lines) for the quadratic table.
  std::vector<std::vector<std::uint32_t>> lcs(n + 1, std::vector<std::uint32_t>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      lcs[i][j] = a[prefix + i] == b[prefix + j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::vector<TextEdit> edits;
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[prefix + i] == b[prefix + j]) {
      ++i;
      ++j;
      continue;
    }
    // A hunk: lines of `a` removed and lines of `b` inserted until the next match.
    const std::size_t i0 = i, j0 = j;
    while (i < n || j < m) {
      if (i < n && j < m && a[prefix + i] == b[prefix + j]) break;
      if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) ++j;
      else ++i;
    }
    TextEdit e;
    e.range.start = {static_cast<int>(prefix + i0), 0};
    e.range.end = {static_cast<int>(prefix + i), 0};
    for (std::size_t k = j0; k < j; ++k) e.new_text += b[prefix + k];
    // A last line without '\n' ends at its last column, not on the next line.
    if (prefix + i == a.size() && i > i0 && !a.back().empty() && a.back().back() != '\n') {
      e.range.end = {static_cast<int>(prefix + i - 1), static_cast<int>(a.back().size())};
    }
    edits.push_back(std::move(e));
  }
  return edits;
}

bool apply_edits(std::string& text, const std::vector<TextEdit>& edits) {
  struct Span {
    std::size_t start, end;
    const std::string* replacement;
  };
  std::vector<Span> spans;
  for (const auto& e : edits) {
    const std::size_t s = offset_of(text, e.range.start), t = offset_of(text, e.range.end);
    if (s == std::string::npos || t == std::string::npos || t < s) return false;
    spans.push_back({s, t, &e.new_text});
  }
  std::sort(spans.begin(), spans.end(), [](const Span& x, const Span& y) { return x.start < y.start; });
  for (std::size_t k = 1; k < spans.size(); ++k)
    if (spans[k].start < spans[k - 1].end) return false;
  for (auto it = spans.rbegin(); it != spans.rend(); ++it) text.replace(it->start, it->end - it->start, *it->replacement);
  return true;
}

std::uint64_t text_hash(std::string_view text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace warplens::agent
