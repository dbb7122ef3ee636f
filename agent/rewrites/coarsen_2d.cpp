// coarsen-2d: a 2-D element-wise kernel (each thread (x, y) reads and writes
// only "its" element `P * y + x + c` of each array: images, matrices, bias
// or scale rows) handles `width` consecutive x per thread: fewer threads and
// less index arithmetic per element, and, when the `width` elements are in
// bounds and every array's first element is aligned to the access size, one
// 8/16-byte load or store per array instead of `width` (checked at run time;
// the element-by-element code otherwise).
//
// Applies when, all checked:
//   - match_grid_2d: x and y global indices, both bounded by a plain guard
//     `x < W && y < H` (or the early-exit form), thread identity only through
//     them, no shared memory, barrier, warp primitive or atomic; pure
//     declarations before the guard; no return in the work;
//   - every global access whose index moves with threadIdx.x is at
//     `P * y + x + c` (c and P uniform, the same for every access of that
//     array), elements of 4 or 8 bytes whose `width` make an 8/16/32-byte
//     access; accesses whose index does not move with x are reads (`scale[y]`,
//     `alpha[0]`) and stay as written;
//   - with two or more arrays of which one is written, every launch passes
//     distinct pointers (or all are `__restrict__`): the vector path reads
//     all `width` elements before it writes any.
// Each element is processed once, by the thread whose group holds it, under
// the original guard (the vector path only when all of the group pass it);
// arrays written only conditionally are loaded first, so elements the
// original leaves alone are stored back with their own bits. The launch
// starts 1/width of the threads along x (declared).
#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

struct ElementArray {
  const ParmVarDecl* param = nullptr;
  std::optional<Polynomial> index;
  std::vector<const ArraySubscriptExpr*> uses;
  bool read = false, written = false, written_unconditionally = false;
  std::int64_t bytes = 0;
};

struct Plan {
  Grid2D grid;
  std::vector<ElementArray> arrays;
  const Expr* x_bound = nullptr;
  const Expr* y_bound = nullptr;
};

