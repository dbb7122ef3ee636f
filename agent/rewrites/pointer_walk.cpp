// pointer-walk: a pointer the kernel steps once per iteration of a loop
// (`const float* p = m + c; for (int r = 0; r < rows; ++r) { s += *p * *p;
// p += cols; }`) is spelled as the loop's counter times the step instead:
// the step statement goes, and in the loop `*p` reads `p[(long long)(r -
// (0)) * (cols)]`, `p[k]` reads `p[that + (k)]` and any other use of p is
// `(p + that)`. Alone it changes nothing the GPU does; it exists so that
// the rewrites that reason about the elements a loop reads (column-block,
// warp-per-row, vectorize-loop) see them: a pointer changed in the loop
// has no single address.
//
// Applies to the first loop of the kernel `for (c = A; c < B; ++c) BODY`
// with a counter (KernelContext::for_counter: stepped by one in its header
// only) and a pointer local p such that
//   - p is declared before the loop, in the block that holds the loop, with
//     an initialiser;
//   - p's only change anywhere in the kernel is one statement `p += S;` (or
//     `p = p + S;`) that is the last statement of BODY, S free of side
//     effects and naming nothing the loop changes (so the step is the same
//     every iteration), nor p;
//   - p's address is not taken and no reference binds to it;
//   - BODY has no `continue` of this loop (it would skip the step) and no
//     goto;
//   - p is not named after the loop (its value there is not kept), nor in
//     the loop's header (which would go on seeing the unstepped value).
// Then at the start of iteration c, p equals its initial value plus (c - A)
// steps: each use in BODY before the step sees exactly that pointer.
#include <clang/AST/ParentMapContext.h>

#include <functional>

#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

struct Walk {
  const ForStmt* loop = nullptr;
  ForCounter counter;
  const VarDecl* pointer = nullptr;
  const Stmt* step = nullptr;           // `p += S;`
  const Expr* stride = nullptr;         // S
};

// `p += S` or `p = p + S` (S + p), with p the pointer; S or nullptr.
const Expr* step_of(const Stmt* s, const VarDecl* p) {
  auto is_p = [&](const Expr* e) {
    const auto* r = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    return r && r->getDecl() == p;
  };
  if (const auto* c = dyn_cast<CompoundAssignOperator>(s); c && c->getOpcode() == BO_AddAssign && is_p(c->getLHS()))
    return c->getRHS();
  if (const auto* a = dyn_cast<BinaryOperator>(s); a && a->getOpcode() == BO_Assign && is_p(a->getLHS()))
    if (const auto* add = dyn_cast<BinaryOperator>(a->getRHS()->IgnoreParenImpCasts()); add && add->getOpcode() == BO_Add) {
      if (is_p(add->getLHS())) return add->getRHS();
      if (is_p(add->getRHS())) return add->getLHS();
    }
  return nullptr;
}

// A `continue` that applies to `loop` (not to a loop nested in its body), or a goto.
bool skips_step(const Stmt* s) {
  if (!s) return false;
  if (isa<ContinueStmt>(s) || isa<GotoStmt>(s) || isa<IndirectGotoStmt>(s)) return true;
  for (const Stmt* c : s->children()) {
    if (isa_and_nonnull<ForStmt>(c) || isa_and_nonnull<WhileStmt>(c) || isa_and_nonnull<DoStmt>(c)) {
      // Their own `continue`s are theirs; a goto anywhere still counts.
      std::function<bool(const Stmt*)> gotos = [&](const Stmt* x) {
        if (!x) return false;
        if (isa<GotoStmt>(x) || isa<IndirectGotoStmt>(x)) return true;
        for (const Stmt* y : x->children())
          if (gotos(y)) return true;
        return false;
      };
      if (gotos(c)) return true;
      continue;
    }
    if (skips_step(c)) return true;
  }
  return false;
}

