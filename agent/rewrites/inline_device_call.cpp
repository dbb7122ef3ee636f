// inline-device-call: a call of a small __device__ helper the kernel makes
// in a statement of its own (`float inv = 1.0f / sqrtf(row_sum_sq(src, cols)
// + eps);`) becomes the helper's statements in the kernel, before that
// statement, and the call its result. Alone it changes nothing the GPU
// does (nvcc inlines such helpers anyway); it exists so that the rewrites
// that reason about the kernel's own loops see the helper's loop: a
// warp-per-row after it splits the helper's pass over the row too, instead
// of every lane repeating it, and can keep the row in registers for both.
//
// Applies to the first call, in the kernel, of a helper f that
//   - is a non-template __device__ function defined in this file, returning
//     a value (not a reference), whose body is statements followed by one
//     `return E;` (no other return, no goto, no static local);
//   - stores nothing outside its locals (no assignment through a pointer or
//     an array, no atomics, no barrier or warp primitive) and calls no
//     function defined in this file (math functions and intrinsics are
//     declarations only): it only reads memory, so evaluating it before the
//     rest of the statement reorders only reads;
//   - takes its parameters by value (or const reference), or is handed
//     `&v` for a pointer parameter p that it uses only as `*p` (an out-
//     parameter: `*best_val = bv;`), v a local of the kernel of exactly the
//     pointed-to type whose address the kernel takes nowhere else and the
//     calling statement does not otherwise name;
// where the call is in a declaration with one variable, or an assignment,
// that is a statement of a compound statement, outside `?:`, `&&` and `||`
// (which may skip it), and its arguments have no side effects.
//
// Each parameter becomes `const T wl_p = (arg);`, except that an argument
// naming a variable of exactly the parameter's type is used directly when f
// never changes the parameter (so loops over `n` keep the caller's `cols`
// and the row cache sees the same range); f's locals get fresh names; the
// call becomes `wl_f`, declared `const R wl_f = static_cast<R>(E);`. An
// out-parameter's `*p` becomes the caller's `v` itself: f's stores to it
// happen before the rest of the statement, as they did inside the call, and
// nothing else can reach v (its address goes nowhere else).
#include <clang/AST/ParentMapContext.h>

#include <functional>
#include <map>
#include <set>

#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

struct Site {
  const CallExpr* call = nullptr;
  const FunctionDecl* helper = nullptr;
  const Stmt* statement = nullptr;  // the kernel statement holding the call
};

// Whether `call` sits under a ?:, && or || inside `statement` (it may not run).
bool conditionally_evaluated(ASTContext& ast, const Stmt* call, const Stmt* statement) {
  const Stmt* at = call;
  for (int guard = 0; guard < 64 && at != statement; ++guard) {
    auto parents = ast.getParents(*at);
    if (parents.empty()) return true;
    const Stmt* up = parents[0].get<Stmt>();
    if (!up) {
      // A declaration's initialiser: its parent is the variable.
      const auto* v = parents[0].get<VarDecl>();
      const auto* ds = dyn_cast<DeclStmt>(statement);
      return !(v && ds && ds->isSingleDecl() && ds->getSingleDecl() == v);
    }
    if (isa<ConditionalOperator>(up) || isa<BinaryConditionalOperator>(up)) return true;
    if (const auto* bo = dyn_cast<BinaryOperator>(up); bo && bo->isLogicalOp()) return true;
    at = up;
  }
  return at != statement;
}

bool has_side_effects(const Expr* e, ASTContext& ast) { return e->HasSideEffects(ast, /*IncludePossibleEffects=*/true); }

