// block-dim-index: a global index written with the block size as a constant
// (`blockIdx.x * BLOCK_SIZE + threadIdx.x` with a macro, a template
// parameter or a constexpr), or a block index alone standing for one
// (`int row = blockIdx.y;` in a kernel launched with one thread along y), is
// spelled `blockIdx.x * blockDim.x + threadIdx.x`, so that the rewrites
// built on global indices (block-size, tiles, register tiles, warp per row,
// 2-D coarsening, ...) see it, and keep it right when they change the block.
//
// Safe when every launch of the kernel in the file (every instantiation's,
// for a template) has that block size along that dimension, as a constant:
// there blockDim.d == C (for a block index alone, C = 1 and threadIdx.d is
// 0), so the two spellings give the same index in every thread. The kernel must also not read thread or block coordinates
// anywhere else (then nothing else depends on C being the block size),
// and the rewrite changes only those initialisers.
#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

struct ConstantBlockIndex {
  const VarDecl* var = nullptr;
  const DeclStmt* decl = nullptr;
  int dim = 0;
  std::int64_t block = 0;  // the constant C
};

// `blockIdx.d * C + threadIdx.d` (any order) with a positive constant C, or
// `blockIdx.d` alone (C = 1: the global index when blocks are 1 thread
// along d).
std::optional<std::pair<int, std::int64_t>> constant_block_form(const KernelContext& ctx, const Expr* init) {
  auto p = ctx.polynomial(init);
  if (!p) return std::nullopt;
  for (int d = 0; d < 3; ++d) {
    const Symbol bx = builtin_symbol(SymbolKind::BlockIdx, d), tx = builtin_symbol(SymbolKind::ThreadIdx, d);
    if (p->terms == Polynomial::symbol(bx).terms) return std::make_pair(d, std::int64_t{1});
    auto c = coefficient(*p, bx);
    if (!c || !c->is_constant() || c->constant_term() <= 0) continue;
    const Polynomial want = Polynomial::symbol(bx) * Polynomial::constant(c->constant_term()) + Polynomial::symbol(tx);
    if (p->terms == want.terms) return std::make_pair(d, c->constant_term());
  }
  return std::nullopt;
}

std::vector<ConstantBlockIndex> constant_block_indices(const KernelContext& ctx) {
  std::vector<ConstantBlockIndex> out;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s) return;
    if (const auto* ds = dyn_cast<DeclStmt>(s)) {
      for (const Decl* d : ds->decls()) {
        const auto* v = dyn_cast<VarDecl>(d);
        if (!v || !v->getInit() || ctx.modified.count(v) || !v->getType()->isIntegerType()) continue;
        if (auto f = constant_block_form(ctx, v->getInit())) out.push_back({v, ds, f->first, f->second});
      }
    }
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(ctx.body);
  return out;
}

std::optional<std::vector<ConstantBlockIndex>> plan(const KernelContext& ctx, std::string& why) {
  auto found = constant_block_indices(ctx);
  if (found.empty()) {
    why = "no global index spelled with a constant block size (`blockIdx.x * BLOCK + threadIdx.x`) or as a "
          "block index alone (`blockIdx.y`)";
    return std::nullopt;
  }
  std::set<int> dims;
  for (const auto& f : found) {
    if (!dims.insert(f.dim).second) {
      why = "two such indices along the same dimension";
      return std::nullopt;
    }
  }
  // Thread identity only through these variables (and any already spelled
  // with blockDim): nothing else can depend on C being the block size.
  std::vector<IndexVar> vars = global_index_vars(ctx);
  for (const auto& f : found) vars.push_back({f.var, f.dim, f.decl});
  if (!identity_only_through_index_vars(ctx, vars, why)) return std::nullopt;
  if (ctx.launches.empty()) {
    why = "no launch of the kernel in this file";
    return std::nullopt;
  }
  for (const auto* launch : ctx.launches) {
    auto block = eval_dim3(ctx.file, launch_config(launch).block);
    if (!block) {
      why = "a launch's block size is not a constant";
      return std::nullopt;
    }
    for (const auto& f : found) {
      const std::int64_t b = f.dim == 0 ? block->x : f.dim == 1 ? block->y : block->z;
      if (b != f.block) {
        why = "a launch's block is " + std::to_string(b) + " along " + "xyz"[f.dim] + ", not the index's " +
              std::to_string(f.block);
        return std::nullopt;
      }
    }
  }
  return found;
}

class BlockDimIndex final : public Rewrite {
 public:
  const char* name() const override { return "block-dim-index"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    auto p = plan(ctx, why);
    if (!p) return CheckResult::refuse(why);
    CheckResult r;
    Proposal pr;
    pr.step = {name(), {}};
    std::string vars;
    for (const auto& f : *p) vars += (vars.empty() ? "`" : ", `") + f.var->getNameAsString() + "`";
    pr.motivation = vars + " use" + (p->size() == 1 ? "s" : "") +
                    " the block size as a constant; spelled with blockDim, the rewrites built on global indices "
                    "(tiles, register tiles, block shapes) apply";
    // Nothing faster by itself: what it enables is.
    pr.predicted_gain = 1.2;
    r.proposals.push_back(pr);
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep&, RewriteOutput& out, std::string& error) const override {
    auto p = plan(ctx, error);
    if (!p) return false;
    for (const auto& f : *p) {
      const char d = "xyz"[f.dim];
      const std::string text = std::string("blockIdx.") + d + " * blockDim." + d + " + threadIdx." + d;
      if (!out.edits.replace(f.var->getInit(), text)) {
        error = out.edits.error();
        return false;
      }
      if (f.block == 1)
        out.notes.push_back("`" + f.var->getNameAsString() + "`: every launch has one thread along " + d +
                            ", so blockIdx." + d + " is the global index along " + d);
      else
        out.notes.push_back("`" + f.var->getNameAsString() + "`: every launch has " + std::to_string(f.block) +
                            " threads along " + d + ", the constant the index multiplied blockIdx." + d + " by");
    }
    out.notes.push_back("thread and block coordinates are read only in global index variables; nothing else "
                        "changes (the constant's other uses stay)");
    return true;
  }
};

}  // namespace

const Rewrite& block_dim_index_rewrite() {
  static const BlockDimIndex r;
  return r;
}

}  // namespace warplens::agent::rw
