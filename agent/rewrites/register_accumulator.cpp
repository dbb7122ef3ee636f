// register-accumulator: a loop that accumulates straight into global memory
// (`out[i] += a[i * n + j] * x[j]`, `c[i * n + j] += ...`) keeps the sum in a
// register instead: the element is read once before the loop and written
// once after it, not read and written every iteration. A store to the same
// element just before the loop (`c[i * n + j] *= beta;`, `y[i] = 0;`) is
// folded into the register's initial value. This is also what lets
// warp-per-row, tile-k-loop and register-tile see the loop as the reduction
// they know (`acc += E` on a local).
//
// Applies to every `for` loop L of the kernel whose body updates elements
// M[idx] with `M[idx] += e`, `-=`, `*=`, `M[idx] = M[idx] + e` or
// `M[idx] = fmaxf(M[idx], e)` (fminf, max, min) where, all checked:
//   - idx is loop-invariant: it names no variable L changes or declares, and
//     M is a kernel parameter (followed through pointer locals) or a
//     pointer local declared before L;
//   - inside L, M's memory is touched only at that element, by those updates
//     (no other element of M, no `&M[..]`, no call receiving M);
//   - nothing else in L can reach that element: every other global array L
//     touches comes through another parameter and every launch passes
//     distinct pointers (or M is `__restrict__`); no access through a
//     pointer the analysis cannot follow, no `*p = v`, no call that may
//     store, no barrier, atomic or warp primitive (another thread could
//     otherwise observe the partial sums), no `return`/`goto` out of L.
// Then the register holds exactly the value the element would hold after
// each iteration, and the final store writes the value the last iteration
// wrote: the same arithmetic in the same order.
#include <clang/AST/StmtCXX.h>

#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

struct Element {
  const ValueDecl* root = nullptr;          // the parameter behind M
  std::optional<Polynomial> index;          // flattened, in elements of the root
  const ArraySubscriptExpr* first = nullptr;  // an access to copy the spelling from
  std::vector<const Stmt*> updates;         // the update statements (expressions)
  std::vector<const ArraySubscriptExpr*> uses;  // every access of the element in L
  std::string type;
  const Stmt* folded = nullptr;             // the store before L folded into the initial value
  std::string init;                         // the register's initial value
  // Without a folded store the element is read and written only when the
  // loop runs at all (`(S) < (E)`, empty when provably true), as the
  // original touches it only then.
  std::string runs;
};

struct LoopPlan {
  const ForStmt* loop = nullptr;
  std::vector<Element> elements;
};

bool same_element(const Element& e, const Access& a) {
  if (!a.root || a.root != e.root || !a.flat_index) return false;
  auto p = to_polynomial(a.flat_index);
  return p && e.index && p->terms == e.index->terms;
}

// `M[idx] op= e` / `M[idx] = M[idx] + e` / `M[idx] = fmaxf(M[idx], e)`: the
// subscript being updated, the operator text and the value.
struct Update {
  const ArraySubscriptExpr* target = nullptr;
  std::string op;                       // "+=", "-=", "*=", or a function name
  const Expr* value = nullptr;
};

std::optional<Update> update_of(const KernelContext& ctx, const Stmt* s) {
  auto subscript = [](const Expr* e) { return dyn_cast<ArraySubscriptExpr>(e->IgnoreParenImpCasts()); };
  auto same_text = [&](const Expr* a, const Expr* b) {
    auto ta = ctx.text(a), tb = ctx.text(b);
    return ta && tb && *ta == *tb;
  };
  if (const auto* ca = dyn_cast<CompoundAssignOperator>(s)) {
    const auto* t = subscript(ca->getLHS());
    if (!t) return std::nullopt;
    switch (ca->getOpcode()) {
      case BO_AddAssign: return Update{t, "+=", ca->getRHS()};
      case BO_SubAssign: return Update{t, "-=", ca->getRHS()};
      case BO_MulAssign: return Update{t, "*=", ca->getRHS()};
      default: return std::nullopt;
    }
  }
  const auto* bo = dyn_cast<BinaryOperator>(s);
  if (!bo || bo->getOpcode() != BO_Assign) return std::nullopt;
  const auto* t = subscript(bo->getLHS());
  if (!t) return std::nullopt;
  const Expr* rhs = bo->getRHS()->IgnoreParenImpCasts();
  if (const auto* add = dyn_cast<BinaryOperator>(rhs); add && add->getOpcode() == BO_Add) {
    if (const auto* l = subscript(add->getLHS()); l && same_text(l, t)) return Update{t, "+=", add->getRHS()};
    if (const auto* r = subscript(add->getRHS()); r && same_text(r, t)) return Update{t, "+=", add->getLHS()};
  }
  if (const auto* call = dyn_cast<CallExpr>(rhs); call && call->getNumArgs() == 2 && call->getDirectCallee()) {
    const std::string n = call->getDirectCallee()->getNameAsString();
    if (n == "fmaxf" || n == "fminf" || n == "fmax" || n == "fmin" || n == "max" || n == "min") {
      if (const auto* a = subscript(call->getArg(0)); a && same_text(a, t)) return Update{t, n, call->getArg(1)};
      if (const auto* b = subscript(call->getArg(1)); b && same_text(b, t)) return Update{t, n, call->getArg(0)};
    }
  }
  return std::nullopt;
}