// The pointer parameters of f (its definition) used only as `*p` and never
// changed: out-parameters, which the inlined code names as the caller's
// variable.
std::set<const ParmVarDecl*> out_parameters(const FunctionDecl* def) {
  std::set<const ParmVarDecl*> candidates;
  for (const ParmVarDecl* p : def->parameters())
    if (p->getType()->isPointerType() && !p->getType()->getPointeeType().isConstQualified() &&
        !p->getType()->getPointeeType()->isVoidType())
      candidates.insert(p);
  if (candidates.empty() || !def->getBody()) return candidates;
  const std::set<const VarDecl*> changed = modified_variables(def->getBody());
  std::set<const ParmVarDecl*> bad;
  for (const ParmVarDecl* p : candidates)
    if (changed.count(p)) bad.insert(p);
  // Every reference must be the operand of a `*`.
  std::function<void(const Stmt*, bool)> walk = [&](const Stmt* x, bool under_deref) {
    if (!x) return;
    if (const auto* r = dyn_cast<DeclRefExpr>(x))
      if (const auto* p = dyn_cast<ParmVarDecl>(r->getDecl()); p && candidates.count(p) && !under_deref) bad.insert(p);
    if (const auto* u = dyn_cast<UnaryOperator>(x); u && u->getOpcode() == UO_Deref) {
      if (const auto* r = dyn_cast<DeclRefExpr>(u->getSubExpr()->IgnoreParenImpCasts())) return walk(r, true);
    }
    for (const Stmt* c : x->children()) walk(c, false);
  };
  walk(def->getBody(), false);
  for (const ParmVarDecl* p : bad) candidates.erase(p);
  return candidates;
}

// `*p` with p one of `outs`, or nullptr.
const ParmVarDecl* out_target(const Expr* e, const std::set<const ParmVarDecl*>& outs) {
  const auto* u = dyn_cast<UnaryOperator>(e->IgnoreParens());
  if (!u || u->getOpcode() != UO_Deref) return nullptr;
  const auto* r = dyn_cast<DeclRefExpr>(u->getSubExpr()->IgnoreParenImpCasts());
  const auto* p = r ? dyn_cast<ParmVarDecl>(r->getDecl()) : nullptr;
  return p && outs.count(p) ? p : nullptr;
}

// Why f cannot be inlined, or "" when it can.
std::string helper_problem(const FunctionDecl* f, const ParsedFile& file) {
  if (!f->hasAttr<CUDADeviceAttr>() || f->hasAttr<CUDAGlobalAttr>()) return "not a __device__ function";
  if (f->isTemplateInstantiation() || f->getTemplatedKind() != FunctionDecl::TK_NonTemplate)
    return "a template";
  const FunctionDecl* def = f->getDefinition();
  if (!def || !is_main_file(file, def->getLocation())) return "not defined in this file";
  const QualType ret = def->getReturnType();
  if (ret->isVoidType() || ret->isReferenceType()) return "returns no value";
  for (const ParmVarDecl* p : def->parameters()) {
    const QualType t = p->getType();
    if (t->isReferenceType() && !t.getNonReferenceType().isConstQualified()) return "takes a non-const reference";
    if (p->getName().empty()) return "has an unnamed parameter";
  }
  const auto* body = dyn_cast_or_null<CompoundStmt>(def->getBody());
  if (!body || body->body_empty() || !isa<ReturnStmt>(body->body_back())) return "does not end in `return E;`";
  std::string problem;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || !problem.empty()) return;
    if (isa<ReturnStmt>(s) && s != body->body_back()) problem = "returns early";
    if (isa<GotoStmt>(s) || isa<IndirectGotoStmt>(s)) problem = "uses goto";
    if (isa<CXXTryStmt>(s) || isa<AsmStmt>(s)) problem = "uses try or asm";
    if (const auto* ds = dyn_cast<DeclStmt>(s))
      for (const Decl* d : ds->decls())
        if (const auto* v = dyn_cast<VarDecl>(d); v && (v->isStaticLocal() || v->hasAttr<CUDASharedAttr>()))
          problem = "declares a static or __shared__ local";
    if (const auto* call = dyn_cast<CallExpr>(s)) {
      const FunctionDecl* g = call->getDirectCallee();
      if (!g) problem = "calls through a pointer";
      else if (const FunctionDecl* gd = g->getDefinition(); gd && is_main_file(file, gd->getLocation()))
        problem = "calls `" + g->getNameAsString() + "`, defined in this file";
    }
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(body);
  if (!problem.empty()) return problem;
  if (contains_barrier(body) || uses_warp_primitives(body) || uses_atomics(body))
    return "synchronises, uses warp primitives or atomics";
  // Stores: only into its own locals (plain variables, not through them),
  // or through an out-parameter (the call site checks its argument).
  const std::set<const ParmVarDecl*> outs = out_parameters(def);
  std::function<void(const Stmt*)> stores = [&](const Stmt* s) {
    if (!s || !problem.empty()) return;
    const Expr* target = nullptr;
    if (const auto* bo = dyn_cast<BinaryOperator>(s); bo && bo->isAssignmentOp()) target = bo->getLHS();
    if (const auto* uo = dyn_cast<UnaryOperator>(s); uo && uo->isIncrementDecrementOp()) target = uo->getSubExpr();
    if (const auto* op = dyn_cast<CXXOperatorCallExpr>(s); op && op->isAssignmentOp() && op->getNumArgs() > 0)
      target = op->getArg(0);
    if (target && !out_target(target, outs)) {
      const auto* ref = dyn_cast<DeclRefExpr>(target->IgnoreParenImpCasts());
      const auto* v = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
      if (!v || !v->hasLocalStorage() || v->getType()->isReferenceType()) problem = "stores outside its locals";
    }
    for (const Stmt* c : s->children()) stores(c);
  };
  stores(body);
  return problem;
}

