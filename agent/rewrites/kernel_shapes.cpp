#include "agent/rewrites/kernel_shapes.h"

namespace warplens::agent::rw {

using namespace clang;
using clang::Expr;

std::vector<const Stmt*> statements_of(const Stmt* s) {
  std::vector<const Stmt*> out;
  if (!s) return out;
  if (const auto* c = dyn_cast<CompoundStmt>(s)) {
    for (const Stmt* x : c->body()) out.push_back(x);
  } else {
    out.push_back(s);
  }
  return out;
}

std::vector<IndexVar> global_index_vars(const KernelContext& ctx) {
  std::vector<IndexVar> out;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s) return;
    if (const auto* ds = dyn_cast<DeclStmt>(s)) {
      for (const Decl* d : ds->decls()) {
        const auto* v = dyn_cast<VarDecl>(d);
        if (!v || !v->getInit() || ctx.modified.count(v) || !v->getType()->isIntegerType()) continue;
        auto p = ctx.polynomial(v->getInit());
        if (!p) continue;
        for (int dim = 0; dim < 3; ++dim)
          if (is_global_id(*p, dim)) out.push_back({v, dim, ds});
      }
    }
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(ctx.body);
  return out;
}

const IndexVar* index_var_for(const std::vector<IndexVar>& vars, const ValueDecl* d) {
  for (const auto& v : vars)
    if (v.var->getCanonicalDecl() == d->getCanonicalDecl()) return &v;
  return nullptr;
}

namespace {

bool is_cuda_or_math_function(const FunctionDecl* fd) {
  if (!fd) return true;
  const std::string name = fd->getNameAsString();
  if (name.rfind("__", 0) == 0 || name.rfind("atomic", 0) == 0) return true;
  // Functions from system/CUDA headers are library code.
  const SourceManager& sm = fd->getASTContext().getSourceManager();
  return sm.isInSystemHeader(fd->getLocation()) || !fd->hasBody();
}

bool function_uses_thread_state(const FunctionDecl* fd, int depth) {
  if (!fd || depth > 4 || is_cuda_or_math_function(fd)) return false;
  const Stmt* body = fd->getBody();
  if (!body) return false;
  bool found = false;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || found) return;
    if (const auto* e = dyn_cast<Expr>(s); e && as_builtin(e)) found = true;
    if (is_barrier_call(s)) found = true;
    if (const auto* call = dyn_cast<CallExpr>(s))
      if (function_uses_thread_state(call->getDirectCallee(), depth + 1)) found = true;
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(body);
  return found || uses_warp_primitives(body);
}

// Conjuncts of a && b && c (or disjuncts of ||), parens stripped.
void split_logical(const Expr* e, BinaryOperatorKind op, std::vector<const Expr*>& out) {
  e = e->IgnoreParenImpCasts();
  if (const auto* bo = dyn_cast<BinaryOperator>(e); bo && bo->getOpcode() == op) {
    split_logical(bo->getLHS(), op, out);
    split_logical(bo->getRHS(), op, out);
    return;
  }
  out.push_back(e);
}

bool is_return_only(const Stmt* s) {
  if (isa<ReturnStmt>(s)) return true;
  if (const auto* c = dyn_cast<CompoundStmt>(s)) return c->size() == 1 && isa<ReturnStmt>(c->body_front());
  return false;
}

}  // namespace

bool calls_thread_dependent_function(const Stmt* s) {
  bool found = false;
  std::function<void(const Stmt*)> walk = [&](const Stmt* x) {
    if (!x || found) return;
    if (const auto* call = dyn_cast<CallExpr>(x); call && !isa<CUDAKernelCallExpr>(call))
      if (function_uses_thread_state(call->getDirectCallee(), 0)) found = true;
    for (const Stmt* c : x->children()) walk(c);
  };
  walk(s);
  return found;
}

bool uses_warp_primitives(const Stmt* s) {
  return contains_call_named(s, [](const std::string& n) {
    for (const char* p : {"__shfl", "__ballot", "__any", "__all", "__activemask", "__syncwarp", "__match",
                          "__reduce", "tiled_partition", "coalesced_threads", "__uni"})
      if (n.rfind(p, 0) == 0) return true;
    return false;
  });
}

