#include "agent/verifier/launch_geometry.h"

#include <algorithm>
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

namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return b == 0 ? 0 : (a + b - 1) / b; }

constexpr std::uint64_t kGridLimits[3] = {0x7fffffffULL, 65535, 65535};

// Checks a shape the rule produced; `what` names the step for the message.
bool valid(const LaunchGeometry& g, const std::string& what, std::string* error) {
  const std::uint64_t threads = std::uint64_t{g.block[0]} * g.block[1] * g.block[2];
  if (threads == 0 || threads > 1024) {
    if (error)
      *error = what + "block " + to_string(g.block) + " has " + std::to_string(threads) + " threads (1..1024 allowed)";
    return false;
  }
  for (std::size_t d = 0; d < 3; ++d)
    if (g.grid[d] == 0 || g.grid[d] > kGridLimits[d]) {
      if (error)
        *error = what + "recomputed grid dimension " + std::to_string(d) + " is " + std::to_string(g.grid[d]) +
                 " (out of range)";
      return false;
    }
  return true;
}

// The rule in 64 bits; values beyond 32 bits saturate so `valid` reports them.
std::uint32_t clamp32(std::uint64_t v) { return v > 0xffffffffULL ? 0xffffffffU : static_cast<std::uint32_t>(v); }

}  // namespace

namespace {

std::int64_t extent_value(const Extent& e, const ParamValues& params) {
  if (e.param < 0) return e.constant;
  auto it = params.find(e.param);
  return it == params.end() ? 1 : it->second;
}

std::string to_string(const Extent& e) {
  return e.param >= 0 ? "p" + std::to_string(e.param) : std::to_string(e.constant);
}

}  // namespace

LaunchGeometry apply_reshape(const LaunchGeometry& in, const LaunchReshape& r, int sm_count, const ParamValues& params) {
  LaunchGeometry g = in;
  if (r.swap_xy) {
    std::swap(g.grid[0], g.grid[1]);
    std::swap(g.block[0], g.block[1]);
  }
  const Dim3 block = r.block.value_or(g.block);
  if (r.cover) {
    for (std::size_t d = 0; d < 2; ++d) {
      const std::int64_t threads = std::max<std::int64_t>(1, extent_value((*r.cover)[d], params));
      g.grid[d] = clamp32(std::max<std::uint64_t>(1, ceil_div(static_cast<std::uint64_t>(threads), block[d])));
    }
    g.grid[2] = 1;
  } else {
    for (std::size_t d = 0; d < 3; ++d) {
      const Ratio s = r.scale[d];
      const std::uint64_t threads = ceil_div(std::uint64_t{g.grid[d]} * g.block[d] * s.num, s.den);
      g.grid[d] = clamp32(std::max<std::uint64_t>(1, ceil_div(threads, block[d])));
    }
  }
  if (r.persistent_blocks_per_sm > 0 && sm_count > 0)
    g.grid[0] = clamp32(std::min<std::uint64_t>(g.grid[0], std::uint64_t(sm_count) * r.persistent_blocks_per_sm));
  g.block = block;
  return g;
}

std::string to_string(const LaunchReshape& r) {
  std::string s = "block=";
  s += r.block ? std::to_string((*r.block)[0]) + "," + std::to_string((*r.block)[1]) + "," + std::to_string((*r.block)[2])
               : "same";
  s += std::string(" swap-xy=") + (r.swap_xy ? "1" : "0") + " scale=";
  for (std::size_t d = 0; d < 3; ++d)
    s += (d ? "," : "") + std::to_string(r.scale[d].num) + "/" + std::to_string(r.scale[d].den);
  s += " persistent=" + std::to_string(r.persistent_blocks_per_sm);
  if (r.cover) s += " cover=" + to_string((*r.cover)[0]) + "," + to_string((*r.cover)[1]);
  return s;
}

std::optional<LaunchGeometry> candidate_geometry(const LaunchGeometry& captured, const LaunchOverride& o,
                                                 std::string* error) {
  return candidate_geometry(captured, o, 0, error);
}

std::optional<LaunchGeometry> candidate_geometry(const LaunchGeometry& captured, const LaunchOverride& o, int sm_count,
                                                 std::string* error) {
  return candidate_geometry(captured, o, sm_count, ParamValues{}, error);
}

std::optional<LaunchGeometry> candidate_geometry(const LaunchGeometry& captured, const LaunchOverride& o, int sm_count,
                                                 const ParamValues& params, std::string* error) {
  LaunchGeometry g = captured;
  if (o.dynamic_shared_bytes) g.dynamic_shared_bytes = *o.dynamic_shared_bytes;
  if (o.block || o.coarsen != Dim3{1, 1, 1}) {
    if (o.coarsen[0] == 0 || o.coarsen[1] == 0 || o.coarsen[2] == 0) {
      if (error) *error = "coarsen " + to_string(o.coarsen) + " has a zero component";
      return std::nullopt;
    }
    LaunchReshape legacy;
    legacy.block = o.block;
    for (std::size_t d = 0; d < 3; ++d) legacy.scale[d] = {1, o.coarsen[d]};
    g = apply_reshape(g, legacy, sm_count);
    if (!valid(g, "", error)) return std::nullopt;
  }
  for (std::size_t i = 0; i < o.reshapes.size(); ++i) {
    const LaunchReshape& r = o.reshapes[i];
    const std::string what = o.reshapes.size() > 1 ? "launch change " + std::to_string(i + 1) + " (" + to_string(r) + "): " : "";
    for (std::size_t d = 0; d < 3; ++d)
      if (r.scale[d].num == 0 || r.scale[d].den == 0) {
        if (error) *error = what + "thread scale " + to_string(r) + " has a zero term";
        return std::nullopt;
      }
    if (r.persistent_blocks_per_sm > 0 && sm_count <= 0) {
      if (error) *error = what + "a persistent grid needs the GPU's multiprocessor count, which is unknown";
      return std::nullopt;
    }
    if (r.cover)
      for (const Extent& e : *r.cover) {
        if (e.param >= 0 && !params.count(e.param)) {
          if (error) *error = what + "the grid is sized from parameter " + std::to_string(e.param) +
                              ", which is not an integer argument of this launch";
          return std::nullopt;
        }
        if (extent_value(e, params) <= 0) {
          if (error) *error = what + "the grid is sized from " + to_string(e) + " = " +
                              std::to_string(extent_value(e, params)) + " threads";
          return std::nullopt;
        }
      }
    g = apply_reshape(g, r, sm_count, params);
    if (!valid(g, what, error)) return std::nullopt;
  }
  return g;
}

}  // namespace warplens::verifier