// The local `v` of an argument `&v`, or nullptr.
const VarDecl* address_of_local(const Expr* arg) {
  const auto* u = dyn_cast<UnaryOperator>(arg->IgnoreParenImpCasts());
  if (!u || u->getOpcode() != UO_AddrOf) return nullptr;
  const auto* r = dyn_cast<DeclRefExpr>(u->getSubExpr()->IgnoreParens());
  const auto* v = r ? dyn_cast<VarDecl>(r->getDecl()) : nullptr;
  return v && v->hasLocalStorage() && !isa<ParmVarDecl>(v) && !v->getType()->isReferenceType() &&
                 !v->getType().isVolatileQualified()
             ? v
             : nullptr;
}

// Why the arguments of f's out-parameters at `call` do not make them the
// caller's variables, or "" when they do: `&v`, v a local of exactly the
// pointed-to type, its address taken nowhere else in the kernel, not named
// elsewhere in the calling statement, one variable per out-parameter. A
// pointer parameter f stores through that is not an out-parameter was
// already refused by helper_problem.
std::string out_argument_problem(const KernelContext& ctx, const FunctionDecl* def, const CallExpr* call,
                                 const Stmt* statement) {
  const std::set<const ParmVarDecl*> outs = out_parameters(def);
  std::set<const VarDecl*> bound;
  for (unsigned k = 0; k < def->getNumParams() && k < call->getNumArgs(); ++k) {
    const ParmVarDecl* p = def->getParamDecl(k);
    if (!outs.count(p)) continue;
    // Only an out-parameter f stores through needs a local; one it only
    // reads stays a pointer copy, as any other parameter.
    bool stored = false;
    std::function<void(const Stmt*)> find = [&](const Stmt* x) {
      if (!x || stored) return;
      if (const auto* bo = dyn_cast<BinaryOperator>(x); bo && bo->isAssignmentOp() && out_target(bo->getLHS(), {p}))
        stored = true;
      if (const auto* uo = dyn_cast<UnaryOperator>(x); uo && uo->isIncrementDecrementOp() && out_target(uo->getSubExpr(), {p}))
        stored = true;
      for (const Stmt* c : x->children()) find(c);
    };
    find(def->getBody());
    if (!stored) continue;
    const VarDecl* v = address_of_local(call->getArg(k));
    const std::string pn = "`" + p->getNameAsString() + "`";
    if (!v) return "stores through " + pn + ", whose argument is not `&` of a local variable";
    if (!ctx.ctx().hasSameUnqualifiedType(v->getType(), p->getType()->getPointeeType()))
      return "stores through " + pn + ", whose argument `&" + v->getNameAsString() + "` has another type";
    if (!bound.insert(v).second) return "is handed `&" + v->getNameAsString() + "` twice";
    int taken = 0, named = 0;
    std::function<void(const Stmt*)> count = [&](const Stmt* x) {
      if (!x) return;
      if (const auto* u = dyn_cast<UnaryOperator>(x); u && u->getOpcode() == UO_AddrOf)
        if (const auto* r = dyn_cast<DeclRefExpr>(u->getSubExpr()->IgnoreParens()); r && r->getDecl() == v) ++taken;
      if (const auto* r = dyn_cast<DeclRefExpr>(x); r && r->getDecl() == v) ++named;
      for (const Stmt* c : x->children()) count(c);
    };
    count(ctx.body);
    if (taken != 1) return "is handed `&" + v->getNameAsString() + "`, whose address the kernel also takes elsewhere";
    named = 0;
    count(statement);
    if (named != 1) return "is handed `&" + v->getNameAsString() + "` by a statement that also names it";
  }
  return "";
}

