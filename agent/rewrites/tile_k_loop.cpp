// tile-k-loop: a 2-D kernel where each thread reduces over k a function of
// two operands, one indexed by (row, k) and one by (k, col) (the naive matrix
// product and its relatives), loads both operands tile by tile into shared
// memory: every element of A and B is then read from global memory once per
// block instead of once per thread.
//
// Applies to
//   int row = blockIdx.y * blockDim.y + threadIdx.y;
//   int col = blockIdx.x * blockDim.x + threadIdx.x;
//   if (row < M && col < N) {
//     <declarations without global loads>
//     for (int k = 0; k < K; ++k) acc += E(A[f(row, k)], B[g(k, col)]);
//     <anything: runs under the original guard>
//   }
// where f does not depend on col, g does not depend on row, both subscripts
// name only row/col, k, parameters and constants, E reads nothing else per
// thread, thread identity is used only through row and col, and the launches
// provably cover M and N. Each tile is loaded with lanes along the operand's
// contiguous axis (either orientation), padded against bank conflicts; out-of-
// range elements are never read (guarded loads) and never accumulated (a
// `k < K` check in the inner loop). The block becomes tile x tile.
#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

struct Operand {
  const ArraySubscriptExpr* load = nullptr;
  std::string type;
  bool k_contiguous = false;  // coefficient of k is 1 (else the row/col coefficient is 1)
};

struct Match {
  std::vector<IndexVar> vars;
  std::optional<IndexVar> row, col;  // row: dim 1, col: dim 0
  GuardedRegion region;
  const Expr* row_bound = nullptr;
  const Expr* col_bound = nullptr;
  std::vector<const Stmt*> pre, post;
  const ForStmt* loop = nullptr;
  const VarDecl* k = nullptr;
  const Expr* k_bound = nullptr;
  const Stmt* update = nullptr;  // acc += E
  const Expr* value = nullptr;   // E
  const VarDecl* acc = nullptr;
  Operand a, b;
};

bool only_names(const Stmt* s, const std::set<const ValueDecl*>& allowed) {
  bool ok = true;
  std::function<void(const Stmt*)> walk = [&](const Stmt* x) {
    if (!x || !ok) return;
    if (const auto* r = dyn_cast<DeclRefExpr>(x)) {
      const ValueDecl* d = r->getDecl();
      const auto* v = dyn_cast<VarDecl>(d);
      if (v && v->hasLocalStorage() && !isa<ParmVarDecl>(v) && !allowed.count(v)) ok = false;
    }
    for (const Stmt* c : x->children()) walk(c);
  };
  walk(s);
  return ok;
}