std::optional<Walk> find_walk(const KernelContext& ctx, std::string& why) {
  why = "no loop steps a pointer declared before it (`p += step;` as the loop body's last statement)";
  std::vector<const ForStmt*> loops;
  std::function<void(const Stmt*)> collect = [&](const Stmt* s) {
    if (!s) return;
    if (const auto* f = dyn_cast<ForStmt>(s)) loops.push_back(f);
    for (const Stmt* c : s->children()) collect(c);
  };
  collect(ctx.body);
  for (const ForStmt* loop : loops) {
    auto counter = ctx.for_counter(loop);
    const auto* body = dyn_cast_or_null<CompoundStmt>(loop->getBody());
    if (!counter || !counter->init || !body || body->body_empty()) continue;
    const Stmt* last = body->body_back();
    // The pointer: a local declared before the loop in the block that holds it.
    auto parents = ctx.ctx().getParents(*loop);
    const auto* block = parents.empty() ? nullptr : parents[0].get<CompoundStmt>();
    if (!block) continue;
    for (const Stmt* top : block->body()) {
      if (top == loop) break;
      const auto* ds = dyn_cast<DeclStmt>(top);
      if (!ds || !ds->isSingleDecl()) continue;
      const auto* p = dyn_cast<VarDecl>(ds->getSingleDecl());
      if (!p || !p->getType()->isPointerType() || !p->getInit() || !p->hasLocalStorage()) continue;
      const Expr* stride = step_of(last, p);
      if (!stride) continue;
      Walk w{loop, *counter, p, last, stride};
      // Every other mention of p: read only, inside the loop before the step
      // or before the loop; nothing takes its address or binds to it.
      bool ok = true;
      std::function<void(const Stmt*)> uses = [&](const Stmt* x) {
        if (!x || !ok) return;
        if (x == last) return;
        if (const auto* u = dyn_cast<UnaryOperator>(x)) {
          const auto* r = dyn_cast<DeclRefExpr>(u->getSubExpr()->IgnoreParenImpCasts());
          if (r && r->getDecl() == p && (u->getOpcode() == UO_AddrOf || u->isIncrementDecrementOp())) ok = false;
        }
        if (const auto* b = dyn_cast<BinaryOperator>(x); b && b->isAssignmentOp())
          if (const auto* r = dyn_cast<DeclRefExpr>(b->getLHS()->IgnoreParenImpCasts()); r && r->getDecl() == p) ok = false;
        if (const auto* v = dyn_cast<DeclStmt>(x))
          for (const Decl* d : v->decls())
            if (const auto* rv = dyn_cast<VarDecl>(d); rv && rv->getType()->isReferenceType() && rv->getInit())
              if (const auto* r = dyn_cast<DeclRefExpr>(rv->getInit()->IgnoreParenImpCasts()); r && r->getDecl() == p)
                ok = false;
        if (const auto* r = dyn_cast<DeclRefExpr>(x); r && r->getDecl() == p &&
                                                     ctx.file.sm().isBeforeInTranslationUnit(loop->getEndLoc(),
                                                                                             r->getBeginLoc()))
          ok = false;  // named after the loop
        for (const Stmt* c : x->children()) uses(c);
      };
      uses(ctx.body);
      if (!ok) {
        why = "the pointer `" + p->getNameAsString() + "` changes elsewhere, has its address taken or is used after the loop";
        continue;
      }
      // The step is the same every iteration.
      const std::set<const VarDecl*> changed = modified_variables(loop);
      bool invariant = !stride->HasSideEffects(ctx.ctx(), /*IncludePossibleEffects=*/true);
      std::function<void(const Stmt*)> names = [&](const Stmt* x) {
        if (!x) return;
        if (const auto* r = dyn_cast<DeclRefExpr>(x))
          if (const auto* v = dyn_cast<VarDecl>(r->getDecl()); v && (changed.count(v) || v == p || v == counter->var))
            invariant = false;
        for (const Stmt* c : x->children()) names(c);
      };
      names(stride);
      if (!invariant) {
        why = "the step of `" + p->getNameAsString() + "` changes between iterations";
        continue;
      }
      // The header must not read p: it would keep seeing the unstepped value.
      if (!references_to(loop->getCond(), p).empty() || !references_to(loop->getInc(), p).empty() ||
          !references_to(loop->getInit(), p).empty()) {
        why = "the loop's header reads `" + p->getNameAsString() + "`";
        continue;
      }
      if (skips_step(loop->getBody())) {
        why = "the loop's body can skip the step of `" + p->getNameAsString() + "` (continue or goto)";
        continue;
      }
      return w;
    }
  }
  return std::nullopt;
}

