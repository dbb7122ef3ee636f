#include "agent/verifier/launch_geometry.h"

#include <cctype>
#include <cstdlib>

namespace warplens::verifier {

std::string to_string(const Dim3& d) {
  return "(" + std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]) + ")";
}

namespace {

std::string trim(const std::string& s) {
  std::size_t a = s.find_first_not_of(" \t");
  std::size_t b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// "(256,1,1)", "(256, 2)", "256" -> Dim3 with missing components = 1.
std::optional<Dim3> parse_dim3(const std::string& text) {
  std::string s = trim(text);
  if (!s.empty() && s.front() == '(') {
    if (s.back() != ')') return std::nullopt;
    s = s.substr(1, s.size() - 2);
  }
  Dim3 d{1, 1, 1};
  std::size_t start = 0;
  for (int i = 0; i < 3; ++i) {
    std::size_t comma = s.find(',', start);
    std::string part = trim(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (part.empty()) return std::nullopt;
    for (char c : part)
      if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    unsigned long v = std::strtoul(part.c_str(), nullptr, 10);
    if (v == 0 || v > 0x7fffffffUL) return std::nullopt;
    d[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(v);
    if (comma == std::string::npos) return d;
    start = comma + 1;
  }
  return std::nullopt;  // more than three components
}

}  // namespace

DirectiveParse parse_launch_directives(const std::vector<Directive>& directives) {
  DirectiveParse out;
  for (const auto& d : directives) {
    // Split "key=value key2=(a,b)" on spaces outside parentheses.
    std::vector<std::string> items;
    std::string cur;
    int depth = 0;
    for (char c : d.text) {
      if (c == '(') ++depth;
      if (c == ')') --depth;
      if ((c == ' ' || c == '\t') && depth == 0) {
        if (!cur.empty()) items.push_back(cur);
        cur.clear();
      } else {
        cur.push_back(c);
      }
    }
    if (!cur.empty()) items.push_back(cur);
    for (const auto& item : items) {
      std::size_t eq = item.find('=');
      std::string where = "line " + std::to_string(d.line) + ": ";
      if (eq == std::string::npos) {
        out.errors.push_back(where + "expected key=value in '" + item + "'");
        continue;
      }
      std::string key = trim(item.substr(0, eq)), value = trim(item.substr(eq + 1));
      if (key == "block" || key == "coarsen") {
        auto v = parse_dim3(value);
        if (!v) {
          out.errors.push_back(where + key + " must be (x[,y[,z]]) with positive integers, got '" + value + "'");
          continue;
        }
        if (key == "block") out.value.block = *v;
        else out.value.coarsen = *v;
      } else if (key == "dynamic_smem") {
        char* end = nullptr;
        unsigned long v = std::strtoul(value.c_str(), &end, 10);
        if (value.empty() || *end != '\0' || v > 0xffffffffUL) {
          out.errors.push_back(where + "dynamic_smem must be a byte count, got '" + value + "'");
          continue;
        }
        out.value.dynamic_shared_bytes = static_cast<std::uint32_t>(v);
      } else {
        out.errors.push_back(where + "unknown key '" + key + "' (known: block, coarsen, dynamic_smem)");
      }
    }
  }
  return out;
}

std::optional<LaunchGeometry> candidate_geometry(const LaunchGeometry& captured, const LaunchOverride& o,
                                                 std::string* error) {
  LaunchGeometry g = captured;
  if (o.dynamic_shared_bytes) g.dynamic_shared_bytes = *o.dynamic_shared_bytes;
  if (!o.block && o.coarsen == Dim3{1, 1, 1}) return g;
  Dim3 block = o.block.value_or(captured.block);
  std::uint64_t threads = std::uint64_t{block[0]} * block[1] * block[2];
  if (threads == 0 || threads > 1024) {
    if (error) *error = "block " + to_string(block) + " has " + std::to_string(threads) + " threads (1..1024 allowed)";
    return std::nullopt;
  }
  const std::uint64_t limits[3] = {0x7fffffffULL, 65535, 65535};
  for (std::size_t d = 0; d < 3; ++d) {
    std::uint64_t covered = std::uint64_t{captured.grid[d]} * captured.block[d];
    std::uint64_t per_block = std::uint64_t{block[d]} * o.coarsen[d];
    std::uint64_t grid = (covered + per_block - 1) / per_block;
    if (grid == 0 || grid > limits[d]) {
      if (error) *error = "recomputed grid dimension " + std::to_string(d) + " is " + std::to_string(grid) + " (out of range)";
      return std::nullopt;
    }
    g.grid[d] = static_cast<std::uint32_t>(grid);
  }
  g.block = block;
  return g;
}

}  // namespace warplens::verifier
