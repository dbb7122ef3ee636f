// fuse-elementwise's 2-D form: two 2-D kernels over the same (x, y), the
// first writing a temporary the second reads back at the same element of
// the same thread (see two_d_plan).
#include <functional>
#include <set>

#include "agent/rewrites/fuse_plan.h"

namespace warplens::agent::rw {

using namespace clang;

namespace {

// The pointer parameters `k` stores through (p[e] = ..., p[e] += ..., ++p[e],
// *p = ...) or hands to a call (an atomic, a helper): what it may write.
std::set<const ParmVarDecl*> written_pointer_params(const FunctionDecl* k) {
  std::set<const ParmVarDecl*> out;
  auto base_param = [](const clang::Expr* e) -> const ParmVarDecl* {
    e = e->IgnoreParenImpCasts();
    if (const auto* a = dyn_cast<ArraySubscriptExpr>(e)) e = a->getBase()->IgnoreParenImpCasts();
    else if (const auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_Deref)
      e = u->getSubExpr()->IgnoreParenImpCasts();
    while (const auto* b = dyn_cast<BinaryOperator>(e)) {  // p + k
      if (!b->isAdditiveOp()) break;
      e = (b->getLHS()->getType()->isPointerType() ? b->getLHS() : b->getRHS())->IgnoreParenImpCasts();
    }
    const auto* r = dyn_cast<DeclRefExpr>(e);
    return r ? dyn_cast<ParmVarDecl>(r->getDecl()) : nullptr;
  };
  std::function<void(const Stmt*)> walk = [&](const Stmt* x) {
    if (!x) return;
    if (const auto* b = dyn_cast<BinaryOperator>(x); b && b->isAssignmentOp())
      if (const ParmVarDecl* q = base_param(b->getLHS())) out.insert(q);
    if (const auto* u = dyn_cast<UnaryOperator>(x); u && u->isIncrementDecrementOp())
      if (const ParmVarDecl* q = base_param(u->getSubExpr())) out.insert(q);
    if (const auto* c = dyn_cast<CallExpr>(x))
      for (const clang::Expr* a : c->arguments()) {
        if (!a->getType()->isPointerType()) continue;
        const auto* u = dyn_cast<UnaryOperator>(a->IgnoreParenImpCasts());
        if (const ParmVarDecl* q = base_param(u && u->getOpcode() == UO_AddrOf ? u->getSubExpr() : a)) out.insert(q);
      }
    for (const Stmt* c : x->children()) walk(c);
  };
  walk(k->getBody());
  return out;
}


// `e` (a subscript or a bound) as a function of the thread's (x, y) and
// parameters named as in the kernel, or nullopt.
std::optional<std::string> over_thread(const KernelContext& c, const clang::Expr* e) {
  auto poly = c.polynomial(e);
  return poly ? render_index(*poly, "Y", "X") : std::nullopt;
}

// The names of the parameters `e`'s polynomial mentions.
std::set<std::string> parameters_named(const KernelContext& c, const clang::Expr* e) {
  std::set<std::string> out;
  if (auto poly = c.polynomial(e))
    for (const auto& [monomial, coefficient] : poly->terms)
      for (const Symbol& s : monomial)
        if (s.kind == SymbolKind::Param) out.insert(s.name);
  return out;
}

// The 2-D form of the fusion: A and B are 2-D kernels over the same (x, y)
// (match_grid_2d: each (x, y) independent work, thread identity only
// through x and y), launched with the same configuration. A's work is pure
// declarations and one `tmp[S] = E;` under a guard of exactly its two
// bounds; B's guard checks the same bounds (and may check more), and B
// reads the temporary only at S, inside its guard, as a function of x, y
// and parameters that the launches pass the same values for. Then the
// element B's thread (x, y) reads is the one A's thread (x, y) wrote, and
// E evaluated at B's (x, y) is its value. A reads no array B writes (by the
// launches' arguments), so evaluating E later, inside B, reads the same.
}  // namespace

bool two_d_plan(const KernelContext& ctx, const KernelContext& ca, const KernelContext& cb, FusionPlan& p, std::string& why) {
  auto ga = match_grid_2d(ca, why);
  if (!ga) {
    why = "`" + p.a->getNameAsString() + "`: " + why;
    return false;
  }
  auto gb = match_grid_2d(cb, why);
  if (!gb) {
    why = "`" + p.b->getNameAsString() + "`: " + why;
    return false;
  }
  if (!ga->region.only_bounds || ga->region.body.empty()) {
    why = "`" + p.a->getNameAsString() + "`'s guard checks more than its bounds, or it stores nothing";
    return false;
  }
  // A: pure declarations, then `tmp[S] = E;`.
  std::vector<const Stmt*> a_decls;
  for (const Stmt* s : ga->region.prologue)
    if (s != ga->x.decl && s != ga->y.decl) a_decls.push_back(s);
  for (std::size_t k = 0; k + 1 < ga->region.body.size(); ++k) a_decls.push_back(ga->region.body[k]);
  if (!only_pure_declarations(ca, a_decls)) {
    why = "`" + p.a->getNameAsString() + "` does more than declare locals and make one store";
    return false;
  }
  for (const Stmt* s : a_decls)
    for (const Decl* d : cast<DeclStmt>(s)->decls()) {
      const auto* v = dyn_cast<VarDecl>(d);
      if (!v || !v->getInit() || ca.modified.count(v) || v->getType()->isReferenceType() ||
          !v->getType()->isScalarType()) {
        why = "`" + p.a->getNameAsString() + "` declares a local that is not a plain initialised scalar";
        return false;
      }
      p.a_locals.push_back(v);
    }
  p.a_store = dyn_cast<BinaryOperator>(ga->region.body.back());
  const auto* store_at = p.a_store && p.a_store->getOpcode() == BO_Assign
                             ? dyn_cast<ArraySubscriptExpr>(p.a_store->getLHS()->IgnoreParenImpCasts())
                             : nullptr;
  const auto* tmp_ref = store_at ? dyn_cast<DeclRefExpr>(store_at->getBase()->IgnoreParenImpCasts()) : nullptr;
  const auto* tmp_a = tmp_ref ? dyn_cast<ParmVarDecl>(tmp_ref->getDecl()) : nullptr;
  if (!tmp_a || !tmp_a->getType()->isPointerType()) {
    why = "`" + p.a->getNameAsString() + "` is not `tmp[index] = expression` on a pointer parameter";
    return false;
  }
  p.tmp_in_a = ca.param_index(tmp_a);
  // E and the locals name only x, y, parameters other than tmp, and locals
  // declared before them.
  std::set<const VarDecl*> visible = {ga->x.var, ga->y.var};
  bool refs_ok = true;
  std::function<void(const Stmt*)> refs = [&](const Stmt* x) {
    if (!x) return;
    if (const auto* r = dyn_cast<DeclRefExpr>(x)) {
      if (const auto* v = dyn_cast<VarDecl>(r->getDecl());
          v && v->hasLocalStorage() && !isa<ParmVarDecl>(v) && !visible.count(v))
        refs_ok = false;
      if (r->getDecl() == tmp_a) refs_ok = false;
    }
    for (const Stmt* c : x->children()) refs(c);
  };
  for (const VarDecl* v : p.a_locals) {
    refs(v->getInit());
    visible.insert(v);
  }
  refs(p.a_store->getRHS());
  if (!refs_ok) {
    why = "A's value uses locals other than its indices, or the temporary itself";
    return false;
  }
  auto a_sub = over_thread(ca, store_at->getIdx());
  auto a_bx = over_thread(ca, ga->region.bounds.at(ga->x.var)), a_by = over_thread(ca, ga->region.bounds.at(ga->y.var));
  auto b_bx = over_thread(cb, gb->region.bounds.at(gb->x.var)), b_by = over_thread(cb, gb->region.bounds.at(gb->y.var));
  if (!a_sub || !a_bx || !a_by || !b_bx || !b_by || *a_bx != *b_bx || *a_by != *b_by) {
    why = "the two kernels' guards do not check the same bounds, or A's subscript is not affine in x and y";
    return false;
  }
  // Host side: same configuration, the temporary a local passed once to each.
  const VarDecl* tmp_var = nullptr;
  for (const Pair& pr : p.pairs) {
    const std::string c1 = config_text(ctx, pr.first), c2 = config_text(ctx, pr.second);
    if (c1.empty() || c1 != c2) {
      why = "the two launches differ in grid, block, shared memory or stream";
      return false;
    }
    const VarDecl* v = local_var(pr.first->getArg(static_cast<unsigned>(p.tmp_in_a)));
    if (!v || (tmp_var && v != tmp_var)) {
      why = "the temporary is not one local variable of the launching function";
      return false;
    }
    tmp_var = v;
    int in_b = -1;
    for (unsigned k = 0; k < pr.second->getNumArgs(); ++k)
      if (local_var(pr.second->getArg(k)) == v) in_b = in_b >= 0 ? -2 : static_cast<int>(k);
    for (unsigned k = 0; k < pr.first->getNumArgs(); ++k)
      if (static_cast<int>(k) != p.tmp_in_a && local_var(pr.first->getArg(k)) == v) in_b = -2;
    if (in_b < 0 || (p.tmp_in_b >= 0 && in_b != p.tmp_in_b)) {
      why = "B does not take the temporary exactly once (or A takes it twice)";
      return false;
    }
    p.tmp_in_b = in_b;
  }
  if (!tmp_var || !temporary_used_only_by(ctx, p.pairs, tmp_var, why)) return false;
  // Parameters the subscript and bounds name: the same names in B, passed
  // the same values by every launch pair.
  std::set<std::string> named = parameters_named(ca, store_at->getIdx());
  for (const VarDecl* v : {ga->x.var, ga->y.var})
    for (const std::string& n : parameters_named(ca, ga->region.bounds.at(v))) named.insert(n);
  for (unsigned k = 0; k < p.a->getNumParams(); ++k) {
    const std::string name = p.a->getParamDecl(k)->getNameAsString();
    if (name.empty() || !named.count(name)) continue;
    int kb = -1;
    for (unsigned j = 0; j < p.b->getNumParams(); ++j)
      if (p.b->getParamDecl(j)->getNameAsString() == name) kb = static_cast<int>(j);
    for (const Pair& pr : p.pairs)
      if (kb < 0 || !same_argument(ctx, pr.first->getArg(k), pr.second->getArg(static_cast<unsigned>(kb)))) {
        why = "the launches do not pass `" + name + "` the same value in both kernels";
        return false;
      }
  }
  // B reads the temporary only at S (over its own x, y), inside its guard.
  const ParmVarDecl* tmp_b = p.b->getParamDecl(static_cast<unsigned>(p.tmp_in_b));
  if (written_pointer_params(p.b).count(tmp_b)) {
    why = "B writes the temporary";
    return false;
  }
  int refs_in_body = 0, refs_all = 0;
  bool reads_ok = true;
  std::function<void(const Stmt*, bool)> reads = [&](const Stmt* x, bool guarded) {
    if (!x) return;
    if (const auto* a = dyn_cast<ArraySubscriptExpr>(x))
      if (const auto* r = dyn_cast<DeclRefExpr>(a->getBase()->IgnoreParenImpCasts()); r && r->getDecl() == tmp_b) {
        auto sub = over_thread(cb, a->getIdx());
        if (!guarded || !sub || *sub != *a_sub) reads_ok = false;
        p.b_reads.push_back(a);
        ++refs_in_body;
        ++refs_all;
        return reads(a->getIdx(), guarded);  // a read of tmp inside the subscript counts too
      }
    if (const auto* r = dyn_cast<DeclRefExpr>(x); r && r->getDecl() == tmp_b) ++refs_all;
    for (const Stmt* c : x->children()) reads(c, guarded);
  };
  for (const Stmt* s : gb->region.prologue) reads(s, false);
  for (const Stmt* s : gb->region.body) reads(s, true);
  if (!reads_ok || refs_all != refs_in_body || p.b_reads.empty()) {
    why = "B reads the temporary other than at A's element of the same thread, inside its guard";
    return false;
  }
  // A reads nothing B writes.
  std::set<const ParmVarDecl*> a_reads;
  std::function<void(const Stmt*)> arrays = [&](const Stmt* x) {
    if (!x) return;
    if (const auto* r = dyn_cast<DeclRefExpr>(x))
      if (const auto* q = dyn_cast<ParmVarDecl>(r->getDecl()); q && q->getType()->isPointerType()) a_reads.insert(q);
    for (const Stmt* c : x->children()) arrays(c);
  };
  for (const VarDecl* v : p.a_locals) arrays(v->getInit());
  arrays(p.a_store->getRHS());
  const std::set<const ParmVarDecl*> b_writes = written_pointer_params(p.b);
  for (const Pair& pr : p.pairs)
    for (const ParmVarDecl* qa : a_reads) {
      const Decl* da = argument_decl(pr.first, p.a, qa);
      for (const ParmVarDecl* qb : b_writes) {
        const Decl* db = argument_decl(pr.second, p.b, qb);
        if (!da || !db || da == db) {
          why = "an array A reads may be one B writes";
          return false;
        }
      }
    }
  p.two_d = true;
  p.a_x = ga->x.var;
  p.a_y = ga->y.var;
  p.b_x = gb->x.var;
  p.b_y = gb->y.var;
  return true;
}

}  // namespace warplens::agent::rw
