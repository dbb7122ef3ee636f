// tile-k-loop: a 2-D kernel where each thread reduces over k a function of
// two operands, one indexed by (row, k) and one by (k, col) (the naive matrix
// product and its relatives), loads both operands tile by tile into shared
// memory: every element of A and B is then read from global memory once per
// block instead of once per thread.
//
// Applies to the shape of matmul_shape.h:
//   int row = blockIdx.y * blockDim.y + threadIdx.y;
//   int col = blockIdx.x * blockDim.x + threadIdx.x;
//   if (row < M && col < N) {
//     <declarations>
//     for (k = 0; k < K; ++k) acc += E(A[f(row, k)], B[g(k, col)]);
//     <anything: runs under the original guard>
//   }
// where f does not depend on col, g does not depend on row (operands may be
// reached through row pointers), E reads nothing else per thread, thread
// identity is used only through row and col, and the launches provably
// cover M and N. Each tile is loaded with lanes along the operand's
// contiguous axis (either orientation), padded against bank conflicts; out-of-
// range elements are never read (guarded loads) and never accumulated (a
// `k < K` check in the inner loop); declarations before the loop that read
// memory do so only under the original guard. The block becomes tile x tile.
#include "agent/rewrites/matmul_shape.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

class TileKLoop final : public Rewrite {
 public:
  const char* name() const override { return "tile-k-loop"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    if (!launches_rewritable(ctx, why)) return CheckResult::refuse(why);
    auto m = match_matmul(ctx, why);
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
    auto m = match_matmul(ctx, error);
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
      const std::string row = m->row.var->getNameAsString(), col = m->col.var->getNameAsString(),
                        k = m->k.var->getNameAsString();
      const std::string rt = m->row.var->getType().getUnqualifiedType().getAsString(),
                        ct = m->col.var->getType().getUnqualifiedType().getAsString(),
                        kt = m->k.var->getType().getUnqualifiedType().getAsString();
      const std::string K = txt(m->k_bound), row_ok = row + " < " + txt(m->row_bound),
                        col_ok = col + " < " + txt(m->col_bound);
      std::string prologue;
      for (const Stmt* s : m->region.prologue) {
        if (s == m->row.decl || s == m->col.decl) continue;
        prologue += "  " + txt(s) + "\n";
      }
      // Every thread of a tile runs the declarations: those that read memory
      // read only under the original guard.
      std::string pre;
      for (const Stmt* s : m->pre) {
        if (std::find(m->pre_reads.begin(), m->pre_reads.end(), s) != m->pre_reads.end())
          pre += "  " + *guarded_declaration(ctx, s, row_ok + " && " + col_ok) + "\n";
        else
          pre += "  " + txt(s) + "\n";
      }
      std::string post;
      for (const Stmt* s : m->post) post += "    " + statement_with_semicolon(ctx, s) + "\n";
      // A tile: As[r][c] = A(row = tile_row + r, k = t + c); B tile: Bs[r][c] = B(k = t + r, col = tile_col + c).
      auto load_a = [&]() {
        // lanes along k (threadIdx.x -> c) or along rows (threadIdx.x -> r)
        const std::string r_local = m->a.k_contiguous ? "threadIdx.y" : "threadIdx.x";
        const std::string c_local = m->a.k_contiguous ? "threadIdx.x" : "threadIdx.y";
        return "    {\n      const " + rt + " " + row + " = blockIdx.y * " + T + " + " + r_local + ";\n      const " + kt +
               " " + k + " = " + t + " + " + c_local + ";\n      " + as + "[" + r_local + "][" + c_local + "] = (" +
               row_ok + " && " + k + " < " + K + ") ? " + m->a.spelling + " : static_cast<" + m->a.type + ">(0);\n    }\n";
      };
      auto load_b = [&]() {
        const std::string r_local = m->b.k_contiguous ? "threadIdx.x" : "threadIdx.y";
        const std::string c_local = m->b.k_contiguous ? "threadIdx.y" : "threadIdx.x";
        return "    {\n      const " + kt + " " + k + " = " + t + " + " + r_local + ";\n      const " + ct + " " + col +
               " = blockIdx.x * " + T + " + " + c_local + ";\n      " + bs + "[" + r_local + "][" + c_local + "] = (" +
               col_ok + " && " + k + " < " + K + ") ? " + m->b.spelling + " : static_cast<" + m->b.type + ">(0);\n    }\n";
      };
      auto update = accumulation_text(ctx, *m, m->acc->getNameAsString(),
                                      {{m->a.load, as + "[threadIdx.y][" + kk + "]"},
                                       {m->b.load, bs + "[" + kk + "][threadIdx.x]"}});
      if (!update) throw std::runtime_error("the accumulated expression crosses a macro");
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
      b += "      if (" + t + " + " + kk + " < " + K + ") " + *update + "\n";
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