std::optional<Match> match(const KernelContext& ctx, std::string& why) {
  Match m;
  auto grid = match_grid_2d(ctx, why);
  if (!grid) return std::nullopt;
  m.vars = grid->vars;
  m.col = grid->x;
  m.row = grid->y;
  m.region = grid->region;
  if (!m.region.only_bounds) {
    why = "the guard is not `row < M && col < N`";
    return std::nullopt;
  }
  m.row_bound = m.region.bounds.at(m.row->var);
  m.col_bound = m.region.bounds.at(m.col->var);
  std::size_t at = m.region.body.size();
  for (std::size_t i = 0; i < m.region.body.size(); ++i)
    if (isa<ForStmt>(m.region.body[i])) {
      if (at != m.region.body.size()) {
        why = "more than one loop";
        return std::nullopt;
      }
      at = i;
    }
  if (at == m.region.body.size()) {
    why = "no reduction loop";
    return std::nullopt;
  }
  m.loop = cast<ForStmt>(m.region.body[at]);
  m.pre.assign(m.region.body.begin(), m.region.body.begin() + static_cast<long>(at));
  m.post.assign(m.region.body.begin() + static_cast<long>(at) + 1, m.region.body.end());
  if (!only_pure_declarations(ctx, m.pre)) {
    why = "statements with effects before the loop";
    return std::nullopt;
  }
  for (const Stmt* s : m.pre)
    if (!collect_accesses(s).empty()) {
      why = "a declaration before the loop reads memory (every thread of a tile would run it)";
      return std::nullopt;
    }
  // for (int k = 0; k < K; ++k) acc += E;
  const auto* init = dyn_cast_or_null<DeclStmt>(m.loop->getInit());
  m.k = init && init->isSingleDecl() ? dyn_cast<VarDecl>(init->getSingleDecl()) : nullptr;
  if (!m.k || !m.k->getInit() || ctx.eval_int(m.k->getInit()) != std::optional<std::int64_t>(0)) {
    why = "the loop does not run k from 0";
    return std::nullopt;
  }
  const auto* cond = dyn_cast_or_null<BinaryOperator>(m.loop->getCond() ? m.loop->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!cond || cond->getOpcode() != BO_LT || !refers_to(cond->getLHS(), m.k) ||
      !isa<DeclRefExpr>(cond->getLHS()->IgnoreParenImpCasts()) || is_lane_varying(ctx.lower(cond->getRHS()))) {
    why = "the loop is not `k < K` with a uniform K";
    return std::nullopt;
  }
  m.k_bound = cond->getRHS();
  const auto* inc = dyn_cast_or_null<UnaryOperator>(m.loop->getInc());
  if (!inc || !inc->isIncrementOp() || !refers_to(inc->getSubExpr(), m.k)) {
    why = "the loop does not step by one";
    return std::nullopt;
  }
  auto body = statements_of(m.loop->getBody());
  if (body.size() != 1) {
    why = "the loop body is not a single accumulation";
    return std::nullopt;
  }
  m.update = body[0];
  const Expr* lhs = nullptr;
  if (const auto* ca = dyn_cast<CompoundAssignOperator>(m.update); ca && ca->getOpcode() == BO_AddAssign) {
    lhs = ca->getLHS();
    m.value = ca->getRHS();
  } else if (const auto* bo = dyn_cast<BinaryOperator>(m.update); bo && bo->getOpcode() == BO_Assign) {
    const auto* add = dyn_cast<BinaryOperator>(bo->getRHS()->IgnoreParenImpCasts());
    const auto* l = dyn_cast<DeclRefExpr>(bo->getLHS()->IgnoreParenImpCasts());
    if (add && add->getOpcode() == BO_Add && l) {
      const auto* r = dyn_cast<DeclRefExpr>(add->getLHS()->IgnoreParenImpCasts());
      if (r && r->getDecl() == l->getDecl()) {
        lhs = bo->getLHS();
        m.value = add->getRHS();
      }
    }
  }
  const auto* acc_ref = lhs ? dyn_cast<DeclRefExpr>(lhs->IgnoreParenImpCasts()) : nullptr;
  m.acc = acc_ref ? dyn_cast<VarDecl>(acc_ref->getDecl()) : nullptr;
  if (!m.acc || !m.value || refers_to(m.value, m.acc)) {
    why = "the loop is not `acc += expression` with a local accumulator";
    return std::nullopt;
  }
  // Exactly two per-thread loads in E: A[f(row, k)] and B[g(k, col)].
  auto loads = collect_accesses(m.value);
  if (loads.size() != 2) {
    why = "the accumulated expression does not read exactly two operands";
    return std::nullopt;
  }
  const Symbol tx = builtin_symbol(SymbolKind::ThreadIdx, 0), ty = builtin_symbol(SymbolKind::ThreadIdx, 1);
  const Symbol ks{SymbolKind::LoopCounter, 0, m.k->getNameAsString(), true};
  for (const Access& l : loads) {
    if (!l.is_param || l.indices.size() != 1 || l.write) {
      why = "an operand is not a parameter array read";
      return std::nullopt;
    }
    if (!only_names(l.indices[0], {m.row->var, m.col->var, m.k})) {
      why = "an operand's subscript uses locals other than row, col and k";
      return std::nullopt;
    }
    auto p = ctx.polynomial(l.indices[0]);
    if (!p) {
      why = "an operand's subscript is not affine";
      return std::nullopt;
    }
    auto cx = coefficient(*p, tx), cy = coefficient(*p, ty), ck = coefficient(*p, ks);
    if (!cx || !cy || !ck) {
      why = "an operand's subscript is not linear in the thread index and k";
      return std::nullopt;
    }
    Operand op;
    op.load = l.expr;
    op.type = l.expr->getType().getUnqualifiedType().getAsString();
    op.k_contiguous = is_constant(*ck, 1);
    if (is_constant(*cx, 0) && !is_constant(*cy, 0)) {  // depends on the row: A
      if (m.a.load) break;
      if (!op.k_contiguous && !is_constant(*cy, 1)) {
        why = "A is contiguous neither along k nor along rows";
        return std::nullopt;
      }
      m.a = op;
    } else if (is_constant(*cy, 0) && !is_constant(*cx, 0)) {  // depends on the column: B
      if (m.b.load) break;
      if (!op.k_contiguous && !is_constant(*cx, 1)) {
        why = "B is contiguous neither along k nor along columns";
        return std::nullopt;
      }
      m.b = op;
    }
  }
  if (!m.a.load || !m.b.load) {
    why = "no operand pair indexed by (row, k) and (k, col)";
    return std::nullopt;
  }
  if (!only_names(m.value, {m.row->var, m.col->var, m.k}) ||
      references_to(m.value, m.k).size() !=
          references_to(m.a.load, m.k).size() + references_to(m.b.load, m.k).size()) {
    // E may use parameters and constants besides the two operands; k only in subscripts.
    why = "the accumulated expression uses k or locals outside the operands";
    return std::nullopt;
  }
  for (int d = 0; d < 2; ++d)
    if (!launches_cover(ctx, d, d == 0 ? m.col_bound : m.row_bound, why)) return std::nullopt;
  return m;
}

