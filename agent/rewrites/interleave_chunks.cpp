// interleave-chunks: a thread-per-chunk loop, where thread t handles elements
// t*K .. t*K+K-1, becomes interleaved: at step k thread t handles element
// k*T + t (T = the number of threads that take part). At each step the lanes
// of a warp then touch consecutive elements instead of elements K apart.
//
// The set of elements is unchanged: {t*K + k : t < T, k < K} = [0, T*K) =
// {k*T + t}. The rewrite applies only when the loop body is element-wise:
// t and k appear only inside global subscripts of the form t*K + k + c
// (c uniform), nothing declared outside the loop is modified in it, there is
// no barrier, return or break, and T is known: the uniform bound of the guard
// `if (t < T)`, or every thread of the grid when there is no guard.
#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

struct Match {
  std::vector<IndexVar> vars;
  IndexVar t;
  const ForStmt* loop = nullptr;
  const VarDecl* k = nullptr;
  const clang::Expr* chunk = nullptr;    // K (loop bound)
  std::string threads;                   // T, as source text
  std::vector<const ArraySubscriptExpr*> indexed;  // subscripts to remap
  std::string example;
};

std::optional<Match> match(const KernelContext& ctx, std::string& why) {
  Match m;
  m.vars = global_index_vars(ctx);
  if (m.vars.size() != 1 || m.vars[0].dim != 0) {
    why = "needs exactly one 1-D global thread index";
    return std::nullopt;
  }
  m.t = m.vars[0];
  if (!identity_only_through_index_vars(ctx, m.vars, why)) return std::nullopt;
  if (contains_barrier(ctx.body) || uses_warp_primitives(ctx.body)) {
    why = "barriers or warp primitives";
    return std::nullopt;
  }
  // Where is the loop: directly in the body, or in the guarded region.
  std::vector<const Stmt*> body;
  std::string guard_why;
  auto region = guarded_region(ctx, m.vars, guard_why);
  if (region) {
    if (!region->bounds.count(m.t.var) || !region->only_bounds) {
      why = "the guard is not a plain `t < T`";
      return std::nullopt;
    }
    auto text = ctx.text(region->bounds.at(m.t.var));
    if (!text) {
      why = "the guard's bound is not plain source text";
      return std::nullopt;
    }
    m.threads = "(" + *text + ")";
    body = region->body;
  } else {
    for (const Stmt* s : ctx.body->body())
      if (!isa<DeclStmt>(s)) body.push_back(s);
    m.threads = "(gridDim.x * blockDim.x)";
  }
  // Declarations, then the loop, and nothing after it.
  if (body.empty() || !isa<ForStmt>(body.back()) ||
      !only_pure_declarations(ctx, std::vector<const Stmt*>(body.begin(), body.end() - 1))) {
    why = "the thread's work is not a single loop";
    return std::nullopt;
  }
  m.loop = cast<ForStmt>(body.back());
  const auto* init = dyn_cast_or_null<DeclStmt>(m.loop->getInit());
  if (!init || !init->isSingleDecl()) {
    why = "the loop does not declare its counter";
    return std::nullopt;
  }
  m.k = dyn_cast<VarDecl>(init->getSingleDecl());
  if (!m.k || !m.k->getInit() || ctx.eval_int(m.k->getInit()) != std::optional<std::int64_t>(0)) {
    why = "the loop does not start at 0";
    return std::nullopt;
  }
  const auto* cond = dyn_cast_or_null<BinaryOperator>(m.loop->getCond() ? m.loop->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!cond || cond->getOpcode() != BO_LT || !isa<DeclRefExpr>(cond->getLHS()->IgnoreParenImpCasts()) ||
      !refers_to(cond->getLHS(), m.k) || is_lane_varying(ctx.lower(cond->getRHS())) || refers_to(cond->getRHS(), m.k)) {
    why = "the loop is not `k < K` with a uniform K";
    return std::nullopt;
  }
  m.chunk = cond->getRHS();
  const auto* inc = m.loop->getInc();
  const auto* uo = dyn_cast_or_null<UnaryOperator>(inc);
  if (!uo || !uo->isIncrementOp() || !refers_to(uo->getSubExpr(), m.k)) {
    why = "the loop does not step by one";
    return std::nullopt;
  }
  if (contains_return(m.loop->getBody()) ||
      [&] {
        bool brk = false;
        std::function<void(const Stmt*, bool)> walk = [&](const Stmt* s, bool nested) {
          if (!s) return;
          if (isa<BreakStmt>(s) && !nested) brk = true;
          const bool inner = isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s) || isa<SwitchStmt>(s);
          for (const Stmt* c : s->children()) walk(c, nested || inner);
        };
        walk(m.loop->getBody(), false);
        return brk;
      }()) {
    why = "the loop can exit early";
    return std::nullopt;
  }
  // Nothing declared outside the loop is modified inside (no loop-carried state).
  for (const VarDecl* v : modified_variables(m.loop->getBody())) {
    bool inside = false;
    std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
      if (!s || inside) return;
      if (const auto* ds = dyn_cast<DeclStmt>(s))
        for (const Decl* d : ds->decls())
          if (d == v) inside = true;
      for (const Stmt* c : s->children()) walk(c);
    };
    walk(m.loop->getBody());
    if (!inside) {
      why = "the loop carries state in `" + v->getNameAsString() + "` from one element to the next";
      return std::nullopt;
    }
  }
  // Every use of t and k is inside a global subscript t*K + k + c.
  const Symbol k_sym{SymbolKind::LoopCounter, 0, m.k->getNameAsString(), true};
  ExprRef chunk = ctx.lower(m.chunk);
  auto chunk_poly = to_polynomial(chunk);
  if (!chunk_poly) {
    why = "the chunk length is not a polynomial";
    return std::nullopt;
  }
  std::size_t uses_inside = 0;
  for (const Access& a : collect_accesses(m.loop->getBody())) {
    if (a.indices.size() != 1 || a.is_shared) continue;
    const clang::Expr* idx = a.indices[0];
    if (!refers_to(idx, m.k) && !refers_to(idx, m.t.var)) continue;
    auto p = ctx.polynomial(idx);
    if (!p) {
      why = "subscript `" + ctx.text(a.expr).value_or("?") + "` is not affine";
      return std::nullopt;
    }
    // p - (gid * K + k) must be free of thread indices and k.
    Polynomial gid = Polynomial::symbol(builtin_symbol(SymbolKind::BlockIdx, 0)) *
                         Polynomial::symbol(builtin_symbol(SymbolKind::BlockDim, 0)) +
                     Polynomial::symbol(builtin_symbol(SymbolKind::ThreadIdx, 0));
    Polynomial rest = *p - (gid * *chunk_poly + Polynomial::symbol(k_sym));
    bool clean = is_uniform(rest);
    for (const auto& [mono, c] : rest.terms)
      for (const Symbol& s : mono)
        if (s == k_sym || s.kind == SymbolKind::BlockIdx || s.kind == SymbolKind::ThreadIdx) clean = false;
    if (!clean) {
      why = "subscript `" + ctx.text(a.expr).value_or("?") + "` is not `t * K + k + c`";
      return std::nullopt;
    }
    uses_inside += references_to(idx, m.k).size() + references_to(idx, m.t.var).size();
    m.indexed.push_back(a.expr);
    if (m.example.empty()) m.example = ctx.text(a.expr).value_or("?");
  }
  const std::size_t all_uses = references_to(m.loop->getBody(), m.k).size() + references_to(m.loop->getBody(), m.t.var).size();
  if (m.indexed.empty() || all_uses != uses_inside) {
    why = "t or k is used outside `t * K + k` subscripts";
    return std::nullopt;
  }
  if (auto k = ctx.eval_int(m.chunk); k && *k <= 1) {
    why = "chunks of one element are already interleaved";
    return std::nullopt;
  }
  return m;
}