std::optional<Plan> plan(const KernelContext& ctx, std::int64_t width, std::string& why) {
  Plan p;
  auto grid = match_grid_2d(ctx, why);
  if (!grid) return std::nullopt;
  p.grid = *grid;
  if (!grid->region.only_bounds || grid->region.bounds.size() != 2) {
    why = "the guard is not a plain `x < W && y < H`";
    return std::nullopt;
  }
  p.x_bound = grid->region.bounds.at(grid->x.var);
  p.y_bound = grid->region.bounds.at(grid->y.var);
  if (!only_pure_declarations(ctx, grid->region.prologue)) {
    why = "declarations with effects before the guard";
    return std::nullopt;
  }
  for (const Stmt* s : grid->region.prologue) {
    if (s == grid->x.decl) {
      if (!cast<DeclStmt>(s)->isSingleDecl()) {
        why = "x is declared together with other variables";
        return std::nullopt;
      }
      continue;
    }
    if (refers_to(s, grid->x.var)) {
      why = "a declaration before the guard depends on x";
      return std::nullopt;
    }
  }
  for (const Stmt* s : grid->region.body)
    if (contains_return(s)) {
      why = "a return inside the element's work";
      return std::nullopt;
    }
  const Symbol tx = builtin_symbol(SymbolKind::ThreadIdx, 0), ty = builtin_symbol(SymbolKind::ThreadIdx, 1);
  const Symbol bx = builtin_symbol(SymbolKind::BlockIdx, 0), by = builtin_symbol(SymbolKind::BlockIdx, 1);
  const Symbol bdx = builtin_symbol(SymbolKind::BlockDim, 0), bdy = builtin_symbol(SymbolKind::BlockDim, 1);
  const Polynomial gx = Polynomial::symbol(bx) * Polynomial::symbol(bdx) + Polynomial::symbol(tx);
  const Polynomial gy = Polynomial::symbol(by) * Polynomial::symbol(bdy) + Polynomial::symbol(ty);
  std::set<const Stmt*> top(grid->region.body.begin(), grid->region.body.end());
  for (const Stmt* s : grid->region.body)
    for (const Access& a : accesses_in(ctx, s)) {
      if (a.is_shared) {
        why = "shared memory";
        return std::nullopt;
      }
      auto poly = a.flat_index ? to_polynomial(a.flat_index) : std::nullopt;
      auto cx = poly ? poly->coefficient_of(tx) : std::nullopt;
      if (!poly || !cx) {
        why = "`" + ctx.text(a.expr).value_or("?") + "` is not an affine index";
        return std::nullopt;
      }
      if (is_constant(*cx, 0)) {
        if (a.write) {
          why = "`" + ctx.text(a.expr).value_or("?") + "` is stored at an element shared by a row of threads";
          return std::nullopt;
        }
        if (mentions(a.flat_index, [](const Symbol& s) { return s.kind == SymbolKind::Local && !s.uniform; })) {
          why = "`" + ctx.text(a.expr).value_or("?") + "` is read at a data-dependent element";
          return std::nullopt;
        }
        continue;  // a row or scalar broadcast: stays as written
      }
      const auto* param = dyn_cast_or_null<ParmVarDecl>(a.root);
      if (!is_constant(*cx, 1) || !a.root_is_param || !param || a.member || a.base != param) {
        why = "`" + ctx.text(a.expr).value_or("?") + "` is not `array[P * y + x + c]` on a parameter";
        return std::nullopt;
      }
      auto cy = poly->coefficient_of(ty);
      Polynomial rest = cy ? *poly - *cy * gy - gx : *poly;
      bool uniform_rest = cy && is_uniform(*cy);
      for (const auto& [mono, c] : rest.terms)
        for (const Symbol& sym : mono) uniform_rest &= sym.kind == SymbolKind::Param || sym.kind == SymbolKind::WarpSize;
      if (!uniform_rest) {
        why = "`" + ctx.text(a.expr).value_or("?") + "` is not at `P * y + x + c` with P and c uniform";
        return std::nullopt;
      }
      auto it = std::find_if(p.arrays.begin(), p.arrays.end(), [&](const ElementArray& e) { return e.param == param; });
      if (it == p.arrays.end()) {
        ElementArray e;
        e.param = param;
        e.index = poly;
        QualType t = param->getType()->getPointeeType();
        if (!t->isArithmeticType() || t->isBooleanType()) {
          why = "`" + param->getNameAsString() + "` does not point to numbers";
          return std::nullopt;
        }
        e.bytes = static_cast<std::int64_t>(ctx.ctx().getTypeSize(t) / 8);
        const std::int64_t v = e.bytes * width;
        if (v != 8 && v != 16 && v != 32) {
          why = "`" + param->getNameAsString() + "` has " + std::to_string(e.bytes) + "-byte elements";
          return std::nullopt;
        }
        p.arrays.push_back(e);
        it = p.arrays.end() - 1;
      } else if (it->index->terms != poly->terms) {
        why = "`" + param->getNameAsString() + "` is accessed at two different elements";
        return std::nullopt;
      }
      it->uses.push_back(a.expr);
      it->read |= a.read;
      it->written |= a.write;
      if (a.write && !a.read)
        for (const Stmt* t : top)
          if (const auto* bo = dyn_cast<BinaryOperator>(t);
              bo && bo->getOpcode() == BO_Assign && bo->getLHS()->IgnoreParenImpCasts() == a.expr)
            it->written_unconditionally = true;
    }
  if (p.arrays.empty()) {
    why = "no element-wise access along x";
    return std::nullopt;
  }
  // The arrays are reached only through those subscripts.
  for (const ElementArray& e : p.arrays) {
    std::size_t refs = 0;
    for (const Stmt* s : grid->region.body) refs += references_to(s, e.param).size();
    if (refs != e.uses.size()) {
      why = "`" + e.param->getNameAsString() + "` is used other than by its element subscript";
      return std::nullopt;
    }
  }
  bool any_written = false, all_restrict = true;
  std::vector<const ParmVarDecl*> params;
  for (const ElementArray& e : p.arrays) {
    any_written |= e.written;
    all_restrict &= e.param->getType().isRestrictQualified();
    params.push_back(e.param);
  }
  if (p.arrays.size() > 1 && any_written && !all_restrict && !launches_pass_distinct_pointers(ctx, params, why)) {
    why = "cannot rule out overlapping arrays: " + why;
    return std::nullopt;
  }
  return p;
}

