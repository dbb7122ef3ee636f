// grid-stride: a one-element-per-thread kernel becomes a grid-stride loop
// (each thread handles elements t, t + T, t + 2T, ... with T the number of
// threads in the grid), which is correct for any grid, and the launch is
// capped at `blocks-per-sm` blocks per multiprocessor: fewer, longer-lived
// blocks, less scheduling overhead, and a shape later rewrites can build on.
#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

class GridStride final : public Rewrite {
 public:
  const char* name() const override { return "grid-stride"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    auto m = match_elementwise(ctx, why);
    if (!m) return CheckResult::refuse(why);
    if (!launches_rewritable(ctx, why)) return CheckResult::refuse(why);
    CheckResult r;
    for (std::int64_t k : find_rewrite(name())->params[0].values) {
      if (k == 0) continue;
      Proposal p;
      p.step = {name(), {{"blocks-per-sm", k}}};
      p.motivation = "one element per thread: a grid-stride loop with at most " + std::to_string(k) +
                     " blocks per multiprocessor";
      p.predicted_gain = 1.02;
      r.proposals.push_back(p);
    }
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep& step, RewriteOutput& out, std::string& error) const override {
    const std::int64_t k = param(step, "blocks-per-sm");
    if (k < 0 || k > 64) {
      error = "blocks-per-sm must be 0..64";
      return false;
    }
    auto m = match_elementwise(ctx, error);
    if (!m) return false;
    const std::string iname = m->index.var->getNameAsString();
    const std::string itype = m->index.var->getType().getUnqualifiedType().getAsString();
    const std::string s = fresh_name(ctx.file, "s");
    auto bound = ctx.text(m->bound);
    if (!bound) {
      error = "the bound is not plain source text";
      return false;
    }
    std::string prologue, body;
    for (const Stmt* st : m->region.prologue) {
      if (st == m->index.decl) continue;
      auto tx = ctx.text(st);
      if (!tx) {
        error = "a declaration crosses a macro";
        return false;
      }
      prologue += "  " + *tx + "\n";
    }
    for (const Stmt* st : m->region.body) {
      auto tx = statement_text(ctx, st);
      if (!tx) {
        error = "the element's code crosses a macro";
        return false;
      }
      body += "      " + *tx + "\n";
    }
    std::string text = "{\n  // Rewritten by warplens (grid-stride): correct for any grid.\n" + prologue;
    text += "  for (long long " + s + " = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; " + s +
            " < static_cast<long long>(" + *bound + "); " + s + " += static_cast<long long>(gridDim.x) * blockDim.x) {\n";
    text += "    const " + itype + " " + iname + " = static_cast<" + itype + ">(" + s + ");\n";
    text += "    {\n" + body + "    }\n  }\n}";
    if (!out.edits.replace(ctx.body, text)) {
      error = out.edits.error();
      return false;
    }
    if (k > 0) {
      LaunchChange change;
      change.kernel = ctx.kernel->getNameAsString();
      change.persistent_blocks_per_sm = static_cast<int>(k);
      if (!rewrite_launches(ctx, change, out.edits, error)) return false;
      out.launch_changes.push_back(change);
    }
    out.notes.push_back("grid-stride loop: every element below the bound is processed exactly once, for any grid");
    return true;
  }
};

}  // namespace

const Rewrite& grid_stride_rewrite() {
  static const GridStride r;
  return r;
}

}  // namespace warplens::agent::rw
