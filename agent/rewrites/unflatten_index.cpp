// unflatten-index: a 1-D kernel over a flattened M x N index
//
//   int i = blockIdx.x * blockDim.x + threadIdx.x;
//   if (i < M * N) {              (or `if (i >= M * N) return;`)
//     int r = i / N;              (row and column declared, or spelled inline)
//     int c = i % N;
//     ... i, r, c ...
//   }
//
// becomes the 2-D kernel the other rewrites understand (tile-k-loop,
// register-tile, stage-shared-tile, coarsen-2d, stencil-*):
//
//   int c = blockIdx.x * blockDim.x + threadIdx.x;
//   int r = blockIdx.y * blockDim.y + threadIdx.y;
//   if (r < M && c < N) {
//     ... i, r, c ...            (i spelled `(r * N + c)`)
//   }
//
// launched with 32x8 blocks on a grid sized from the launch's own M and N
// (declared: `cover=`). By itself it only saves a division; its point is the
// rewrites that follow it.
//
// Safety, all checked:
//   - the guard bounds the only global index by a product of two unmodified
//     parameters or constants, and the divisor of every `i / D` and `i % D`
//     is one of them (N); the launches provably start at least M * N
//     threads, so the original runs every i in [0, M * N) exactly once;
//   - for i in that range, (i / N, i % N) runs over every (r, c) with r < M,
//     c < N exactly once and i == r * N + c, so the new kernel does the same
//     work items, each with the same values of i, r and c;
//   - thread identity only through i (no other use of threadIdx, blockIdx,
//     blockDim, gridDim), no barrier, shared memory or warp primitive: which
//     threads share a block or a warp does not matter to the result;
//   - r and c, when declared, are not modified.
// With M or N not positive both kernels do nothing. (M * N overflowing its
// type is undefined in the original.) The 2-D grid needs ceil(M / 8) <=
// 65535 blocks along y: a launch with more rows fails to start (the verifier
// reports it on the captured launches).
#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

constexpr int kBlockX = 32, kBlockY = 8;

// `i / D` or `i % D` over the index variable.
struct Split {
  const BinaryOperator* expr = nullptr;
  bool row = false;  // division (the row) or remainder (the column)
};

struct Plan {
  IndexVar index;
  GuardedRegion region;
  const Expr* rows = nullptr;  // M
  const Expr* cols = nullptr;  // N (the divisor)
  std::vector<Split> splits;
  const VarDecl* row_var = nullptr;  // `int r = i / N;` at the top level of the guarded work
  const VarDecl* col_var = nullptr;
  const Stmt* row_decl = nullptr;
  const Stmt* col_decl = nullptr;
  bool index_used_otherwise = false;  // i appears outside the splits
  bool has_loop = false;
};

const ParmVarDecl* param_of(const Expr* e) {
  const auto* r = dyn_cast<DeclRefExpr>(strip(e));
  return r ? dyn_cast<ParmVarDecl>(r->getDecl()) : nullptr;
}

// Same uniform value: the same unmodified parameter, or equal constants.
bool same_extent(const KernelContext& ctx, const Expr* a, const Expr* b) {
  const ParmVarDecl* pa = param_of(a);
  const ParmVarDecl* pb = param_of(b);
  if (pa || pb) return pa && pa == pb && !ctx.modified.count(pa);
  auto ca = ctx.eval_int(a), cb = ctx.eval_int(b);
  return ca && cb && *ca == *cb;
}

bool uniform_extent(const KernelContext& ctx, const Expr* e) {
  if (ctx.eval_int(e)) return true;
  const ParmVarDecl* p = param_of(e);
  return p && p->getType()->isIntegerType() && !ctx.modified.count(p);
}

const VarDecl* single_decl(const Stmt* s, const Expr** init) {
  const auto* ds = dyn_cast<DeclStmt>(s);
  if (!ds || !ds->isSingleDecl()) return nullptr;
  const auto* v = dyn_cast<VarDecl>(ds->getSingleDecl());
  if (!v || !v->getInit() || !v->getType()->isIntegerType()) return nullptr;
  *init = v->getInit();
  return v;
}

