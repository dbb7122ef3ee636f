#include "analysis/clang/launch_resolver.h"

#include <clang/AST/Attr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include <algorithm>

#include "analysis/clang/ast_helpers.h"

using namespace clang;

namespace warplens::clang_frontend {

namespace launch_resolver_detail {

constexpr int kMaxHops = 6;  // calls followed from a launch to a value

const clang::Expr* strip(const clang::Expr* e) {
  while (e) {
    e = e->IgnoreParens();
    if (auto* c = dyn_cast<CastExpr>(e)) e = c->getSubExpr();
    else if (auto* m = dyn_cast<MaterializeTemporaryExpr>(e)) e = m->getSubExpr();
    else if (auto* f = dyn_cast<FullExpr>(e)) e = f->getSubExpr();
    else if (auto* d = dyn_cast<CXXDefaultArgExpr>(e)) e = d->getExpr();
    else break;
  }
  return e;
}

// The variable an lvalue is part of: `k`, `table[i]`, `cfg.kernel`, `*p`.
const VarDecl* root_variable(const clang::Expr* e) {
  for (int guard = 0; e && guard < 16; ++guard) {
    e = strip(e);
    if (auto* ref = dyn_cast<DeclRefExpr>(e)) return dyn_cast<VarDecl>(ref->getDecl());
    if (auto* sub = dyn_cast<ArraySubscriptExpr>(e)) e = sub->getBase();
    else if (auto* m = dyn_cast<MemberExpr>(e)) e = m->getBase();
    else if (auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_Deref) e = u->getSubExpr();
    else return nullptr;
  }
  return nullptr;
}

// Direct calls and stored values of the target file.
class Indexer : public RecursiveASTVisitor<Indexer> {
 public:
  using Calls = std::map<const FunctionDecl*, std::vector<std::pair<const CallExpr*, const FunctionDecl*>>>;
  Indexer(const SourceMapper& map, Calls& calls, std::map<const VarDecl*, std::vector<const clang::Expr*>>& stored)
      : map_(map), calls_(calls), stored_(stored) {}

  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return false; }

  bool TraverseDecl(Decl* d) {
    if (!d) return true;
    if (!isa<TranslationUnitDecl>(d) && !isa<NamespaceDecl>(d) && !isa<LinkageSpecDecl>(d) &&
        !map_.in_target(d->getLocation()))
      return true;
    if ((isa<NamespaceDecl>(d) || isa<LinkageSpecDecl>(d)) && map_.sm().isInSystemHeader(d->getLocation()))
      return true;
    auto* fd = dyn_cast<FunctionDecl>(d);
    if (fd) functions_.push_back(fd);
    bool r = RecursiveASTVisitor::TraverseDecl(d);
    if (fd) functions_.pop_back();
    return r;
  }

  bool VisitCallExpr(CallExpr* c) {
    if (const FunctionDecl* callee = c->getDirectCallee())
      calls_[callee->getCanonicalDecl()].push_back({c, functions_.empty() ? nullptr : functions_.back()});
    return true;
  }
  bool VisitVarDecl(VarDecl* v) {
    if (v->hasInit() && !isa<ParmVarDecl>(v)) stored_[v].push_back(v->getInit());
    return true;
  }
  // `for (const Entry& e : table) e.fn<<<...>>>`: the loop variable holds the
  // range's elements.
  bool VisitCXXForRangeStmt(CXXForRangeStmt* f) {
    if (const VarDecl* v = f->getLoopVariable())
      if (f->getRangeInit()) stored_[v].push_back(f->getRangeInit());
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator* b) {
    if (b->getOpcode() == BO_Assign)
      if (const VarDecl* root = root_variable(b->getLHS())) stored_[root].push_back(b->getRHS());
    return true;
  }

 private:
  const SourceMapper& map_;
  Calls& calls_;
  std::map<const VarDecl*, std::vector<const clang::Expr*>>& stored_;
  std::vector<const FunctionDecl*> functions_;
};

// The return statements of a function body (not those of lambdas in it).
void collect_returns(const Stmt* s, std::vector<const ReturnStmt*>& out) {
  if (!s || isa<LambdaExpr>(s)) return;
  if (auto* r = dyn_cast<ReturnStmt>(s)) {
    out.push_back(r);
    return;
  }
  for (const Stmt* child : s->children()) collect_returns(child, out);
}

void constrain(const clang::Expr* e, bool want, const ASTContext& ctx, PathConstraints& out) {
  if (!e) return;
  e = e->IgnoreParenImpCasts();
  if (auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_LNot)
    return constrain(u->getSubExpr(), !want, ctx, out);
  auto* b = dyn_cast<BinaryOperator>(e);
  if (!b) return;
  if ((b->getOpcode() == BO_LAnd && want) || (b->getOpcode() == BO_LOr && !want)) {
    constrain(b->getLHS(), want, ctx, out);
    constrain(b->getRHS(), want, ctx, out);
    return;
  }
  if (b->getOpcode() != BO_EQ && b->getOpcode() != BO_NE) return;
  const bool equal = (b->getOpcode() == BO_EQ) == want;
  for (int side = 0; side < 2; ++side) {
    const clang::Expr* var_side = (side ? b->getRHS() : b->getLHS())->IgnoreParenImpCasts();
    const clang::Expr* value_side = side ? b->getLHS() : b->getRHS();
    auto* ref = dyn_cast<DeclRefExpr>(var_side);
    auto* var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    if (!var) continue;
    if (auto v = evaluate(value_side, ctx)) {
      if (equal) out.equal[var] = *v;
      else out.excluded[var].push_back(*v);
      return;
    }
  }
}

}  // namespace launch_resolver_detail

