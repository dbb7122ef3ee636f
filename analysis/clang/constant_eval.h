// Constant evaluation of host-side integers and dim3 values: through
// literals, macros, constexpr, sizeof, dim3 constructors and locals the host
// function never changes after their initialisation. Used for launch
// configurations (model_builder.cpp) and byte counts of allocations and
// copies (host_flow.cpp). Internal to analysis/clang/; all inline.
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include <array>
#include <cstdint>
#include <optional>
#include <set>

namespace warplens::clang_frontend {

namespace constant_eval_detail {
using namespace clang;

inline std::optional<std::int64_t> evaluate(const clang::Expr* e, const clang::ASTContext& ctx) {
  if (!e || e->isValueDependent() || e->isTypeDependent() || e->containsErrors()) return std::nullopt;
  clang::Expr::EvalResult r;
  if (e->EvaluateAsInt(r, ctx) && r.Val.isInt() && r.Val.getInt().getSignificantBits() <= 64)
    return r.Val.getInt().getExtValue();
  return std::nullopt;
}

// Locals a host function changes after their initialisation (assigned,
// incremented, address taken, passed by non-const reference).
class ModifiedVars : public clang::RecursiveASTVisitor<ModifiedVars> {
 public:
  std::set<const VarDecl*> vars;
  bool VisitBinaryOperator(BinaryOperator* b) {
    if (b->isAssignmentOp()) note(b->getLHS());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator* u) {
    if (u->isIncrementDecrementOp() || u->getOpcode() == UO_AddrOf) note(u->getSubExpr());
    return true;
  }
  bool VisitCallExpr(CallExpr* c) {
    const FunctionDecl* fd = c->getDirectCallee();
    unsigned shift = isa<CXXOperatorCallExpr>(c) && isa_and_nonnull<CXXMethodDecl>(fd) ? 1 : 0;
    if (shift && c->getNumArgs() > 0) {
      auto op = cast<CXXOperatorCallExpr>(c)->getOperator();
      if (op == OO_Equal || op == OO_PlusEqual || op == OO_MinusEqual || op == OO_StarEqual) note(c->getArg(0));
    }
    if (auto* mc = dyn_cast<CXXMemberCallExpr>(c))
      if (auto* md = mc->getMethodDecl(); md && !md->isConst()) note(mc->getImplicitObjectArgument());
    for (unsigned i = shift; fd && i < c->getNumArgs() && i - shift < fd->getNumParams(); ++i) {
      QualType p = fd->getParamDecl(i - shift)->getType();
      if (p->isReferenceType() && !p->getPointeeType().isConstQualified()) note(c->getArg(i));
    }
    return true;
  }

 private:
  void note(const clang::Expr* e) {
    e = e->IgnoreParenImpCasts();
    while (auto* m = dyn_cast<MemberExpr>(e)) e = m->getBase()->IgnoreParenImpCasts();
    if (auto* ref = dyn_cast<DeclRefExpr>(e))
      if (auto* v = dyn_cast<VarDecl>(ref->getDecl())) vars.insert(v);
  }
};

class LaunchEvaluator;

// What a LaunchEvaluator may ask beyond the expression and the function's
// own unchanged locals (launch_resolver.h supplies them for launches: the
// path conditions around the launch, the values a host function's
// parameters have at its call sites in the file, helpers returning one
// value). `depth` bounds the recursion across functions.
class EvalHooks {
 public:
  virtual ~EvalHooks() = default;
  // A variable's value where it is used: a path condition (`if (n == 16)`)
  // or a binding of a helper's parameter; checked before its initialiser.
  virtual std::optional<std::int64_t> known_integer(const VarDecl*, int /*depth*/) { return std::nullopt; }
  // A variable the function never changes and does not initialise itself:
  // a parameter, from the function's callers.
  virtual std::optional<std::int64_t> integer_variable(const VarDecl*, int /*depth*/) { return std::nullopt; }
  virtual std::optional<std::array<std::int64_t, 3>> dim3_variable(const VarDecl*, int /*depth*/) {
    return std::nullopt;
  }
  // A call of a function with a body in the file (`threadsFor(n)`, `makeBlock()`).
  virtual std::optional<std::int64_t> integer_call(const CallExpr*, LaunchEvaluator&, int /*depth*/) {
    return std::nullopt;
  }
  virtual std::optional<std::array<std::int64_t, 3>> dim3_call(const CallExpr*, LaunchEvaluator&, int /*depth*/) {
    return std::nullopt;
  }
};

// Constant-evaluates launch configurations through dim3 constructors, locals
// that are never changed, macros and constexpr (and, with hooks, through
// path conditions, callers and helpers).
class LaunchEvaluator {
 public:
  LaunchEvaluator(const ASTContext& ctx, const std::set<const VarDecl*>& modified, EvalHooks* hooks = nullptr)
      : ctx_(ctx), modified_(modified), hooks_(hooks) {}

