// See stencil_plan.h.
#include "agent/rewrites/stencil_plan.h"

#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

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

// Marks every node under `s` that runs only on some paths through the work:
// the branches of `?:`, the right side of `&&` and `||`, the bodies of if,
// loops and switch, and whatever follows a statement that may leave early.
// A tap must be read on every path, or loading it ahead of the work could
// read an element the original never reads (`x > 0 ? in[i - 1] : c` at x == 0).
void mark_conditional(const Stmt* s, bool conditional, std::set<const Stmt*>& out) {
  if (!s) return;
  if (conditional) out.insert(s);
  if (const auto* co = dyn_cast<ConditionalOperator>(s)) {
    mark_conditional(co->getCond(), conditional, out);
    mark_conditional(co->getTrueExpr(), true, out);
    mark_conditional(co->getFalseExpr(), true, out);
    return;
  }
  if (const auto* bo = dyn_cast<BinaryOperator>(s); bo && bo->isLogicalOp()) {
    mark_conditional(bo->getLHS(), conditional, out);
    mark_conditional(bo->getRHS(), true, out);
    return;
  }
  if (const auto* is = dyn_cast<IfStmt>(s)) {
    mark_conditional(is->getInit(), conditional, out);
    mark_conditional(is->getConditionVariableDeclStmt(), conditional, out);
    mark_conditional(is->getCond(), conditional, out);
    mark_conditional(is->getThen(), true, out);
    mark_conditional(is->getElse(), true, out);
    return;
  }
  if (const auto* cs = dyn_cast<CompoundStmt>(s)) {
    bool after_exit = conditional;
    for (const Stmt* c : cs->body()) {
      mark_conditional(c, after_exit, out);
      after_exit = after_exit || may_leave(c);
    }
    return;
  }
  const bool inner = conditional || isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s) ||
                     isa<CXXForRangeStmt>(s) || isa<SwitchStmt>(s) || isa<BinaryConditionalOperator>(s) ||
                     isa<StmtExpr>(s) || isa<LambdaExpr>(s);
  for (const Stmt* c : s->children()) mark_conditional(c, inner, out);
}

// The nodes of the work that run on only some paths; with an edge branch,
// everything up to and including it counts as such (its reads stay memory
// reads: a tap must be read exactly when the interior condition holds).
std::set<const Stmt*> conditional_nodes(const std::vector<const Stmt*>& work, const Stmt* edge) {
  std::set<const Stmt*> out;
  bool after_exit = false, before_edge = edge != nullptr;
  for (const Stmt* s : work) {
    mark_conditional(s, after_exit || before_edge, out);
    if (s == edge) {
      before_edge = false;
      continue;
    }
    after_exit = after_exit || may_leave(s);
  }
  return out;
}

// `if (E) { S; return; }`, the first statement of the work that may leave
// (see stencil_plan.h).
std::optional<StencilEdge> match_edge(const KernelContext& ctx, const std::vector<const Stmt*>& work,
                                      const VarDecl* x, const VarDecl* y) {
  for (const Stmt* s : work) {
    if (!may_leave(s)) continue;
    const auto* branch = dyn_cast<IfStmt>(s);
    if (!branch || branch->getElse() || branch->getInit() || branch->getConditionVariableDeclStmt() ||
        branch->isConstexpr())
      return std::nullopt;
    const Expr* e = branch->getCond();
    if (!only_names(e, {x, y}) || !collect_accesses(e).empty() || e->HasSideEffects(ctx.ctx(), true))
      return std::nullopt;
    auto text = ctx.text(e);
    if (!text) return std::nullopt;
    StencilEdge edge{branch, *text, statements_of(branch->getThen())};
    if (edge.statements.empty()) return std::nullopt;
    const auto* ret = dyn_cast<ReturnStmt>(edge.statements.back());
    if (!ret || ret->getRetValue()) return std::nullopt;
    edge.statements.pop_back();
    for (const Stmt* t : edge.statements)
      if (may_leave(t)) return std::nullopt;
    return edge;
  }
  return std::nullopt;
}

}  // namespace

bool names_only(const Stmt* s, const std::set<const ValueDecl*>& allowed) { return only_names(s, allowed); }

void mark_conditional_nodes(const Stmt* s, bool conditional, std::set<const Stmt*>& out) {
  mark_conditional(s, conditional, out);
}

bool may_leave(const Stmt* s) {
  if (!s) return false;
  if (isa<ReturnStmt>(s) || isa<GotoStmt>(s) || isa<BreakStmt>(s) || isa<ContinueStmt>(s)) return true;
  for (const Stmt* c : s->children())
    if (may_leave(c)) return true;
  return false;
}

namespace {

// The guard and prologue checks both shapes share.
std::optional<StencilGrid> stencil_guard(const KernelContext& ctx, const std::optional<Grid2D>& grid,
                                         std::string& why) {
  if (!grid) return std::nullopt;
  if (!only_pure_declarations(ctx, grid->region.prologue)) {
    why = "declarations with effects before the guard";
    return std::nullopt;
  }
  for (const Stmt* s : grid->region.prologue)
    if (!collect_accesses(s).empty()) {
      why = "a declaration before the guard reads memory";
      return std::nullopt;
    }
  std::set<const ValueDecl*> indices = {grid->x.var};
  if (grid->y.var) indices.insert(grid->y.var);
  if (!only_names(grid->region.guard->getCond(), indices)) {
    why = "the guard uses locals other than x and y";
    return std::nullopt;
  }
  auto cond = ctx.text(grid->region.guard->getCond());
  if (!cond) {
    why = "the guard is spelled in a macro";
    return std::nullopt;
  }
  return StencilGrid{*grid, grid->region.early_exit ? "!(" + *cond + ")" : *cond};
}

}  // namespace

