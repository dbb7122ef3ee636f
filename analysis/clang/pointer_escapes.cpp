// Parameter::pointer_escapes (see pointer_escapes.h). Two steps: a walk that
// marks every mention of a pointer parameter (or of a local pointer
// initialised from one) that sits in a position the model understands, then
// a scan for mentions left unmarked. Anything unrecognised escapes: being
// wrong in that direction only costs a finding, never a false claim.
#include "analysis/clang/pointer_escapes.h"

#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include <map>
#include <set>

#include "analysis/clang/ast_helpers.h"

using namespace clang;

namespace warplens::clang_frontend {

namespace {

bool is_access_builtin(const std::string& name) {
  return starts_with(name, "atomic") || starts_with(name, "__nv_atomic") || name == "__ldg" || name == "__ldcg" ||
         name == "__ldca" || name == "__ldcs" || name == "__ldlu" || name == "__ldcv" || name == "__stcg" ||
         name == "__stcs" || name == "__stwb" || name == "__stwt";
}

class EscapeScan {
 public:
  EscapeScan(const SourceMapper& map, const FunctionDecl* fn) : map_(map), fn_(fn) {
    for (unsigned i = 0; i < fn->getNumParams(); ++i) {
      const ParmVarDecl* p = fn->getParamDecl(i);
      if (p->getType()->isPointerType()) origin_[p] = {int(i)};
    }
  }

  std::set<int> run() {
    if (origin_.empty() || !fn_->getBody()) return {};
    walk(fn_->getBody());
    Mentions mentions(*this);
    mentions.TraverseStmt(const_cast<Stmt*>(fn_->getBody()));
    return escaped_;
  }

 private:
  // Step 2: every mention of a tracked variable that step 1 did not mark.
  class Mentions : public RecursiveASTVisitor<Mentions> {
   public:
    explicit Mentions(EscapeScan& s) : s_(s) {}
    bool VisitDeclRefExpr(DeclRefExpr* ref) {
      if (!s_.ok_.count(ref)) s_.escape(ref);
      return true;
    }
    bool TraverseLambdaExpr(LambdaExpr* l) {
      // Captured by a lambda: the model does not follow its body.
      for (const LambdaCapture& c : l->captures())
        if (c.capturesVariable())
          if (auto* v = dyn_cast<VarDecl>(c.getCapturedVar())) s_.escape(v);
      return true;
    }

   private:
    EscapeScan& s_;
  };

  const VarDecl* tracked(const clang::Expr* e) const {
    auto* ref = dyn_cast_or_null<DeclRefExpr>(e);
    if (!ref) return nullptr;
    auto* v = dyn_cast<VarDecl>(ref->getDecl());
    return v && origin_.count(v) ? v : nullptr;
  }
  void escape(const DeclRefExpr* ref) {
    if (auto* v = dyn_cast<VarDecl>(ref->getDecl())) escape(v);
  }
  void escape(const VarDecl* v) {
    if (auto it = origin_.find(v); it != origin_.end()) escaped_.insert(it->second.begin(), it->second.end());
  }

  // The variable a pointer expression is rooted at, through parentheses,
  // casts, pointer arithmetic and `&p[i]` / `&*p`.
  const clang::Expr* root(const clang::Expr* e) const {
    for (int depth = 0; e && depth < 32; ++depth) {
      e = e->IgnoreParens();
      if (auto* c = dyn_cast<CastExpr>(e)) {
        e = c->getSubExpr();
      } else if (auto* b = dyn_cast<BinaryOperator>(e);
                 b && (b->getOpcode() == BO_Add || b->getOpcode() == BO_Sub) && b->getType()->isPointerType()) {
        e = b->getLHS()->getType()->isPointerType() ? b->getLHS() : b->getRHS();
      } else if (auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_AddrOf) {
        const clang::Expr* sub = u->getSubExpr()->IgnoreParens();
        if (auto* s = dyn_cast<ArraySubscriptExpr>(sub); s && s->getBase()->getType()->isPointerType())
          e = s->getBase();
        else if (auto* d = dyn_cast<UnaryOperator>(sub); d && d->getOpcode() == UO_Deref)
          e = d->getSubExpr();
        else
          return nullptr;
      } else {
        return e;
      }
    }
    return nullptr;
  }

  // A pointer used to reach memory: its root is fine; its offsets are walked.
  void pointer_use(const clang::Expr* p) {
    const clang::Expr* r = root(p);
    if (tracked(r)) ok_.insert(cast<DeclRefExpr>(r));
    parts(p);
  }

