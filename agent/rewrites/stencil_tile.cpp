// stencil-tile: a 2-D stencil (each thread (x, y) reads an input array at
// fixed offsets around its own element: `in[(y - 1) * W + x] + in[y * W + x
// + 1] ...`) stages the block's neighbourhood once in shared memory, halo
// included: each input element is read from global memory once per block
// instead of once per neighbour that uses it.
//
// Applies when plan_stencil() (stencil_plan.h) matches.
// Then a tile cell is loaded exactly when some thread under the original
// guard reads it at one of the offsets (the guard, and not the edge branch's
// condition where the work has one, is evaluated at the cell minus each
// offset), so no element the original does not read is read;
// the barrier orders the loads before the reads; the work runs under the
// original guard with each read of S replaced by its tile cell, which holds
// the same value. The block becomes 32 x `rows` (the grid recomputed to
// start at least the same threads; declared).
#include "agent/rewrites/stencil_plan.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

class StencilTile final : public Rewrite {
 public:
  const char* name() const override { return "stencil-tile"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    if (!launches_rewritable(ctx, why)) return CheckResult::refuse(why);
    auto p = plan_stencil(ctx, why);
    if (!p) return CheckResult::refuse(why);
    CheckResult r;
    for (std::int64_t rows : find_rewrite(name())->params[0].values) {
      Proposal pr;
      pr.step = {name(), {{"rows", rows}}};
      pr.motivation = std::to_string(p->taps.size()) + " reads of `" + p->array->getNameAsString() +
                      "` around each element (offsets x " + std::to_string(p->dx_min) + ".." +
                      std::to_string(p->dx_max) + ", y " + std::to_string(p->dy_min) + ".." +
                      std::to_string(p->dy_max) + "): a 32x" + std::to_string(rows) +
                      " block stages its neighbourhood once in shared memory";
      pr.predicted_gain = 1.3 + 0.02 * static_cast<double>(p->taps.size()) + (rows == 8 ? 0.01 : 0.0);
      r.proposals.push_back(pr);
    }
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep& step, RewriteOutput& out, std::string& error) const override {
    auto p = plan_stencil(ctx, error);
    if (!p) return false;
    const std::int64_t rows = param(step, "rows");
    if (rows != 4 && rows != 8 && rows != 16 && rows != 32) {
      error = "rows must be 4, 8, 16 or 32";
      return false;
    }
    const std::int64_t th = rows + p->dy_max - p->dy_min, tw = 32 + p->dx_max - p->dx_min;
    const std::string tile = fresh_name(ctx.file, "tile"), c = fresh_name(ctx.file, "c"),
                      tx = fresh_name(ctx.file, "tx"), ty = fresh_name(ctx.file, "ty"), x0 = fresh_name(ctx.file, "x0"),
                      y0 = fresh_name(ctx.file, "y0"), need = fresh_name(ctx.file, "needed");
    const VarDecl* x = p->grid.x.var;
    const VarDecl* y = p->grid.y.var;
    const std::string xn = x->getNameAsString(), yn = y->getNameAsString();
    const std::string xt = x->getType().getUnqualifiedType().getAsString(),
                      yt = y->getType().getUnqualifiedType().getAsString();
    const std::string TW = std::to_string(tw), TH = std::to_string(th), R = std::to_string(rows);
    std::string b = "{\n  // Rewritten by warplens (stencil-tile): the block's " + TH + "x" + TW + " neighbourhood of `" +
                    p->array->getNameAsString() + "` in shared memory,\n  // each cell loaded when some thread reads it.\n";
    b += "  __shared__ " + p->type + " " + tile + "[" + TH + "][" + TW + "];\n";
    for (const Stmt* s : p->grid.region.prologue) {
      auto t = ctx.text(s);
      if (!t) {
        error = "a declaration is spelled in a macro";
        return false;
      }
      b += "  " + *t + "\n";
    }
    // Signed arithmetic: the first block's halo starts at a negative offset
    // (an unsigned `blockIdx.y * R + (-1)` wraps, and nvcc warns).
    b += "  {\n    const " + xt + " " + x0 + " = static_cast<" + xt + ">((long long)blockIdx.x * 32 + (" +
         std::to_string(p->dx_min) + "));\n";
    b += "    const " + yt + " " + y0 + " = static_cast<" + yt + ">((long long)blockIdx.y * " + R + " + (" +
         std::to_string(p->dy_min) + "));\n";
    b += "    for (int " + c + " = threadIdx.y * 32 + threadIdx.x; " + c + " < " + TH + " * " + TW + "; " + c +
         " += 32 * " + R + ") {\n";
    b += "      const int " + ty + " = " + c + " / " + TW + ", " + tx + " = " + c + " % " + TW + ";\n";
    b += "      bool " + need + " = false;\n";
    std::set<std::pair<std::int64_t, std::int64_t>> offsets;
    for (const StencilTap& t : p->taps) offsets.insert({t.dx, t.dy});
    for (const auto& [dx, dy] : offsets)
      b += "      if (!" + need + ") {\n        const " + xt + " " + xn + " = " + x0 + " + " + tx + " - (" +
           std::to_string(dx) + ");\n        const " + yt + " " + yn + " = " + y0 + " + " + ty + " - (" +
           std::to_string(dy) + ");\n        " + need + " = " + p->interior + ";\n      }\n";
    b += "      if (" + need + ") {\n        const " + xt + " " + xn + " = " + x0 + " + " + tx + ";\n        const " + yt +
         " " + yn + " = " + y0 + " + " + ty + ";\n        " + tile + "[" + ty + "][" + tx + "] = " + p->first +
         ";\n      }\n    }\n  }\n  __syncthreads();\n";
    std::map<const Stmt*, std::string> nodes;
    for (const StencilTap& t : p->taps)
      nodes[t.read] = tile + "[threadIdx.y + " + std::to_string(t.dy - p->dy_min) + "][threadIdx.x + " +
                      std::to_string(t.dx - p->dx_min) + "]";
    std::string work;
    for (const Stmt* s : p->grid.region.body) {
      auto t = statement_text(ctx, s, nodes);
      if (!t) {
        error = "the work is spelled in a macro";
        return false;
      }
      work += "    " + *t + "\n";
    }
    b += "  if (" + p->guard + ") {\n" + work + "  }\n}";
    if (!out.edits.replace(ctx.body, b)) {
      error = out.edits.error();
      return false;
    }
    LaunchChange change;
    change.kernel = ctx.kernel->getNameAsString();
    change.block = Dim3{32, rows, 1};
    if (!rewrite_launches(ctx, change, out.edits, error)) return false;
    out.launch_changes.push_back(change);
    out.notes.push_back("every read of `" + p->array->getNameAsString() + "` is at a constant offset (x " +
                        std::to_string(p->dx_min) + ".." + std::to_string(p->dx_max) + ", y " +
                        std::to_string(p->dy_min) + ".." + std::to_string(p->dy_max) +
                        ") from (x, y) with one row pitch; the kernel never writes it and nothing it writes reaches it");
    out.notes.push_back("a tile cell is loaded only when some thread under the original guard reads it, so no "
                        "element the original leaves alone is read; a barrier orders the loads before the work");
    out.notes.push_back("the work runs under the original guard; the launches cover both bounds, and the new grid "
                        "starts at least the original threads");
    return true;
  }
};

}  // namespace

const Rewrite& stencil_tile_rewrite() {
  static const StencilTile r;
  return r;
}

}  // namespace warplens::agent::rw