using namespace launch_resolver_detail;

bool PathConstraints::allows(const VarDecl* var, std::int64_t v) const {
  if (auto it = equal.find(var); it != equal.end() && it->second != v) return false;
  if (auto it = one_of.find(var); it != one_of.end() && std::find(it->second.begin(), it->second.end(), v) == it->second.end())
    return false;
  if (auto it = excluded.find(var); it != excluded.end() && std::find(it->second.begin(), it->second.end(), v) != it->second.end())
    return false;
  return true;
}

PathConstraints path_constraints(const std::vector<PathFact>& path, const ASTContext& ctx) {
  PathConstraints out;
  for (const PathFact& f : path) {
    if (!f.is_switch) {
      constrain(f.condition, f.taken, ctx, out);
      continue;
    }
    if (f.case_values.empty() || !f.condition) continue;
    auto* ref = dyn_cast<DeclRefExpr>(f.condition->IgnoreParenImpCasts());
    auto* var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    if (!var) continue;
    if (f.case_values.size() == 1) out.equal[var] = f.case_values.front();
    else out.one_of[var] = f.case_values;
  }
  return out;
}

void LaunchResolver::set_launch(const FunctionDecl* /*host*/, const std::vector<PathFact>& path) {
  path_ = path_constraints(path, ctx_);
  bindings_.clear();
}

void LaunchResolver::index() {
  if (indexed_) return;
  indexed_ = true;
  Indexer::Calls calls;
  Indexer ix(map_, calls, stored_);
  ix.TraverseDecl(ctx_.getTranslationUnitDecl());
  for (auto& [callee, list] : calls)
    for (auto& [call, caller] : list) calls_[callee].push_back({call, caller});
}

const std::set<const VarDecl*>& LaunchResolver::modified(const FunctionDecl* fn) {
  auto it = modified_.find(fn);
  if (it != modified_.end()) return it->second;
  ModifiedVars mv;
  if (fn && fn->getBody()) mv.TraverseStmt(fn->getBody());
  return modified_[fn] = std::move(mv.vars);
}

std::optional<std::int64_t> LaunchResolver::known_integer(const VarDecl* var, int /*depth*/) {
  for (auto it = bindings_.rbegin(); it != bindings_.rend(); ++it)
    if (auto b = it->find(var); b != it->end()) return b->second;
  if (auto p = path_.equal.find(var); p != path_.equal.end()) return p->second;
  return std::nullopt;
}

// The value a parameter has at every call site of its function in the file,
// when they all agree.
template <class T, class Eval>
std::optional<T> LaunchResolver::from_callers(const VarDecl* var, int depth, Eval eval) {
  auto* parm = dyn_cast<ParmVarDecl>(var);
  if (!parm || depth > kMaxHops * 3) return std::nullopt;
  auto* fn = dyn_cast<FunctionDecl>(parm->getDeclContext());
  if (!fn) return std::nullopt;
  index();
  auto it = calls_.find(fn->getCanonicalDecl());
  if (it == calls_.end() || it->second.empty()) return std::nullopt;
  const unsigned index = parm->getFunctionScopeIndex();
  std::optional<T> value;
  for (const CallRecord& c : it->second) {
    unsigned shift = isa<CXXOperatorCallExpr>(c.call) && isa<CXXMethodDecl>(fn) ? 1 : 0;
    if (index + shift >= c.call->getNumArgs()) return std::nullopt;
    const clang::Expr* arg = c.call->getArg(index + shift);
    if (isa<CXXDefaultArgExpr>(arg)) return std::nullopt;
    // The caller's own path conditions are not known here; its unchanged
    // locals and its callers are.
    PathConstraints saved = std::move(path_);
    path_ = {};
    LaunchEvaluator ev(ctx_, modified(c.caller), this);
    std::optional<T> v = eval(ev, arg, depth + 1);
    path_ = std::move(saved);
    if (!v || (value && *value != *v)) return std::nullopt;
    value = v;
  }
  return value;
}

std::optional<std::int64_t> LaunchResolver::integer_variable(const VarDecl* var, int depth) {
  auto v = from_callers<std::int64_t>(var, depth, [](LaunchEvaluator& ev, const clang::Expr* e, int d) {
    return ev.integer(e, d);
  });
  // The callers' value on a path that excludes it: the launch does not run
  // with it (`case 256:` reached from a caller passing 512).
  if (v && !path_.allows(var, *v)) return std::nullopt;
  return v;
}