class PointerWalk final : public Rewrite {
 public:
  const char* name() const override { return "pointer-walk"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    auto w = find_walk(ctx, why);
    if (!w) return CheckResult::refuse(why);
    CheckResult r;
    Proposal p;
    p.step = {name(), {}};
    p.motivation = "`" + w->pointer->getNameAsString() + "` steps through the loop; spelled from the counter, the "
                   "rewrites built on the loop's subscripts see the elements it reads";
    // Nothing faster by itself: what it enables is.
    p.predicted_gain = 1.0;
    r.proposals.push_back(p);
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep&, RewriteOutput& out, std::string& error) const override {
    auto w = find_walk(ctx, error);
    if (!w) return false;
    auto start = ctx.text(w->counter.init), stride = ctx.text(w->stride);
    if (!start || !stride) {
      error = "the counter's start or the step is spelled in a macro";
      return false;
    }
    const std::string p = w->pointer->getNameAsString();
    const std::string offset = "(long long)(" + w->counter.var->getNameAsString() + " - (" + *start + ")) * (" +
                               *stride + ")";
    std::map<const Stmt*, std::string> nodes;
    bool ok = true;
    std::function<void(const Stmt*)> uses = [&](const Stmt* x) {
      if (!x || !ok || x == w->step) return;
      auto names_p = [&](const Expr* e) {
        const auto* r = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
        return r && r->getDecl() == w->pointer;
      };
      if (const auto* u = dyn_cast<UnaryOperator>(x); u && u->getOpcode() == UO_Deref && names_p(u->getSubExpr())) {
        nodes[x] = p + "[" + offset + "]";
        return;
      }
      if (const auto* a = dyn_cast<ArraySubscriptExpr>(x); a && names_p(a->getBase())) {
        auto k = ctx.text(a->getIdx());
        if (!k) ok = false;
        else nodes[x] = p + "[" + offset + " + (" + *k + ")]";
        // The subscript itself may name p again.
        uses(a->getIdx());
        return;
      }
      if (const auto* r = dyn_cast<DeclRefExpr>(x); r && r->getDecl() == w->pointer) {
        nodes[x] = "(" + p + " + " + offset + ")";
        return;
      }
      for (const Stmt* c : x->children()) uses(c);
    };
    uses(w->loop->getBody());
    // The step becomes a note in its place (its `;` stays: an empty statement).
    nodes[w->step] = "/* " + p + " += " + *stride + ": spelled from `" + w->counter.var->getNameAsString() +
                     "` by warplens (pointer-walk) */";
    if (!ok) {
      error = "a subscript of `" + p + "` is spelled in a macro";
      return false;
    }
    auto body = text_with_replacements(ctx, w->loop->getBody(), {}, nodes);
    if (!body) {
      error = "the loop's body crosses a macro";
      return false;
    }
    const Stmt* b = w->loop->getBody();
    if (!out.edits.replace_offsets(ctx.offset(b->getBeginLoc()), ctx.offset_after_statement(b), *body)) {
      error = out.edits.error();
      return false;
    }
    out.notes.push_back("`" + p + "` changes only by `" + p + " += " + *stride + "` at the end of each iteration, the "
                        "step the same every iteration, and the body cannot skip it: at iteration `" +
                        w->counter.var->getNameAsString() + "` it is its initial value plus " + offset);
    out.notes.push_back("`" + p + "` is not named after the loop and its address is not taken: its final value is "
                        "not needed");
    return true;
  }
};

}  // namespace

const Rewrite& pointer_walk_rewrite() {
  static const PointerWalk r;
  return r;
}

}  // namespace warplens::agent::rw