std::optional<StencilGrid> match_stencil_grid(const KernelContext& ctx, std::string& why) {
  return stencil_guard(ctx, match_grid_2d(ctx, why, /*allow_batch=*/true), why);
}

std::optional<StencilGrid> match_stencil_line(const KernelContext& ctx, std::string& why) {
  Grid2D g;
  g.vars = global_index_vars(ctx);
  if (g.vars.size() != 1 || g.vars[0].dim != 0) {
    why = "not a 1-D kernel (needs exactly one x global index)";
    return std::nullopt;
  }
  g.x = g.vars[0];
  if (!identity_only_through_index_vars(ctx, g.vars, why)) return std::nullopt;
  if (contains_barrier(ctx.body) || uses_warp_primitives(ctx.body) || uses_atomics(ctx.body)) {
    why = "barriers, warp primitives or atomics";
    return std::nullopt;
  }
  for (const Access& a : collect_accesses(ctx.body))
    if (a.is_shared) {
      why = "the kernel already uses shared memory";
      return std::nullopt;
    }
  auto region = guarded_region(ctx, g.vars, why);
  if (!region) return std::nullopt;
  g.region = *region;
  if (!g.region.bounds.count(g.x.var)) {
    why = "x must be bounds-checked";
    return std::nullopt;
  }
  return stencil_guard(ctx, g, why);
}

bool stencil_input_unwritten(const KernelContext& ctx, const ParmVarDecl* array, std::string& why) {
  std::set<const ValueDecl*> written;
  for (const Access& a : accesses_in(ctx, ctx.body))
    if (a.write && a.root) written.insert(a.root);
  if (written.count(array)) {
    why = "the kernel writes the stencil's input";
    return false;
  }
  if (array->getType().isRestrictQualified()) return true;
  std::vector<const ParmVarDecl*> ptrs = {array};
  for (const ValueDecl* w : written)
    if (const auto* q = dyn_cast<ParmVarDecl>(w)) ptrs.push_back(q);
  if (!launches_pass_distinct_pointers(ctx, ptrs, why)) {
    why = "cannot rule out that the kernel writes the stencil's input: " + why;
    return false;
  }
  return true;
}

bool stencil_launches_cover(const KernelContext& ctx, const Grid2D& grid, std::string& why) {
  for (int d = 0; d < (grid.y.var ? 2 : 1); ++d) {
    const IndexVar& v = d == 0 ? grid.x : grid.y;
    if (!launches_cover(ctx, d, coverage_bound(ctx, grid.region.bounds.at(v.var)), why)) return false;
  }
  return true;
}

std::optional<StencilPlan> plan_stencil(const KernelContext& ctx, std::string& why) {
  StencilPlan p;
  auto sg = match_stencil_grid(ctx, why);
  if (!sg) return std::nullopt;
  p.grid = sg->grid;
  const Grid2D* grid = &p.grid;
  const VarDecl* x = grid->x.var;
  const VarDecl* y = grid->y.var;
  p.guard = sg->guard;
  p.edge = match_edge(ctx, grid->region.body, x, y);
  p.interior = p.edge ? "(" + p.guard + ") && !(" + p.edge->condition + ")" : p.guard;
  // The stencil array: the parameter read most often in the work.
  std::map<const ParmVarDecl*, std::vector<Access>> reads;
  std::set<const ValueDecl*> written;
  for (const Access& a : accesses_in(ctx, ctx.body))
    if (a.write && a.root) written.insert(a.root);
  // Only reads on every path are taps; the others stay memory reads (the
  // kernel never writes the array, so they read the same values).
  const std::set<const Stmt*> conditional =
      conditional_nodes(grid->region.body, p.edge ? p.edge->branch : nullptr);
  for (const Stmt* s : grid->region.body)
    for (const Access& a : accesses_in(ctx, s))
      if (const auto* param = dyn_cast_or_null<ParmVarDecl>(a.root);
          param && a.root_is_param && a.read && !a.write && !conditional.count(a.expr))
        reads[param].push_back(a);
  for (const auto& [param, list] : reads) {
    if (written.count(param) || list.size() < 3 || (p.array && list.size() <= p.taps.size())) continue;
    const Symbol tx = builtin_symbol(SymbolKind::ThreadIdx, 0), ty = builtin_symbol(SymbolKind::ThreadIdx, 1);
    const Symbol bx = builtin_symbol(SymbolKind::BlockIdx, 0), by = builtin_symbol(SymbolKind::BlockIdx, 1);
    const Symbol bdx = builtin_symbol(SymbolKind::BlockDim, 0), bdy = builtin_symbol(SymbolKind::BlockDim, 1);
    std::optional<Polynomial> pitch, base;
    std::vector<StencilTap> taps;
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
        for (const Symbol& s : mono)
          varying |= s.kind != SymbolKind::Param && s.kind != SymbolKind::WarpSize &&
                     !(grid->batched && s.kind == SymbolKind::BlockIdx && s.dim == 2);  // a plane of a batch
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
    why = "no input read on every path at three or more fixed offsets around (x, y) with one row pitch";
    return std::nullopt;
  }
  if (p.first.empty()) {
    why = "the stencil's reads cannot be spelled over x and y";
    return std::nullopt;
  }
  p.type = pointee_spelling(p.array);
  for (const StencilTap& t : p.taps) {
    p.dx_min = std::min(p.dx_min, t.dx);
    p.dx_max = std::max(p.dx_max, t.dx);
    p.dy_min = std::min(p.dy_min, t.dy);
    p.dy_max = std::max(p.dy_max, t.dy);
  }
  if (!stencil_input_unwritten(ctx, p.array, why) || !stencil_launches_cover(ctx, *grid, why)) return std::nullopt;
  return p;
}

}  // namespace warplens::agent::rw
