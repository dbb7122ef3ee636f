// Host-side launch pairs for fusion: which launch follows which (past error
// checks), and whether a temporary is used by nothing but its allocation,
// its cudaFree and the launches being fused.
#include "agent/rewrites/launch_pairs.h"

#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include <functional>
#include <set>

namespace warplens::agent::rw {

using namespace clang;

std::vector<const CUDAKernelCallExpr*> all_launches(const ParsedFile& f) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const ParsedFile* f;
    std::vector<const CUDAKernelCallExpr*> found;
    bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr* c) {
      if (f->sm().isInMainFile(f->sm().getExpansionLoc(c->getBeginLoc()))) found.push_back(c);
      return true;
    }
  } finder;
  finder.f = &f;
  finder.TraverseDecl(f.ctx().getTranslationUnitDecl());
  return finder.found;
}

// The statement that follows `s` in its enclosing compound statement.
const Stmt* next_statement(const ParsedFile& f, const Stmt* s) {
  auto parents = f.ctx().getParents(*s);
  if (parents.empty()) return nullptr;
  const auto* c = parents[0].get<CompoundStmt>();
  if (!c) return nullptr;
  for (auto it = c->body_begin(); it != c->body_end(); ++it)
    if (*it == s) return std::next(it) == c->body_end() ? nullptr : *std::next(it);
  return nullptr;
}

// An error check between two launches (`CHECK(cudaGetLastError());`,
// `cudaDeviceSynchronize();`, the macro's `fprintf(stderr, ...); exit(1);`):
// it calls only CUDA's error and synchronisation queries and C's printing
// and exit functions, and names no variable but its own locals, stderr and
// stdout, so it cannot read or write what the kernels use; moving the
// second launch before it changes nothing it sees but the error it reports
// (the fused launch's). A call of the program's own checking function
// (`check(cudaGetLastError(), "launch");`, a macro's `gpuAssert(code,
// __FILE__, __LINE__)`) counts when that function's body is such a check
// too, its parameters counting as its own locals (what it is handed is
// walked here, as the call's arguments).
bool is_error_check(const Stmt* s, std::set<const Decl*> own, int depth) {
  static const std::set<std::string> allowed = {
      "cudaGetLastError", "cudaPeekAtLastError", "cudaDeviceSynchronize", "cudaStreamSynchronize",
      "cudaGetErrorString", "cudaGetErrorName", "printf", "fprintf", "puts", "fputs", "fflush", "exit", "abort"};
  // The program's own checking function: defined here, a host function,
  // not variadic, its body a check with its parameters as its own.
  auto own_check = [&](const FunctionDecl* fd) {
    const FunctionDecl* def = fd ? fd->getDefinition() : nullptr;
    if (!def || !def->getBody() || depth >= 2 || def->isVariadic() || def->hasAttr<CUDADeviceAttr>() ||
        def->hasAttr<CUDAGlobalAttr>() || isa<CXXMethodDecl>(def))
      return false;
    std::set<const Decl*> params(def->param_begin(), def->param_end());
    return is_error_check(def->getBody(), std::move(params), depth + 1);
  };
  std::function<void(const Stmt*)> declared = [&](const Stmt* x) {
    if (!x) return;
    if (const auto* ds = dyn_cast<DeclStmt>(x))
      for (const Decl* d : ds->decls()) own.insert(d);
    for (const Stmt* c : x->children()) declared(c);
  };
  declared(s);
  bool ok = true;
  std::function<void(const Stmt*)> walk = [&](const Stmt* x) {
    if (!x || !ok) return;
    if (isa<CUDAKernelCallExpr>(x) || isa<LambdaExpr>(x) || isa<CXXOperatorCallExpr>(x)) ok = false;
    if (const auto* call = dyn_cast<CallExpr>(x)) {
      const FunctionDecl* fd = call->getDirectCallee();
      if (!fd || (!allowed.count(fd->getNameAsString()) && !own_check(fd))) ok = false;
    }
    if (const auto* r = dyn_cast<DeclRefExpr>(x)) {
      const ValueDecl* d = r->getDecl();
      if (const auto* v = dyn_cast<VarDecl>(d)) {
        const std::string n = v->getNameAsString();
        if (!own.count(v) && !(v->hasGlobalStorage() && (n == "stderr" || n == "stdout"))) ok = false;
      } else if (!isa<FunctionDecl>(d) && !isa<EnumConstantDecl>(d)) {
        ok = false;
      }
    }
    for (const Stmt* c : x->children()) walk(c);
  };
  walk(s);
  return ok;
}

// The next launch after `l` in its compound statement, past error checks.
const CUDAKernelCallExpr* next_launch(const ParsedFile& f, const CUDAKernelCallExpr* l) {
  const Stmt* s = next_statement(f, l);
  for (int guard = 0; s && guard < 8; ++guard) {
    if (const auto* k = dyn_cast<CUDAKernelCallExpr>(s)) return k;
    if (!is_error_check(s)) return nullptr;
    s = next_statement(f, s);
  }
  return nullptr;
}