  std::optional<std::int64_t> integer(const clang::Expr* e, int depth = 0) {
    if (!e || depth > 16) return std::nullopt;
    e = strip(e);
    if (!usable(e)) return std::nullopt;
    if (auto v = evaluate(e, ctx_)) return v;
    if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
      auto* var = dyn_cast<VarDecl>(ref->getDecl());
      if (!var || var->isInvalidDecl()) return std::nullopt;
      if (hooks_)
        if (auto v = hooks_->known_integer(var, depth)) return v;
      if (modified_.count(var)) return std::nullopt;
      if (var->hasInit() && var->isLocalVarDecl()) return integer(var->getInit(), depth + 1);
      if (hooks_ && (isa<ParmVarDecl>(var) || !var->hasInit())) return hooks_->integer_variable(var, depth + 1);
      return std::nullopt;
    }
    if (auto* call = dyn_cast<CallExpr>(e); call && hooks_ && !isa<CXXOperatorCallExpr>(call))
      return hooks_->integer_call(call, *this, depth + 1);
    if (auto* m = dyn_cast<MemberExpr>(e)) {
      std::string f = m->getMemberDecl()->getNameAsString();
      int i = f == "x" ? 0 : f == "y" ? 1 : f == "z" ? 2 : -1;
      if (i < 0) return std::nullopt;
      if (auto d = dim3(m->getBase(), depth + 1)) return (*d)[i];
      return std::nullopt;
    }
    if (auto* b = dyn_cast<BinaryOperator>(e)) {
      auto l = integer(b->getLHS(), depth + 1), r = integer(b->getRHS(), depth + 1);
      if (!l || !r) return std::nullopt;
      switch (b->getOpcode()) {
        case BO_Add: return *l + *r;
        case BO_Sub: return *l - *r;
        case BO_Mul: return *l * *r;
        case BO_Div: return *r ? std::optional(*l / *r) : std::nullopt;
        case BO_Rem: return *r ? std::optional(*l % *r) : std::nullopt;
        case BO_Shl: return *r >= 0 && *r < 62 ? std::optional(*l << *r) : std::nullopt;
        case BO_Shr: return *r >= 0 && *r < 62 ? std::optional(*l >> *r) : std::nullopt;
        case BO_LT: return std::int64_t(*l < *r);
        case BO_GT: return std::int64_t(*l > *r);
        case BO_LE: return std::int64_t(*l <= *r);
        case BO_GE: return std::int64_t(*l >= *r);
        case BO_EQ: return std::int64_t(*l == *r);
        case BO_NE: return std::int64_t(*l != *r);
        case BO_LAnd: return std::int64_t(*l && *r);
        case BO_LOr: return std::int64_t(*l || *r);
        default: return std::nullopt;
      }
    }
    if (auto* c = dyn_cast<ConditionalOperator>(e)) {
      auto cond = integer(c->getCond(), depth + 1);
      if (!cond) return std::nullopt;
      return integer(*cond ? c->getTrueExpr() : c->getFalseExpr(), depth + 1);
    }
    return std::nullopt;
  }

