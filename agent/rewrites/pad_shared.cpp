// pad-shared: add elements to the innermost dimension of a 2-D (or deeper)
// __shared__ array so that the accesses of a warp fall into distinct banks.
//
// Applies when: the array has constant dimensions and 4-byte elements, is
// declared in the kernel (not extern), and is used only through full
// subscripts (no pointer arithmetic, no reinterpretation, not passed on): then
// changing its row length changes no value, only addresses. The padding is
// the smallest of the catalogue's values that makes every modelled access
// conflict-free under the launch's block shape.
#include <cmath>
#include <map>

#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;
using IR = ::warplens::Expr;

struct SharedArrayUse {
  const VarDecl* var = nullptr;
  std::vector<std::int64_t> dims;
  std::vector<Access> accesses;
};

std::vector<std::int64_t> constant_dims(QualType t) {
  std::vector<std::int64_t> dims;
  while (const auto* a = dyn_cast<ConstantArrayType>(t.getTypePtr()->getUnqualifiedDesugaredType())) {
    dims.push_back(static_cast<std::int64_t>(a->getSize().getZExtValue()));
    t = a->getElementType();
  }
  return dims;
}

QualType element_type(QualType t) {
  while (const auto* a = dyn_cast<ArrayType>(t.getTypePtr()->getUnqualifiedDesugaredType())) t = a->getElementType();
  return t;
}

std::vector<const VarDecl*> shared_arrays(const KernelContext& ctx) {
  std::vector<const VarDecl*> out;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s) return;
    if (const auto* ds = dyn_cast<DeclStmt>(s))
      for (const Decl* d : ds->decls())
        if (const auto* v = dyn_cast<VarDecl>(d); v && v->hasAttr<CUDASharedAttr>()) out.push_back(v);
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(ctx.body);
  return out;
}

