#include "analysis/launch_bounds_fix.h"

#include <algorithm>
#include <vector>

namespace warplens {

namespace {

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\n");
  auto e = s.find_last_not_of(" \t\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// "__launch_bounds__(BLOCK, 2)" -> name "__launch_bounds__", args {"BLOCK", "2"}.
bool split_attribute(const std::string& spelling, std::string& name, std::vector<std::string>& args) {
  auto open = spelling.find('(');
  auto close = spelling.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  name = trim(spelling.substr(0, open));
  int depth = 0;
  std::string cur;
  for (std::size_t i = open + 1; i < close; ++i) {
    char c = spelling[i];
    if (c == '(' || c == '<' || c == '[') ++depth;
    if (c == ')' || c == '>' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      args.push_back(trim(cur));
      cur.clear();
      continue;
    }
    cur += c;
  }
  args.push_back(trim(cur));
  return !name.empty();
}

}  // namespace

std::string launch_bounds_spelling(const std::optional<LaunchBounds>& existing, int max_threads, int min_blocks) {
  std::string name = "__launch_bounds__";
  std::string first = std::to_string(max_threads);
  std::string third;
  std::vector<std::string> args;
  if (existing && split_attribute(existing->spelling, name, args)) {
    if (existing->max_threads && *existing->max_threads == max_threads && !args.empty() && !args[0].empty())
      first = args[0];
    if (args.size() >= 3) third = args[2];
  }
  std::string s = name + "(" + first;
  if (min_blocks > 0 || !third.empty()) s += ", " + std::to_string(std::max(min_blocks, 1));
  if (!third.empty()) s += ", " + third;
  return s + ")";
}

std::optional<Fix> launch_bounds_fix(const Function& kernel, const std::string& file, int max_threads,
                                     int min_blocks) {
  Fix fix;
  fix.file = file;
  std::string text = launch_bounds_spelling(kernel.launch_bounds, max_threads, min_blocks);
  if (kernel.launch_bounds) {
    const LaunchBounds& lb = *kernel.launch_bounds;
    if (lb.range.empty()) return std::nullopt;
    if (lb.max_threads == max_threads && lb.min_blocks.value_or(0) == min_blocks) return std::nullopt;
    fix.title = "Change to `" + text + "`";
    fix.edits.push_back({lb.range, text});
    return fix;
  }
  // declaration_start is an empty range; an all-zero one is only meaningful
  // when the definition really starts the file.
  const Range& at = kernel.declaration_start;
  if (!at.empty()) return std::nullopt;
  if (at == Range{} && !(kernel.range.start == Position{})) return std::nullopt;
  if (!kernel.name_range.empty() && kernel.name_range.start < at.start) return std::nullopt;
  fix.title = "Add `" + text + "`";
  fix.edits.push_back({at, text + " "});
  return fix;
}

}  // namespace warplens