  std::optional<std::array<std::int64_t, 3>> dim3(const clang::Expr* e, int depth = 0) {
    if (!e || depth > 16) return std::nullopt;
    e = strip(e);
    if (!usable(e)) return std::nullopt;
    if (auto* ctor = dyn_cast<CXXConstructExpr>(e)) {
      const CXXConstructorDecl* cd = ctor->getConstructor();
      if (cd && cd->isCopyOrMoveConstructor() && ctor->getNumArgs() >= 1) return dim3(ctor->getArg(0), depth + 1);
      std::array<std::int64_t, 3> v{1, 1, 1};
      unsigned n = std::min(3u, ctor->getNumArgs());
      if (n == 1 && usable(ctor->getArg(0)) && ctor->getArg(0)->getType()->isRecordType())
        return dim3(ctor->getArg(0), depth + 1);
      for (unsigned i = 0; i < n; ++i) {
        auto x = integer(ctor->getArg(i), depth + 1);
        if (!x) return std::nullopt;
        v[i] = *x;
      }
      return v;
    }
    if (auto* init = dyn_cast<InitListExpr>(e)) {
      std::array<std::int64_t, 3> v{1, 1, 1};
      for (unsigned i = 0; i < std::min(3u, init->getNumInits()); ++i) {
        auto x = integer(init->getInit(i), depth + 1);
        if (!x) return std::nullopt;
        v[i] = *x;
      }
      return v;
    }
    if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
      auto* var = dyn_cast<VarDecl>(ref->getDecl());
      if (!var || var->isInvalidDecl() || modified_.count(var)) return std::nullopt;
      if (var->hasInit() && !isa<ParmVarDecl>(var)) return dim3(var->getInit(), depth + 1);
      if (hooks_ && var->getType().getNonReferenceType()->isRecordType()) return hooks_->dim3_variable(var, depth + 1);
      if (!var->getType()->isIntegralOrEnumerationType()) return std::nullopt;
    }
    if (auto* call = dyn_cast<CallExpr>(e); call && hooks_ && e->getType()->isRecordType() &&
                                            !isa<CXXOperatorCallExpr>(call))
      return hooks_->dim3_call(call, *this, depth + 1);
    if (e->getType()->isIntegralOrEnumerationType())
      if (auto x = integer(e, depth + 1)) return std::array<std::int64_t, 3>{*x, 1, 1};
    return std::nullopt;
  }

 private:
  // Code being typed is often ill-formed: Clang keeps going with recovery
  // expressions (errors inside, sometimes no type at all) and invalid
  // declarations. None of them has a value to evaluate.
  static bool usable(const clang::Expr* e) {
    return e && !e->containsErrors() && !e->getType().isNull() && !e->isTypeDependent() && !e->isValueDependent();
  }
  static const clang::Expr* strip(const clang::Expr* e) {
    while (e) {
      e = e->IgnoreParens();
      const clang::Expr* next = nullptr;
      if (auto* c = dyn_cast<CastExpr>(e)) next = c->getSubExpr();
      else if (auto* m = dyn_cast<MaterializeTemporaryExpr>(e)) next = m->getSubExpr();
      else if (auto* b = dyn_cast<CXXBindTemporaryExpr>(e)) next = b->getSubExpr();
      else if (auto* f = dyn_cast<FullExpr>(e)) next = f->getSubExpr();
      else if (auto* d = dyn_cast<CXXDefaultArgExpr>(e)) next = d->getExpr();
      if (!next) return e;
      e = next;
    }
    return e;
  }
  const ASTContext& ctx_;
  const std::set<const VarDecl*>& modified_;
  EvalHooks* hooks_ = nullptr;
};

}  // namespace constant_eval_detail

using constant_eval_detail::EvalHooks;
using constant_eval_detail::evaluate;
using constant_eval_detail::LaunchEvaluator;
using constant_eval_detail::ModifiedVars;

}  // namespace warplens::clang_frontend