bool uses_atomics(const Stmt* s) {
  return contains_call_named(s, [](const std::string& n) {
    return n.rfind("atomic", 0) == 0 || n.rfind("__atomic", 0) == 0;
  });
}

bool identity_only_through_index_vars(const KernelContext& ctx, const std::vector<IndexVar>& vars,
                                      std::string& why, bool allow_block_z, bool allow_block_y) {
  std::set<const VarDecl*> index_decls;
  for (const auto& v : vars) index_decls.insert(v.var);
  bool ok = true;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || !ok) return;
    if (const auto* ds = dyn_cast<DeclStmt>(s)) {
      for (const Decl* d : ds->decls())
        if (const auto* v = dyn_cast<VarDecl>(d); v && v->getInit() && !index_decls.count(v)) walk(v->getInit());
      return;
    }
    if (const auto* bo = dyn_cast<BinaryOperator>(s); bo && bo->getOpcode() == BO_Mul) {
      auto a = as_builtin(bo->getLHS()), b = as_builtin(bo->getRHS());
      if (a && b && a->dim == b->dim &&
          ((a->kind == SymbolKind::GridDim && b->kind == SymbolKind::BlockDim) ||
           (a->kind == SymbolKind::BlockDim && b->kind == SymbolKind::GridDim)))
        return;  // a grid stride
    }
    if (const auto* e = dyn_cast<Expr>(s)) {
      if (auto b = as_builtin(e)) {
        if (allow_block_z && b->kind == SymbolKind::BlockIdx && b->dim == 2) return;
        if (allow_block_y && b->kind == SymbolKind::BlockIdx && b->dim == 1) return;
        ok = false;
        why = "the kernel reads thread/block coordinates outside a global index variable (" +
              ctx.text(e).value_or("a builtin") + ")";
        return;
      }
    }
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(ctx.body);
  if (ok && calls_thread_dependent_function(ctx.body)) {
    why = "the kernel calls a device function that depends on thread coordinates or synchronises";
    return false;
  }
  return ok;
}

bool reads_block_y(const Stmt* s) {
  if (!s) return false;
  if (const auto* e = dyn_cast<Expr>(s))
    if (auto b = as_builtin(e); b && b->kind == SymbolKind::BlockIdx && b->dim == 1) return true;
  for (const Stmt* c : s->children())
    if (reads_block_y(c)) return true;
  return false;
}

bool launches_have_flat_blocks(const KernelContext& ctx, std::string& why) {
  if (ctx.launches.empty()) {
    why = "no launch in this file shows the block";
    return false;
  }
  for (const CUDAKernelCallExpr* l : ctx.launches) {
    const Expr* block = launch_config(l).block;
    if (!block) return false;
    const Expr* e = block->IgnoreImplicit();
    if (const auto* c = dyn_cast<CXXConstructExpr>(e); c && c->getNumArgs() >= 1) {
      bool one = true;
      for (unsigned k = 1; k < c->getNumArgs(); ++k) one &= isa<CXXDefaultArgExpr>(c->getArg(k));
      if (one && c->getArg(0)->IgnoreImplicit()->getType()->isIntegerType()) continue;
    }
    if (e->getType()->isIntegerType()) continue;
    auto d = eval_dim3(ctx.file, block);
    if (!d || d->y != 1 || d->z != 1) {
      why = "a launch's block is not provably 1 along y and z (`" + ctx.text(block).value_or("?") + "`)";
      return false;
    }
  }
  return true;
}

