#include "analysis/register_reuse.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace warplens {

namespace {

// The memory an access addresses, coarsely: stores to it may change it.
std::string memory_of(const BoundAccess& a) {
  if (!a.shared_array.empty()) return "shared:" + a.shared_array;
  const MemoryAccess& m = *a.access;
  if (m.base_param >= 0) return "param:" + std::to_string(m.base_param) + ":" + m.base;
  return "base:" + m.base;
}

bool is_volatile(const BoundAccess& a) {
  const MemoryAccess& m = *a.access;
  if (m.base_param >= 0 && std::size_t(m.base_param) < a.owner->params.size())
    return a.owner->params[std::size_t(m.base_param)].type.find("volatile") != std::string::npos;
  return m.element_type.find("volatile") != std::string::npos;
}

bool same_guards_prefix(const std::vector<BoundGuard>& earlier, const std::vector<BoundGuard>& later) {
  if (earlier.size() > later.size()) return false;
  for (std::size_t i = 0; i < earlier.size(); ++i)
    if (earlier[i].owner != later[i].owner || earlier[i].condition_id != later[i].condition_id ||
        earlier[i].taken != later[i].taken)
      return false;
  return true;
}

bool same_loops(const std::vector<BoundLoop>& a, const std::vector<BoundLoop>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].owner != b[i].owner || a[i].loop_id != b[i].loop_id) return false;
  return true;
}

}  // namespace

std::set<const BoundAccess*> reused_loads(const KernelView& view) {
  std::set<const BoundAccess*> out;
  // Per function and call path: the loads of each address in source order,
  // the stores of each memory, the barriers.
  using Path = std::pair<const Function*, CallChain>;
  std::map<std::tuple<Path, std::string, std::string>, std::vector<const BoundAccess*>> loads;
  std::map<std::pair<Path, std::string>, std::vector<Position>> stores;  // (position, line of the statement)
  std::map<Path, std::vector<Position>> barriers;
  for (const BoundAccess& a : view.accesses) {
    Path path{a.owner, a.via};
    if (a.access->kind != AccessKind::Load) {
      stores[{path, memory_of(a)}].push_back(a.access->range.start);
      continue;
    }
    if (!a.byte_offset || a.indirect || is_volatile(a)) continue;
    loads[{path, memory_of(a), to_string(a.byte_offset)}].push_back(&a);
  }
  for (const BoundBarrier& b : view.barriers) barriers[{b.owner, b.via}].push_back(b.barrier->range.start);

  for (auto& [key, list] : loads) {
    if (list.size() < 2) continue;
    const Path& path = std::get<0>(key);
    std::sort(list.begin(), list.end(),
              [](const BoundAccess* x, const BoundAccess* y) { return x->access->range.start < y->access->range.start; });
    const auto& st = stores[{path, std::get<1>(key)}];
    const auto& bars = barriers[path];
    // A store runs after the loads of its own statement (the right-hand side
    // first): one on the earlier load's line comes after that load, one on
    // the later load's line after this one. Lines stand for statements.
    auto stored_between = [](const std::vector<Position>& ps, Position from, Position to) {
      for (const Position& p : ps)
        if (from.line <= p.line && p.line < to.line) return true;
      return false;
    };
    auto barrier_between = [](const std::vector<Position>& ps, Position from, Position to) {
      for (const Position& p : ps)
        if (from < p && p < to) return true;
      return false;
    };
    for (std::size_t i = 1; i < list.size(); ++i) {
      const BoundAccess& later = *list[i];
      for (std::size_t j = 0; j < i; ++j) {
        const BoundAccess& earlier = *list[j];
        const MemoryAccess& e = *earlier.access;
        const MemoryAccess& l = *later.access;
        if (!(e.range.start < l.range.start) || earlier.space != later.space ||
            e.element_bytes != l.element_bytes || !same_loops(earlier.loops, later.loops) ||
            !same_guards_prefix(earlier.guards, later.guards))
          continue;
        if (stored_between(st, e.range.start, l.range.start) || barrier_between(bars, e.range.start, l.range.start))
          continue;
        out.insert(&later);
        break;
      }
    }
  }
  return out;
}

}  // namespace warplens
