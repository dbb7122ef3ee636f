#include "analysis/shape_inference.h"

#include <map>
#include <set>

namespace warplens {

namespace {

Symbol thread_symbol(int dim) {
  Symbol s;
  s.kind = SymbolKind::ThreadIdx;
  s.dim = dim;
  s.uniform = false;
  return s;
}

const SharedArray* array_of(const BoundAccess& a) {
  const Function* owner = a.shared_array_owner ? a.shared_array_owner : a.owner;
  if (!owner) return nullptr;
  for (const auto& s : owner->shared_arrays)
    if (s.name == a.shared_array) return &s;
  return nullptr;
}

std::optional<std::int64_t> constant_coefficient(const Polynomial& p, const Symbol& s) {
  auto c = p.coefficient_of(s);
  if (!c || !c->is_constant()) return std::nullopt;
  return c->constant_term();
}

bool mentions_thread(const Polynomial& p) {
  for (const auto& [monomial, coefficient] : p.terms)
    for (const auto& s : monomial)
      if (s.kind == SymbolKind::ThreadIdx) return true;
  return false;
}

// A padded row (`[TILE + 1]`, `[TILE + 2]` for 8-byte elements) is not part
// of the block's width.
std::int64_t unpadded(std::int64_t extent) {
  std::int64_t r = extent % 16;
  return extent > 16 && (r == 1 || r == 2) ? extent - r : extent;
}

std::string dims_text(const SharedArray& s) {
  std::string t = "`" + s.element_type + " " + s.name;
  for (auto d : s.dims) t += "[" + std::to_string(d) + "]";
  return t + "`";
}

}  // namespace

std::optional<InferredShape> infer_block_shape(const KernelView& view) {
  std::set<std::int64_t> tile_x, tile_y, flat_x;
  std::map<const SharedArray*, std::int64_t> flat_max_offset;
  std::string tile_evidence, flat_evidence;
  const Symbol tx = thread_symbol(0), ty = thread_symbol(1);
  for (const BoundAccess& a : view.accesses) {
    // The kernel's own accesses: a helper's index is in the helper's terms.
    if (a.space != MemorySpace::Shared || !a.via.empty() || !a.access->index) continue;
    const SharedArray* array = array_of(a);
    if (!array || array->dims.empty() || array->dims.size() > 2 || array->is_extern) continue;
    bool sized = true;
    for (auto d : array->dims) sized = sized && d > 0;
    if (!sized) continue;
    auto p = to_polynomial(a.access->index);
    if (!p || constant_coefficient(*p, tx) != 1) continue;
    Polynomial rest = *p - Polynomial::symbol(tx);
    if (array->dims.size() == 2) {
      const std::int64_t rows = array->dims[0], cols = array->dims[1];
      auto cy = constant_coefficient(*p, ty);
      if (cy && *cy == cols) rest = rest - Polynomial::symbol(ty).scaled(cols);
      if (mentions_thread(rest)) continue;
      // The innermost subscript is exactly threadIdx.x when everything else
      // steps whole rows.
      bool whole_rows = true;
      for (const auto& [monomial, coefficient] : rest.terms) whole_rows = whole_rows && coefficient % cols == 0;
      if (!whole_rows) continue;
      tile_x.insert(unpadded(cols));
      if (cy && *cy == cols && rest.terms.empty()) tile_y.insert(rows);
      if (tile_evidence.empty() || (cy && *cy == cols && rest.terms.empty()))
        tile_evidence = "`" + a.access->spelling + "` of " + dims_text(*array);
    } else {
      if (!rest.is_constant() || rest.constant_term() < 0) continue;
      auto& m = flat_max_offset[array];
      m = std::max(m, rest.constant_term());
      if (flat_evidence.empty()) flat_evidence = "`" + a.access->spelling + "` of " + dims_text(*array);
    }
  }
  for (const auto& [array, offset] : flat_max_offset)
    if (array->dims[0] - offset > 0) flat_x.insert(array->dims[0] - offset);

  InferredShape out;
  if (tile_x.size() == 1) {
    out.x = *tile_x.begin();
    out.from_2d_tile = true;
    out.evidence = tile_evidence;
    if (tile_y.size() == 1) out.y = *tile_y.begin();
  } else if (tile_x.empty() && flat_x.size() == 1) {
    out.x = *flat_x.begin();
    out.evidence = flat_evidence;
  }
  if (!out.x || *out.x > 1024 || (out.y && *out.x * *out.y > 1024)) return std::nullopt;
  return out;
}

}  // namespace warplens