std::optional<GuardedRegion> guarded_region(const KernelContext& ctx, const std::vector<IndexVar>& vars,
                                            std::string& why) {
  if (!ctx.body) {
    why = "the kernel has no body";
    return std::nullopt;
  }
  GuardedRegion g;
  std::vector<const Stmt*> stmts(ctx.body->body_begin(), ctx.body->body_end());
  std::size_t i = 0;
  for (; i < stmts.size(); ++i) {
    if (isa<IfStmt>(stmts[i])) break;
    if (!isa<DeclStmt>(stmts[i]) && !isa<NullStmt>(stmts[i])) {
      why = "statements other than declarations before the bounds check";
      return std::nullopt;
    }
    g.prologue.push_back(stmts[i]);
  }
  if (i == stmts.size()) {
    why = "no bounds check (`if (i < n)`) on the global index";
    return std::nullopt;
  }
  g.guard = cast<IfStmt>(stmts[i]);
  if (g.guard->getElse() || g.guard->getInit() || g.guard->getConditionVariable()) {
    why = "the bounds check has an else branch or an init statement";
    return std::nullopt;
  }
  std::vector<const Expr*> terms;
  if (is_return_only(g.guard->getThen())) {
    g.early_exit = true;
    for (std::size_t k = i + 1; k < stmts.size(); ++k) g.body.push_back(stmts[k]);
    split_logical(g.guard->getCond(), BO_LOr, terms);
  } else {
    if (i + 1 != stmts.size()) {
      why = "statements after the bounds-checked block";
      return std::nullopt;
    }
    g.then_branch = g.guard->getThen();
    g.body = statements_of(g.then_branch);
    split_logical(g.guard->getCond(), BO_LAnd, terms);
  }
  for (const Expr* t : terms) {
    const auto* bo = dyn_cast<BinaryOperator>(t);
    bool matched = false;
    if (bo) {
      // Normal form: index OP bound, OP = `<` (guard) or `>=` (exit).
      const Expr* lhs = bo->getLHS();
      const Expr* rhs = bo->getRHS();
      BinaryOperatorKind op = bo->getOpcode();
      if (op == BO_GT) { std::swap(lhs, rhs); op = BO_LT; }
      else if (op == BO_LE) { std::swap(lhs, rhs); op = BO_GE; }
      const BinaryOperatorKind want = g.early_exit ? BO_GE : BO_LT;
      if (op == want) {
        if (const auto* ref = dyn_cast<DeclRefExpr>(strip(lhs)))
          if (const IndexVar* iv = index_var_for(vars, ref->getDecl())) {
            ExprRef b = ctx.lower(rhs);
            if (b && !is_lane_varying(b)) {
              g.bounds[iv->var] = rhs;
              matched = true;
            }
          }
      }
    }
    if (!matched) g.only_bounds = false;
  }
  if (g.bounds.empty()) {
    why = "the kernel's condition does not bound a global index by a uniform value";
    return std::nullopt;
  }
  return g;
}

bool only_pure_declarations(const KernelContext& ctx, const std::vector<const Stmt*>& stmts) {
  for (const Stmt* s : stmts) {
    const auto* ds = dyn_cast<DeclStmt>(s);
    if (!ds) return false;
    for (const Decl* d : ds->decls()) {
      const auto* v = dyn_cast<VarDecl>(d);
      if (!v) return false;
      if (v->hasAttr<CUDASharedAttr>() || v->isStaticLocal()) return false;
      if (const Expr* init = v->getInit()) {
        if (!modified_variables(init).empty()) return false;
        if (contains_call_named(init, [](const std::string& n) {
              return n.rfind("atomic", 0) == 0 || n.rfind("__syncthreads", 0) == 0 || n == "printf" ||
                     n == "malloc" || n == "free";
            }))
          return false;
        if (contains_barrier(init)) return false;
      }
    }
  }
  (void)ctx;
  return true;
}

std::optional<Grid2D> match_grid_2d(const KernelContext& ctx, std::string& why, bool allow_batch) {
  Grid2D g;
  g.vars = global_index_vars(ctx);
  bool has_x = false, has_y = false;
  for (const auto& v : g.vars) {
    if (v.dim == 0 && !has_x) {
      g.x = v;
      has_x = true;
    } else if (v.dim == 1 && !has_y) {
      g.y = v;
      has_y = true;
    } else {
      why = "needs exactly one x and one y global index";
      return std::nullopt;
    }
  }
  if (!has_x || !has_y) {
    why = "not a 2-D kernel (needs x and y global indices)";
    return std::nullopt;
  }
  if (!identity_only_through_index_vars(ctx, g.vars, why)) {
    std::string batch_why;
    if (!allow_batch || !identity_only_through_index_vars(ctx, g.vars, batch_why, /*allow_block_z=*/true))
      return std::nullopt;
    // blockIdx.z as a batch: the z grid must be exactly the batches (one
    // thread deep blocks), which every accepting rewrite keeps.
    auto block = constant_block(ctx);
    if (!block || block->z != 1) {
      why = "the kernel reads blockIdx.z (a batch index) but a launch's block is not constant with z = 1";
      return std::nullopt;
    }
    g.batched = true;
  }
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
  if (!g.region.bounds.count(g.x.var) || !g.region.bounds.count(g.y.var)) {
    why = "both x and y must be bounds-checked";
    return std::nullopt;
  }
  return g;
}

