#include "agent/rewrites/sum_terms.h"

namespace warplens::agent::rw {

using namespace clang;

namespace {

// Appends the factors of `e` to `out`; false when a factor is neither a
// parameter nor a positive constant.
bool factors(const KernelContext& ctx, const clang::Expr* e, ReassociatedTerms& out, int depth) {
  if (!e || depth > 8) return false;
  e = strip(e);
  if (const auto* c = dyn_cast<CStyleCastExpr>(e)) return factors(ctx, c->getSubExpr(), out, depth + 1);
  if (const auto* c = dyn_cast<CXXStaticCastExpr>(e)) return factors(ctx, c->getSubExpr(), out, depth + 1);
  if (const auto* b = dyn_cast<BinaryOperator>(e); b && b->getOpcode() == BO_Mul)
    return factors(ctx, b->getLHS(), out, depth + 1) && factors(ctx, b->getRHS(), out, depth + 1);
  if (const auto* r = dyn_cast<DeclRefExpr>(e)) {
    if (const auto* p = dyn_cast<ParmVarDecl>(r->getDecl())) {
      const int index = ctx.param_index(p);
      if (index < 0 || ctx.modified.count(p)) return false;
      out.push_back(ParamExtent{index, 0});
      return true;
    }
    if (const auto* v = dyn_cast<VarDecl>(r->getDecl()); v && v->hasInit() && !ctx.modified.count(v)) {
      if (auto k = ctx.eval_int(e); k && *k > 0) {
        out.push_back(ParamExtent{-1, *k});
        return true;
      }
      return factors(ctx, v->getInit(), out, depth + 1);
    }
  }
  if (auto k = ctx.eval_int(e); k && *k > 0) {
    out.push_back(ParamExtent{-1, *k});
    return true;
  }
  return false;
}

}  // namespace

ReassociatedTerms sum_terms(const KernelContext& ctx, const clang::Expr* count) {
  ReassociatedTerms out;
  if (!factors(ctx, count, out, 0)) return {};
  return out;
}

bool reorders_rounding(QualType type) {
  return !type.isNull() && type.getCanonicalType()->isFloatingType();
}

}  // namespace warplens::agent::rw