class Coarsen2D final : public Rewrite {
 public:
  const char* name() const override { return "coarsen-2d"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    if (!launches_rewritable(ctx, why)) return CheckResult::refuse(why);
    CheckResult r;
    for (std::int64_t width : find_rewrite(name())->params[0].values) {
      auto p = plan(ctx, width, why);
      if (!p) continue;
      Proposal pr;
      pr.step = {name(), {{"width", width}}};
      pr.motivation = std::to_string(p->arrays.size()) + " array(s) accessed one element per thread of a 2-D grid: " +
                      std::to_string(width) + " consecutive elements per thread, one vector access per array";
      pr.predicted_gain = width == 4 ? 1.25 : 1.15;
      r.proposals.push_back(pr);
    }
    if (r.proposals.empty()) return CheckResult::refuse(why);
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep& step, RewriteOutput& out, std::string& error) const override {
    const std::int64_t width = param(step, "width");
    if (width != 2 && width != 4) {
      error = "width must be 2 or 4";
      return false;
    }
    auto p = plan(ctx, width, error);
    if (!p) return false;
    const std::string W = std::to_string(width);
    const VarDecl* x = p->grid.x.var;
    const std::string xn = x->getNameAsString(), xt = x->getType().getUnqualifiedType().getAsString();
    const std::string yn = p->grid.y.var->getNameAsString();
    auto gid = ctx.text(x->getInit());
    auto xb = ctx.text(p->x_bound), yb = ctx.text(p->y_bound);
    if (!gid || !xb || !yb) {
      error = "the index or the guard is spelled in a macro";
      return false;
    }
    const std::string x0 = fresh_name(ctx.file, "x0"), c = fresh_name(ctx.file, "c"), vec = fresh_name(ctx.file, "vec");
    std::vector<std::string> regs;
    std::map<const Stmt*, std::string> to_regs;
    for (const ElementArray& e : p->arrays) {
      regs.push_back(fresh_name(ctx.file, e.param->getNameAsString()));
      for (const ArraySubscriptExpr* u : e.uses) to_regs[u] = regs.back() + "[" + c + "]";
    }
    std::string vector_body, scalar_body;
    for (const Stmt* s : p->grid.region.body) {
      auto vb = text_with_replacements(ctx, s, {}, to_regs);
      auto sb = ctx.text(s);
      if (!vb || !sb) {
        error = "the element's work is spelled in a macro";
        return false;
      }
      const std::string semi = statement_terminator(ctx, s).value_or("");
      vector_body += "        " + *vb + semi + "\n";
      scalar_body += "        " + *sb + semi + "\n";
    }
    std::string guard = xn + " < " + *xb + " && " + yn + " < " + *yb;
    std::string b = "{\n  // Rewritten by warplens (coarsen-2d): " + W + " consecutive x per thread, one vector access "
                    "per array when\n  // the group is in bounds and aligned; element by element otherwise.\n";
    for (const Stmt* s : p->grid.region.prologue) {
      if (s == p->grid.x.decl) {
        b += "  const " + xt + " " + x0 + " = (" + *gid + ") * " + W + ";\n";
        continue;
      }
      auto t = ctx.text(s);
      if (!t) {
        error = "a declaration is spelled in a macro";
        return false;
      }
      b += "  " + *t + "\n";
    }
    // The group's first element of each array, and whether it may be vectorised.
    b += "  bool " + vec + " = false;\n  {\n    const " + xt + " " + xn + " = " + x0 + ";\n";
    b += "    " + vec + " = " + xn + " + " + std::to_string(width - 1) + " < " + *xb + " && " + yn + " < " + *yb;
    for (const ElementArray& e : p->arrays) {
      auto first = ctx.text(e.uses.front());
      if (!first) {
        error = "an access is spelled in a macro";
        return false;
      }
      b += " &&\n          reinterpret_cast<unsigned long long>(&(" + *first + ")) % " +
           std::to_string(e.bytes * width) + " == 0";
    }
    b += ";\n  }\n";
    b += "  if (" + vec + ") {\n    const " + xt + " " + xn + " = " + x0 + ";\n";
    for (std::size_t k = 0; k < p->arrays.size(); ++k) {
      const ElementArray& e = p->arrays[k];
      const std::string type = pointee_spelling(e.param);
      b += "    " + type + " " + regs[k] + "[" + W + "];\n";
      if (e.read || !e.written_unconditionally)
        b += "    wl_vector_load<" + W + ">(" + regs[k] + ", &(" + *ctx.text(e.uses.front()) + "));\n";
    }
    b += "    #pragma unroll\n    for (int " + c + " = 0; " + c + " < " + W + "; ++" + c + ") {\n";
    b += "      const " + xt + " " + xn + " = " + x0 + " + " + c + ";\n      (void)" + xn + ";\n      {\n" + vector_body +
         "      }\n    }\n";
    for (std::size_t k = 0; k < p->arrays.size(); ++k)
      if (p->arrays[k].written)
        b += "    wl_vector_store<" + W + ">(&(" + *ctx.text(p->arrays[k].uses.front()) + "), " + regs[k] + ");\n";
    b += "  } else {\n    for (int " + c + " = 0; " + c + " < " + W + "; ++" + c + ") {\n";
    b += "      const " + xt + " " + xn + " = " + x0 + " + " + c + ";\n";
    b += "      if (" + guard + ") {\n" + scalar_body + "      }\n    }\n  }\n}";
    if (!out.edits.replace(ctx.body, b)) {
      error = out.edits.error();
      return false;
    }
    if (ctx.file.text.find("wl_vector_load") == std::string::npos &&
        !insert_before_kernel(ctx, out.edits, vector_helpers_text())) {
      error = out.edits.error();
      return false;
    }
    LaunchChange change;
    change.kernel = ctx.kernel->getNameAsString();
    change.thread_scale[0] = {1, width};
    if (!rewrite_launches(ctx, change, out.edits, error)) return false;
    out.launch_changes.push_back(change);
    out.notes.push_back("each thread handles x = " + W + " * gid .. " + W + " * gid + " + std::to_string(width - 1) +
                        ": every x the original grid covered is handled once, under the original guard");
    out.notes.push_back("each array is accessed only at the thread's own element (P * y + x + c); vector accesses only "
                        "when the whole group is in bounds and aligned (checked at run time)");
    for (const ElementArray& e : p->arrays)
      if (e.written && !e.written_unconditionally)
        out.notes.push_back("`" + e.param->getNameAsString() + "` is written conditionally: loaded first so untouched "
                            "elements are stored back unchanged");
    return true;
  }
};

}  // namespace

const Rewrite& coarsen_2d_rewrite() {
  static const Coarsen2D r;
  return r;
}

}  // namespace warplens::agent::rw