std::optional<Elementwise> match_elementwise(const KernelContext& ctx, std::string& why, bool allow_gathers,
                                             bool allow_grid_stride_loop, bool allow_scatter_stores) {
  Elementwise m;
  std::string loop_why;
  std::optional<GridStrideLoop> loop =
      allow_grid_stride_loop ? match_grid_stride_loop(ctx, loop_why) : std::optional<GridStrideLoop>{};
  if (loop) {
    // The user's grid-stride loop: its counter is the index, its condition
    // the bound, its body the element's work (no guard: the loop condition
    // is one).
    m.user_loop = loop->loop;
    m.index.var = loop->index.var;
    m.index.dim = 0;
    m.region.prologue = loop->prologue;
    m.region.body = statements_of(loop->loop->getBody());
    m.region.bounds[loop->index.var] = loop->bound;
    m.bound = loop->bound;
    if (contains_barrier(ctx.body) || uses_warp_primitives(ctx.body)) {
      why = "barriers or warp primitives";
      return std::nullopt;
    }
  } else {
    m.vars = global_index_vars(ctx);
    if (m.vars.size() != 1 || m.vars[0].dim != 0) {
      why = "needs exactly one 1-D global index";
      return std::nullopt;
    }
    m.index = m.vars[0];
    if (!identity_only_through_index_vars(ctx, m.vars, why)) return std::nullopt;
    if (contains_barrier(ctx.body) || uses_warp_primitives(ctx.body)) {
      why = "barriers or warp primitives";
      return std::nullopt;
    }
    auto region = guarded_region(ctx, m.vars, why);
    if (!region) return std::nullopt;
    if (!region->bounds.count(m.index.var) || !region->only_bounds || region->bounds.size() != 1) {
      why = "the guard is not a plain `i < n`";
      return std::nullopt;
    }
    m.region = *region;
    m.bound = region->bounds.at(m.index.var);
  }
  for (const Stmt* s : m.region.prologue) {
    if (refers_to(s, m.index.var) && s != m.index.decl) {
      why = "a declaration before the guard depends on the index";
      return std::nullopt;
    }
    if (s == m.index.decl && cast<DeclStmt>(s)->isSingleDecl() == false) {
      why = "the index is declared together with other variables";
      return std::nullopt;
    }
  }
  if (!only_pure_declarations(ctx, m.region.prologue)) {
    why = "declarations with effects before the guard";
    return std::nullopt;
  }
  for (const Stmt* s : m.region.body) {
    if (contains_return(s)) {
      why = "a return inside the element's work";
      return std::nullopt;
    }
    if (isa<BreakStmt>(s) || isa<ContinueStmt>(s)) {
      why = "break/continue at the top of the element's work";
      return std::nullopt;
    }
  }
  // Locals declared before the guard are not modified by the element's work.
  for (const Stmt* s : m.region.prologue)
    for (const Decl* d : cast<DeclStmt>(s)->decls())
      if (const auto* v = dyn_cast<VarDecl>(d))
        for (const Stmt* b : m.region.body)
          if (modified_variables(b).count(v)) {
            why = "the element's work modifies `" + v->getNameAsString() + "`, declared before the guard";
            return std::nullopt;
          }
  std::set<const Stmt*> top_level(m.region.body.begin(), m.region.body.end());
  for (const Stmt* s : m.region.body)
    for (const Access& a : collect_accesses(s)) {
      if (a.is_shared) {
        why = "shared memory";
        return std::nullopt;
      }
      if (a.indices.size() != 1) {
        why = "a multi-dimensional subscript";
        return std::nullopt;
      }
      const Expr* idx = strip(a.indices[0]);
      const auto* ref = dyn_cast<DeclRefExpr>(idx);
      const bool at_i = ref && ref->getDecl()->getCanonicalDecl() == m.index.var->getCanonicalDecl();
      if (!at_i) {
        if (is_lane_varying(ctx.lower(a.indices[0]))) {
          const auto* gp = dyn_cast_or_null<ParmVarDecl>(a.base);
          if (allow_gathers && !a.write && gp && gp->getType()->isPointerType()) {
            m.gathers.push_back(a.expr);
            m.gathered.insert(gp);
            continue;
          }
          if (allow_scatter_stores && a.write && !a.read && !a.member && gp && gp->getType()->isPointerType()) {
            m.scatters.push_back(a.expr);
            m.scattered.insert(gp);
            continue;
          }
          why = "subscript `" + ctx.text(a.expr).value_or("?") + "` is neither [i] nor the same for every thread";
          return std::nullopt;
        }
        if (a.write) {
          why = "a store to a location shared by all threads";
          return std::nullopt;
        }
        continue;
      }
      const auto* param = dyn_cast_or_null<ParmVarDecl>(a.base);
      if (!param || !param->getType()->isPointerType()) {
        why = "`" + ctx.text(a.expr).value_or("?") + "` does not index a pointer parameter";
        return std::nullopt;
      }
      auto it = std::find_if(m.arrays.begin(), m.arrays.end(), [&](const auto& x) { return x.param == param; });
      if (it == m.arrays.end()) {
        m.arrays.push_back({param, false, false, false, {}});
        it = m.arrays.end() - 1;
      }
      it->read |= a.read;
      it->written |= a.write;
      it->uses.push_back(a.expr);
      if (a.write && !a.read && !a.member)
        for (const Stmt* t : top_level)
          if (const auto* bo = dyn_cast<BinaryOperator>(t); bo && bo->getOpcode() == BO_Assign &&
                                                             bo->getLHS()->IgnoreParenImpCasts() == a.expr)
            it->written_unconditionally = true;
    }
  // Pointers used other than by [i] subscripts (offsets, calls) are out of reach.
  for (const auto& arr : m.arrays) {
    std::size_t refs = 0, gathers = 0;
    for (const Stmt* s : m.region.body) refs += references_to(s, arr.param).size();
    for (const ArraySubscriptExpr* g : m.gathers) gathers += references_to(g, arr.param).size();
    if (arr.written && gathers) {
      why = "`" + arr.param->getNameAsString() + "` is written at [i] and read at other elements";
      return std::nullopt;
    }
    if (refs != arr.uses.size() + gathers) {
      why = "`" + arr.param->getNameAsString() + "` is used other than by [i] subscripts";
      return std::nullopt;
    }
  }
  for (const ParmVarDecl* g : m.gathered) {
    if (std::any_of(m.arrays.begin(), m.arrays.end(), [&](const auto& a) { return a.param == g; })) continue;
    std::size_t refs = 0, gathers = 0;
    for (const Stmt* s : m.region.body) refs += references_to(s, g).size();
    for (const ArraySubscriptExpr* e : m.gathers) gathers += references_to(e, g).size();
    if (refs != gathers) {
      why = "`" + g->getNameAsString() + "` is used other than by subscripts";
      return std::nullopt;
    }
  }
  // A scattered array is stored only by its scatters: no other use, no [i].
  for (const ParmVarDecl* q : m.scattered) {
    std::size_t refs = 0, scatters = 0;
    for (const Stmt* s : m.region.body) refs += references_to(s, q).size();
    for (const ArraySubscriptExpr* e : m.scatters) scatters += references_to(e, q).size();
    const bool elsewhere = m.gathered.count(q) ||
                           std::any_of(m.arrays.begin(), m.arrays.end(), [&](const auto& a) { return a.param == q; });
    if (refs != scatters || elsewhere) {
      why = "`" + q->getNameAsString() + "` is stored at scattered elements and also used otherwise";
      return std::nullopt;
    }
  }
  if (m.arrays.empty()) {
    why = "no per-element global access";
    return std::nullopt;
  }
  return m;
}