const VarDecl* local_var(const clang::Expr* arg) {
  const auto* ref = dyn_cast<DeclRefExpr>(arg->IgnoreParenImpCasts());
  if (!ref) return nullptr;
  const auto* v = dyn_cast<VarDecl>(ref->getDecl());
  if (!v || isa<ParmVarDecl>(v) || !v->hasLocalStorage()) return nullptr;
  return v;
}

std::string config_text(const KernelContext& ctx, const CUDAKernelCallExpr* l) {
  LaunchConfig c = launch_config(l);
  std::string s;
  for (const clang::Expr* e : {c.grid, c.block, c.shared_bytes, c.stream}) {
    if (!e) break;
    auto t = ctx.text(e);
    if (!t) return "";
    s += (s.empty() ? "" : ", ") + *t;
  }
  return s;
}

bool same_argument(const KernelContext& ctx, const clang::Expr* x, const clang::Expr* y) {
  const auto* rx = dyn_cast<DeclRefExpr>(strip(x));
  const auto* ry = dyn_cast<DeclRefExpr>(strip(y));
  if (rx && ry) return rx->getDecl() == ry->getDecl();
  auto tx = ctx.text(x), ty = ctx.text(y);
  return tx && ty && *tx == *ty;
}

const Decl* argument_decl(const CUDAKernelCallExpr* l, const FunctionDecl* k, const ParmVarDecl* q) {
  for (unsigned n = 0; n < k->getNumParams() && n < l->getNumArgs(); ++n)
    if (k->getParamDecl(n) == q) {
      const clang::Expr* arg = l->getArg(n)->IgnoreParenImpCasts();
      if (const auto* c = dyn_cast<ExplicitCastExpr>(arg)) arg = c->getSubExpr()->IgnoreParenImpCasts();
      if (const auto* r = dyn_cast<DeclRefExpr>(arg)) return r->getDecl()->getCanonicalDecl();
    }
  return nullptr;
}

bool temporary_used_only_by(const KernelContext& ctx, const std::vector<LaunchPair>& pairs, const VarDecl* v,
                            std::string& why) {
  // Every use of the temporary: allocation, cudaFree, these launches.
  const FunctionDecl* host = pairs.empty() ? nullptr : enclosing_function(ctx.file, pairs.front().first);
  if (!host || !host->getBody()) {
    why = "the launches are not in a function with a body";
    return false;
  }
  bool ok = true;
  std::set<const DeclRefExpr*> allowed;
  for (const LaunchPair& q : pairs)
    for (const CUDAKernelCallExpr* l : {q.first, q.second})
      for (const clang::Expr* arg : l->arguments())
        if (const auto* r = dyn_cast<DeclRefExpr>(arg->IgnoreParenImpCasts()); r && r->getDecl() == v) allowed.insert(r);
  std::function<void(const Stmt*)> uses = [&](const Stmt* s) {
    if (!s || !ok) return;
    // A lambda's captures are not uses (`[&]` names the temporary where it
    // is captured); what its body does with it is.
    if (const auto* lambda = dyn_cast<LambdaExpr>(s)) return uses(lambda->getBody());
    if (const auto* call = dyn_cast<CallExpr>(s); call && call->getDirectCallee() && !isa<CUDAKernelCallExpr>(call)) {
      const std::string n = call->getDirectCallee()->getNameAsString();
      if ((n == "cudaFree" || n == "cudaFreeAsync") && call->getNumArgs() >= 1)
        if (const auto* r = dyn_cast<DeclRefExpr>(call->getArg(0)->IgnoreParenImpCasts()); r && r->getDecl() == v)
          allowed.insert(r);
      if ((n == "cudaMalloc" || n == "cudaMallocAsync") && call->getNumArgs() >= 1) {
        const clang::Expr* a0 = call->getArg(0)->IgnoreParenImpCasts();
        if (const auto* c = dyn_cast<ExplicitCastExpr>(a0)) a0 = c->getSubExpr()->IgnoreParenImpCasts();
        if (const auto* uo = dyn_cast<UnaryOperator>(a0); uo && uo->getOpcode() == UO_AddrOf)
          if (const auto* r = dyn_cast<DeclRefExpr>(uo->getSubExpr()->IgnoreParenImpCasts()); r && r->getDecl() == v)
            allowed.insert(r);
      }
    }
    if (const auto* bo = dyn_cast<BinaryOperator>(s); bo && bo->getOpcode() == BO_Assign)
      if (const auto* r = dyn_cast<DeclRefExpr>(bo->getLHS()->IgnoreParenImpCasts()); r && r->getDecl() == v)
        allowed.insert(r);
    if (const auto* r = dyn_cast<DeclRefExpr>(s); r && r->getDecl() == v && !allowed.count(r)) {
      why = "the temporary `" + v->getNameAsString() + "` is used elsewhere (" +
            ctx.text(r).value_or("?") + " at offset " + std::to_string(ctx.offset(r->getBeginLoc())) + ")";
      ok = false;
      return;
    }
    for (const Stmt* c : s->children()) uses(c);
  };
  uses(host->getBody());
  return ok;
}

}  // namespace warplens::agent::rw
