// stage_row_plan.h: what stage-row-walk may stage, checked from the source.
#include "agent/rewrites/stage_row_plan.h"
#include "agent/rewrites/stencil_plan.h"

#include <algorithm>
#include <functional>

namespace warplens::agent::rw {

using namespace clang;
using clang::Expr;

std::map<const ParmVarDecl*, StagedFootprint> footprints(const StagedLoop& l) {
  std::map<const ParmVarDecl*, StagedFootprint> out;
  std::map<const ParmVarDecl*, bool> seen, wseen;
  for (const StagedAccess& a : l.accesses) {
    StagedFootprint& f = out[a.array];
    if (!seen[a.array]) f.lo = f.hi = a.offset;
    seen[a.array] = true;
    f.lo = std::min(f.lo, a.offset);
    f.hi = std::max(f.hi, a.offset);
    if (a.write) {
      if (!wseen[a.array]) f.wlo = f.whi = a.offset;
      wseen[a.array] = true;
      f.wlo = std::min(f.wlo, a.offset);
      f.whi = std::max(f.whi, a.offset);
      f.written = true;
    }
  }
  return out;
}

namespace {

constexpr std::int64_t kMaxOffset = 8;  // |c| accepted

// Something in `s` that could touch memory outside the subscripts we see.
std::optional<std::string> hidden_memory(const Stmt* s) {
  std::optional<std::string> found;
  std::function<void(const Stmt*)> walk = [&](const Stmt* n) {
    if (!n || found) return;
    if (const auto* uo = dyn_cast<UnaryOperator>(n); uo && uo->getOpcode() == UO_Deref)
      found = "a pointer dereference";
    else if (const auto* me = dyn_cast<MemberExpr>(n); me && me->isArrow())
      found = "a member access through a pointer";
    else if (const auto* ce = dyn_cast<CallExpr>(n)) {
      for (const Expr* a : ce->arguments()) {
        const QualType ty = a->IgnoreParenImpCasts()->getType();
        if (ty->isPointerType() || ty->isArrayType() || ty->isReferenceType()) found = "a call with a pointer argument";
      }
      if (const FunctionDecl* fd = ce->getDirectCallee())
        for (const ParmVarDecl* p : fd->parameters())
          if (p->getType()->isReferenceType()) found = "a call with a reference argument";
    } else if (isa<GotoStmt>(n) || isa<IndirectGotoStmt>(n) || isa<CXXThrowExpr>(n) || isa<GCCAsmStmt>(n)) {
      found = "a goto or asm";
    }
    for (const Stmt* c : n->children()) walk(c);
  };
  walk(s);
  return found;
}

bool has_nested_loop_or_break(const Stmt* body) {
  bool bad = false;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || bad) return;
    if (isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s) || isa<BreakStmt>(s) || isa<CXXForRangeStmt>(s))
      bad = true;
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(body);
  return bad;
}

// A bound every thread of the grid computes alike: no thread index, and only
// parameters, constants and declarations of the prologue (which the
// rewritten kernel keeps before everything else).
bool uniform_bound(const KernelContext& ctx, const Expr* e, const std::set<const VarDecl*>& prologue_vars) {
  if (!e || is_lane_varying(ctx.lower(e)) || contains_any_builtin(e)) return false;
  bool ok = true;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || !ok) return;
    if (const auto* r = dyn_cast<DeclRefExpr>(s))
      if (const auto* v = dyn_cast<VarDecl>(r->getDecl()))
        if (v->hasLocalStorage() && !isa<ParmVarDecl>(v) && (!prologue_vars.count(v) || ctx.modified.count(v)))
          ok = false;
    if (isa<CallExpr>(s) || isa<ArraySubscriptExpr>(s)) ok = false;
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(e);
  return ok;
}