std::optional<Plan> plan(const KernelContext& ctx, std::string& why) {
  auto vars = global_index_vars(ctx);
  if (vars.size() != 1 || vars[0].dim != 0) {
    why = "needs exactly one 1-D global index";
    return std::nullopt;
  }
  if (!identity_only_through_index_vars(ctx, vars, why)) return std::nullopt;
  if (contains_barrier(ctx.body) || uses_warp_primitives(ctx.body)) {
    why = "barriers or warp primitives (which threads share a warp or block would change)";
    return std::nullopt;
  }
  for (const Access& a : collect_accesses(ctx.body))
    if (a.is_shared) {
      why = "the kernel uses shared memory (which threads share a block would change)";
      return std::nullopt;
    }
  Plan p;
  p.index = vars[0];
  auto region = guarded_region(ctx, vars, why);
  if (!region) return std::nullopt;
  if (!region->only_bounds || region->bounds.size() != 1 || !region->bounds.count(p.index.var)) {
    why = "the guard is not a plain `i < M * N`";
    return std::nullopt;
  }
  if (!cast<DeclStmt>(p.index.decl)->isSingleDecl()) {
    why = "the index is declared together with other variables";
    return std::nullopt;
  }
  for (const Stmt* s : region->prologue)
    if (s != p.index.decl && refers_to(s, p.index.var)) {
      why = "a declaration before the guard uses the index";
      return std::nullopt;
    }
  if (!only_pure_declarations(ctx, region->prologue)) {
    why = "declarations with effects before the guard";
    return std::nullopt;
  }
  const auto* product = dyn_cast<BinaryOperator>(strip(region->bounds.at(p.index.var)));
  if (!product || product->getOpcode() != BO_Mul || !uniform_extent(ctx, product->getLHS()) ||
      !uniform_extent(ctx, product->getRHS())) {
    why = "the bound is not a product `M * N` of parameters or constants";
    return std::nullopt;
  }
  // Every i / D and i % D: D one factor of the bound, the same for all.
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s) return;
    if (const auto* bo = dyn_cast<BinaryOperator>(s); bo && (bo->getOpcode() == BO_Div || bo->getOpcode() == BO_Rem)) {
      const auto* lhs = dyn_cast<DeclRefExpr>(strip(bo->getLHS()));
      if (lhs && lhs->getDecl() == p.index.var) {
        p.splits.push_back({bo, bo->getOpcode() == BO_Div});
        return walk(bo->getRHS());
      }
    }
    if (isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s)) p.has_loop = true;
    for (const Stmt* c : s->children()) walk(c);
  };
  for (const Stmt* s : region->body) walk(s);
  if (p.splits.empty()) {
    why = "the index is never split into a row (`i / N`) and a column (`i % N`)";
    return std::nullopt;
  }
  for (const Split& sp : p.splits) {
    const Expr* d = sp.expr->getRHS();
    if (!p.cols) {
      if (same_extent(ctx, d, product->getRHS())) {
        p.cols = product->getRHS();
        p.rows = product->getLHS();
      } else if (same_extent(ctx, d, product->getLHS())) {
        p.cols = product->getLHS();
        p.rows = product->getRHS();
      }
    }
    if (!p.cols || !same_extent(ctx, d, p.cols)) {
      why = "`" + ctx.text(sp.expr).value_or("i / D") + "` does not divide by a factor of the bound (the same for all)";
      return std::nullopt;
    }
  }
  // Row and column variables declared at the top of the guarded work.
  std::size_t in_splits = 0;
  for (const Split& sp : p.splits) in_splits += references_to(sp.expr, p.index.var).size();
  std::size_t uses = 0;
  for (const Stmt* s : region->body) uses += references_to(s, p.index.var).size();
  p.index_used_otherwise = uses > in_splits;
  for (const Stmt* s : region->body) {
    const Expr* init = nullptr;
    const VarDecl* v = single_decl(s, &init);
    if (!v) continue;
    for (const Split& sp : p.splits)
      if (strip(init) == sp.expr && !ctx.modified.count(v)) {
        if (sp.row && !p.row_var) p.row_var = v, p.row_decl = s;
        if (!sp.row && !p.col_var) p.col_var = v, p.col_decl = s;
      }
  }
  if (ctx.kernel->hasAttr<CUDALaunchBoundsAttr>()) {
    why = "the kernel has __launch_bounds__ (the block becomes 32x8 threads)";
    return std::nullopt;
  }
  if (!launches_cover_product(ctx, 0, product->getLHS(), product->getRHS(), why)) return std::nullopt;
  p.region = *region;
  return p;
}

ParamExtent extent_of(const KernelContext& ctx, const Expr* e) {
  ParamExtent x;
  if (const ParmVarDecl* p = param_of(e)) x.param = ctx.param_index(p);
  else x.constant = ctx.eval_int(e).value_or(1);
  return x;
}

