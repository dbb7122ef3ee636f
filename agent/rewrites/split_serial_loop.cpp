// split-serial-loop: a kernel whose threads each run a long loop of
// independent iterations (a 3-D stencil over (x, y) with each thread walking
// z; a thread per row writing every element of its row) has as many threads
// as there are loops, often too few to hide memory latency (256 x 256
// threads walking 256 planes: 65k threads on a GPU that keeps 270k in
// flight). The loop's iterations are spread over `splits` threads along the
// grid's z instead: thread k of a loop runs iterations A + k, A + k + S, ...
// (S = gridDim.z * blockDim.z, so every iteration runs once for any z
// grid), and the launch gets `splits` times the threads along z (declared).
//
// Applies when, all checked:
//   - the loop is the kernel's last statement (or the last one of a final
//     `if` without `else`), its counter z is its own (ForCounter), its
//     condition `z < B` or `z <= B` with B unchanged by the loop, its step
//     `z++`, `++z` or `z += 1`, and nothing in its body changes z;
//   - the body has no return, break or goto, no barrier, warp primitive,
//     atomic, shared memory, pointer dereference other than subscripts, or
//     call with a pointer or reference argument (nothing can write memory
//     unseen), and changes no variable declared outside it (no state
//     carried from one iteration to the next);
//   - every array the body writes is a kernel parameter written at one
//     index only, affine in z (the analysis' lowering: helpers such as
//     `at(x, y, z, nx, ny)` included) with a coefficient c over parameters
//     and constants, and read nowhere else in the kernel; arrays it reads
//     are never written by the kernel; the kernel never mentions threadIdx.z,
//     blockIdx.z, blockDim.z or gridDim.z.
// Then two iterations of one thread write different elements whenever
// c != 0 (signed index arithmetic does not wrap: overflow would be
// undefined in the original as well), no iteration reads what another
// writes, and no state passes between them: any distribution of the
// iterations over threads computes what the serial loop did. A c that is
// not a nonzero constant is tested at run time; where it is 0 only the first
// of the loop's threads runs the loop, serially, as before.
#include <algorithm>

#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

struct Plan {
  const ForStmt* loop = nullptr;
  ForCounter counter;
  std::string counter_type;
  std::vector<std::string> runtime_coefficients;  // rendered z coefficients that are not constants
  std::vector<std::string> written;               // names of the arrays written
};

// Polynomial has no ==; two are the same when their difference is the constant 0.
bool same_polynomial(const Polynomial& a, const Polynomial& b) {
  const Polynomial d = a - b;
  return d.is_constant() && d.constant_term() == 0;
}

bool mentions_z_builtin(const Stmt* s) {
  if (!s) return false;
  if (const auto* e = dyn_cast<Expr>(s))
    if (auto b = as_builtin(e); b && b->dim == 2) return true;
  for (const Stmt* c : s->children())
    if (mentions_z_builtin(c)) return true;
  return false;
}

// return, goto, or a break that leaves the loop (not one of an inner loop or switch).
bool exits_early(const Stmt* s, bool nested) {
  if (!s) return false;
  if (isa<ReturnStmt>(s) || isa<GotoStmt>(s) || isa<IndirectGotoStmt>(s)) return true;
  if (isa<BreakStmt>(s) && !nested) return true;
  const bool inner = isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s) || isa<SwitchStmt>(s);
  for (const Stmt* c : s->children())
    if (exits_early(c, nested || inner)) return true;
  return false;
}

// A call that could write memory the subscripts do not show: one taking a
// pointer or a reference (helpers computing an index take values only).
bool hidden_writer(const Stmt* s, std::string& what) {
  if (!s) return false;
  if (const auto* call = dyn_cast<CallExpr>(s)) {
    for (const Expr* a : call->arguments()) {
      const QualType t = a->getType();
      if (t->isPointerType() || t->isReferenceType() || (a->isGLValue() && t->isArrayType())) {
        what = "calls `" + (call->getDirectCallee() ? call->getDirectCallee()->getNameAsString() : std::string("?")) +
               "` with a pointer";
        return true;
      }
    }
    if (const FunctionDecl* fd = call->getDirectCallee())
      for (const ParmVarDecl* p : fd->parameters())
        if (p->getType()->isReferenceType() && !p->getType().getNonReferenceType().isConstQualified()) {
          what = "calls `" + fd->getNameAsString() + "`, which takes a reference";
          return true;
        }
  }
  if (const auto* uo = dyn_cast<UnaryOperator>(s); uo && uo->getOpcode() == UO_Deref) {
    what = "writes or reads through `*`";
    return true;
  }
  for (const Stmt* c : s->children())
    if (hidden_writer(c, what)) return true;
  return false;
}