std::optional<Site> find_site(const KernelContext& ctx, std::string& why) {
  if (!ctx.body) {
    why = "the kernel has no body";
    return std::nullopt;
  }
  std::optional<Site> found;
  std::string last_problem;
  std::function<void(const Stmt*, const Stmt*)> walk = [&](const Stmt* s, const Stmt* statement) {
    if (!s || found) return;
    if (const auto* cs = dyn_cast<CompoundStmt>(s)) {
      for (const Stmt* c : cs->body()) walk(c, c);
      return;
    }
    if (const auto* call = dyn_cast<CallExpr>(s); call && !isa<CUDAKernelCallExpr>(call) && statement) {
      if (const FunctionDecl* f = call->getDirectCallee(); f && f->getDefinition() &&
                                                             is_main_file(ctx.file, f->getDefinition()->getLocation())) {
        const std::string problem = helper_problem(f, ctx.file);
        bool ok = problem.empty();
        if (!ok) last_problem = "`" + f->getNameAsString() + "` " + problem;
        // The statement: one declared variable, or an assignment.
        bool shape = false;
        if (const auto* ds = dyn_cast<DeclStmt>(statement)) shape = ds->isSingleDecl() && isa<VarDecl>(ds->getSingleDecl());
        else if (const auto* bo = dyn_cast<BinaryOperator>(statement)) shape = bo->isAssignmentOp();
        if (ok && !shape) {
          ok = false;
          last_problem = "the call of `" + f->getNameAsString() + "` is not in a declaration or an assignment statement";
        }
        if (ok && conditionally_evaluated(ctx.ctx(), call, statement)) {
          ok = false;
          last_problem = "the call of `" + f->getNameAsString() + "` is under ?:, && or ||";
        }
        if (ok) {
          const std::string problem = out_argument_problem(ctx, f->getDefinition(), call, statement);
          if (!problem.empty()) {
            ok = false;
            last_problem = "`" + f->getNameAsString() + "` " + problem;
          }
        }
        for (const Expr* a : call->arguments())
          if (ok && has_side_effects(a, ctx.ctx())) {
            ok = false;
            last_problem = "an argument of `" + f->getNameAsString() + "` has side effects";
          }
        // A global the helper reads must not be shadowed by a local of the
        // kernel with the same name, where the inlined code lands.
        if (ok) {
          std::set<std::string> kernel_locals;
          std::function<void(const Stmt*)> decls = [&](const Stmt* x) {
            if (!x) return;
            if (const auto* ds = dyn_cast<DeclStmt>(x))
              for (const Decl* d : ds->decls())
                if (const auto* v = dyn_cast<VarDecl>(d)) kernel_locals.insert(v->getNameAsString());
            for (const Stmt* c : x->children()) decls(c);
          };
          decls(ctx.body);
          for (const ParmVarDecl* p : ctx.kernel->parameters()) kernel_locals.insert(p->getNameAsString());
          std::function<void(const Stmt*)> globals = [&](const Stmt* x) {
            if (!x || !ok) return;
            if (const auto* r = dyn_cast<DeclRefExpr>(x))
              if (const auto* v = dyn_cast<VarDecl>(r->getDecl());
                  v && v->hasGlobalStorage() && kernel_locals.count(v->getNameAsString())) {
                ok = false;
                last_problem = "`" + f->getNameAsString() + "` reads the global `" + v->getNameAsString() +
                               "`, which a variable of the kernel shadows";
              }
            for (const Stmt* c : x->children()) globals(c);
          };
          globals(f->getDefinition()->getBody());
        }
        if (ok && (!ctx.text(call) || !ctx.text(statement))) {
          ok = false;
          last_problem = "the call of `" + f->getNameAsString() + "` is spelled in a macro";
        }
        if (ok) {
          found = Site{call, f->getDefinition(), statement};
          return;
        }
      }
    }
    // Statements of nested compounds (loop and if bodies) are statements too.
    for (const Stmt* c : s->children())
      if (c) walk(c, isa<CompoundStmt>(c) ? nullptr : statement);
  };
  walk(ctx.body, nullptr);
  if (!found) why = last_problem.empty() ? "no call of a __device__ helper defined in this file" : last_problem;
  return found;
}