class TileKLoop final : public Rewrite {
 public:
  const char* name() const override { return "tile-k-loop"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    if (!launches_rewritable(ctx, why)) return CheckResult::refuse(why);
    auto m = match(ctx, why);
    if (!m) return CheckResult::refuse(why);
    CheckResult r;
    for (std::int64_t tile : find_rewrite(name())->params[0].values) {
      Proposal p;
      p.step = {name(), {{"tile", tile}}};
      p.motivation = "each thread reads a row of `" + ctx.text(m->a.load->getBase()).value_or("A") + "` and a column of `" +
                     ctx.text(m->b.load->getBase()).value_or("B") + "` from global memory: " + std::to_string(tile) +
                     "x" + std::to_string(tile) + " shared tiles reuse each element " + std::to_string(tile) + " times";
      p.predicted_gain = tile == 32 ? 2.2 : 2.0;
      r.proposals.push_back(p);
    }
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep& step, RewriteOutput& out, std::string& error) const override {
    auto m = match(ctx, error);
    if (!m) return false;
    const std::int64_t tile = param(step, "tile");
    if (tile != 8 && tile != 16 && tile != 32) {
      error = "tile must be 8, 16 or 32";
      return false;
    }
    const std::string T = std::to_string(tile);
    const std::string as = fresh_name(ctx.file, "As"), bs = fresh_name(ctx.file, "Bs"), t = fresh_name(ctx.file, "t"),
                      kk = fresh_name(ctx.file, "kk");
    auto txt = [&](const Stmt* s) -> std::string {
      auto x = ctx.text(s);
      if (!x) throw std::runtime_error("source text inside a macro");
      return *x;
    };
    try {
      const std::string row = m->row->var->getNameAsString(), col = m->col->var->getNameAsString(),
                        k = m->k->getNameAsString();
      const std::string rt = m->row->var->getType().getUnqualifiedType().getAsString(),
                        ct = m->col->var->getType().getUnqualifiedType().getAsString(),
                        kt = m->k->getType().getUnqualifiedType().getAsString();
      const std::string K = txt(m->k_bound), row_ok = row + " < " + txt(m->row_bound),
                        col_ok = col + " < " + txt(m->col_bound);
      std::string prologue;
      for (const Stmt* s : m->region.prologue) {
        if (s == m->row->decl || s == m->col->decl) continue;
        prologue += "  " + txt(s) + "\n";
      }
      std::string pre;
      for (const Stmt* s : m->pre) pre += "  " + txt(s) + "\n";
      std::string post;
      for (const Stmt* s : m->post) {
        const unsigned after = ctx.offset_after_statement(s);
        const unsigned end = ctx.offset(Lexer::getLocForEndOfToken(s->getEndLoc(), 0, ctx.sm(), ctx.file.lang()));
        post += "    " + txt(s) + (after > end ? ctx.slice(end, after) : "") + "\n";
      }
      // A tile: As[r][c] = A(row = tile_row + r, k = t + c); B tile: Bs[r][c] = B(k = t + r, col = tile_col + c).
      auto load_a = [&]() {
        // lanes along k (threadIdx.x -> c) or along rows (threadIdx.x -> r)
        const std::string r_local = m->a.k_contiguous ? "threadIdx.y" : "threadIdx.x";
        const std::string c_local = m->a.k_contiguous ? "threadIdx.x" : "threadIdx.y";
        return "    {\n      const " + rt + " " + row + " = blockIdx.y * " + T + " + " + r_local + ";\n      const " + kt +
               " " + k + " = " + t + " + " + c_local + ";\n      " + as + "[" + r_local + "][" + c_local + "] = (" +
               row_ok + " && " + k + " < " + K + ") ? " + txt(m->a.load) + " : " + m->a.type + "(0);\n    }\n";
      };
      auto load_b = [&]() {
        const std::string r_local = m->b.k_contiguous ? "threadIdx.x" : "threadIdx.y";
        const std::string c_local = m->b.k_contiguous ? "threadIdx.y" : "threadIdx.x";
        return "    {\n      const " + kt + " " + k + " = " + t + " + " + r_local + ";\n      const " + ct + " " + col +
               " = blockIdx.x * " + T + " + " + c_local + ";\n      " + bs + "[" + r_local + "][" + c_local + "] = (" +
               col_ok + " && " + k + " < " + K + ") ? " + txt(m->b.load) + " : " + m->b.type + "(0);\n    }\n";
      };
      auto value = text_with_replacements(
          ctx, m->value, {}, {{m->a.load, as + "[threadIdx.y][" + kk + "]"}, {m->b.load, bs + "[" + kk + "][threadIdx.x]"}});
      if (!value) throw std::runtime_error("the accumulated expression crosses a macro");
      std::string b = "{\n";
      b += "  // Rewritten by warplens (tile-k-loop): operands staged through " + T + "x" + T +
           " shared tiles, each element\n  // loaded once per block; loads guarded, out-of-range k never accumulated.\n";
      b += "  __shared__ " + m->a.type + " " + as + "[" + T + "][" + T + " + 1];\n";
      b += "  __shared__ " + m->b.type + " " + bs + "[" + T + "][" + T + " + 1];\n";
      b += prologue;
      b += "  const " + rt + " " + row + " = blockIdx.y * " + T + " + threadIdx.y;\n";
      b += "  const " + ct + " " + col + " = blockIdx.x * " + T + " + threadIdx.x;\n";
      b += pre;
      b += "  for (" + kt + " " + t + " = 0; " + t + " < " + K + "; " + t + " += " + T + ") {\n";
      b += load_a() + load_b();
      b += "    __syncthreads();\n#pragma unroll\n";
      b += "    for (int " + kk + " = 0; " + kk + " < " + T + "; ++" + kk + ") {\n";
      b += "      if (" + t + " + " + kk + " < " + K + ") " + m->acc->getNameAsString() + " += " + *value + ";\n";
      b += "    }\n    __syncthreads();\n  }\n";
      b += "  if (" + row_ok + " && " + col_ok + ") {\n" + post + "  }\n}";
      if (!out.edits.replace(ctx.body, b)) {
        error = out.edits.error();
        return false;
      }
    } catch (const std::exception& e) {
      error = e.what();
      return false;
    }
    LaunchChange change;
    change.kernel = ctx.kernel->getNameAsString();
    change.block = Dim3{tile, tile, 1};
    if (!rewrite_launches(ctx, change, out.edits, error)) return false;
    out.launch_changes.push_back(change);
    out.notes.push_back("the launches cover both bounds: every (row, col) the original computed is computed, under "
                        "the same guard");
    out.notes.push_back("operand subscripts depend only on (row, k) and (k, col); loads outside the bounds are never "
                        "made and steps beyond K never accumulated");
    return true;
  }
};

}  // namespace

const Rewrite& tile_k_loop_rewrite() {
  static const TileKLoop r;
  return r;
}

}  // namespace warplens::agent::rw
