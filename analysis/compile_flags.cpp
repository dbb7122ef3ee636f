#include "analysis/compile_flags.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace warplens {

namespace {

// `dir` is `root` or below it, compared lexically (both normalised, absolute).
bool is_within(const fs::path& dir, const fs::path& root) {
  auto d = dir.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++d) {
    if (r->empty()) continue;  // a trailing separator
    if (d == dir.end() || *d != *r) return false;
  }
  return true;
}

fs::path normalised_dir(const std::string& p) {
  fs::path n = fs::path(p).lexically_normal();
  // "/w/proj/" normalises to "/w/proj/" (an empty last element): drop it.
  if (!n.empty() && n.filename().empty() && n != n.root_path()) n = n.parent_path();
  return n;
}

}  // namespace

std::string find_compile_flags(const std::string& file, const std::vector<std::string>& roots) {
  fs::path dir = fs::path(file).lexically_normal().parent_path();
  // The innermost workspace folder holding the file bounds the search: a
  // compile_flags.txt above the workspace belongs to something else.
  fs::path stop;
  for (const auto& r : roots) {
    if (r.empty()) continue;
    fs::path root = normalised_dir(r);
    if (is_within(dir, root) && std::distance(root.begin(), root.end()) > std::distance(stop.begin(), stop.end()))
      stop = root;
  }
  for (int depth = 0; depth < 64 && !dir.empty(); ++depth) {
    fs::path candidate = dir / "compile_flags.txt";
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
    if (!stop.empty() && dir == stop) break;
    if (dir == dir.root_path() || dir.parent_path() == dir) break;
    dir = dir.parent_path();
  }
  return "";
}

std::vector<std::string> parse_compile_flags(const std::string& text) {
  std::vector<std::string> flags;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    const char* space = " \t\r\f\v";
    std::size_t first = line.find_first_not_of(space);
    if (first == std::string::npos) continue;
    std::size_t last = line.find_last_not_of(space);
    line = line.substr(first, last - first + 1);
    if (line[0] == '#') continue;
    flags.push_back(std::move(line));
  }
  return flags;
}

}  // namespace warplens