bool declared_in(const Stmt* s, const VarDecl* v) {
  bool found = false;
  std::function<void(const Stmt*)> walk = [&](const Stmt* x) {
    if (!x || found) return;
    if (const auto* ds = dyn_cast<DeclStmt>(x))
      for (const Decl* d : ds->decls()) found |= d == v;
    for (const Stmt* c : x->children()) walk(c);
  };
  walk(s);
  return found;
}

bool writes_through_pointer(const Stmt* s) {
  bool found = false;
  std::function<void(const Stmt*)> walk = [&](const Stmt* x) {
    if (!x || found) return;
    auto plain = [](const Expr* lhs) {
      lhs = lhs->IgnoreParenImpCasts();
      if (const auto* me = dyn_cast<MemberExpr>(lhs); me && !me->isArrow()) lhs = me->getBase()->IgnoreParenImpCasts();
      return isa<DeclRefExpr>(lhs) || isa<ArraySubscriptExpr>(lhs);
    };
    if (const auto* bo = dyn_cast<BinaryOperator>(x); bo && bo->isAssignmentOp() && !plain(bo->getLHS())) found = true;
    if (const auto* uo = dyn_cast<UnaryOperator>(x); uo && uo->isIncrementDecrementOp() && !plain(uo->getSubExpr()))
      found = true;
    for (const Stmt* c : x->children()) walk(c);
  };
  walk(s);
  return found;
}

bool may_store_through_call(const Stmt* s) {
  bool found = false;
  std::function<void(const Stmt*)> walk = [&](const Stmt* x) {
    if (!x || found) return;
    if (const auto* call = dyn_cast<CallExpr>(x)) {
      const FunctionDecl* fd = call->getDirectCallee();
      if (!fd) found = true;
      else {
        const std::string n = fd->getNameAsString();
        if (n == "printf" || n == "malloc" || n == "free") found = true;
        for (const ParmVarDecl* p : fd->parameters()) {
          QualType t = p->getType();
          if ((t->isPointerType() && !t->getPointeeType().isConstQualified()) ||
              (t->isReferenceType() && !t.getNonReferenceType().isConstQualified()))
            found = true;
        }
      }
    }
    for (const Stmt* c : x->children()) walk(c);
  };
  walk(s);
  return found;
}

bool has_exit(const Stmt* s) {
  if (!s) return false;
  if (isa<ReturnStmt>(s) || isa<GotoStmt>(s)) return true;
  for (const Stmt* c : s->children())
    if (has_exit(c)) return true;
  return false;
}

// The statement right before `s` in its compound statement, or null.
const Stmt* previous_statement(const KernelContext& ctx, const Stmt* s) {
  auto parents = ctx.ctx().getParents(*s);
  if (parents.empty()) return nullptr;
  const auto* c = parents[0].get<CompoundStmt>();
  if (!c) return nullptr;
  const Stmt* prev = nullptr;
  for (const Stmt* x : c->body()) {
    if (x == s) return prev;
    prev = x;
  }
  return nullptr;
}

bool in_compound(const KernelContext& ctx, const Stmt* s) {
  auto parents = ctx.ctx().getParents(*s);
  return !parents.empty() && parents[0].get<CompoundStmt>();
}