// The kernel's final loop: its last statement, or the last statement of a
// final `if` without `else`.
const ForStmt* final_loop(const CompoundStmt* body) {
  if (!body || body->body_empty()) return nullptr;
  const Stmt* last = body->body_back();
  if (const auto* f = dyn_cast<ForStmt>(last)) return f;
  if (const auto* ifs = dyn_cast<IfStmt>(last); ifs && !ifs->getElse()) {
    if (const auto* f = dyn_cast<ForStmt>(ifs->getThen())) return f;
    if (const auto* c = dyn_cast<CompoundStmt>(ifs->getThen()); c && !c->body_empty())
      return dyn_cast<ForStmt>(c->body_back());
  }
  return nullptr;
}

bool is_unit_step(const Expr* inc, const VarDecl* z, const KernelContext& ctx) {
  if (!inc) return false;
  inc = inc->IgnoreParenImpCasts();
  auto is_z = [&](const Expr* e) {
    const auto* r = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    return r && r->getDecl() == z;
  };
  if (const auto* uo = dyn_cast<UnaryOperator>(inc))
    return uo->isIncrementOp() && is_z(uo->getSubExpr());
  if (const auto* ca = dyn_cast<CompoundAssignOperator>(inc))
    return ca->getOpcode() == BO_AddAssign && is_z(ca->getLHS()) && ctx.eval_int(ca->getRHS()) == 1;
  return false;
}

