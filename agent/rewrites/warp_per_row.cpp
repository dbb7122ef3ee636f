// warp-per-row: a thread-per-row reduction loop (matrix-vector products, row
// sums and norms) becomes warp-per-row. Each original thread turns into a
// warp: its 32 lanes take every 32nd iteration of the loop (consecutive lanes
// read consecutive elements: coalesced), a shuffle reduction adds the lanes'
// partial accumulators, and lane 0 runs what followed the loop.
//
// Applies to:
//   int row = blockIdx.x * blockDim.x + threadIdx.x;   (1-D, unmodified)
//   if (row < M) {                                     (or `if (row >= M) return;`)
//     <side-effect-free declarations, including the accumulators>
//     for (int k = S; k < E; ++k) { ... acc += expr; ... }   (reads only)
//     <anything: executed by lane 0>
//   }
// The accumulators may only be updated with `+=` (or acc = acc + e) and not
// read inside the loop, so only the order of the additions changes (floating
// point sums are reassociated; the verifier's tolerance judges that). Blocks
// must be 1-D multiples of 32 so that the 32 threads replacing one thread are
// one warp; the launch starts 32 times the threads (declared).
#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

struct Match {
  IndexVar row;
  GuardedRegion region;
  const ForStmt* loop = nullptr;
  const VarDecl* counter = nullptr;
  std::vector<const Stmt*> pre, post;
  std::vector<const VarDecl*> accumulators;
  std::vector<IndexVar> vars;
};

bool is_unit_increment(const Stmt* inc, const VarDecl* k) {
  auto refers = [&](const clang::Expr* e) {
    const auto* r = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    return r && r->getDecl() == k;
  };
  if (const auto* uo = dyn_cast_or_null<UnaryOperator>(inc))
    return uo->isIncrementOp() && refers(uo->getSubExpr());
  if (const auto* ca = dyn_cast_or_null<CompoundAssignOperator>(inc))
    if (ca->getOpcode() == BO_AddAssign && refers(ca->getLHS())) {
      Expr::EvalResult r;
      return ca->getRHS()->EvaluateAsInt(r, k->getASTContext()) && r.Val.getInt() == 1;
    }
  return false;
}

// Collects variables declared outside `loop` that the loop modifies, and
// checks that each is only updated by `v += e` with `e` free of accumulators.
bool accumulators_of(const KernelContext& ctx, const ForStmt* loop, const std::vector<const Stmt*>& pre,
                     std::vector<const VarDecl*>& out, std::string& why) {
  std::set<const VarDecl*> declared_before;
  for (const Stmt* s : pre)
    if (const auto* ds = dyn_cast<DeclStmt>(s))
      for (const Decl* d : ds->decls())
        if (const auto* v = dyn_cast<VarDecl>(d)) declared_before.insert(v);
  std::set<const VarDecl*> modified = modified_variables(loop->getBody());
  for (const VarDecl* v : modified) {
    if (v == nullptr) continue;
    if (!declared_before.count(v)) {
      // Locals of the loop body are fine; anything else is state we cannot split.
      bool inside = false;
      std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
        if (!s || inside) return;
        if (const auto* ds = dyn_cast<DeclStmt>(s))
          for (const Decl* d : ds->decls())
            if (d == v) inside = true;
        for (const Stmt* c : s->children()) walk(c);
      };
      walk(loop->getBody());
      if (!inside) {
        why = "the loop modifies `" + v->getNameAsString() + "`, which is not a sum accumulator";
        return false;
      }
      continue;
    }
    if (!v->getType()->isArithmeticType()) {
      why = "accumulator `" + v->getNameAsString() + "` is not arithmetic";
      return false;
    }
    out.push_back(v);
  }
  if (out.empty()) {
    why = "the loop accumulates nothing";
    return false;
  }
  // Every update of an accumulator is `acc += e` or `acc = acc + e`, with e free of accumulators.
  bool ok = true;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || !ok) return;
    auto is_acc = [&](const clang::Expr* e) -> const VarDecl* {
      const auto* r = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
      if (!r) return nullptr;
      const auto* v = dyn_cast<VarDecl>(r->getDecl());
      return std::find(out.begin(), out.end(), v) != out.end() ? v : nullptr;
    };
    auto free_of_accs = [&](const clang::Expr* e) {
      for (const VarDecl* a : out)
        if (refers_to(e, a)) return false;
      return true;
    };
    if (const auto* ca = dyn_cast<CompoundAssignOperator>(s); ca && is_acc(ca->getLHS())) {
      if (ca->getOpcode() != BO_AddAssign || !free_of_accs(ca->getRHS())) ok = false;
      else return walk(ca->getRHS());
    } else if (const auto* bo = dyn_cast<BinaryOperator>(s); bo && bo->getOpcode() == BO_Assign && is_acc(bo->getLHS())) {
      const VarDecl* a = is_acc(bo->getLHS());
      const auto* add = dyn_cast<BinaryOperator>(bo->getRHS()->IgnoreParenImpCasts());
      if (!add || add->getOpcode() != BO_Add) ok = false;
      else if (is_acc(add->getLHS()) == a && free_of_accs(add->getRHS())) return walk(add->getRHS());
      else if (is_acc(add->getRHS()) == a && free_of_accs(add->getLHS())) return walk(add->getLHS());
      else ok = false;
    } else if (const auto* r = dyn_cast<DeclRefExpr>(s); r && is_acc(r)) {
      ok = false;  // read anywhere else
    }
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(loop->getBody());
  if (!ok) why = "an accumulator is read or updated other than by `+=` inside the loop";
  return ok;
}

