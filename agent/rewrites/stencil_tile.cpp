// stencil-tile: a 2-D stencil (each thread (x, y) reads an input array at
// fixed offsets around its own element: `in[(y - 1) * W + x] + in[y * W + x
// + 1] ...`) stages the block's neighbourhood once in shared memory, halo
// included: each input element is read from global memory once per block
// instead of once per neighbour that uses it.
//
// Applies when, all checked:
//   - a 2-D kernel with x and y global indices, both bounds-checked, thread
//     identity only through them, no shared memory, barrier, warp
//     primitive or atomic (match_grid_2d); declarations before the guard
//     are pure and read no memory; the guard names only x, y, parameters
//     and constants; the launches cover both bounds;
//   - one pointer parameter S is read at least three times in the guarded
//     work, every read at `P * y + x + (P * dy + dx) + c` with the same
//     pitch P (uniform), constant offsets |dx|, |dy| <= 4 and nothing else
//     varying (no loop counter); the kernel never writes S, and nothing it
//     writes reaches S (distinct pointers at every launch, or __restrict__).
// Then a tile cell is loaded exactly when some thread under the original
// guard reads it at one of the offsets (the guard is evaluated at the cell
// minus each offset), so no element the original does not read is read;
// the barrier orders the loads before the reads; the work runs under the
// original guard with each read of S replaced by its tile cell, which holds
// the same value. The block becomes 32 x `rows` (the grid recomputed to
// start at least the same threads; declared).
#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

struct Tap {
  const ArraySubscriptExpr* read = nullptr;
  std::int64_t dx = 0, dy = 0;  // relative to the first read
};

struct Plan {
  Grid2D grid;
  const ParmVarDecl* array = nullptr;
  std::string type;
  std::vector<Tap> taps;
  std::int64_t dx_min = 0, dx_max = 0, dy_min = 0, dy_max = 0;
  std::string guard;   // the condition under which a thread works
  std::string first;   // the first read, spelled over x and y
};

bool only_names(const Stmt* s, const std::set<const ValueDecl*>& allowed) {
  bool ok = true;
  std::function<void(const Stmt*)> walk = [&](const Stmt* x) {
    if (!x || !ok) return;
    if (const auto* r = dyn_cast<DeclRefExpr>(x)) {
      const auto* v = dyn_cast<VarDecl>(r->getDecl());
      if (v && v->hasLocalStorage() && !isa<ParmVarDecl>(v) && !allowed.count(v)) ok = false;
    }
    for (const Stmt* c : x->children()) walk(c);
  };
  walk(s);
  return ok;
}

// d == dy * P + dx with small integers.
std::optional<std::pair<std::int64_t, std::int64_t>> split_offset(const Polynomial& d, const Polynomial& pitch) {
  constexpr std::int64_t kMax = 4;
  if (pitch.is_constant()) {
    const std::int64_t c = pitch.constant_term();
    if (!d.is_constant() || c <= 2 * kMax) return std::nullopt;
    const std::int64_t v = d.constant_term();
    for (std::int64_t dy = -kMax; dy <= kMax; ++dy)
      if (std::abs(v - dy * c) <= kMax) return std::make_pair(dy, v - dy * c);
    return std::nullopt;
  }
  // A non-constant monomial of the pitch fixes dy.
  for (const auto& [mono, a] : pitch.terms) {
    if (mono.empty() || a == 0) continue;
    auto it = d.terms.find(mono);
    const std::int64_t b = it == d.terms.end() ? 0 : it->second;
    if (b % a != 0) return std::nullopt;
    const std::int64_t dy = b / a;
    Polynomial rest = d - pitch.scaled(dy);
    if (!rest.is_constant() || std::abs(dy) > kMax || std::abs(rest.constant_term()) > kMax) return std::nullopt;
    return std::make_pair(dy, rest.constant_term());
  }
  return std::nullopt;
}

// `P - c` (c >= 0) is covered when P is.
const Expr* coverage_bound(const KernelContext& ctx, const Expr* bound) {
  const Expr* b = strip(bound);
  if (const auto* bo = dyn_cast<BinaryOperator>(b); bo && bo->getOpcode() == BO_Sub)
    if (auto c = ctx.eval_int(bo->getRHS()); c && *c >= 0) return bo->getLHS();
  return bound;
}