bool launches_pass_distinct_pointers(const KernelContext& ctx, const std::vector<const ParmVarDecl*>& params,
                                     std::string& why) {
  if (ctx.launches.empty()) {
    why = "no launch in this file shows which pointers are passed";
    return false;
  }
  for (const CUDAKernelCallExpr* l : ctx.launches) {
    std::set<const Decl*> seen;
    for (const ParmVarDecl* p : params) {
      const int i = ctx.param_index(p);
      if (i < 0 || static_cast<unsigned>(i) >= l->getNumArgs()) return false;
      const Expr* arg = l->getArg(static_cast<unsigned>(i))->IgnoreParenImpCasts();
      if (const auto* c = dyn_cast<ExplicitCastExpr>(arg)) arg = c->getSubExpr()->IgnoreParenImpCasts();
      const auto* ref = dyn_cast<DeclRefExpr>(arg);
      if (!ref) {
        why = "a launch passes `" + ctx.text(arg).value_or("an expression") + "` for `" + p->getNameAsString() +
              "`: cannot rule out aliasing";
        return false;
      }
      if (!seen.insert(ref->getDecl()->getCanonicalDecl()).second) {
        why = "a launch passes `" + ref->getDecl()->getNameAsString() + "` for two pointer parameters";
        return false;
      }
    }
  }
  return true;
}

