#include "agent/verifier/shape_variation.h"

#include <algorithm>
#include <map>

namespace warplens::verifier {

std::int64_t odd_at_most(std::int64_t x) {
  if (x < 1) return 1;
  return x % 2 ? x : x - 1;
}

std::int64_t residue_at_most(std::int64_t x, std::int64_t r, std::int64_t m) {
  const std::int64_t t = x - (((x - r) % m) + m) % m;
  return t >= 1 ? t : odd_at_most(x);
}

namespace {

struct SizeArg {
  ScalarSlot slot;
  std::string name;
  std::int64_t value = 0;
};

// A grid dimension computed from a size: grid = ceil(size / divisor).
struct Link {
  std::size_t arg = 0;
  std::int64_t divisor = 1;
};

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

std::vector<Link> links_of(const std::vector<SizeArg>& args, std::uint32_t grid, std::uint32_t block) {
  std::vector<Link> out;
  if (grid <= 1) return out;
  for (std::size_t a = 0; a < args.size(); ++a) {
    const std::int64_t v = args[a].value;
    if (v == static_cast<std::int64_t>(grid)) {
      out.push_back({a, 1});
      continue;
    }
    for (std::int64_t k = 1; k <= 64; ++k) {
      const std::int64_t q = static_cast<std::int64_t>(block) * k;
      if (ceil_div(v, q) == static_cast<std::int64_t>(grid)) {
        out.push_back({a, q});
        break;
      }
    }
  }
  return out;
}

}  // namespace

ShapePlan plan_shape_variations(const capture::LaunchRecord& launch, const LaunchLayout& layout) {
  ShapePlan plan;
  std::vector<SizeArg> args;
  for (std::size_t i = 0; i < layout.scalars.size(); ++i) {
    const ScalarSlot& s = layout.scalars[i];
    if (!is_integer_type(s.type)) continue;
    const std::int64_t v = read_integer(launch.param_buffer, s.offset, s.type);
    if (v < kMinSizeArgument || v > (std::int64_t{1} << 40)) continue;
    args.push_back({s, i < layout.scalar_names.size() ? layout.scalar_names[i] : "param " + std::to_string(s.param), v});
  }
  if (args.empty()) {
    plan.note = "no integer scalar argument of at least " + std::to_string(kMinSizeArgument) +
                ": shapes beyond the captured ones were not tried";
    return plan;
  }
  std::vector<Link> links[3];
  for (int d = 0; d < 3; ++d) links[d] = links_of(args, launch.grid[d], launch.block[d]);

  auto make = [&](const std::vector<std::int64_t>& values) {
    ShapeVariation v;
    std::string desc;
    for (std::size_t a = 0; a < args.size(); ++a) {
      v.scalars.push_back({args[a].slot.param, args[a].slot.offset, args[a].slot.type, values[a]});
      desc += (desc.empty() ? "" : ", ") + args[a].name + " " + std::to_string(args[a].value) + " -> " +
              std::to_string(values[a]);
    }
    v.geometry = LaunchGeometry{launch.grid, launch.block, launch.dynamic_shared_bytes};
    for (int d = 0; d < 3; ++d) {
      if (links[d].empty()) continue;
      std::int64_t g = 1;
      for (const Link& l : links[d]) g = std::max(g, ceil_div(values[l.arg], l.divisor));
      v.geometry.grid[static_cast<std::size_t>(d)] =
          static_cast<std::uint32_t>(std::min<std::int64_t>(g, launch.grid[static_cast<std::size_t>(d)]));
    }
    if (v.geometry.grid != launch.grid)
      desc += "; grid " + to_string(launch.grid) + " -> " + to_string(v.geometry.grid);
    v.description = desc;
    return v;
  };

  std::vector<std::int64_t> v1, v2;
  for (const auto& a : args) {
    v1.push_back(odd_at_most(a.value * 3 / 4));
    v2.push_back(residue_at_most(a.value / 2, 17, 32));
  }
  plan.variations.push_back(make(v1));
  plan.variations.push_back(make(v2));

  // Equal sizes (a square matrix): shrink each by its own factor.
  std::map<std::int64_t, int> seen;
  bool equal = false;
  std::vector<std::int64_t> v3;
  for (const auto& a : args) {
    const int j = seen[a.value]++;
    if (j > 0) equal = true;
    const double factor = std::max(0.3, 0.9 - 0.2 * j);
    v3.push_back(odd_at_most(static_cast<std::int64_t>(static_cast<double>(a.value) * factor)));
  }
  if (equal && v3 != v1 && v3 != v2) plan.variations.push_back(make(v3));

  std::string unlinked;
  for (int d = 0; d < 3; ++d)
    if (launch.grid[static_cast<std::size_t>(d)] > 1 && links[d].empty())
      unlinked += std::string(unlinked.empty() ? "" : ", ") + "xyz"[d];
  if (!unlinked.empty())
    plan.note = "grid dimension(s) " + unlinked + " derive from no size argument and stay as captured in the shape "
                "variations";
  return plan;
}

}  // namespace warplens::verifier