std::optional<Plan> plan(const KernelContext& ctx, std::string& why) {
  Plan p;
  auto grid = match_grid_2d(ctx, why);
  if (!grid) return std::nullopt;
  p.grid = *grid;
  const VarDecl* x = grid->x.var;
  const VarDecl* y = grid->y.var;
  if (!only_pure_declarations(ctx, grid->region.prologue)) {
    why = "declarations with effects before the guard";
    return std::nullopt;
  }
  for (const Stmt* s : grid->region.prologue)
    if (!collect_accesses(s).empty()) {
      why = "a declaration before the guard reads memory";
      return std::nullopt;
    }
  if (!only_names(grid->region.guard->getCond(), {x, y})) {
    why = "the guard uses locals other than x and y";
    return std::nullopt;
  }
  auto cond = ctx.text(grid->region.guard->getCond());
  if (!cond) {
    why = "the guard is spelled in a macro";
    return std::nullopt;
  }
  p.guard = grid->region.early_exit ? "!(" + *cond + ")" : *cond;
  // The stencil array: the parameter read most often in the work.
  std::map<const ParmVarDecl*, std::vector<Access>> reads;
  std::set<const ValueDecl*> written;
  for (const Access& a : accesses_in(ctx, ctx.body))
    if (a.write && a.root) written.insert(a.root);
  for (const Stmt* s : grid->region.body)
    for (const Access& a : accesses_in(ctx, s))
      if (const auto* param = dyn_cast_or_null<ParmVarDecl>(a.root); param && a.root_is_param && a.read && !a.write)
        reads[param].push_back(a);
  for (const auto& [param, list] : reads) {
    if (written.count(param) || list.size() < 3 || (p.array && list.size() <= p.taps.size())) continue;
    const Symbol tx = builtin_symbol(SymbolKind::ThreadIdx, 0), ty = builtin_symbol(SymbolKind::ThreadIdx, 1);
    const Symbol bx = builtin_symbol(SymbolKind::BlockIdx, 0), by = builtin_symbol(SymbolKind::BlockIdx, 1);
    const Symbol bdx = builtin_symbol(SymbolKind::BlockDim, 0), bdy = builtin_symbol(SymbolKind::BlockDim, 1);
    std::optional<Polynomial> pitch, base;
    std::vector<Tap> taps;
    bool ok = true;
    for (const Access& a : list) {
      auto poly = a.flat_index && !a.member ? to_polynomial(a.flat_index) : std::nullopt;
      auto cx = poly ? poly->coefficient_of(tx) : std::nullopt;
      auto cy = poly ? poly->coefficient_of(ty) : std::nullopt;
      if (!cx || !cy || !is_constant(*cx, 1) || !is_uniform(*cy)) {
        ok = false;
        break;
      }
      if (!pitch) pitch = *cy;
      if (pitch->terms != cy->terms) {
        ok = false;
        break;
      }
      Polynomial gy = Polynomial::symbol(by) * Polynomial::symbol(bdy) + Polynomial::symbol(ty);
      Polynomial gx = Polynomial::symbol(bx) * Polynomial::symbol(bdx) + Polynomial::symbol(tx);
      Polynomial rest = *poly - *pitch * gy - gx;
      bool varying = false;
      for (const auto& [mono, c] : rest.terms)
        for (const Symbol& s : mono) varying |= s.kind != SymbolKind::Param && s.kind != SymbolKind::WarpSize;
      if (varying) {
        ok = false;
        break;
      }
      if (!base) base = rest;
      auto off = split_offset(rest - *base, *pitch);
      if (!off) {
        ok = false;
        break;
      }
      taps.push_back({a.expr, off->second, off->first});
    }
    if (!ok) continue;
    p.array = param;
    p.taps = taps;
    // The first read spelled over x and y.
    const Access& a0 = list.front();
    const bool direct = a0.base == param && a0.indices.size() == 1 && only_names(a0.indices[0], {x, y});
    if (direct) p.first = ctx.text(a0.expr).value_or("");
    else if (auto idx = render_index(*to_polynomial(a0.flat_index), y->getNameAsString(), x->getNameAsString()))
      p.first = param->getNameAsString() + "[" + *idx + "]";
  }
  if (!p.array) {
    why = "no input read at three or more fixed offsets around (x, y) with one row pitch";
    return std::nullopt;
  }
  if (p.first.empty()) {
    why = "the stencil's reads cannot be spelled over x and y";
    return std::nullopt;
  }
  p.type = pointee_spelling(p.array);
  for (const Tap& t : p.taps) {
    p.dx_min = std::min(p.dx_min, t.dx);
    p.dx_max = std::max(p.dx_max, t.dx);
    p.dy_min = std::min(p.dy_min, t.dy);
    p.dy_max = std::max(p.dy_max, t.dy);
  }
  if (!p.array->getType().isRestrictQualified()) {
    std::vector<const ParmVarDecl*> ptrs = {p.array};
    for (const ValueDecl* w : written)
      if (const auto* q = dyn_cast<ParmVarDecl>(w)) ptrs.push_back(q);
    if (!launches_pass_distinct_pointers(ctx, ptrs, why)) {
      why = "cannot rule out that the kernel writes the stencil's input: " + why;
      return std::nullopt;
    }
  }
  for (int d = 0; d < 2; ++d) {
    const IndexVar& v = d == 0 ? grid->x : grid->y;
    if (!launches_cover(ctx, d, coverage_bound(ctx, grid->region.bounds.at(v.var)), why)) return std::nullopt;
  }
  return p;
}