std::optional<Plan> plan(const KernelContext& ctx, std::string& why) {
  if (!ctx.body) {
    why = "the kernel has no body";
    return std::nullopt;
  }
  Plan p;
  p.loop = final_loop(ctx.body);
  if (!p.loop) {
    why = "the kernel does not end in a loop";
    return std::nullopt;
  }
  auto counter = ctx.for_counter(p.loop);
  if (!counter || !counter->var->getType()->isSignedIntegerType()) {
    why = "the final loop has no signed integer counter of its own";
    return std::nullopt;
  }
  p.counter = *counter;
  p.counter_type = counter->var->getType().getUnqualifiedType().getAsString();
  const VarDecl* z = counter->var;
  const auto* cond = dyn_cast_or_null<BinaryOperator>(p.loop->getCond() ? p.loop->getCond()->IgnoreParenImpCasts() : nullptr);
  const auto* lhs = cond ? dyn_cast<DeclRefExpr>(cond->getLHS()->IgnoreParenImpCasts()) : nullptr;
  if (!cond || (cond->getOpcode() != BO_LT && cond->getOpcode() != BO_LE) || !lhs || lhs->getDecl() != z ||
      refers_to(cond->getRHS(), z)) {
    why = "the final loop's condition is not `z < B` or `z <= B`";
    return std::nullopt;
  }
  if (!is_unit_step(p.loop->getInc(), z, ctx)) {
    why = "the final loop does not step by one";
    return std::nullopt;
  }
  const Stmt* body = p.loop->getBody();
  const std::set<const VarDecl*> changed = modified_variables(body);
  if (changed.count(z)) {
    why = "the loop's body changes its counter";
    return std::nullopt;
  }
  for (const VarDecl* v : changed) {
    bool inside = false;
    std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
      if (!s || inside) return;
      if (const auto* ds = dyn_cast<DeclStmt>(s))
        for (const Decl* d : ds->decls()) inside |= d == v;
      for (const Stmt* c : s->children()) walk(c);
    };
    walk(body);
    if (!inside) {
      why = "the loop carries state in `" + v->getNameAsString() + "` from one iteration to the next";
      return std::nullopt;
    }
    if (refers_to(cond->getRHS(), v)) {
      why = "the loop's bound changes inside it";
      return std::nullopt;
    }
  }
  if (exits_early(body, false)) {
    why = "the loop can exit early";
    return std::nullopt;
  }
  if (contains_barrier(ctx.body) || uses_warp_primitives(ctx.body) || uses_atomics(ctx.body)) {
    why = "the kernel synchronises, uses warp primitives or atomics";
    return std::nullopt;
  }
  if (mentions_z_builtin(ctx.body)) {
    why = "the kernel already uses the z dimension of its grid";
    return std::nullopt;
  }
  std::string hidden;
  if (hidden_writer(body, hidden)) {
    why = "the loop " + hidden;
    return std::nullopt;
  }
  // Memory: writes at one affine-in-z index per parameter, reads of arrays never written.
  const Symbol zs{SymbolKind::LoopCounter, 0, z->getNameAsString(), true};
  std::map<const ValueDecl*, Polynomial> written;
  std::vector<const ParmVarDecl*> arrays;
  const std::vector<Access> all = accesses_in(ctx, ctx.body);
  for (const Access& a : all) {
    if (a.is_shared) {
      why = "the kernel uses shared memory";
      return std::nullopt;
    }
    if (!a.root) {
      why = "`" + ctx.text(a.expr).value_or("?") + "` is accessed through a pointer whose array is not known";
      return std::nullopt;
    }
    if (const auto* pv = dyn_cast<ParmVarDecl>(a.root);
        pv && a.root_is_param && std::find(arrays.begin(), arrays.end(), pv) == arrays.end())
      arrays.push_back(pv);
    if (!a.write) continue;
    if (!a.root || !a.root_is_param || !a.flat_index) {
      why = "`" + ctx.text(a.expr).value_or("?") + "` is written, not a kernel parameter's element";
      return std::nullopt;
    }
    auto poly = to_polynomial(a.flat_index);
    if (!poly) {
      why = "`" + ctx.text(a.expr).value_or("?") + "` is written at an index that is not a polynomial";
      return std::nullopt;
    }
    auto [it, fresh] = written.emplace(a.root, *poly);
    if (!fresh && !same_polynomial(it->second, *poly)) {
      why = "`" + a.root->getNameAsString() + "` is written at more than one index";
      return std::nullopt;
    }
  }
  if (written.empty()) {
    why = "the loop writes no kernel parameter's array";
    return std::nullopt;
  }
  for (const Access& a : all) {
    auto w = a.root ? written.find(a.root) : written.end();
    if (w == written.end()) continue;
    auto poly = a.flat_index ? to_polynomial(a.flat_index) : std::nullopt;
    if (a.read && !(poly && same_polynomial(*poly, w->second))) {
      why = "`" + a.root->getNameAsString() + "`, which the loop writes, is also read elsewhere";
      return std::nullopt;
    }
  }
  // Each written index: affine in z with a coefficient over parameters and constants.
  // The arrays must be different buffers at every launch, or a read could
  // see another iteration's write through a second name.
  if (!launches_pass_distinct_pointers(ctx, arrays, why)) return std::nullopt;
  for (const auto& [root, poly] : written) {
    auto c = coefficient(poly, zs);
    if (!c) {
      why = "`" + root->getNameAsString() + "` is written at an index that is not affine in `" + z->getNameAsString() + "`";
      return std::nullopt;
    }
    if (is_constant(*c, 0)) {
      why = "every iteration writes the same element of `" + root->getNameAsString() + "`";
      return std::nullopt;
    }
    if (!c->is_constant()) {
      auto text = render_index(*c, "", "");
      if (!text) {
        why = "the index of `" + root->getNameAsString() + "` steps by an amount that depends on the thread";
        return std::nullopt;
      }
      p.runtime_coefficients.push_back(*text);
    }
    p.written.push_back(root->getNameAsString());
  }
  return p;
}

