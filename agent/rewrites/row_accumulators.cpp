// Recognising a row loop's accumulators (row_loops.h): a plain update
// (`acc += e`, `acc = fmaxf(acc, e)`, `if (e > acc) acc = e;`), an arg-max
// or arg-min pair, and an online softmax's (max, rescaled sum) pair.
#include "agent/rewrites/row_loops.h"

#include <functional>
#include <set>

namespace warplens::agent::rw {

using namespace clang;
using clang::Expr;

namespace {

// A relational condition between `acc` and an expression e (either side)
// whose guarded `acc = e` assigns the same e, not reading acc: e, and
// whether the condition holds when e is greater than acc. Else nullopt.
struct Compared {
  const clang::Expr* e = nullptr;
  bool greater = false;
};
std::optional<Compared> compared_with(const BinaryOperator* cmp, const BinaryOperator* assign, const VarDecl* acc) {
  auto is_acc = [&](const clang::Expr* x) {
    const auto* r = dyn_cast<DeclRefExpr>(x->IgnoreParenImpCasts());
    return r && r->getDecl() == acc;
  };
  Compared c;
  if (is_acc(cmp->getRHS())) {
    c.e = cmp->getLHS();
    c.greater = cmp->getOpcode() == BO_GT || cmp->getOpcode() == BO_GE;
  } else if (is_acc(cmp->getLHS())) {
    c.e = cmp->getRHS();
    c.greater = cmp->getOpcode() == BO_LT || cmp->getOpcode() == BO_LE;
  } else {
    return std::nullopt;
  }
  llvm::FoldingSetNodeID a, b;
  c.e->IgnoreParenImpCasts()->Profile(a, acc->getASTContext(), /*Canonical=*/true);
  assign->getRHS()->IgnoreParenImpCasts()->Profile(b, acc->getASTContext(), /*Canonical=*/true);
  if (a != b || refers_to(c.e, acc)) return std::nullopt;
  return c;
}

// The accumulator an update statement combines into, or nullopt.
}  // namespace

std::optional<Accumulator> accumulator_update(const Stmt* s, const std::set<const VarDecl*>& outer, const Expr** value) {
  auto var_of = [&](const clang::Expr* e) -> const VarDecl* {
    const auto* r = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    const auto* v = r ? dyn_cast<VarDecl>(r->getDecl()) : nullptr;
    return v && outer.count(v) ? v : nullptr;
  };
  if (const auto* ca = dyn_cast<CompoundAssignOperator>(s); ca && ca->getOpcode() == BO_AddAssign) {
    if (const VarDecl* v = var_of(ca->getLHS())) {
      *value = ca->getRHS();
      return Accumulator{v, Combine::Add, "", nullptr, ""};
    }
    return std::nullopt;
  }
  // if (e > acc) acc = e;   if (acc < e) acc = e;   (min alike), no else, e
  // the same expression in both places.
  if (const auto* ifs = dyn_cast<IfStmt>(s); ifs && !ifs->getElse() && !ifs->getInit() && !ifs->getConditionVariable()) {
    const Stmt* then = ifs->getThen();
    if (const auto* cs = dyn_cast<CompoundStmt>(then); cs && cs->size() == 1) then = cs->body_front();
    const auto* assign = dyn_cast<BinaryOperator>(then);
    const auto* cmp = dyn_cast<BinaryOperator>(ifs->getCond()->IgnoreParenImpCasts());
    if (!assign || assign->getOpcode() != BO_Assign || !cmp || !cmp->isRelationalOp()) return std::nullopt;
    const VarDecl* v = var_of(assign->getLHS());
    auto c = v ? compared_with(cmp, assign, v) : std::nullopt;
    if (!c) return std::nullopt;
    *value = assign->getRHS();
    return Accumulator{v, c->greater ? Combine::MaxIf : Combine::MinIf, "", nullptr, ""};
  }
  const auto* bo = dyn_cast<BinaryOperator>(s);
  if (!bo || bo->getOpcode() != BO_Assign) return std::nullopt;
  const VarDecl* v = var_of(bo->getLHS());
  if (!v) return std::nullopt;
  const clang::Expr* rhs = bo->getRHS()->IgnoreParenImpCasts();
  if (const auto* add = dyn_cast<BinaryOperator>(rhs); add && add->getOpcode() == BO_Add) {
    if (var_of(add->getLHS()) == v) return *value = add->getRHS(), Accumulator{v, Combine::Add, "", nullptr, ""};
    if (var_of(add->getRHS()) == v) return *value = add->getLHS(), Accumulator{v, Combine::Add, "", nullptr, ""};
    return std::nullopt;
  }
  if (const auto* call = dyn_cast<CallExpr>(rhs); call && call->getNumArgs() == 2 && call->getDirectCallee()) {
    const std::string n = call->getDirectCallee()->getNameAsString();
    Combine op;
    if (n == "fmaxf" || n == "fmax" || n == "max") op = Combine::Max;
    else if (n == "fminf" || n == "fmin" || n == "min") op = Combine::Min;
    else return std::nullopt;
    if (var_of(call->getArg(0)) == v) return *value = call->getArg(1), Accumulator{v, op, n, nullptr, ""};
    if (var_of(call->getArg(1)) == v) return *value = call->getArg(0), Accumulator{v, op, n, nullptr, ""};
  }
  return std::nullopt;
}



// An arg-max or arg-min update over the loop counter `k`:
//   if (e > best) { best = e; at = k; }    (either order in the braces;
// `best < e` alike; `>=`/`<=` keep the last extreme; `<` the minimum), e
// the same expression in the condition and the assignment, reading neither
// variable. `value` receives e. Two accumulators: best (ArgValue) and at
// (the index, whose partner is best), or nullopt.
std::optional<std::pair<Accumulator, Accumulator>> arg_update_of(const Stmt* s, const std::set<const VarDecl*>& outer,
                                                                 const VarDecl* k, const Expr** value) {
  const auto* ifs = dyn_cast<IfStmt>(s);
  if (!ifs || ifs->getElse() || ifs->getInit() || ifs->getConditionVariable()) return std::nullopt;
  const auto* cs = dyn_cast<CompoundStmt>(ifs->getThen());
  if (!cs || cs->size() != 2) return std::nullopt;
  auto var_of = [&](const clang::Expr* e) -> const VarDecl* {
    const auto* r = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    const auto* v = r ? dyn_cast<VarDecl>(r->getDecl()) : nullptr;
    return v && outer.count(v) ? v : nullptr;
  };
  const auto* cmp = dyn_cast<BinaryOperator>(ifs->getCond()->IgnoreParenImpCasts());
  if (!cmp || !cmp->isRelationalOp()) return std::nullopt;
  const auto* first = dyn_cast<BinaryOperator>(cs->body_front());
  const auto* second = dyn_cast<BinaryOperator>(cs->body_back());
  if (!first || !second || first->getOpcode() != BO_Assign || second->getOpcode() != BO_Assign) return std::nullopt;
  for (int order = 0; order < 2; ++order) {
    const BinaryOperator* set_best = order ? second : first;
    const BinaryOperator* set_at = order ? first : second;
    const VarDecl* best = var_of(set_best->getLHS());
    const VarDecl* at = var_of(set_at->getLHS());
    const auto* kref = dyn_cast<DeclRefExpr>(set_at->getRHS()->IgnoreParenImpCasts());
    if (!best || !at || best == at || !kref || kref->getDecl() != k || !at->getType()->isIntegerType()) continue;
    auto c = compared_with(cmp, set_best, best);
    if (!c || refers_to(c->e, at)) continue;
    const bool greater = c->greater, inclusive = cmp->getOpcode() == BO_GE || cmp->getOpcode() == BO_LE;
    *value = set_best->getRHS();
    const Combine op = greater ? (inclusive ? Combine::ArgMaxLast : Combine::ArgMaxFirst)
                               : (inclusive ? Combine::ArgMinLast : Combine::ArgMinFirst);
    return std::make_pair(Accumulator{best, Combine::ArgValue, "", nullptr, ""}, Accumulator{at, op, "", best, ""});
  }
  return std::nullopt;
}

// The online softmax recurrence over the two outer variables a loop changes:
//   T mn = MAX(m, e);  s = s * EXP(m - mn) + EXP(e - mn);  m = mn;
// (MAX one of fmaxf/fmax/max, EXP one of expf/__expf/exp, the same in both
// calls; the operands of +, * and MAX in either order; e the same expression
// in both places, changing no variable and reading neither m nor s). Other
// statements of the body must not name m, s or mn. After any number of
// elements, s = sum of EXP(e_i - m) with m their maximum (exactly, up to
// rounding), so lanes that each ran it over part of the elements combine
// their pairs (M = max, s_a * EXP(m_a - M) + s_b * EXP(m_b - M)) into the
// pair of all of them.
bool online_pair(const KernelContext& ctx, const Stmt* body, const std::set<const VarDecl*>& modified,
                 std::vector<Accumulator>& out) {
  const auto* cs = dyn_cast<CompoundStmt>(body);
  if (!cs || modified.size() != 2) return false;
  auto ref = [](const clang::Expr* e) -> const VarDecl* {
    const auto* r = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    return r ? dyn_cast<VarDecl>(r->getDecl()) : nullptr;
  };
  auto callee = [](const clang::Expr* e) -> std::pair<const CallExpr*, std::string> {
    const auto* c = dyn_cast<CallExpr>(e->IgnoreParenImpCasts());
    if (!c || !c->getDirectCallee()) return {nullptr, ""};
    return {c, c->getDirectCallee()->getNameAsString()};
  };
  auto same = [&](const clang::Expr* a, const clang::Expr* b) {
    llvm::FoldingSetNodeID x, y;
    a->IgnoreParenImpCasts()->Profile(x, ctx.ctx(), /*Canonical=*/true);
    b->IgnoreParenImpCasts()->Profile(y, ctx.ctx(), /*Canonical=*/true);
    return x == y;
  };
  const std::set<const VarDecl*> changed = modified_variables(body);
  // 1. T mn = MAX(m, e);
  const VarDecl *m = nullptr, *s = nullptr, *mn = nullptr;
  const clang::Expr* e = nullptr;
  std::string max_fn, exp_fn;
  std::size_t decl_at = 0, sum_at = 0, max_at = 0, i = 0;
  for (const Stmt* st : cs->body()) {
    ++i;
    const auto* ds = dyn_cast<DeclStmt>(st);
    const auto* v = ds && ds->isSingleDecl() ? dyn_cast<VarDecl>(ds->getSingleDecl()) : nullptr;
    if (!v || !v->getInit() || changed.count(v)) continue;
    auto [call, n] = callee(v->getInit());
    if (!call || call->getNumArgs() != 2 || (n != "fmaxf" && n != "fmax" && n != "max")) continue;
    for (int k = 0; k < 2 && !mn; ++k)
      if (const VarDecl* a = ref(call->getArg(k)); a && modified.count(a)) {
        m = a, mn = v, e = call->getArg(1 - k), max_fn = n, decl_at = i;
      }
    if (mn) break;
  }
  if (!mn) return false;
  for (const VarDecl* v : modified)
    if (v != m) s = v;
  if (!s || refers_to(e, m) || refers_to(e, s) || refers_to(e, mn)) return false;
  for (const VarDecl* v : changed)
    if (refers_to(e, v)) return false;
  if (m->getType().getCanonicalType().getUnqualifiedType() != s->getType().getCanonicalType().getUnqualifiedType() ||
      !m->getType()->isRealFloatingType())
    return false;
  // EXP(a - b) with a matching `lhs` and b the variable mn.
  auto exp_of = [&](const clang::Expr* x, auto&& lhs_ok) {
    auto [call, n] = callee(x);
    if (!call || call->getNumArgs() != 1 || (n != "expf" && n != "__expf" && n != "exp")) return false;
    if (!exp_fn.empty() && n != exp_fn) return false;
    const auto* sub = dyn_cast<BinaryOperator>(call->getArg(0)->IgnoreParenImpCasts());
    if (!sub || sub->getOpcode() != BO_Sub || ref(sub->getRHS()) != mn || !lhs_ok(sub->getLHS())) return false;
    exp_fn = n;
    return true;
  };
  auto rescaled = [&](const clang::Expr* x) {  // s * EXP(m - mn), either order
    const auto* mul = dyn_cast<BinaryOperator>(x->IgnoreParenImpCasts());
    if (!mul || mul->getOpcode() != BO_Mul) return false;
    for (int k = 0; k < 2; ++k) {
      const clang::Expr* a = k ? mul->getRHS() : mul->getLHS();
      const clang::Expr* b = k ? mul->getLHS() : mul->getRHS();
      if (ref(a) == s && exp_of(b, [&](const clang::Expr* l) { return ref(l) == m; })) return true;
    }
    return false;
  };
  auto fresh = [&](const clang::Expr* x) { return exp_of(x, [&](const clang::Expr* l) { return same(l, e); }); };
  i = 0;
  for (const Stmt* st : cs->body()) {
    ++i;
    const auto* bo = dyn_cast<BinaryOperator>(st);
    if (!bo || bo->getOpcode() != BO_Assign) continue;
    const VarDecl* lhs = ref(bo->getLHS());
    if (lhs == s && !sum_at) {
      const auto* add = dyn_cast<BinaryOperator>(bo->getRHS()->IgnoreParenImpCasts());
      if (!add || add->getOpcode() != BO_Add) return false;
      if (!((rescaled(add->getLHS()) && fresh(add->getRHS())) || (rescaled(add->getRHS()) && fresh(add->getLHS()))))
        return false;
      sum_at = i;
    } else if (lhs == m && !max_at) {
      if (ref(bo->getRHS()) != mn) return false;
      max_at = i;
    }
  }
  if (!(decl_at < sum_at && sum_at < max_at)) return false;
  // Nothing else names the pair or mn.
  i = 0;
  for (const Stmt* st : cs->body()) {
    ++i;
    if (i == decl_at || i == sum_at || i == max_at) continue;
    if (refers_to(st, m) || refers_to(st, s) || refers_to(st, mn)) return false;
  }
  out.push_back(Accumulator{m, Combine::OnlineMax, max_fn, nullptr, ""});
  out.push_back(Accumulator{s, Combine::OnlineSum, max_fn, m, exp_fn});
  return true;
}

}  // namespace warplens::agent::rw