std::optional<LoopPlan> plan_loop(const KernelContext& ctx, const ForStmt* loop, std::string& why) {
  LoopPlan plan;
  plan.loop = loop;
  const Stmt* body = loop->getBody();
  // The updates.
  std::vector<std::pair<Update, const Stmt*>> updates;
  std::function<void(const Stmt*)> find = [&](const Stmt* s) {
    if (!s) return;
    if (const auto* e = dyn_cast<Expr>(s))
      if (auto u = update_of(ctx, e)) {
        updates.emplace_back(*u, s);
        find(u->value);
        return;
      }
    for (const Stmt* c : s->children()) find(c);
  };
  find(body);
  if (updates.empty()) {
    why = "no loop accumulates into memory (`out[i] += ...`)";
    return std::nullopt;
  }
  if (contains_barrier(body) || uses_atomics(body) || uses_warp_primitives(body)) {
    why = "the loop synchronises, or uses atomics or warp primitives: other threads could see the partial sums";
    return std::nullopt;
  }
  if (has_exit(body)) {
    why = "the loop can return from the kernel: the final store would be skipped";
    return std::nullopt;
  }
  if (writes_through_pointer(body) || may_store_through_call(body)) {
    why = "the loop stores through a pointer or calls a function that may store";
    return std::nullopt;
  }
  const std::set<const VarDecl*> changed = modified_variables(loop);
  for (const auto& [u, stmt] : updates) {
    Access target;
    for (const Access& a : accesses_in(ctx, u.target))
      if (a.expr == u.target) target = a;
    if (!target.root || !target.flat_index || target.is_shared || target.member) {
      why = "`" + ctx.text(u.target).value_or("?") + "` is not an element of an array the analysis follows";
      return std::nullopt;
    }
    const auto* root_var = dyn_cast<VarDecl>(target.root);
    if (!target.root_is_param && !(root_var && root_var->hasGlobalStorage())) {
      why = "`" + ctx.text(u.target).value_or("?") + "` is not global memory";
      return std::nullopt;
    }
    // Loop-invariant and spelled with names valid before the loop.
    bool invariant = true;
    std::function<void(const Stmt*)> names = [&](const Stmt* x) {
      if (!x || !invariant) return;
      if (const auto* r = dyn_cast<DeclRefExpr>(x))
        if (const auto* v = dyn_cast<VarDecl>(r->getDecl()))
          if (changed.count(v) || declared_in(loop, v)) invariant = false;
      for (const Stmt* c : x->children()) names(c);
    };
    names(u.target);
    if (!invariant) {
      why = "`" + ctx.text(u.target).value_or("?") + "` moves with the loop";
      return std::nullopt;
    }
    auto it = std::find_if(plan.elements.begin(), plan.elements.end(),
                           [&](const Element& e) { return same_element(e, target); });
    if (it == plan.elements.end()) {
      Element e;
      e.root = target.root;
      e.index = to_polynomial(target.flat_index);
      if (!e.index) {
        why = "the index of `" + ctx.text(u.target).value_or("?") + "` is not affine";
        return std::nullopt;
      }
      e.first = u.target;
      e.type = u.target->getType().getUnqualifiedType().getAsString();
      if (!u.target->getType()->isArithmeticType()) {
        why = "`" + ctx.text(u.target).value_or("?") + "` is not a number";
        return std::nullopt;
      }
      plan.elements.push_back(e);
      it = plan.elements.end() - 1;
    }
    it->updates.push_back(stmt);
  }
  // Every access of the elements' arrays in the loop is one of the elements;
  // other global arrays come through other parameters, and launches pass
  // distinct pointers for all of them (unless every element's array is
  // __restrict__, which promises the same).
  std::vector<const ParmVarDecl*> params;
  bool restricted = true;
  for (const Element& e : plan.elements) {
    const auto* p = dyn_cast<ParmVarDecl>(e.root);
    if (p) params.push_back(p);
    restricted &= p && p->getType().isRestrictQualified();
  }
  for (const Access& a : accesses_in(ctx, body)) {
    if (a.is_shared) continue;
    bool element = false;
    for (Element& e : plan.elements)
      if (same_element(e, a)) {
        element = true;
        e.uses.push_back(a.expr);
      }
    if (element) continue;
    for (const Element& e : plan.elements)
      if (a.root == e.root) {
        why = "the loop also touches `" + ctx.text(a.expr).value_or("?") + "`, another element of the same array";
        return std::nullopt;
      }
    const auto* rv = a.root ? dyn_cast<VarDecl>(a.root) : nullptr;
    if (rv && !isa<ParmVarDecl>(rv) && !rv->hasGlobalStorage()) continue;  // a local array
    if (!a.root) {
      why = "the loop reads `" + ctx.text(a.expr).value_or("?") + "` through a pointer the analysis cannot follow";
      return std::nullopt;
    }
    if (const auto* p = dyn_cast<ParmVarDecl>(a.root); p && std::find(params.begin(), params.end(), p) == params.end())
      params.push_back(p);
  }
  // The element's array is not used in the loop other than through those accesses.
  for (const Element& e : plan.elements)
    for (const DeclRefExpr* r : references_to(body, e.root)) {
      bool in_use = false;
      for (const ArraySubscriptExpr* u : e.uses) in_use |= refers_to(u, r->getDecl()) &&
                                                             ctx.sm().isPointWithin(r->getLocation(), u->getBeginLoc(), u->getEndLoc());
      if (!in_use) {
        why = "`" + e.root->getNameAsString() + "` is used in the loop other than at the accumulated element";
        return std::nullopt;
      }
    }
  if (!restricted && params.size() > 1 && !launches_pass_distinct_pointers(ctx, params, why)) {
    why = "cannot rule out that another array of the loop is the accumulated one: " + why;
    return std::nullopt;
  }
  // A store to the element right before the loop becomes the initial value.
  for (Element& e : plan.elements) {
    auto first = ctx.text(e.first);
    if (!first) {
      why = "`" + e.root->getNameAsString() + "`'s element is spelled in a macro";
      return std::nullopt;
    }
    e.init = *first;
    const Stmt* prev = previous_statement(ctx, loop);
    const auto* pe = dyn_cast_or_null<Expr>(prev);
    if (!pe || plan.elements.size() != 1) continue;
    const auto* bo = dyn_cast<BinaryOperator>(pe->IgnoreParenImpCasts());
    const auto* lhs = bo && bo->isAssignmentOp() ? dyn_cast<ArraySubscriptExpr>(bo->getLHS()->IgnoreParenImpCasts()) : nullptr;
    if (!lhs) continue;
    Access pa;
    for (const Access& a : accesses_in(ctx, lhs))
      if (a.expr == lhs) pa = a;
    if (!same_element(e, pa)) continue;
    auto value = ctx.text(bo->getRHS());
    if (!value) continue;
    // The value must not read the array or change anything.
    bool clean = !refers_to(bo->getRHS(), e.root) && modified_variables(bo->getRHS()).empty() &&
                 !may_store_through_call(bo->getRHS());
    if (!clean) continue;
    std::string op;
    switch (bo->getOpcode()) {
      case BO_Assign: e.init = "(" + *value + ")"; break;
      case BO_AddAssign: op = "+"; break;
      case BO_SubAssign: op = "-"; break;
      case BO_MulAssign: op = "*"; break;
      case BO_DivAssign: op = "/"; break;
      default: continue;
    }
    if (!op.empty()) e.init = *first + " " + op + " (" + *value + ")";
    e.folded = prev;
  }
  // When does the loop run? `for (k = S; k < E; ...)` (or `<=`) with an
  // increasing counter: iff S < E (S <= E) on entry.
  for (Element& e : plan.elements) {
    if (e.folded) continue;
    auto counter = ctx.for_counter(loop);
    const auto* cond = dyn_cast_or_null<BinaryOperator>(loop->getCond() ? loop->getCond()->IgnoreParenImpCasts() : nullptr);
    const bool increasing = [&] {
      if (const auto* u = dyn_cast_or_null<UnaryOperator>(loop->getInc())) return u->isIncrementOp();
      if (const auto* c = dyn_cast_or_null<CompoundAssignOperator>(loop->getInc()))
        if (c->getOpcode() == BO_AddAssign)
          if (auto step = ctx.eval_int(c->getRHS())) return *step > 0;
      return false;
    }();
    if (!counter || !cond || !increasing || (cond->getOpcode() != BO_LT && cond->getOpcode() != BO_LE) ||
        !refers_to(cond->getLHS(), counter->var) || !isa<DeclRefExpr>(cond->getLHS()->IgnoreParenImpCasts()) ||
        refers_to(cond->getRHS(), counter->var)) {
      why = "cannot tell when the loop runs (`for (k = start; k < end; ++k)` expected), so the element could be "
            "written where the original leaves it alone";
      return std::nullopt;
    }
    for (const VarDecl* v : changed)
      if (v != counter->var && refers_to(cond->getRHS(), v)) {
        why = "the loop's bound changes inside it";
        return std::nullopt;
      }
    auto start = ctx.text(counter->init), end = ctx.text(cond->getRHS());
    if (!start || !end) {
      why = "the loop header is spelled in a macro";
      return std::nullopt;
    }
    auto s = ctx.eval_int(counter->init), t = ctx.eval_int(cond->getRHS());
    const bool always = s && t && (cond->getOpcode() == BO_LT ? *s < *t : *s <= *t);
    if (!always) {
      e.runs = "(" + *start + ") " + (cond->getOpcode() == BO_LT ? "<" : "<=") + " (" + *end + ")";
      e.init = e.runs + " ? " + e.init + " : static_cast<" + e.type + ">(0)";
    }
  }
  return plan;
}