class SplitSerialLoop final : public Rewrite {
 public:
  const char* name() const override { return "split-serial-loop"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    auto p = plan(ctx, why);
    if (!p) return CheckResult::refuse(why);
    if (!launches_rewritable(ctx, why)) return CheckResult::refuse(why);
    CheckResult r;
    for (std::int64_t splits : {8, 4, 16}) {
      Proposal pr;
      pr.step = {name(), {{"splits", splits}}};
      pr.motivation = "each thread runs the loop over `" + p->counter.var->getNameAsString() +
                      "` alone; its iterations are independent, so " + std::to_string(splits) +
                      " threads along z share them (" + std::to_string(splits) + "x the threads in flight)";
      pr.predicted_gain = splits == 8 ? 1.6 : splits == 4 ? 1.5 : 1.45;
      r.proposals.push_back(pr);
    }
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep& step, RewriteOutput& out, std::string& error) const override {
    auto p = plan(ctx, error);
    if (!p) return false;
    const std::int64_t splits = param(step, "splits");
    if (splits < 2 || splits > 64) {
      error = "splits must be 2..64";
      return false;
    }
    const std::string first = fresh_name(ctx.file, "zfirst"), stride = fresh_name(ctx.file, "zstride");
    const std::string z = p->counter.var->getNameAsString(), T = p->counter_type;
    auto init = ctx.text(p->counter.init);
    if (!init) {
      error = "the loop's start is spelled in a macro";
      return false;
    }
    std::map<const Stmt*, std::string> nodes;
    nodes[p->counter.init] = "(" + *init + ") + static_cast<" + T + ">(" + first + ")";
    nodes[p->loop->getInc()] = z + " += static_cast<" + T + ">(" + stride + ")";
    auto loop = text_with_replacements(ctx, p->loop, {}, nodes);
    if (!loop) {
      error = "the loop is spelled in a macro";
      return false;
    }
    std::string text = "{\n    // Rewritten by warplens (split-serial-loop): the iterations of this loop are independent;\n"
                       "    // the threads along z share them (iteration " + z + " runs on thread (" + z +
                       " - start) % zstride).\n";
    text += "    const long long " + first + " = static_cast<long long>(blockIdx.z) * blockDim.z + threadIdx.z;\n";
    text += "    const long long " + stride + " = static_cast<long long>(gridDim.z) * blockDim.z;\n";
    if (!p->runtime_coefficients.empty()) {
      std::string zero;
      for (const auto& c : p->runtime_coefficients) zero += (zero.empty() ? "" : " || ") + ("(" + c + ") == 0");
      text += "    // An index that does not move with " + z + " (" + zero +
              "): one thread runs the loop, serially, as before.\n";
      text += "    if ((" + zero + ") && " + first + " != 0) return;\n";
      text += "    const long long " + stride + "_used = (" + zero + ") ? 1 : " + stride + ";\n";
      nodes[p->counter.init] = "(" + *init + ") + static_cast<" + T + ">((" + zero + ") ? 0 : " + first + ")";
      nodes[p->loop->getInc()] = z + " += static_cast<" + T + ">(" + stride + "_used)";
      loop = text_with_replacements(ctx, p->loop, {}, nodes);
      if (!loop) {
        error = "the loop is spelled in a macro";
        return false;
      }
    }
    // A body without braces ends before its `;`: the `;` goes inside the new
    // block with the loop, and the replaced text runs through it.
    const bool braced = isa<CompoundStmt>(p->loop->getBody());
    text += "    " + *loop + (braced ? "" : ";") + "\n  }";
    if (!out.edits.replace_offsets(ctx.offset(p->loop->getBeginLoc()), ctx.offset_after_statement(p->loop), text)) {
      error = out.edits.error();
      return false;
    }
    LaunchChange change;
    change.kernel = ctx.kernel->getNameAsString();
    change.thread_scale[2] = {splits, 1};
    if (!rewrite_launches(ctx, change, out.edits, error)) return false;
    out.launch_changes.push_back(change);
    std::string arrays;
    for (const auto& w : p->written) arrays += (arrays.empty() ? "`" : ", `") + w + "`";
    out.notes.push_back("the loop over `" + z + "` is the kernel's last statement, steps by one, and changes no "
                        "variable declared outside it: no state passes between iterations");
    out.notes.push_back("the loop writes " + arrays + " at one index each, affine in `" + z +
                        "` with a nonzero step (checked at run time where it is not a constant), and reads nothing "
                        "the kernel writes: iterations write different elements and read nothing another writes");
    out.notes.push_back("iteration " + z + " runs on one of the " + std::to_string(splits) +
                        "x threads along z (start + k, + gridDim.z * blockDim.z, ...): every iteration once, for any "
                        "z grid; the launch gets " + std::to_string(splits) + "x the threads along z");
    return true;
  }
};

}  // namespace

const Rewrite& split_serial_loop_rewrite() {
  static const SplitSerialLoop r;
  return r;
}

}  // namespace warplens::agent::rw