class InlineDeviceCall final : public Rewrite {
 public:
  const char* name() const override { return "inline-device-call"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    auto site = find_site(ctx, why);
    if (!site) return CheckResult::refuse(why);
    CheckResult r;
    Proposal p;
    p.step = {name(), {}};
    p.motivation = "`" + site->helper->getNameAsString() + "` inlined where the kernel calls it, so the rewrites that "
                   "work on the kernel's loops see its loop too";
    // Nothing faster by itself (nvcc inlines it anyway): what it enables is.
    p.predicted_gain = 1.1;
    r.proposals.push_back(p);
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep&, RewriteOutput& out, std::string& error) const override {
    auto site = find_site(ctx, error);
    if (!site) return false;
    const FunctionDecl* f = site->helper;
    KernelContext fctx(ctx.file, f);
    const auto* body = cast<CompoundStmt>(f->getBody());
    const std::set<const VarDecl*> changed = modified_variables(body);
    const std::string indent = ctx.indentation_at(site->statement->getBeginLoc());
    const std::string fname = f->getNameAsString();
    std::map<const ValueDecl*, std::string> names;
    std::string text = "// Inlined by warplens (inline-device-call): `" + *ctx.text(site->call) + "`.\n";
    // Out-parameters: every `*p` in f becomes the caller's variable.
    const std::set<const ParmVarDecl*> outs = out_parameters(f);
    std::map<const Stmt*, std::string> nodes;
    std::vector<std::string> out_names;
    for (unsigned k = 0; k < f->getNumParams(); ++k) {
      const ParmVarDecl* p = f->getParamDecl(k);
      const VarDecl* v = outs.count(p) ? address_of_local(site->call->getArg(k)) : nullptr;
      if (!v || !ctx.ctx().hasSameUnqualifiedType(v->getType(), p->getType()->getPointeeType())) continue;
      std::function<void(const Stmt*)> derefs = [&](const Stmt* x) {
        if (!x) return;
        if (const auto* e = dyn_cast<Expr>(x); e && out_target(e, {p}) == p) nodes[x] = v->getNameAsString();
        for (const Stmt* c : x->children()) derefs(c);
      };
      derefs(body);
      names[p] = v->getNameAsString();
      out_names.push_back("`" + p->getNameAsString() + "` as `" + v->getNameAsString() + "`");
    }
    for (unsigned k = 0; k < f->getNumParams(); ++k) {
      const ParmVarDecl* p = f->getParamDecl(k);
      if (names.count(p)) continue;  // an out-parameter
      const Expr* arg = site->call->getArg(k);
      auto arg_text = ctx.text(arg);
      if (!arg_text) {
        error = "an argument is spelled in a macro";
        return false;
      }
      const QualType pt = p->getType().getNonReferenceType().getUnqualifiedType();
      const auto* ref = dyn_cast<DeclRefExpr>(arg->IgnoreParenImpCasts());
      const bool same_type = ref && isa<VarDecl>(ref->getDecl()) &&
                             ctx.ctx().hasSameUnqualifiedType(ref->getDecl()->getType(), pt);
      if (same_type && !changed.count(p)) {
        names[p] = *ctx.text(ref);  // the caller's own variable, same type, never changed by f
        continue;
      }
      const std::string n = fresh_name(ctx.file, p->getNameAsString());
      names[p] = n;
      text += indent + (changed.count(p) ? "" : "const ") + pt.getAsString(ctx.ctx().getPrintingPolicy()) + " " + n +
              " = (" + *arg_text + ");\n";
    }
    std::function<void(const Stmt*)> locals = [&](const Stmt* s) {
      if (!s) return;
      if (const auto* ds = dyn_cast<DeclStmt>(s))
        for (const Decl* d : ds->decls())
          if (const auto* v = dyn_cast<VarDecl>(d)) names[v] = fresh_name(ctx.file, v->getNameAsString());
      for (const Stmt* c : s->children()) locals(c);
    };
    locals(body);
    for (auto it = body->body_begin(); it + 1 != body->body_end(); ++it) {
      auto t = text_with_replacements(fctx, *it, names, nodes, /*rename_declarations=*/true);
      auto semi = statement_terminator(fctx, *it);
      if (!t || !semi) {
        error = "`" + fname + "` is spelled with macros";
        return false;
      }
      text += indent + *t + *semi + "\n";
    }
    const Expr* ret = cast<ReturnStmt>(body->body_back())->getRetValue();
    auto ret_text = ret ? text_with_replacements(fctx, ret, names, nodes) : std::nullopt;
    if (!ret_text) {
      error = "`" + fname + "`'s return value is spelled with macros";
      return false;
    }
    const std::string result = fresh_name(ctx.file, fname);
    const std::string rt = f->getReturnType().getUnqualifiedType().getAsString(ctx.ctx().getPrintingPolicy());
    text += indent + "const " + rt + " " + result + " = static_cast<" + rt + ">(" + *ret_text + ");\n" + indent;
    if (!out.edits.insert(site->statement->getBeginLoc(), text) || !out.edits.replace(site->call, result)) {
      error = out.edits.error();
      return false;
    }
    out.notes.push_back("`" + fname + "` only reads memory and stores nothing outside its locals, so running its "
                        "statements before the rest of the statement that called it reorders reads only; the call "
                        "was not under ?:, && or ||, and its arguments have no side effects");
    out.notes.push_back("each parameter is a copy of its argument (or the caller's variable itself, of the same type, "
                        "when `" + fname + "` never changes it); its locals have fresh names");
    if (!out_names.empty()) {
      std::string list;
      for (const std::string& n : out_names) list += (list.empty() ? "" : ", ") + n;
      out.notes.push_back("out-parameters written through `*p` are the caller's variables (" + list +
                          "): their addresses go nowhere else in the kernel and the calling statement names them only "
                          "in the call, so storing to them before the rest of the statement is what the call did");
    }
    return true;
  }
};

}  // namespace

const Rewrite& inline_device_call_rewrite() {
  static const InlineDeviceCall r;
  return r;
}

}  // namespace warplens::agent::rw