std::optional<std::array<std::int64_t, 3>> LaunchResolver::dim3_variable(const VarDecl* var, int depth) {
  return from_callers<std::array<std::int64_t, 3>>(
      var, depth, [](LaunchEvaluator& ev, const clang::Expr* e, int d) { return ev.dim3(e, d); });
}

// A helper of the file whose every return gives the same value, with its
// parameters bound to the call's (constant) arguments.
template <class T, class Eval>
std::optional<T> LaunchResolver::through_helper(const CallExpr* call, LaunchEvaluator& caller, int depth, Eval eval) {
  const FunctionDecl* callee = call->getDirectCallee();
  const FunctionDecl* def = callee ? callee->getDefinition() : nullptr;
  if (!def || !def->getBody() || def->hasAttr<CUDAGlobalAttr>() || depth > kMaxHops * 3 ||
      in_system_header(ctx_.getSourceManager(), def->getLocation()) || isa<CXXMethodDecl>(def))
    return std::nullopt;
  std::vector<const ReturnStmt*> returns;
  collect_returns(def->getBody(), returns);
  if (returns.empty()) return std::nullopt;
  std::map<const VarDecl*, std::int64_t> bound;
  for (unsigned i = 0; i < def->getNumParams() && i < call->getNumArgs(); ++i) {
    const ParmVarDecl* p = def->getParamDecl(i);
    if (!p->getType()->isIntegralOrEnumerationType()) continue;
    if (auto v = caller.integer(call->getArg(i), depth + 1)) bound[p] = *v;
  }
  bindings_.push_back(std::move(bound));
  LaunchEvaluator ev(ctx_, modified(def), this);
  std::optional<T> value;
  bool ok = true;
  for (const ReturnStmt* r : returns) {
    std::optional<T> v = r->getRetValue() ? eval(ev, r->getRetValue(), depth + 1) : std::nullopt;
    if (!v || (value && *value != *v)) {
      ok = false;
      break;
    }
    value = v;
  }
  bindings_.pop_back();
  return ok ? value : std::nullopt;
}

std::optional<std::int64_t> LaunchResolver::integer_call(const CallExpr* call, LaunchEvaluator& caller, int depth) {
  return through_helper<std::int64_t>(call, caller, depth, [](LaunchEvaluator& ev, const clang::Expr* e, int d) {
    return ev.integer(e, d);
  });
}

std::optional<std::array<std::int64_t, 3>> LaunchResolver::dim3_call(const CallExpr* call, LaunchEvaluator& caller,
                                                                     int depth) {
  return through_helper<std::array<std::int64_t, 3>>(
      call, caller, depth, [](LaunchEvaluator& ev, const clang::Expr* e, int d) { return ev.dim3(e, d); });
}

void LaunchResolver::kernels_of(const clang::Expr* e, int depth, std::set<const Decl*>& seen,
                                std::vector<const FunctionDecl*>& out) {
  e = strip(e);
  if (!e || depth > 24) return;
  if (auto* u = dyn_cast<UnaryOperator>(e); u && (u->getOpcode() == UO_AddrOf || u->getOpcode() == UO_Deref))
    return kernels_of(u->getSubExpr(), depth + 1, seen, out);
  if (auto* c = dyn_cast<ConditionalOperator>(e)) {
    kernels_of(c->getTrueExpr(), depth + 1, seen, out);
    kernels_of(c->getFalseExpr(), depth + 1, seen, out);
    return;
  }
  if (auto* init = dyn_cast<InitListExpr>(e)) {
    for (const clang::Expr* i : init->inits()) kernels_of(i, depth + 1, seen, out);
    return;
  }
  if (auto* ctor = dyn_cast<CXXConstructExpr>(e)) {
    for (const clang::Expr* a : ctor->arguments()) kernels_of(a, depth + 1, seen, out);
    return;
  }
  if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
    if (auto* fd = dyn_cast<FunctionDecl>(ref->getDecl())) {
      if (fd->hasAttr<CUDAGlobalAttr>() && std::find(out.begin(), out.end(), fd) == out.end()) out.push_back(fd);
      return;
    }
  }
  const VarDecl* var = root_variable(e);
  if (!var || !seen.insert(var).second) return;
  index();
  if (auto it = stored_.find(var); it != stored_.end())
    for (const clang::Expr* s : it->second) kernels_of(s, depth + 1, seen, out);
  if (auto* parm = dyn_cast<ParmVarDecl>(var))
    if (auto* fn = dyn_cast<FunctionDecl>(parm->getDeclContext()))
      if (auto it = calls_.find(fn->getCanonicalDecl()); it != calls_.end())
        for (const CallRecord& c : it->second)
          if (parm->getFunctionScopeIndex() < c.call->getNumArgs())
            kernels_of(c.call->getArg(parm->getFunctionScopeIndex()), depth + 1, seen, out);
}

std::vector<const FunctionDecl*> LaunchResolver::kernels_reaching(const clang::Expr* callee) {
  std::vector<const FunctionDecl*> out;
  std::set<const Decl*> seen;
  kernels_of(callee, 0, seen, out);
  return out;
}

}  // namespace warplens::clang_frontend