// Worst conflict degree over the accesses with the innermost dimension padded by `pad`.
std::optional<int> worst_degree(const KernelContext& ctx, const SharedArrayUse& use, std::int64_t pad,
                                const Dim3& block, int* modelled) {
  std::vector<std::int64_t> strides(use.dims.size(), 1);
  for (int d = static_cast<int>(use.dims.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * (use.dims[d + 1] + (d + 1 == static_cast<int>(use.dims.size()) - 1 ? pad : 0));
  int worst = 1;
  int count = 0;
  for (const Access& a : use.accesses) {
    ExprRef flat;
    for (std::size_t d = 0; d < a.indices.size(); ++d) {
      ExprRef term = IR::binary(ExprOp::Mul, ctx.lower(a.indices[d]), IR::constant(strides[d]));
      flat = flat ? IR::binary(ExprOp::Add, flat, term) : term;
    }
    auto lanes = lane_values(flat, block);
    if (!lanes) continue;
    ++count;
    std::map<std::int64_t, std::set<std::int64_t>> words_per_bank;
    for (std::int64_t w : *lanes) words_per_bank[((w % 32) + 32) % 32].insert(w);
    for (const auto& [bank, words] : words_per_bank) worst = std::max(worst, static_cast<int>(words.size()));
  }
  if (modelled) *modelled = count;
  if (count == 0) return std::nullopt;
  return worst;
}

std::optional<SharedArrayUse> usable(const KernelContext& ctx, const VarDecl* v, std::string& why) {
  SharedArrayUse use;
  use.var = v;
  use.dims = constant_dims(v->getType());
  if (use.dims.size() < 2) {
    why = "`" + v->getNameAsString() + "` is not a 2-D array with constant extents";
    return std::nullopt;
  }
  if (ctx.ctx().getTypeSize(element_type(v->getType())) != 32) {
    why = "`" + v->getNameAsString() + "` does not have 4-byte elements";
    return std::nullopt;
  }
  for (const Access& a : collect_accesses(ctx.body))
    if (a.base && a.base->getCanonicalDecl() == v->getCanonicalDecl()) {
      if (a.indices.size() != use.dims.size()) {
        why = "`" + v->getNameAsString() + "` is accessed with fewer subscripts than dimensions";
        return std::nullopt;
      }
      use.accesses.push_back(a);
    }
  if (references_to(ctx.body, v).size() != use.accesses.size()) {
    why = "`" + v->getNameAsString() + "` is used other than by subscripting (pointer, sizeof, call)";
    return std::nullopt;
  }
  return use;
}

class PadShared final : public Rewrite {
 public:
  const char* name() const override { return "pad-shared"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why = "no __shared__ array";
    std::optional<Dim3> block = constant_block(ctx);
    const Dim3 shape = block.value_or(Dim3{32, 1, 1});
    CheckResult result;
    for (const VarDecl* v : shared_arrays(ctx)) {
      auto use = usable(ctx, v, why);
      if (!use) continue;
      int modelled = 0;
      auto before = worst_degree(ctx, *use, 0, shape, &modelled);
      if (!before || *before < 2) {
        why = "no bank conflict modelled on `" + v->getNameAsString() + "`";
        continue;
      }
      std::int64_t best_pad = 0;
      int best = *before;
      for (std::int64_t pad : find_rewrite(name())->params[0].values) {
        auto after = worst_degree(ctx, *use, pad, shape, nullptr);
        if (after && *after < best) {
          best = *after;
          best_pad = pad;
        }
        if (best == 1) break;
      }
      if (best_pad == 0) {
        why = "no padding removes the conflicts on `" + v->getNameAsString() + "`";
        continue;
      }
      Proposal p;
      p.step = {name(), {{"pad", best_pad}}};
      p.motivation = std::to_string(*before) + "-way bank conflict on `" + v->getNameAsString() + "` (" +
                     std::to_string(modelled) + " access(es) modelled, block " + std::to_string(shape.x) + "x" +
                     std::to_string(shape.y) + (block ? "" : " assumed") + "); padding by " +
                     std::to_string(best_pad) + " leaves " + std::to_string(best) + "-way";
      p.predicted_gain = 1.0 + 0.1 * std::log2(static_cast<double>(*before) / best);
      result.proposals.push_back(p);
      return result;  // one array per step; the search applies it again for the next
    }
    return CheckResult::refuse(why);
  }

  bool apply(KernelContext& ctx, const RewriteStep& step, RewriteOutput& out, std::string& error) const override {
    const std::int64_t pad = param(step, "pad");
    if (pad <= 0 || pad > 32) {
      error = "pad must be 1..32";
      return false;
    }
    std::optional<Dim3> block = constant_block(ctx);
    const Dim3 shape = block.value_or(Dim3{32, 1, 1});
    for (const VarDecl* v : shared_arrays(ctx)) {
      std::string why;
      auto use = usable(ctx, v, why);
      if (!use) continue;
      auto before = worst_degree(ctx, *use, 0, shape, nullptr);
      if (!before || *before < 2) continue;
      TypeLoc tl = v->getTypeSourceInfo()->getTypeLoc();
      std::optional<ConstantArrayTypeLoc> innermost;
      while (auto at = tl.getAs<ConstantArrayTypeLoc>()) {
        innermost = at;
        tl = at.getElementLoc();
      }
      if (!innermost || !innermost->getSizeExpr()) {
        error = "cannot find the innermost extent of `" + v->getNameAsString() + "`";
        return false;
      }
      const Expr* size = innermost->getSizeExpr();
      auto text = ctx.text(size);
      if (!text) {
        error = "the extent of `" + v->getNameAsString() + "` is not plain source text";
        return false;
      }
      const bool simple = text->find_first_of(" ?,") == std::string::npos;
      if (!out.edits.replace(size, (simple ? *text : "(" + *text + ")") + " + " + std::to_string(pad))) {
        error = out.edits.error();
        return false;
      }
      out.notes.push_back("`" + v->getNameAsString() + "` is only accessed through full subscripts: padding its rows "
                          "changes addresses, not values");
      if (!block) out.notes.push_back("block shape assumed 32 threads wide (no constant launch shape in the file)");
      return true;
    }
    error = "no conflicted __shared__ array to pad";
    return false;
  }
};

}  // namespace

const Rewrite& pad_shared_rewrite() {
  static const PadShared r;
  return r;
}

}  // namespace warplens::agent::rw