class UnflattenIndex final : public Rewrite {
 public:
  const char* name() const override { return "unflatten-index"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    if (!launches_rewritable(ctx, why)) return CheckResult::refuse(why);
    auto p = plan(ctx, why);
    if (!p) return CheckResult::refuse(why);
    CheckResult r;
    Proposal pr;
    pr.step = {name(), {}};
    pr.motivation = "the flat index `" + p->index.var->getNameAsString() + "` is split into a row and a column of " +
                    ctx.text(p->cols).value_or("N") + ": a 2-D grid gives the 2-D rewrites (shared tiles, "
                    "register tiles, transposes through shared memory) a kernel to work on";
    // Worth little alone (one division less); what it enables is worth more
    // when the work has a loop (a reduction over k) or indexes by row and
    // column (a transpose, a gather).
    pr.predicted_gain = p->has_loop ? 1.3 : 1.2;
    r.proposals.push_back(pr);
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep&, RewriteOutput& out, std::string& error) const override {
    auto p = plan(ctx, error);
    if (!p) return false;
    const std::string itype = p->index.var->getType().getUnqualifiedType().getAsString();
    const std::string iname = p->index.var->getNameAsString();
    const std::string row = p->row_var ? p->row_var->getNameAsString() : fresh_name(ctx.file, "row");
    const std::string col = p->col_var ? p->col_var->getNameAsString() : fresh_name(ctx.file, "col");
    const std::string rtype = p->row_var ? p->row_var->getType().getUnqualifiedType().getAsString() : itype;
    const std::string ctype = p->col_var ? p->col_var->getType().getUnqualifiedType().getAsString() : itype;
    auto rows = ctx.text(p->rows), cols = ctx.text(p->cols);
    if (!rows || !cols) {
      error = "the bound is spelled in a macro";
      return false;
    }
    std::map<const Stmt*, std::string> nodes;
    for (const Split& sp : p->splits) nodes[sp.expr] = sp.row ? row : col;
    std::string text = "{\n  // Rewritten by warplens (unflatten-index): the flat index over " + *rows + " x " + *cols +
                       " as a row and a column of a 2-D grid.\n";
    for (const Stmt* s : p->region.prologue) {
      if (s == p->index.decl) continue;
      auto t = ctx.text(s);
      if (!t) {
        error = "a declaration is spelled in a macro";
        return false;
      }
      text += "  " + *t + "\n";
    }
    text += "  " + ctype + " " + col + " = blockIdx.x * blockDim.x + threadIdx.x;\n";
    text += "  " + rtype + " " + row + " = blockIdx.y * blockDim.y + threadIdx.y;\n";
    text += "  if (" + row + " < " + *rows + " && " + col + " < " + *cols + ") {\n";
    // Other uses of i become `(r * N + c)` in place (its value, in its type:
    // r, c and N have it), so a single store stays a single store for the
    // rewrites that look for one (stage-shared-tile).
    std::map<const ValueDecl*, std::string> names;
    if (p->index_used_otherwise)
      names[p->index.var] = "(" + (rtype == itype ? row : "static_cast<" + itype + ">(" + row + ")") + " * " + *cols +
                            " + " + col + ")";
    for (const Stmt* s : p->region.body) {
      if (s == p->row_decl || s == p->col_decl) continue;
      auto t = text_with_replacements(ctx, s, names, nodes);
      auto semi = statement_terminator(ctx, s);
      if (!t || !semi) {
        error = "the element's work is spelled in a macro";
        return false;
      }
      text += "    " + *t + *semi + "\n";
    }
    text += "  }\n}";
    if (!out.edits.replace(ctx.body, text)) {
      error = out.edits.error();
      return false;
    }
    LaunchChange change;
    change.kernel = ctx.kernel->getNameAsString();
    change.block = Dim3{kBlockX, kBlockY, 1};
    change.cover = std::array<ParamExtent, 2>{extent_of(ctx, p->cols), extent_of(ctx, p->rows)};
    if (!rewrite_launches(ctx, change, out.edits, error)) return false;
    out.launch_changes.push_back(change);
    out.notes.push_back("the launches start at least " + *rows + " * " + *cols + " threads, so the original runs every " +
                        iname + " below the bound once; each (" + row + ", " + col + ") with " + row + " < " + *rows +
                        ", " + col + " < " + *cols + " is that " + iname + " = " + row + " * " + *cols + " + " + col);
    out.notes.push_back("thread identity only through the index, no barrier, shared memory or warp primitive: the "
                        "grouping of threads into blocks does not matter");
    out.notes.push_back("the grid is sized from the launch's own " + *cols + " and " + *rows + " (32x8 blocks; at most " +
                        std::to_string(65535 * kBlockY) + " rows)");
    return true;
  }
};

}  // namespace

const Rewrite& unflatten_index_rewrite() {
  static const UnflattenIndex r;
  return r;
}

}  // namespace warplens::agent::rw