  // The evaluated parts of a pointer expression other than its root.
  void parts(const clang::Expr* e) {
    e = e->IgnoreParens();
    if (auto* c = dyn_cast<CastExpr>(e)) return parts(c->getSubExpr());
    if (auto* b = dyn_cast<BinaryOperator>(e);
        b && (b->getOpcode() == BO_Add || b->getOpcode() == BO_Sub) && b->getType()->isPointerType()) {
      bool left = b->getLHS()->getType()->isPointerType();
      parts(left ? b->getLHS() : b->getRHS());
      return walk(left ? b->getRHS() : b->getLHS());
    }
    if (auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_AddrOf) {
      const clang::Expr* sub = u->getSubExpr()->IgnoreParens();
      if (auto* s = dyn_cast<ArraySubscriptExpr>(sub); s && s->getBase()->getType()->isPointerType()) {
        parts(s->getBase());
        return walk(s->getIdx());
      }
      if (auto* d = dyn_cast<UnaryOperator>(sub); d && d->getOpcode() == UO_Deref) return parts(d->getSubExpr());
    }
    if (tracked(e)) return;
    walk(e);
  }

  bool is_followed_callee(const FunctionDecl* fd) const {
    const FunctionDecl* def = fd ? fd->getDefinition() : nullptr;
    return def && def->hasBody() && def->hasAttr<CUDADeviceAttr>() && map_.in_target(def->getLocation()) &&
           !map_.sm().isInSystemHeader(map_.sm().getExpansionLoc(def->getLocation()));
  }

  void walk(const Stmt* s) {
    if (!s) return;
    if (auto* d = dyn_cast<DeclStmt>(s)) {
      for (const Decl* decl : d->decls())
        if (auto* v = dyn_cast<VarDecl>(decl)) {
          const clang::Expr* init = v->getInit();
          if (!init) continue;
          // `const float* row = in + r * n;`: row stands for `in` from now on.
          if (v->getType()->isPointerType())
            if (const VarDecl* from = tracked(root(init))) {
              auto origins = origin_[from];
              pointer_use(init);
              origin_[v] = std::move(origins);
              continue;
            }
          walk(init);
        }
      return;
    }
    if (isa<LambdaExpr>(s)) return;  // captures are judged by the mention scan
    auto* e = dyn_cast<clang::Expr>(s);
    if (!e) {
      for (const Stmt* c : s->children()) walk(c);
      return;
    }
    e = e->IgnoreParens();
    if (auto* a = dyn_cast<ArraySubscriptExpr>(e); a && a->getBase()->getType()->isPointerType()) {
      pointer_use(a->getBase());
      return walk(a->getIdx());
    }
    if (auto* m = dyn_cast<MemberExpr>(e); m && m->isArrow()) return pointer_use(m->getBase());
    if (auto* u = dyn_cast<UnaryOperator>(e)) {
      if (u->getOpcode() == UO_Deref) return pointer_use(u->getSubExpr());
      if (u->getOpcode() == UO_LNot && tracked(root(u->getSubExpr()))) return pointer_use(u->getSubExpr());
      if (u->getOpcode() == UO_AddrOf) {
        // `&p[i]` as a value: a pointer into p that goes wherever its user
        // takes it. Only the index is evaluated here.
        const clang::Expr* sub = u->getSubExpr()->IgnoreParens();
        if (auto* a = dyn_cast<ArraySubscriptExpr>(sub); a && a->getBase()->getType()->isPointerType()) {
          walk(a->getIdx());
          if (!tracked(root(a->getBase()))) walk(a->getBase());
          return;
        }
      }
    }
    if (auto* c = dyn_cast<CastExpr>(e); c && c->getCastKind() == CK_PointerToBoolean && tracked(root(c->getSubExpr())))
      return pointer_use(c->getSubExpr());
    if (auto* b = dyn_cast<BinaryOperator>(e); b && b->isComparisonOp() &&
                                              (b->getLHS()->getType()->isPointerType() ||
                                               b->getRHS()->getType()->isPointerType())) {
      for (const clang::Expr* side : {b->getLHS(), b->getRHS()})
        if (tracked(root(side))) pointer_use(side);
        else walk(side);
      return;
    }
    if (auto* call = dyn_cast<CallExpr>(e); call && !isa<CXXOperatorCallExpr>(call)) {
      const FunctionDecl* callee = call->getDirectCallee();
      std::string name = callee_name(callee);
      bool builtin = is_access_builtin(name) && call->getNumArgs() >= 1;
      bool followed = !builtin && is_followed_callee(callee) && !isa<CXXMemberCallExpr>(call);
      if (builtin || followed) {
        walk(call->getCallee());
        for (unsigned i = 0; i < call->getNumArgs(); ++i) {
          const clang::Expr* a = call->getArg(i);
          bool pointer = a->getType()->isPointerType();
          if (pointer && ((builtin && i == 0) || followed)) pointer_use(a);
          else walk(a);
        }
        return;
      }
    }
    for (const Stmt* c : e->children()) walk(c);
  }

  const SourceMapper& map_;
  const FunctionDecl* fn_;
  std::map<const VarDecl*, std::set<int>> origin_;  // tracked variable -> the parameters it derives from
  std::set<const DeclRefExpr*> ok_;
  std::set<int> escaped_;
};

}  // namespace

void mark_escaping_pointer_params(ASTContext&, const SourceMapper& map, const FunctionDecl* fn, Function& out) {
  for (int i : EscapeScan(map, fn).run())
    if (std::size_t(i) < out.params.size()) out.params[std::size_t(i)].pointer_escapes = true;
}

}  // namespace warplens::clang_frontend