std::optional<Match> match(const KernelContext& ctx, std::string& why) {
  Match m;
  m.vars = global_index_vars(ctx);
  if (m.vars.size() != 1 || m.vars[0].dim != 0) {
    why = "needs exactly one 1-D global index (the row)";
    return std::nullopt;
  }
  m.row = m.vars[0];
  if (!identity_only_through_index_vars(ctx, m.vars, why)) return std::nullopt;
  if (uses_warp_primitives(ctx.body) || contains_barrier(ctx.body)) {
    why = "the kernel already cooperates across threads (barriers or warp primitives)";
    return std::nullopt;
  }
  auto region = guarded_region(ctx, m.vars, why);
  if (!region) return std::nullopt;
  if (!region->bounds.count(m.row.var) || !region->only_bounds) {
    why = "the row is not checked by a plain `row < rows` guard";
    return std::nullopt;
  }
  m.region = *region;
  std::size_t loop_at = m.region.body.size();
  for (std::size_t i = 0; i < m.region.body.size(); ++i)
    if (isa<ForStmt>(m.region.body[i])) {
      if (loop_at != m.region.body.size()) {
        why = "more than one loop in the row's work";
        return std::nullopt;
      }
      loop_at = i;
    }
  if (loop_at == m.region.body.size()) {
    why = "no loop over the row";
    return std::nullopt;
  }
  m.loop = cast<ForStmt>(m.region.body[loop_at]);
  m.pre.assign(m.region.body.begin(), m.region.body.begin() + static_cast<long>(loop_at));
  m.post.assign(m.region.body.begin() + static_cast<long>(loop_at) + 1, m.region.body.end());
  if (!only_pure_declarations(ctx, m.pre)) {
    why = "statements with effects before the loop";
    return std::nullopt;
  }
  const auto* init = dyn_cast_or_null<DeclStmt>(m.loop->getInit());
  if (!init || !init->isSingleDecl()) {
    why = "the loop does not declare its counter";
    return std::nullopt;
  }
  m.counter = dyn_cast<VarDecl>(init->getSingleDecl());
  if (!m.counter || !m.counter->getInit() || !m.counter->getType()->isIntegerType()) {
    why = "the loop counter is not an initialised integer";
    return std::nullopt;
  }
  if (is_lane_varying(ctx.lower(m.counter->getInit()))) {
    why = "the loop start differs between threads";
    return std::nullopt;
  }
  const auto* cond = dyn_cast_or_null<BinaryOperator>(m.loop->getCond() ? m.loop->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!cond || cond->getOpcode() != BO_LT || !refers_to(cond->getLHS(), m.counter) ||
      !isa<DeclRefExpr>(cond->getLHS()->IgnoreParenImpCasts()) || refers_to(cond->getRHS(), m.counter) ||
      is_lane_varying(ctx.lower(cond->getRHS()))) {
    why = "the loop is not `k < uniform bound`";
    return std::nullopt;
  }
  if (!is_unit_increment(m.loop->getInc(), m.counter)) {
    why = "the loop does not step by one";
    return std::nullopt;
  }
  bool has_break = false;
  std::function<void(const Stmt*, bool)> walk = [&](const Stmt* s, bool nested) {
    if (!s) return;
    if (isa<BreakStmt>(s) && !nested) has_break = true;
    if (isa<ReturnStmt>(s) || isa<GotoStmt>(s)) has_break = true;
    const bool loop = isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s) || isa<SwitchStmt>(s);
    for (const Stmt* c : s->children()) walk(c, nested || loop);
  };
  walk(m.loop->getBody(), false);
  if (has_break) {
    why = "the loop can exit early";
    return std::nullopt;
  }
  for (const Access& a : collect_accesses(m.loop->getBody()))
    if (a.write && !a.is_shared) {
      why = "the loop writes global memory";
      return std::nullopt;
    }
  if (uses_atomics(m.loop->getBody())) {
    why = "the loop uses atomics";
    return std::nullopt;
  }
  if (!accumulators_of(ctx, m.loop, m.pre, m.accumulators, why)) return std::nullopt;
  if (contains_barrier(ctx.body)) {
    why = "barriers";
    return std::nullopt;
  }
  auto block = constant_block(ctx);
  if (!block || block->y != 1 || block->z != 1 || block->x % 32 != 0) {
    why = "blocks must be 1-D multiples of 32 threads (constant at every launch)";
    return std::nullopt;
  }
  std::string cover_why;
  if (!launches_cover(ctx, 0, m.region.bounds.at(m.row.var), cover_why)) {
    why = cover_why;
    return std::nullopt;
  }
  return m;
}