std::vector<LoopPlan> plans(const KernelContext& ctx, std::string& why) {
  std::vector<LoopPlan> out;
  std::string last;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s) return;
    if (const auto* f = dyn_cast<ForStmt>(s)) {
      std::string w;
      if (auto p = plan_loop(ctx, f, w)) {
        out.push_back(*p);
        return;  // inner loops of an accumulating loop are part of it
      }
      if (last.empty() || w.find("no loop accumulates") == std::string::npos) last = w;
    }
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(ctx.body);
  if (out.empty()) why = last.empty() ? "no loop accumulates into memory (`out[i] += ...`)" : last;
  return out;
}

class RegisterAccumulator final : public Rewrite {
 public:
  const char* name() const override { return "register-accumulator"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    auto found = plans(ctx, why);
    if (found.empty()) return CheckResult::refuse(why);
    CheckResult r;
    Proposal p;
    p.step = {name(), {}};
    const Element& e = found.front().elements.front();
    p.motivation = "`" + ctx.text(e.first).value_or("?") + "` is read and written in global memory on every "
                   "iteration of its loop; a register holds the sum, one load before and one store after";
    p.predicted_gain = 1.3;
    r.proposals.push_back(p);
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep&, RewriteOutput& out, std::string& error) const override {
    auto found = plans(ctx, error);
    if (found.empty()) return false;
    Edits& e = out.edits;
    int n = 0;
    for (const LoopPlan& plan : found) {
      const std::string indent = ctx.indentation_at(plan.loop->getBeginLoc());
      const bool wrap = !in_compound(ctx, plan.loop);
      std::string before = wrap ? "{\n" + indent : "";
      std::string after;
      for (const Element& el : plan.elements) {
        const std::string reg = fresh_name(ctx.file, n ? "acc" + std::to_string(n + 1) : "acc");
        ++n;
        const std::string decl = el.type + " " + reg + " = " + el.init + ";";
        after += "\n" + indent + (el.runs.empty() ? "" : "if (" + el.runs + ") ") + *ctx.text(el.first) + " = " +
                 reg + ";";
        for (const ArraySubscriptExpr* use : el.uses)
          if (!e.replace(use, reg)) {
            error = e.error();
            return false;
          }
        if (el.folded) {
          // The store before the loop becomes the register's declaration.
          if (!e.replace_offsets(ctx.offset(el.folded->getBeginLoc()), ctx.offset_after_statement(el.folded), decl)) {
            error = e.error();
            return false;
          }
        } else {
          before += decl + "\n" + indent;
        }
      }
      if (wrap) after += "\n" + indent + "}";
      if ((!before.empty() && !e.insert(plan.loop->getBeginLoc(), before)) ||
          !e.insert_at_offset(ctx.offset_after_statement(plan.loop), after)) {
        error = e.error();
        return false;
      }
    }
    out.notes.push_back("the accumulated element's index does not change in the loop, and nothing else in the loop "
                        "reaches that element (other arrays are other parameters, passed distinct pointers or "
                        "__restrict__; no unknown pointer, no storing call, no barrier, atomic or warp primitive, no "
                        "return): the register holds what the element would after every iteration");
    out.notes.push_back("the element is read once before the loop and written once after it, only when the loop "
                        "runs (a store to it just before the loop becomes the register's initial value, and then the "
                        "element is written as the original writes it)");
    return true;
  }
};

}  // namespace

const Rewrite& register_accumulator_rewrite() {
  static const RegisterAccumulator r;
  return r;
}

}  // namespace warplens::agent::rw
