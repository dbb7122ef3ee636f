// swap-thread-mapping: exchange the x and y roles in a 2-D kernel whose
// threadIdx.x walks the slow (strided) dimension of its global accesses while
// threadIdx.y walks the contiguous one (naive matrix product in the wrong
// thread order, column-per-thread loops).
//
// Every x builtin (threadIdx.x, blockIdx.x, blockDim.x, gridDim.x) becomes its
// y counterpart and vice versa, and every launch swaps the x and y of its grid
// and block. That is a pure relabelling: thread (tx, ty) of block (bx, by)
// becomes thread (ty, tx) of block (by, bx) and computes exactly what it did
// before, so the same (i, j) pairs are computed, by the same code, for any
// input. Only which threads share a warp changes, hence the refusal when the
// kernel (or a function it calls) uses warp-level primitives.
#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

struct Strides {
  int good_y = 0;  // accesses contiguous along y but strided along x (fixed by the swap)
  int good_x = 0;  // accesses contiguous along x and strided along y (broken by the swap)
  std::string example;
};

Strides classify(const KernelContext& ctx) {
  Strides s;
  const Symbol tx = builtin_symbol(SymbolKind::ThreadIdx, 0), ty = builtin_symbol(SymbolKind::ThreadIdx, 1);
  for (const Access& a : collect_accesses(ctx.body)) {
    if (a.is_shared || a.indices.size() != 1) continue;
    auto p = ctx.polynomial(a.indices[0]);
    if (!p) continue;
    auto cx = coefficient(*p, tx), cy = coefficient(*p, ty);
    if (!cx || !cy) continue;
    const bool x_unit = is_constant(*cx, 1), y_unit = is_constant(*cy, 1);
    const bool x_zero = is_constant(*cx, 0), y_zero = is_constant(*cy, 0);
    if (y_unit && !x_unit && !x_zero) {
      ++s.good_y;
      if (s.example.empty()) s.example = ctx.text(a.expr).value_or("?");
    }
    if (x_unit && !y_unit && !y_zero) ++s.good_x;
  }
  return s;
}

std::vector<const clang::Expr*> builtin_uses(const Stmt* body) {
  std::vector<const clang::Expr*> out;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s) return;
    if (const auto* po = dyn_cast<PseudoObjectExpr>(s)) {
      if (auto b = as_builtin(po); b && b->dim < 2) {
        out.push_back(po);
        return;
      }
    }
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(body);
  return out;
}

class SwapThreadMapping final : public Rewrite {
 public:
  const char* name() const override { return "swap-thread-mapping"; }

  bool safe(const KernelContext& ctx, std::string& why) const {
    if (uses_warp_primitives(ctx.body)) {
      why = "warp-level primitives depend on which threads share a warp";
      return false;
    }
    if (calls_thread_dependent_function(ctx.body)) {
      why = "a called device function reads thread coordinates (it would not be relabelled)";
      return false;
    }
    for (const clang::Expr* e : builtin_uses(ctx.body))
      if (e->getBeginLoc().isMacroID()) {
        why = "thread coordinates are spelled inside a macro";
        return false;
      }
    return launches_rewritable(ctx, why);
  }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    if (!safe(ctx, why)) return CheckResult::refuse(why);
    Strides s = classify(ctx);
    if (s.good_y == 0 || s.good_y <= s.good_x)
      return CheckResult::refuse("threadIdx.x does not drive a strided dimension that threadIdx.y walks contiguously");
    CheckResult r;
    Proposal p;
    p.step = {name(), {}};
    p.motivation = std::to_string(s.good_y) + " access(es) such as `" + s.example +
                   "` are contiguous along y but strided along x: swapping makes lanes consecutive";
    p.predicted_gain = 4.0;
    r.proposals.push_back(p);
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep&, RewriteOutput& out, std::string& error) const override {
    if (!safe(ctx, error)) return false;
    for (const clang::Expr* e : builtin_uses(ctx.body)) {
      auto b = as_builtin(e);
      const char* var = b->kind == SymbolKind::ThreadIdx ? "threadIdx"
                        : b->kind == SymbolKind::BlockIdx ? "blockIdx"
                        : b->kind == SymbolKind::BlockDim ? "blockDim"
                                                          : "gridDim";
      if (!out.edits.replace(e, std::string(var) + (b->dim == 0 ? ".y" : ".x"))) {
        error = out.edits.error();
        return false;
      }
    }
    LaunchChange change;
    change.kernel = ctx.kernel->getNameAsString();
    change.swap_xy = true;
    if (!rewrite_launches(ctx, change, out.edits, error)) return false;
    out.launch_changes.push_back(change);
    out.notes.push_back("x and y relabelled in the kernel and in every launch: the same (x, y) pairs are computed");
    out.notes.push_back("no warp-level primitives: only the grouping of threads into warps changes");
    return true;
  }
};

}  // namespace

const Rewrite& swap_thread_mapping_rewrite() {
  static const SwapThreadMapping r;
  return r;
}

}  // namespace warplens::agent::rw
