#include "agent/unified_diff.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "agent/text_diff.h"

namespace warplens::agent {

namespace {

// One changed region in line numbers (0-based, half-open) of both texts.
struct Change {
  int a_begin, a_end, b_begin, b_end;
};

// minimal_edits' whole-line edits, in order, mapped to line ranges of
// `after` as well (each edit shifts the lines after it by its size change).
std::vector<Change> changes_between(std::string_view before, std::string_view after) {
  std::vector<TextEdit> edits = minimal_edits(before, after);
  std::sort(edits.begin(), edits.end(),
            [](const TextEdit& x, const TextEdit& y) { return x.range.start.line < y.range.start.line; });
  std::vector<Change> out;
  int shift = 0;
  for (const auto& e : edits) {
    Change c;
    c.a_begin = e.range.start.line;
    // minimal_edits ends a replaced unterminated last line at its last column.
    c.a_end = e.range.end.column > 0 ? e.range.end.line + 1 : e.range.end.line;
    const int added = static_cast<int>(lines_of(e.new_text).size());
    c.b_begin = c.a_begin + shift;
    c.b_end = c.b_begin + added;
    shift += added - (c.a_end - c.a_begin);
    out.push_back(c);
  }
  return out;
}

void put_line(std::string& o, char mark, std::string_view line) {
  o += mark;
  o += line;
  if (line.empty() || line.back() != '\n') o += "\n\\ No newline at end of file\n";
}

// diff -u's range: "start,count", where an empty range names the line before it.
std::string range_text(int begin, int count) {
  const int start = count == 0 ? begin : begin + 1;
  return count == 1 ? std::to_string(start) : std::to_string(start) + "," + std::to_string(count);
}

}  // namespace

std::string unified_diff(std::string_view before, std::string_view after, std::string_view path, int context) {
  if (before == after) return {};
  context = std::max(context, 0);
  const auto a = lines_of(before), b = lines_of(after);
  const auto changes = changes_between(before, after);
  std::string o;
  o += "--- a/";
  o += path;
  o += "\n+++ b/";
  o += path;
  o += "\n";
  std::size_t k = 0;
  while (k < changes.size()) {
    // Merge changes whose context would touch or overlap.
    std::size_t last = k;
    while (last + 1 < changes.size() && changes[last + 1].a_begin - changes[last].a_end <= 2 * context) ++last;
    const int a_start = std::max(0, changes[k].a_begin - context);
    const int a_stop = std::min(static_cast<int>(a.size()), changes[last].a_end + context);
    const int b_start = a_start + (changes[k].b_begin - changes[k].a_begin);
    const int b_stop = a_stop + (changes[last].b_end - changes[last].a_end);
    o += "@@ -" + range_text(a_start, a_stop - a_start) + " +" + range_text(b_start, b_stop - b_start) + " @@\n";
    int ai = a_start;
    for (std::size_t c = k; c <= last; ++c) {
      for (; ai < changes[c].a_begin; ++ai) put_line(o, ' ', a[static_cast<std::size_t>(ai)]);
      for (int i = changes[c].a_begin; i < changes[c].a_end; ++i) put_line(o, '-', a[static_cast<std::size_t>(i)]);
      for (int j = changes[c].b_begin; j < changes[c].b_end; ++j) put_line(o, '+', b[static_cast<std::size_t>(j)]);
      ai = changes[c].a_end;
    }
    for (; ai < a_stop; ++ai) put_line(o, ' ', a[static_cast<std::size_t>(ai)]);
    k = last + 1;
  }
  return o;
}

std::string patch_base(std::string_view file, std::string_view fallback) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path f = fs::path(file);
  if (!f.is_absolute()) f = fs::absolute(f, ec);
  for (fs::path d = f.lexically_normal().parent_path(); !d.empty(); d = d.parent_path()) {
    if (fs::exists(d / ".git", ec)) return d.string();  // a directory, or a worktree's .git file
    if (d == d.root_path()) break;
  }
  return std::string(fallback);
}

std::string patch_path(std::string_view file, std::string_view base) {
  namespace fs = std::filesystem;
  const fs::path f = fs::path(file).lexically_normal();
  if (!base.empty() && f.is_absolute()) {
    const fs::path rel = f.lexically_relative(fs::path(base).lexically_normal());
    if (!rel.empty() && *rel.begin() != "..") return rel.generic_string();
  } else if (!f.is_absolute() && !f.empty() && *f.begin() != "..") {
    return f.generic_string();
  }
  return f.filename().generic_string();
}

}  // namespace warplens::agent