// `i < B`, `i <= B`, `i > B`, `i >= B` (either side); the increment ++/--/+= 1/-= 1.
bool loop_range(const KernelContext& ctx, StagedLoop& w, const std::set<const VarDecl*>& prologue_vars,
                std::string& why) {
  const VarDecl* i = w.counter.var;
  const Expr* inc = w.loop->getInc();
  int step = 0;
  if (const auto* uo = dyn_cast_or_null<UnaryOperator>(inc); uo && refers_to(uo->getSubExpr(), i))
    step = uo->isIncrementOp() ? 1 : uo->isDecrementOp() ? -1 : 0;
  if (const auto* ca = dyn_cast_or_null<CompoundAssignOperator>(inc); ca && refers_to(ca->getLHS(), i))
    if (ctx.eval_int(ca->getRHS()) == std::optional<std::int64_t>(1))
      step = ca->getOpcode() == BO_AddAssign ? 1 : ca->getOpcode() == BO_SubAssign ? -1 : 0;
  if (step == 0) {
    why = "the loop does not step its counter by one";
    return false;
  }
  const auto* cond = dyn_cast_or_null<BinaryOperator>(w.loop->getCond() ? w.loop->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!cond) {
    why = "the loop's condition is not a comparison";
    return false;
  }
  const Expr* lhs = cond->getLHS();
  const Expr* rhs = cond->getRHS();
  BinaryOperatorKind op = cond->getOpcode();
  auto is_counter = [&](const Expr* e) {
    const auto* r = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    return r && r->getDecl() == i;
  };
  if (!is_counter(lhs) && is_counter(rhs)) {
    std::swap(lhs, rhs);
    op = op == BO_LT ? BO_GT : op == BO_GT ? BO_LT : op == BO_LE ? BO_GE : op == BO_GE ? BO_LE : op;
  }
  if (!is_counter(lhs) || refers_to(rhs, i)) {
    why = "the loop's condition does not compare its counter with a bound";
    return false;
  }
  if (!uniform_bound(ctx, rhs, prologue_vars) || !uniform_bound(ctx, w.counter.init, prologue_vars)) {
    why = "the loop's bounds are not uniform over parameters, constants and declarations before the guard";
    return false;
  }
  auto a = ctx.text(w.counter.init), b = ctx.text(rhs);
  if (!a || !b) {
    why = "the loop's bounds are spelled in a macro";
    return false;
  }
  const std::string A = "(long long)(" + *a + ")", B = "(long long)(" + *b + ")";
  if (step > 0 && (op == BO_LT || op == BO_LE)) {
    w.lo = A;
    w.hi = op == BO_LT ? B + " - 1" : B;
  } else if (step < 0 && (op == BO_GT || op == BO_GE)) {
    w.down = true;
    w.hi = A;
    w.lo = op == BO_GT ? B + " + 1" : B;
  } else {
    why = "the loop's condition does not match its direction";
    return false;
  }
  return true;
}

// An integer converted to dim3 (`k<<<(n + 127) / 128, 128>>>`): y = z = 1.
bool one_dimensional(const Expr* e) {
  e = e->IgnoreImplicit();
  if (const auto* c = dyn_cast<CXXConstructExpr>(e)) {
    if (c->getNumArgs() == 0) return false;
    for (unsigned k = 1; k < c->getNumArgs(); ++k)
      if (!isa<CXXDefaultArgExpr>(c->getArg(k))) return false;
    e = c->getArg(0)->IgnoreImplicit();
  }
  return e->getType()->isIntegerType();
}

}  // namespace

