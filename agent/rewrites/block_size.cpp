// block-size: launch the kernel with another block shape, the grid recomputed
// (by the documented rule, in the host code and in the launch declaration)
// to start at least the same threads.
//
// Safe when the kernel cannot tell blocks apart: thread and block coordinates
// are used only through global index variables (blockIdx * blockDim +
// threadIdx), there is no shared memory, barrier or warp-level primitive, and
// a bounds guard on every used index makes the extra threads of a rounded-up
// grid do nothing; each launch's grid must provably cover the guarded range.
#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

bool uses_shared_memory(const KernelContext& ctx) {
  for (const Access& a : collect_accesses(ctx.body))
    if (a.is_shared) return true;
  bool found = false;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || found) return;
    if (const auto* ds = dyn_cast<DeclStmt>(s))
      for (const Decl* d : ds->decls())
        if (const auto* v = dyn_cast<VarDecl>(d); v && v->hasAttr<CUDASharedAttr>()) found = true;
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(ctx.body);
  return found;
}

}  // namespace

// Shared with launch-bounds: the block-agnostic test.
bool block_agnostic(const KernelContext& ctx, std::vector<IndexVar>& vars, std::string& why) {
  vars = global_index_vars(ctx);
  if (vars.empty()) {
    why = "no global index variable (blockIdx * blockDim + threadIdx)";
    return false;
  }
  if (!identity_only_through_index_vars(ctx, vars, why)) return false;
  if (contains_barrier(ctx.body) || uses_shared_memory(ctx) || uses_warp_primitives(ctx.body)) {
    why = "the kernel cooperates within a block or warp (shared memory, barriers or warp primitives)";
    return false;
  }
  auto region = guarded_region(ctx, vars, why);
  if (!region) return false;
  std::set<int> dims;
  for (const auto& v : vars) dims.insert(v.dim);
  for (int d : dims) {
    const clang::Expr* bound = nullptr;
    for (const auto& v : vars)
      if (v.dim == d && region->bounds.count(v.var)) bound = region->bounds.at(v.var);
    if (!bound) {
      why = std::string("the index along ") + "xyz"[d] + " has no bounds check";
      return false;
    }
    if (!launches_cover(ctx, d, bound, why)) return false;
  }
  return true;
}

namespace {

class BlockSize final : public Rewrite {
 public:
  const char* name() const override { return "block-size"; }

  std::vector<Dim3> shapes(int dims) const {
    if (dims == 1) return {{128, 1, 1}, {256, 1, 1}, {512, 1, 1}, {1024, 1, 1}};
    return {{32, 4, 1}, {32, 8, 1}, {32, 16, 1}, {64, 4, 1}, {16, 16, 1}};
  }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    std::vector<IndexVar> vars;
    if (ctx.kernel->hasAttr<CUDALaunchBoundsAttr>())
      return CheckResult::refuse("the kernel has __launch_bounds__: its block size is fixed by the author");
    if (!launches_rewritable(ctx, why)) return CheckResult::refuse(why);
    if (!block_agnostic(ctx, vars, why)) return CheckResult::refuse(why);
    auto current = constant_block(ctx);
    if (!current) return CheckResult::refuse("the launches' block shapes are not constant");
    int dims = 1;
    for (const auto& v : vars) dims = std::max(dims, v.dim + 1);
    if (dims > 2) return CheckResult::refuse("3-D indexing");
    CheckResult r;
    for (const Dim3& b : shapes(dims)) {
      if (b == *current) continue;
      Proposal p;
      p.step = {name(), {{"x", b.x}, {"y", b.y}}};
      p.motivation = "block " + std::to_string(current->x) + "x" + std::to_string(current->y) + " -> " +
                     std::to_string(b.x) + "x" + std::to_string(b.y) + " (the kernel is block-size agnostic)";
      p.predicted_gain = 1.01;
      r.proposals.push_back(p);
    }
    if (r.proposals.empty()) return CheckResult::refuse("no other block shape to try");
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep& step, RewriteOutput& out, std::string& error) const override {
    const std::int64_t x = param(step, "x"), y = param(step, "y");
    if (x < 1 || y < 1 || x * y > 1024 || x > 1024 || y > 1024) {
      error = "block must have 1..1024 threads";
      return false;
    }
    LaunchChange change;
    change.kernel = ctx.kernel->getNameAsString();
    change.block = Dim3{x, y, 1};
    if (!rewrite_launches(ctx, change, out.edits, error)) return false;
    out.launch_changes.push_back(change);
    out.notes.push_back("block-size agnostic: thread identity only through global indices, bounds-checked, "
                        "launch grids cover the bound");
    return true;
  }
};

}  // namespace

const Rewrite& block_size_rewrite() {
  static const BlockSize r;
  return r;
}

}  // namespace warplens::agent::rw
