#include "analysis/access_merging.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

namespace warplens {

namespace {

// Iterations of a walked loop at which a run must stay adjacent and aligned.
constexpr std::size_t kMergeIterations = 8;

bool same_guards(const BoundAccess& a, const BoundAccess& b) {
  if (a.guards.size() != b.guards.size()) return false;
  for (std::size_t i = 0; i < a.guards.size(); ++i)
    if (a.guards[i].owner != b.guards[i].owner || a.guards[i].condition_id != b.guards[i].condition_id ||
        a.guards[i].taken != b.guards[i].taken)
      return false;
  return true;
}

bool same_loops(const BoundAccess& a, const BoundAccess& b) {
  if (a.loops.size() != b.loops.size()) return false;
  for (std::size_t i = 0; i < a.loops.size(); ++i)
    if (a.loops[i].owner != b.loops[i].owner || a.loops[i].loop_id != b.loops[i].loop_id) return false;
  return true;
}

// What makes two accesses "the same base" for merging: one function, one
// call chain, one memory space and array.
using BaseKey = std::tuple<const Function*, CallChain, MemorySpace, std::string>;
BaseKey base_of(const BoundAccess& a) {
  return {a.owner, a.via, a.space, a.space == MemorySpace::Shared ? a.shared_array : a.access->base};
}

bool compatible(const BoundAccess& a, const BoundAccess& b) {
  const MemoryAccess& x = *a.access;
  const MemoryAccess& y = *b.access;
  return x.kind == y.kind && (x.kind == AccessKind::Load || x.kind == AccessKind::Store) &&
         x.element_bytes == y.element_bytes && (x.element_bytes == 4 || x.element_bytes == 8) &&
         (x.element_align == 0 || x.element_align == x.element_bytes) &&
         (y.element_align == 0 || y.element_align == y.element_bytes) && !a.indirect && !b.indirect && a.byte_offset &&
         b.byte_offset && same_guards(a, b) && same_loops(a, b);
}

// Global memory: nvcc knows a `float*` only 4-byte aligned, so it merges
// `in[2*i]` and `in[2*i + 1]` into nothing wider; it merges the components
// of one element of a CUDA vector type (`p[k].x`, `p[k].y` of a float2),
// whose alignment is its size. So a global run must be fields of one
// element (the same index) of a pointer to such a type.
bool vector_type(const std::string& t) {
  static const char* const names[] = {"char",     "uchar",     "short", "ushort", "int",
                                      "uint",     "long",      "ulong", "float",  "double",
                                      "longlong", "ulonglong", "half",  "__half", "__nv_bfloat16"};
  std::string u = t;
  if (u.rfind("const ", 0) == 0) u = u.substr(6);
  if (u.empty() || (u.back() != '2' && u.back() != '4')) return false;
  u.pop_back();
  for (const char* n : names)
    if (u == n) return true;
  return false;
}

bool global_run_allowed(const std::vector<const BoundAccess*>& run) {
  const BoundAccess& a = *run.front();
  if (a.space != MemorySpace::Global) return true;
  const MemoryAccess& m = *a.access;
  if (!m.index || m.base_param < 0 || std::size_t(m.base_param) >= a.owner->params.size()) return false;
  // A pointer to the vector type, or a reference to one (`const uint4& v`
  // bound to `img[i]`, read as v.x, v.y, v.z, v.w).
  const Parameter& p = a.owner->params[std::size_t(m.base_param)];
  std::string element = p.pointee_type;
  if (p.is_reference) {
    element = p.type;
    while (!element.empty() && (element.back() == '&' || element.back() == ' ')) element.pop_back();
  }
  if (!vector_type(element)) return false;
  const std::string index = to_string(m.index);
  for (const BoundAccess* b : run)
    if (!b->access->index || to_string(b->access->index) != index || b->access->base_param != m.base_param)
      return false;
  return true;
}

// The evaluation points the offsets must agree at: the first warp of each
// context under every assumption and variation.
struct Point {
  WarpLanes warp;
  EvalContext ctx;
};
std::vector<Point> points(const KernelContexts& contexts) {
  std::vector<Point> out;
  for (const LaunchContext& c : contexts.contexts)
    for (Assumption as : {Assumption::LargeA, Assumption::LargeB, Assumption::Small})
      for (int v = 0; v < kVariations; ++v) {
        EvalContext ec{c.shape, as, &c.known_params};
        ec.variation = v;
        out.push_back({warp_lanes(c.shape, 0), ec});
      }
  return out;
}

// Is `run` (offsets each one element further, the first aligned to the
// whole width) true at every point, for every active lane?
// In a loop that walks a variable by factors (`stride <<= 1`), at several
// of its iterations too: `base[lPos]` and `base[lPos + stride]` are adjacent
// only while stride is 1.
bool mergeable(const std::vector<const BoundAccess*>& run, const std::vector<Point>& at) {
  const std::int64_t bytes = run.front()->access->element_bytes;
  const std::int64_t width = bytes * std::int64_t(run.size());
  std::vector<std::string> names;
  for (const BoundAccess* a : run)
    for (const std::string& n : iteration_symbols(a->byte_offset))
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  // Every combination of the first kMergeIterations of each walked loop
  // (nested walks such as a bitonic sort's size and stride are independent).
  std::vector<std::map<std::string, std::int64_t>> iterations(1);
  for (const std::string& n : names) {
    std::vector<std::map<std::string, std::int64_t>> next;
    for (const auto& partial : iterations)
      for (std::int64_t k = 0; k < std::int64_t(kMergeIterations); ++k) {
        auto m = partial;
        m[n] = k;
        next.push_back(std::move(m));
      }
    iterations = std::move(next);
  }
  bool any = false;
  for (const Point& p0 : at)
    for (const auto& it : iterations) {
      Point p = p0;
      p.ctx.iterations = &it;
      // Active lanes from the access model; offsets under this point's own
      // assumption (AccessLanes keeps the LargeA offsets only).
      std::vector<LaneValues> offsets;
      LaneMask active = 0;
      for (const BoundAccess* a : run) {
        AccessLanes l = evaluate_access(a->byte_offset, lane_guards(a->guards), p.warp, p.ctx);
        if (a == run.front()) active = l.active;
        if (!l.modelled || l.active != active) return false;
        offsets.push_back(evaluate_lanes(a->byte_offset, p.warp, p.ctx));
        if ((offsets.back().known & active) != active) return false;
      }
      if (active == 0) continue;
      for (int lane = 0; lane < kWarpSize; ++lane) {
        if (!lane_in(active, lane)) continue;
        const std::int64_t first = offsets.front().value[lane];
        if (((first % width) + width) % width != 0) return false;
        for (std::size_t k = 1; k < offsets.size(); ++k)
          if (offsets[k].value[lane] != first + std::int64_t(k) * bytes) return false;
      }
      any = true;
    }
  return any;
}

}  // namespace

MergedAccesses merged_accesses(const KernelView& view, const KernelContexts& contexts) {
  MergedAccesses out;
  if (contexts.contexts.empty()) return out;
  // Each base's accesses in the function's order.
  std::map<BaseKey, std::vector<const BoundAccess*>> by_base;
  for (const BoundAccess& a : view.accesses)
    if (a.space == MemorySpace::Global || a.space == MemorySpace::Shared) by_base[base_of(a)].push_back(&a);
  const std::vector<Point> at = points(contexts);
  for (const auto& [key, list] : by_base) {
    std::size_t i = 0;
    while (i < list.size()) {
      std::size_t taken = 1;
      // Widest first: four 4-byte accesses as one 16-byte access, then pairs
      // (at most 16 bytes: the widest memory instruction).
      for (std::size_t n : {std::size_t(4), std::size_t(2)}) {
        if (i + n > list.size() || std::int64_t(n) * list[i]->access->element_bytes > 16) continue;
        std::vector<const BoundAccess*> run(list.begin() + std::ptrdiff_t(i), list.begin() + std::ptrdiff_t(i + n));
        bool ok = true;
        for (std::size_t k = 1; k < n && ok; ++k) ok = compatible(*run[0], *run[k]);
        if (!ok || !global_run_allowed(run) || !mergeable(run, at)) continue;
        out.width[run[0]] = run[0]->access->element_bytes * int(n);
        for (std::size_t k = 1; k < n; ++k) out.absorbed.insert(run[k]);
        taken = n;
        break;
      }
      i += taken;
    }
  }
  return out;
}

}  // namespace warplens
