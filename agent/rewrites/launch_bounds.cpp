// launch-bounds: add `__launch_bounds__(threads, min_blocks)` to a kernel whose
// launches all use a known block size. The compiler then limits registers so
// that min_blocks blocks of that size fit on one multiprocessor: more warps
// in flight for a kernel whose occupancy is register-limited, at the risk of
// spills (which the verifier's timing judges).
//
// Safe because every launch in the file uses at most `threads` threads per
// block (a larger launch would fail loudly, never compute something else).
#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

std::optional<std::int64_t> max_threads(const KernelContext& ctx, std::string& why) {
  if (ctx.launches.empty()) {
    why = "no launch in this file gives the block size";
    return std::nullopt;
  }
  std::int64_t t = 0;
  for (const CUDAKernelCallExpr* l : ctx.launches) {
    auto b = eval_dim3(ctx.file, launch_config(l).block);
    if (!b) {
      why = "a launch's block size is not a constant";
      return std::nullopt;
    }
    t = std::max(t, b->x * b->y * b->z);
  }
  return t;
}

// A rough count of 32-bit registers the kernel's own locals need (arrays
// kept in registers when indexed by constants): only for ordering the
// search. The occupancy findings (ptxas's real count) override it.
std::int64_t estimated_registers(const KernelContext& ctx) {
  std::int64_t words = 12;  // indices, pointers, loop counters
  std::function<void(const Stmt*)> walk = [&](const Stmt* st) {
    if (!st) return;
    if (const auto* ds = dyn_cast<DeclStmt>(st))
      for (const Decl* d : ds->decls())
        if (const auto* v = dyn_cast<VarDecl>(d); v && !v->hasAttr<CUDASharedAttr>() && !v->isStaticLocal()) {
          QualType t = v->getType();
          if (!t->isConstantSizeType() || t->isIncompleteType()) continue;
          words += std::min<std::int64_t>(256, static_cast<std::int64_t>(ctx.ctx().getTypeSize(t) / 32));
        }
    for (const Stmt* c : st->children()) walk(c);
  };
  walk(ctx.body);
  return words;
}

class LaunchBounds final : public Rewrite {
 public:
  const char* name() const override { return "launch-bounds"; }

  CheckResult check(KernelContext& ctx) const override {
    if (ctx.kernel->hasAttr<CUDALaunchBoundsAttr>()) return CheckResult::refuse("the kernel already has __launch_bounds__");
    std::string why;
    auto t = max_threads(ctx, why);
    if (!t) return CheckResult::refuse(why);
    CheckResult r;
    const std::int64_t regs = estimated_registers(ctx);
    const bool heavy = regs * *t > 65536 / 2;  // fewer than two blocks would fit
    for (std::int64_t mb : find_rewrite(name())->params[0].values) {
      if (*t * mb > 2048 || *t * mb < 64) continue;  // more than a multiprocessor holds, or pointless
      Proposal p;
      p.step = {name(), {{"min-blocks", mb}}};
      p.motivation = "at least " + std::to_string(mb) + " blocks of " + std::to_string(*t) +
                     " threads per multiprocessor (caps registers at " + std::to_string(65536 / (*t * mb)) +
                     "; the kernel's locals alone need about " + std::to_string(regs) + ")";
      // Register-heavy kernels may gain occupancy; for light ones the cap
      // changes nothing (explored last), and a cap below what the locals
      // need spills them (explored last too: a register-tiled kernel capped
      // at 32 registers is no candidate). The occupancy findings, when the
      // search has them, boost this from ptxas's real counts.
      const std::int64_t cap = 65536 / (*t * mb);
      p.predicted_gain = !heavy ? 0.97 : cap < regs ? 0.95 : 1.15;
      r.proposals.push_back(p);
    }
    if (r.proposals.empty()) return CheckResult::refuse("block size leaves no useful min-blocks value");
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep& step, RewriteOutput& out, std::string& error) const override {
    auto t = max_threads(ctx, error);
    if (!t) return false;
    const std::int64_t mb = param(step, "min-blocks");
    if (mb < 1 || *t * mb > 2048) {
      error = "min-blocks out of range for the block size";
      return false;
    }
    const SourceLocation at = ctx.kernel->getLocation();  // the kernel's name
    if (at.isMacroID()) {
      error = "the kernel's name comes from a macro";
      return false;
    }
    if (!out.edits.insert(at, "__launch_bounds__(" + std::to_string(*t) + ", " + std::to_string(mb) + ") ")) {
      error = out.edits.error();
      return false;
    }
    out.notes.push_back("every launch in the file uses at most " + std::to_string(*t) + " threads per block");
    return true;
  }
};

}  // namespace

const Rewrite& launch_bounds_rewrite() {
  static const LaunchBounds r;
  return r;
}

}  // namespace warplens::agent::rw