std::optional<StageRowPlan> plan_stage_row_walk(KernelContext& ctx, std::string& why) {
  StageRowPlan p;
  if (!ctx.body) {
    why = "no body";
    return std::nullopt;
  }
  auto vars = global_index_vars(ctx);
  if (vars.size() != 1 || vars[0].dim != 0) {
    why = "needs exactly one 1-D global thread index";
    return std::nullopt;
  }
  p.t = vars[0];
  if (!identity_only_through_index_vars(ctx, vars, why)) return std::nullopt;
  if (contains_barrier(ctx.body) || uses_warp_primitives(ctx.body) || uses_atomics(ctx.body)) {
    why = "barriers, warp primitives or atomics";
    return std::nullopt;
  }
  auto region = guarded_region(ctx, vars, why);
  if (!region) return std::nullopt;
  if (!region->bounds.count(p.t.var) || !region->only_bounds) {
    why = "the guard is not a plain `t < T`";
    return std::nullopt;
  }
  p.region = *region;
  auto bound = ctx.text(region->bounds.at(p.t.var));
  if (!bound) {
    why = "the guard's bound is spelled in a macro";
    return std::nullopt;
  }
  p.bound = *bound;
  if (!only_pure_declarations(ctx, p.region.prologue)) {
    why = "declarations with effects before the guard";
    return std::nullopt;
  }
  std::set<const VarDecl*> prologue_vars;
  for (const Stmt* s : p.region.prologue)
    if (const auto* ds = dyn_cast<DeclStmt>(s))
      for (const Decl* d : ds->decls())
        if (const auto* v = dyn_cast<VarDecl>(d)) prologue_vars.insert(v);
  for (const Stmt* s : p.region.body) {
    if (contains_return(s)) {
      why = "a return inside the row's work";
      return std::nullopt;
    }
    if (auto h = hidden_memory(s)) {
      why = *h + " in the row's work";
      return std::nullopt;
    }
    if (const auto* ds = dyn_cast<DeclStmt>(s))
      for (const Decl* d : ds->decls()) {
        const auto* v = dyn_cast<VarDecl>(d);
        if (!v || !v->getType()->isScalarType() || v->getType()->isReferenceType() ||
            v->getType()->getContainedAutoType() || v->hasAttr<CUDASharedAttr>() || v->isStaticLocal()) {
          why = "a declaration in the guarded body is not of a spelled scalar or pointer type";
          return std::nullopt;
        }
      }
  }
  // The loops to stage: top-level `for`s of the guarded body that touch
  // global memory; any other loop must not.
  const Symbol tx = builtin_symbol(SymbolKind::ThreadIdx, 0), bx = builtin_symbol(SymbolKind::BlockIdx, 0),
               bd = builtin_symbol(SymbolKind::BlockDim, 0);
  std::optional<Polynomial> stride;
  // Classifies one global access: t * S + k * i + c (k = 1 in a loop, 0 outside).
  auto classify = [&](const Access& a, const VarDecl* counter, StagedAccess& out) -> bool {
    auto text = ctx.text(a.expr).value_or("a subscript");
    if (!a.root || !a.root_is_param || !a.flat_index) {
      why = "`" + text + "` is not an element of a pointer parameter";
      return false;
    }
    if (a.member || a.indices.size() != 1) {
      why = "`" + text + "` is not a plain element access";
      return false;
    }
    const auto* param = dyn_cast<ParmVarDecl>(a.root);
    if (!param || !param->getType()->isPointerType() || ctx.modified.count(param)) {
      why = "`" + text + "` goes through a pointer parameter the kernel changes";
      return false;
    }
    auto poly = to_polynomial(a.flat_index);
    if (!poly) {
      why = "`" + text + "` is not affine";
      return false;
    }
    auto s = poly->coefficient_of(tx);
    auto sb = poly->coefficient_of(bx);
    if (!s || !sb || (*s * Polynomial::symbol(bd)).terms != sb->terms || (s->is_constant() && s->constant_term() == 0) ||
        !is_uniform(*s)) {
      why = "`" + text + "` is not `t * S + ...` with a uniform row stride S";
      return false;
    }
    for (const auto& [mono, c] : s->terms)
      for (const Symbol& sym : mono)
        if (sym.kind == SymbolKind::LoopCounter || sym.kind == SymbolKind::BlockIdx || sym.kind == SymbolKind::BlockDim) {
          why = "`" + text + "`'s row stride is not uniform";
          return false;
        }
    if (stride && !(*stride - *s).terms.empty()) {
      // (a - b) may keep zero terms; compare the normal forms instead.
      bool same = true;
      for (const auto& [mono, c] : (*stride - *s).terms) same &= c == 0;
      if (!same) {
        why = "rows of different strides (`" + text + "`)";
        return false;
      }
    }
    stride = *s;
    Polynomial rest = *poly - *s * (Polynomial::symbol(bx) * Polynomial::symbol(bd) + Polynomial::symbol(tx));
    if (counter) {
      const Symbol k{SymbolKind::LoopCounter, 0, counter->getNameAsString(), true};
      auto ck = rest.coefficient_of(k);
      if (!ck || !is_constant(*ck, 1)) {
        why = "`" + text + "` does not step one element per iteration of its loop";
        return false;
      }
      rest = rest - Polynomial::symbol(k);
    }
    bool constant = true;
    for (const auto& [mono, c] : rest.terms) constant &= mono.empty() || c == 0;
    if (!constant) {
      why = "`" + text + "` is not `t * S + " + std::string(counter ? "i + " : "") + "c` with a constant c";
      return false;
    }
    out.offset = rest.constant_term();
    if (out.offset < -kMaxOffset || out.offset > kMaxOffset) {
      why = "`" + text + "` reaches too far from the row's position";
      return false;
    }
    out.expr = a.expr;
    out.array = param;
    out.read = a.read;
    out.write = a.write;
    return true;
  };
  std::set<const Stmt*> staged_stmts;
  for (const Stmt* s : p.region.body) {
    const auto* fs = dyn_cast<ForStmt>(s);
    if (!fs) continue;
    bool touches = false;
    for (const Access& a : accesses_in(ctx, fs))
      if (!a.is_shared && (!a.root || a.root_is_param)) touches = true;
    if (!touches) continue;
    StagedLoop w;
    w.loop = fs;
    auto c = ctx.for_counter(fs);
    if (!c) {
      why = "a loop without a counter of its own";
      return std::nullopt;
    }
    w.counter = *c;
    if (modified_variables(fs->getBody()).count(c->var)) {
      why = "the loop's body changes its counter";
      return std::nullopt;
    }
    if (has_nested_loop_or_break(fs->getBody())) {
      why = "a nested loop or break in a row loop";
      return std::nullopt;
    }
    if (!loop_range(ctx, w, prologue_vars, why)) return std::nullopt;
    std::set<const Stmt*> conditional;
    mark_conditional_nodes(fs->getBody(), false, conditional);  // `continue` included
    for (const Access& a : accesses_in(ctx, fs->getBody())) {
      if (a.is_shared) continue;
      if (a.root && !a.root_is_param) continue;  // a thread's local array
      StagedAccess r;
      if (!classify(a, c->var, r)) return std::nullopt;
      r.certain = !conditional.count(a.expr);
      w.accesses.push_back(r);
    }
    // The header may read memory too.
    for (const Stmt* h : {static_cast<const Stmt*>(fs->getCond()), static_cast<const Stmt*>(fs->getInc()),
                          static_cast<const Stmt*>(fs->getInit())})
      if (h && !accesses_in(ctx, h).empty()) {
        why = "a row loop's header reads memory";
        return std::nullopt;
      }
    for (const auto& [arr, f] : footprints(w)) {
      // Offsets executed every iteration: contiguous; others inside them.
      std::set<std::int64_t> certain;
      for (const StagedAccess& a : w.accesses)
        if (a.array == arr && a.certain) certain.insert(a.offset);
      if (certain.empty() || *certain.rbegin() - *certain.begin() + 1 != static_cast<std::int64_t>(certain.size()) ||
          f.lo < *certain.begin() || f.hi > *certain.rbegin()) {
        why = "`" + arr->getNameAsString() +
              "` is not read or written at contiguous offsets on every iteration (its stretch could reach past what "
              "the loop touches)";
        return std::nullopt;
      }
    }
    staged_stmts.insert(fs);
    p.loops.push_back(std::move(w));
  }
  if (p.loops.empty()) {
    why = "no loop of the guarded body walks the thread's row";
    return std::nullopt;
  }
  // Every other global access of the kernel: `t * S + c`.
  for (const Access& a : accesses_in(ctx, ctx.body)) {
    if (a.is_shared) {
      why = "shared memory";
      return std::nullopt;
    }
    if (a.root && !a.root_is_param) continue;
    bool in_loop = false;
    for (const StagedLoop& w : p.loops)
      for (const StagedAccess& r : w.accesses) in_loop |= r.expr == a.expr;
    if (in_loop) continue;
    StagedAccess r;
    if (!classify(a, nullptr, r)) return std::nullopt;
    p.outside.push_back(r);
  }
  for (const Stmt* s : p.region.body)
    if (!staged_stmts.count(s)) {
      bool loop_with_memory = false;
      std::function<void(const Stmt*)> walk = [&](const Stmt* n) {
        if (!n) return;
        if ((isa<ForStmt>(n) || isa<WhileStmt>(n) || isa<DoStmt>(n)) && !accesses_in(ctx, n).empty())
          loop_with_memory = true;
        for (const Stmt* c : n->children()) walk(c);
      };
      walk(s);
      if (loop_with_memory) {
        why = "a loop inside another statement reads or writes memory";
        return std::nullopt;
      }
    }
  auto stride_text = render_index(*stride, "", "");
  if (!stride_text) {
    why = "the row stride cannot be spelled";
    return std::nullopt;
  }
  p.stride = *stride_text;
  if (auto k = stride->is_constant() ? std::optional<std::int64_t>(stride->constant_term()) : std::nullopt; k && *k < 16) {
    why = "rows of fewer than 16 elements: consecutive threads already share lines";
    return std::nullopt;
  }
  // The arrays.
  auto add = [&](const StagedAccess& r) {
    for (StagedArray& a : p.arrays)
      if (a.param == r.array) {
        a.written |= r.write;
        return;
      }
    StagedArray a;
    a.param = r.array;
    const QualType pointee = r.array->getType()->getPointeeType();
    a.element = pointee_spelling(r.array);  // `T` in a template
    a.size = ctx.ctx().getTypeSizeInChars(pointee).getQuantity();
    a.written = r.write;
    p.arrays.push_back(a);
  };
  for (const StagedLoop& w : p.loops)
    for (const StagedAccess& r : w.accesses) add(r);
  for (const StagedAccess& r : p.outside) add(r);
  for (const StagedArray& a : p.arrays)
    if (a.size <= 0 || a.size > 16 || !a.param->getType()->getPointeeType()->isScalarType()) {
      why = "`" + a.param->getNameAsString() + "` is not an array of scalars";
      return std::nullopt;
    }
  // Launches: 1-D grids and blocks.
  if (!launches_rewritable(ctx, why)) return std::nullopt;
  for (const CUDAKernelCallExpr* l : ctx.launches) {
    const LaunchConfig lc = launch_config(l);
    for (const Expr* e : {lc.grid, lc.block}) {
      if (!e || one_dimensional(e)) continue;
      auto d = eval_dim3(ctx.file, e);
      if (!d || d->y != 1 || d->z != 1) {
        why = "a launch's grid or block is not provably 1-D";
        return std::nullopt;
      }
    }
  }
  return p;
}

}  // namespace warplens::agent::rw