class WarpPerRow final : public Rewrite {
 public:
  const char* name() const override { return "warp-per-row"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    if (!launches_rewritable(ctx, why)) return CheckResult::refuse(why);
    auto m = match(ctx, why);
    if (!m) return CheckResult::refuse(why);
    // How strided is the row walk? Lane stride of the loads in the loop.
    std::string example;
    double gain = 2.0;
    const Symbol tx = builtin_symbol(SymbolKind::ThreadIdx, 0);
    for (const Access& a : collect_accesses(m->loop->getBody())) {
      if (a.indices.size() != 1 || a.is_shared) continue;
      auto p = ctx.polynomial(a.indices[0]);
      if (!p) continue;
      auto c = coefficient(*p, tx);
      if (c && !is_constant(*c, 0) && !is_constant(*c, 1)) {
        example = ctx.text(a.expr).value_or("?");
        gain = 8.0;
      }
    }
    CheckResult r;
    Proposal p;
    p.step = {name(), {}};
    p.motivation = "thread-per-row loop over `" + m->counter->getNameAsString() + "`" +
                   (example.empty() ? "" : ": lanes of a warp read `" + example + "` a row apart") +
                   "; a warp per row reads each row contiguously";
    p.predicted_gain = gain;
    r.proposals.push_back(p);
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep&, RewriteOutput& out, std::string& error) const override {
    auto m = match(ctx, error);
    if (!m) return false;
    Edits& e = out.edits;
    const std::string lane = fresh_name(ctx.file, "lane");
    const std::string sum = fresh_name(ctx.file, "warp_sum");
    const clang::Expr* gid = m->row.var->getInit();
    auto gid_text = ctx.text(gid);
    if (!gid_text) {
      error = "the row's initialiser is not plain source text";
      return false;
    }
    // row = gid / 32; lane = gid % 32
    if (!e.replace(gid, "(" + *gid_text + ") / 32") ||
        !e.insert_after(m->row.decl->getEndLoc(), "\n" + ctx.indentation_at(m->row.decl->getBeginLoc()) +
                                                          "const int " + lane + " = static_cast<int>((" + *gid_text +
                                                          ") % 32);")) {
      error = e.error();
      return false;
    }
    // Lanes other than 0 start their accumulators at zero.
    std::string indent = ctx.indentation_at(m->loop->getBeginLoc());
    std::string zero;
    for (const VarDecl* a : m->accumulators)
      zero += "if (" + lane + " != 0) " + a->getNameAsString() + " = 0;\n" + indent;
    // Lane-strided loop.
    auto start = ctx.text(m->counter->getInit());
    auto inc = ctx.text(m->loop->getInc());
    if (!start || !inc) {
      error = "the loop header is not plain source text";
      return false;
    }
    if (!e.insert(m->loop->getBeginLoc(), zero) ||
        !e.replace(m->counter->getInit(), "(" + *start + ") + " + lane) ||
        !e.replace(m->loop->getInc(), m->counter->getNameAsString() + " += 32")) {
      error = e.error();
      return false;
    }
    std::string reduce;
    for (const VarDecl* a : m->accumulators)
      reduce += "\n" + indent + a->getNameAsString() + " = " + sum + "(" + a->getNameAsString() + ");";
    std::string after_loop = reduce;
    if (!m->post.empty()) after_loop += "\n" + indent + "if (" + lane + " == 0) {";
    if (!e.insert_at_offset(ctx.offset_after_statement(m->loop), after_loop)) {
      error = e.error();
      return false;
    }
    if (!m->post.empty() && !e.insert_at_offset(ctx.offset_after_statement(m->post.back()), "\n" + indent + "}")) {
      error = e.error();
      return false;
    }
    const std::string helper = "// Added by warplens (warp-per-row): sum over the 32 lanes of a warp.\n"
                               "template <typename T>\n__device__ __forceinline__ T " + sum + "(T v) {\n"
                               "  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);\n"
                               "  return v;\n}\n\n";
    if (!insert_before_kernel(ctx, e, helper)) {
      error = e.error();
      return false;
    }
    LaunchChange change;
    change.kernel = ctx.kernel->getNameAsString();
    change.thread_scale[0] = {32, 1};
    if (!rewrite_launches(ctx, change, e, error)) return false;
    out.launch_changes.push_back(change);
    out.notes.push_back("each row is reduced by one full warp (blocks are multiples of 32); the row guard is uniform "
                        "across the warp");
    out.notes.push_back("accumulators only grow by +=: the lanes' partial sums add up to the same total "
                        "(floating-point order changes)");
    out.notes.push_back("the launch grid covers the rows, and starts 32x the threads");
    return true;
  }
};

}  // namespace

const Rewrite& warp_per_row_rewrite() {
  static const WarpPerRow r;
  return r;
}

}  // namespace warplens::agent::rw