class InterleaveChunks final : public Rewrite {
 public:
  const char* name() const override { return "interleave-chunks"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    auto m = match(ctx, why);
    if (!m) return CheckResult::refuse(why);
    CheckResult r;
    Proposal p;
    p.step = {name(), {}};
    p.motivation = "thread-per-chunk loop: lanes access `" + m->example + "` " +
                   ctx.text(m->chunk).value_or("K") + " elements apart; interleaving makes each step coalesced";
    auto k = ctx.eval_int(m->chunk);
    p.predicted_gain = k ? std::min<double>(8.0, static_cast<double>(*k) / 2.0 + 1.0) : 4.0;
    r.proposals.push_back(p);
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep&, RewriteOutput& out, std::string& error) const override {
    auto m = match(ctx, error);
    if (!m) return false;
    const std::string j = fresh_name(ctx.file, "j");
    const std::string k = m->k->getNameAsString(), t = m->t.var->getNameAsString();
    // Each subscript E (= t*K + k + c) becomes j + E[t := 0, k := 0] = j + c.
    for (const ArraySubscriptExpr* a : m->indexed) {
      const clang::Expr* idx = a->getIdx();
      if (!out.edits.insert(idx->getBeginLoc(), j + " + (")) {
        error = out.edits.error();
        return false;
      }
      for (const ValueDecl* d : {static_cast<const ValueDecl*>(m->k), static_cast<const ValueDecl*>(m->t.var)})
        for (const DeclRefExpr* r : references_to(idx, d))
          if (!out.edits.replace(r, "0")) {
            error = out.edits.error();
            return false;
          }
      if (!out.edits.insert_after(idx->getEndLoc(), ")")) {
        error = out.edits.error();
        return false;
      }
    }
    // Declare j at the top of the loop body.
    const Stmt* body = m->loop->getBody();
    const std::string decl = "const auto " + j + " = " + k + " * " + m->threads + " + " + t + ";";
    if (const auto* c = dyn_cast<CompoundStmt>(body)) {
      if (!out.edits.insert_after(c->getLBracLoc(), "\n" + ctx.indentation_at(body->getBeginLoc()) + "  " + decl)) {
        error = out.edits.error();
        return false;
      }
    } else {
      if (!out.edits.insert(body->getBeginLoc(), "{\n" + ctx.indentation_at(m->loop->getBeginLoc()) + "  " + decl + "\n" +
                                                     ctx.indentation_at(m->loop->getBeginLoc()) + "  ") ||
          !out.edits.insert_at_offset(ctx.offset_after_statement(body), "\n" + ctx.indentation_at(m->loop->getBeginLoc()) + "}")) {
        error = out.edits.error();
        return false;
      }
    }
    out.notes.push_back("element k*T + t replaces t*K + k: the same T*K elements, each processed once");
    out.notes.push_back("the loop body is element-wise (no state carried between elements, t and k only in subscripts)");
    return true;
  }
};

}  // namespace

const Rewrite& interleave_chunks_rewrite() {
  static const InterleaveChunks r;
  return r;
}

}  // namespace warplens::agent::rw