class StencilTile final : public Rewrite {
 public:
  const char* name() const override { return "stencil-tile"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    if (!launches_rewritable(ctx, why)) return CheckResult::refuse(why);
    auto p = plan(ctx, why);
    if (!p) return CheckResult::refuse(why);
    CheckResult r;
    for (std::int64_t rows : find_rewrite(name())->params[0].values) {
      Proposal pr;
      pr.step = {name(), {{"rows", rows}}};
      pr.motivation = std::to_string(p->taps.size()) + " reads of `" + p->array->getNameAsString() +
                      "` around each element (offsets x " + std::to_string(p->dx_min) + ".." +
                      std::to_string(p->dx_max) + ", y " + std::to_string(p->dy_min) + ".." +
                      std::to_string(p->dy_max) + "): a 32x" + std::to_string(rows) +
                      " block stages its neighbourhood once in shared memory";
      pr.predicted_gain = 1.3 + 0.02 * static_cast<double>(p->taps.size()) + (rows == 8 ? 0.01 : 0.0);
      r.proposals.push_back(pr);
    }
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep& step, RewriteOutput& out, std::string& error) const override {
    auto p = plan(ctx, error);
    if (!p) return false;
    const std::int64_t rows = param(step, "rows");
    if (rows != 4 && rows != 8 && rows != 16 && rows != 32) {
      error = "rows must be 4, 8, 16 or 32";
      return false;
    }
    const std::int64_t th = rows + p->dy_max - p->dy_min, tw = 32 + p->dx_max - p->dx_min;
    const std::string tile = fresh_name(ctx.file, "tile"), c = fresh_name(ctx.file, "c"),
                      tx = fresh_name(ctx.file, "tx"), ty = fresh_name(ctx.file, "ty"), x0 = fresh_name(ctx.file, "x0"),
                      y0 = fresh_name(ctx.file, "y0"), need = fresh_name(ctx.file, "needed");
    const VarDecl* x = p->grid.x.var;
    const VarDecl* y = p->grid.y.var;
    const std::string xn = x->getNameAsString(), yn = y->getNameAsString();
    const std::string xt = x->getType().getUnqualifiedType().getAsString(),
                      yt = y->getType().getUnqualifiedType().getAsString();
    const std::string TW = std::to_string(tw), TH = std::to_string(th), R = std::to_string(rows);
    std::string b = "{\n  // Rewritten by warplens (stencil-tile): the block's " + TH + "x" + TW + " neighbourhood of `" +
                    p->array->getNameAsString() + "` in shared memory,\n  // each cell loaded when some thread reads it.\n";
    b += "  __shared__ " + p->type + " " + tile + "[" + TH + "][" + TW + "];\n";
    for (const Stmt* s : p->grid.region.prologue) {
      auto t = ctx.text(s);
      if (!t) {
        error = "a declaration is spelled in a macro";
        return false;
      }
      b += "  " + *t + "\n";
    }
    b += "  {\n    const " + xt + " " + x0 + " = blockIdx.x * 32 + (" + std::to_string(p->dx_min) + ");\n";
    b += "    const " + yt + " " + y0 + " = blockIdx.y * " + R + " + (" + std::to_string(p->dy_min) + ");\n";
    b += "    for (int " + c + " = threadIdx.y * 32 + threadIdx.x; " + c + " < " + TH + " * " + TW + "; " + c +
         " += 32 * " + R + ") {\n";
    b += "      const int " + ty + " = " + c + " / " + TW + ", " + tx + " = " + c + " % " + TW + ";\n";
    b += "      bool " + need + " = false;\n";
    std::set<std::pair<std::int64_t, std::int64_t>> offsets;
    for (const Tap& t : p->taps) offsets.insert({t.dx, t.dy});
    for (const auto& [dx, dy] : offsets)
      b += "      if (!" + need + ") {\n        const " + xt + " " + xn + " = " + x0 + " + " + tx + " - (" +
           std::to_string(dx) + ");\n        const " + yt + " " + yn + " = " + y0 + " + " + ty + " - (" +
           std::to_string(dy) + ");\n        " + need + " = " + p->guard + ";\n      }\n";
    b += "      if (" + need + ") {\n        const " + xt + " " + xn + " = " + x0 + " + " + tx + ";\n        const " + yt +
         " " + yn + " = " + y0 + " + " + ty + ";\n        " + tile + "[" + ty + "][" + tx + "] = " + p->first +
         ";\n      }\n    }\n  }\n  __syncthreads();\n";
    std::map<const Stmt*, std::string> nodes;
    for (const Tap& t : p->taps)
      nodes[t.read] = tile + "[threadIdx.y + " + std::to_string(t.dy - p->dy_min) + "][threadIdx.x + " +
                      std::to_string(t.dx - p->dx_min) + "]";
    std::string work;
    for (const Stmt* s : p->grid.region.body) {
      auto t = text_with_replacements(ctx, s, {}, nodes);
      if (!t) {
        error = "the work is spelled in a macro";
        return false;
      }
      auto range = ctx.char_range(s->getSourceRange());
      const unsigned end = ctx.sm().getFileOffset(range->getEnd());
      const unsigned after = ctx.offset_after_statement(s);
      work += "    " + *t + (after > end ? ctx.slice(end, after) : "") + "\n";
    }
    b += "  if (" + p->guard + ") {\n" + work + "  }\n}";
    if (!out.edits.replace(ctx.body, b)) {
      error = out.edits.error();
      return false;
    }
    LaunchChange change;
    change.kernel = ctx.kernel->getNameAsString();
    change.block = Dim3{32, rows, 1};
    if (!rewrite_launches(ctx, change, out.edits, error)) return false;
    out.launch_changes.push_back(change);
    out.notes.push_back("every read of `" + p->array->getNameAsString() + "` is at a constant offset (x " +
                        std::to_string(p->dx_min) + ".." + std::to_string(p->dx_max) + ", y " +
                        std::to_string(p->dy_min) + ".." + std::to_string(p->dy_max) +
                        ") from (x, y) with one row pitch; the kernel never writes it and nothing it writes reaches it");
    out.notes.push_back("a tile cell is loaded only when some thread under the original guard reads it, so no "
                        "element the original leaves alone is read; a barrier orders the loads before the work");
    out.notes.push_back("the work runs under the original guard; the launches cover both bounds, and the new grid "
                        "starts at least the original threads");
    return true;
  }
};

}  // namespace

const Rewrite& stencil_tile_rewrite() {
  static const StencilTile r;
  return r;
}

}  // namespace warplens::agent::rw