bool contains_any_builtin(const Stmt* s) {
  if (!s) return false;
  if (const auto* e = dyn_cast<Expr>(s); e && as_builtin(e)) return true;
  for (const Stmt* c : s->children())
    if (contains_any_builtin(c)) return true;
  return false;
}

std::optional<GridStrideLoop> match_grid_stride_loop(const KernelContext& ctx, std::string& why) {
  if (!ctx.body || ctx.body->body_empty()) {
    why = "the kernel has no body";
    return std::nullopt;
  }
  GridStrideLoop g;
  for (const Stmt* s : ctx.body->body()) {
    if (g.loop) {
      if (!isa<NullStmt>(s)) {
        why = "statements after the grid-stride loop";
        return std::nullopt;
      }
      continue;
    }
    if (const auto* f = dyn_cast<ForStmt>(s)) {
      g.loop = f;
      continue;
    }
    if (!isa<DeclStmt>(s) && !isa<NullStmt>(s)) {
      why = "statements other than declarations before the loop";
      return std::nullopt;
    }
    if (contains_any_builtin(s)) {
      why = "a declaration uses thread or grid coordinates";
      return std::nullopt;
    }
    g.prologue.push_back(s);
  }
  if (!g.loop) {
    why = "no grid-stride loop";
    return std::nullopt;
  }
  auto counter = ctx.for_counter(g.loop);
  if (!counter || !counter->var->getType()->isIntegerType()) {
    why = "the loop has no integer counter";
    return std::nullopt;
  }
  g.index = *counter;
  auto start = ctx.polynomial(counter->init);
  if (!start || !is_global_id(*start, 0)) {
    why = "the loop does not start at the global thread index";
    return std::nullopt;
  }
  const auto* cond = dyn_cast_or_null<BinaryOperator>(g.loop->getCond() ? g.loop->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!cond || cond->getOpcode() != BO_LT || !isa<DeclRefExpr>(cond->getLHS()->IgnoreParenImpCasts()) ||
      !refers_to(cond->getLHS(), counter->var) || refers_to(cond->getRHS(), counter->var) ||
      is_lane_varying(ctx.lower(cond->getRHS())) || contains_any_builtin(cond->getRHS())) {
    why = "the loop condition is not `i < n` with a uniform n";
    return std::nullopt;
  }
  g.bound = cond->getRHS();
  const auto* inc = dyn_cast_or_null<CompoundAssignOperator>(g.loop->getInc());
  const Symbol bd = builtin_symbol(SymbolKind::BlockDim, 0), gd = builtin_symbol(SymbolKind::GridDim, 0);
  const Polynomial stride = Polynomial::symbol(bd) * Polynomial::symbol(gd);
  auto step = inc ? ctx.polynomial(inc->getRHS()) : std::nullopt;
  if (!inc || inc->getOpcode() != BO_AddAssign || !refers_to(inc->getLHS(), counter->var) || !step ||
      step->terms != stride.terms) {
    why = "the loop does not step by blockDim.x * gridDim.x";
    return std::nullopt;
  }
  if (modified_variables(g.loop->getBody()).count(counter->var)) {
    why = "the loop body changes its counter";
    return std::nullopt;
  }
  if (contains_any_builtin(g.loop->getBody())) {
    why = "the loop body uses thread or grid coordinates";
    return std::nullopt;
  }
  if (calls_thread_dependent_function(g.loop->getBody())) {
    why = "the loop calls a device function that depends on thread coordinates or synchronises";
    return std::nullopt;
  }
  return g;
}

}  // namespace warplens::agent::rw
