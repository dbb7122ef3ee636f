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

// An array the element's work reaches at [R + x]: a pointer parameter, or a
// pointer field of a struct parameter passed by value (`a.out`).
struct ElementArray {
  const ParmVarDecl* param = nullptr;  // null for a field
  const ParmVarDecl* holder = nullptr; // a field's struct parameter (`a`)
  const ValueDecl* field = nullptr;    // and the field (`out`)
  std::string spelling;                // how the code names it: `out`, `a.out`
  std::string root_name;               // the analysis' name of the root, `out`, `a.out`
  QualType element;                    // what it points to
  bool restrict_qualified = false;
  std::optional<Polynomial> index;
  std::vector<const ArraySubscriptExpr*> uses;
  bool read = false, written = false, written_unconditionally = false;
  std::int64_t bytes = 0;
};

struct Plan {
  Grid2D grid;
  std::vector<ElementArray> arrays;
  // The arrays may overlap (not proven distinct): what makes the vector
  // path right is that the work reads no array after writing another.
  bool overlap_by_race_argument = false;
  // The work's leading declarations that the arrays' subscripts name (`int
  // id = ids[row];` for `tok[(size_t)id * dim + x]`): repeated before the
  // vector accesses, at the group's first x.
  std::vector<const Stmt*> hoisted;
  const Expr* x_bound = nullptr;
  const Expr* y_bound = nullptr;
};

// Whether `e` can change along x: it names threadIdx.x, blockIdx.x, or a
// value the lowering could not place (a local of unknown origin, a loop
// counter, a loop-carried value).
bool may_vary_along_x(const ExprRef& e) {
  return mentions(e, [](const Symbol& s) {
    if (s.kind == SymbolKind::ThreadIdx || s.kind == SymbolKind::BlockIdx) return s.dim == 0;
    return s.kind != SymbolKind::Param && s.kind != SymbolKind::BlockDim && s.kind != SymbolKind::GridDim &&
           s.kind != SymbolKind::WarpSize;
  });
}

constexpr const char* kRowAtom = "#row:";

// How many times `s` names field `field` of parameter `holder` (`a.out`).
std::size_t field_references(const Stmt* s, const ParmVarDecl* holder, const ValueDecl* field) {
  std::size_t n = 0;
  std::function<void(const Stmt*)> walk = [&](const Stmt* x) {
    if (!x) return;
    if (const auto* m = dyn_cast<MemberExpr>(x); m && m->getMemberDecl() == field)
      if (const auto* r = dyn_cast<DeclRefExpr>(m->getBase()->IgnoreParenImpCasts()); r && r->getDecl() == holder) ++n;
    for (const Stmt* c : x->children()) walk(c);
  };
  walk(s);
  return n;
}

// Whether the element's work, statement by statement, reads global memory
// only before its first global store, or from the very array it stored to:
// each writing statement is one plain or compound assignment to an array
// element (its right side is evaluated before the store).
bool reads_before_writes(const KernelContext& ctx, const std::vector<const Stmt*>& body) {
  std::set<std::string> written;
  for (const Stmt* s : body) {
    std::set<std::string> reads, writes;
    for (const Access& a : accesses_in(ctx, s)) {
      if (a.is_shared) continue;
      auto addr = ctx.address(a.expr);
      const std::string name = addr ? addr->root_name : ctx.text(a.expr->getBase()).value_or("?");
      if (a.read) reads.insert(name);
      if (a.write) writes.insert(name);
    }
    for (const std::string& r : reads)
      for (const std::string& w : written)
        if (r != w) return false;
    if (!writes.empty()) {
      const auto* bo = dyn_cast<BinaryOperator>(s);
      if (writes.size() != 1 || !bo || !bo->isAssignmentOp()) return false;
      for (const Access& a : accesses_in(ctx, bo->getRHS()))
        if (a.write) return false;
    }
    written.insert(writes.begin(), writes.end());
  }
  return true;
}

// The subscript as a polynomial in which a sub-expression that cannot be
// expanded (a value loaded from memory, a division, a call) is one opaque
// symbol when it cannot vary along x: `tok[(size_t)ids[row] * dim + x]` is
// x + (atom * dim). Equal sub-expressions become the same symbol.
std::optional<Polynomial> polynomial_along_x(const ExprRef& e) {
  // A value the lowering could not model at all (Opaque, not known
  // warp-uniform) may hide x: never an atom.
  std::function<bool(const ExprRef&)> unmodelled = [&](const ExprRef& n) {
    if (!n) return false;
    if (n->op == ExprOp::Recur || (n->op == ExprOp::Opaque && !n->uniform)) return true;
    for (const ExprRef& o : n->operands)
      if (unmodelled(o)) return true;
    return false;
  };
  return to_polynomial(e, [&](const ExprRef& sub) -> std::optional<Symbol> {
    if (unmodelled(sub) || may_vary_along_x(sub)) return std::nullopt;
    Symbol atom;
    atom.kind = SymbolKind::Local;
    atom.name = kRowAtom + to_string(sub);
    atom.uniform = false;
    return atom;
  });
}

std::optional<Plan> plan(const KernelContext& ctx, std::int64_t width, std::string& why) {
  Plan p;
  auto grid = match_grid_2d(ctx, why, /*allow_batch=*/true);
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
      auto poly = a.flat_index ? polynomial_along_x(a.flat_index) : std::nullopt;
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
      // The array: a pointer parameter, or a pointer field of a by-value
      // struct parameter, named in the subscript itself (`out[..]`, `a.out[..]`).
      auto addr = ctx.address(a.expr);
      const auto* param = dyn_cast_or_null<ParmVarDecl>(a.root);
      const clang::Expr* base = a.expr->getBase()->IgnoreParenImpCasts();
      const auto* base_ref = dyn_cast<DeclRefExpr>(base);
      const auto* base_field = dyn_cast<MemberExpr>(base);
      const auto* field_of = base_field ? dyn_cast<DeclRefExpr>(base_field->getBase()->IgnoreParenImpCasts()) : nullptr;
      const bool plain = param && base_ref && base_ref->getDecl() == param && !a.member;
      const bool field = !plain && !a.member && addr && addr->kind == clang_frontend::RootKind::Param && base_field &&
                         !base_field->isArrow() && field_of && isa<ParmVarDecl>(field_of->getDecl()) &&
                         !field_of->getDecl()->getType()->isReferenceType() &&
                         base->getType()->isPointerType();
      if (!is_constant(*cx, 1) || !a.root_is_param || !(plain || field)) {
        why = "`" + ctx.text(a.expr).value_or("?") + "` is not `array[P * y + x + c]` on a parameter";
        return std::nullopt;
      }
      // Everything but x must stay the same along x: the group's W elements
      // are then W consecutive elements of the array.
      const Polynomial rest = *poly - gx;
      bool along_x_only = true;
      for (const auto& [mono, c] : rest.terms)
        for (const Symbol& sym : mono) {
          if ((sym.kind == SymbolKind::ThreadIdx || sym.kind == SymbolKind::BlockIdx) && sym.dim == 0)
            along_x_only = false;
          if (sym.kind == SymbolKind::Local && sym.name.rfind(kRowAtom, 0) != 0) along_x_only = false;
          if (sym.kind == SymbolKind::LoopCounter || sym.kind == SymbolKind::Iteration) along_x_only = false;
        }
      if (!along_x_only) {
        why = "`" + ctx.text(a.expr).value_or("?") + "` is not at `P * y + x + c` with P and c uniform";
        return std::nullopt;
      }
      auto spelled = ctx.text(base);
      if (!spelled) {
        why = "`" + ctx.text(a.expr).value_or("?") + "` names its array in a macro";
        return std::nullopt;
      }
      const std::string root_name = addr ? addr->root_name : *spelled;
      auto it = std::find_if(p.arrays.begin(), p.arrays.end(),
                             [&](const ElementArray& e) { return e.root_name == root_name && e.spelling == *spelled; });
      if (it == p.arrays.end()) {
        ElementArray e;
        e.param = plain ? param : nullptr;
        if (!plain) {
          e.holder = cast<ParmVarDecl>(field_of->getDecl());
          e.field = base_field->getMemberDecl();
        }
        e.spelling = *spelled;
        e.root_name = root_name;
        e.index = poly;
        e.element = base->getType()->getPointeeType();
        e.restrict_qualified = base->getType().isRestrictQualified();
        const QualType t = e.element;
        if (!t->isArithmeticType() || t->isBooleanType()) {
          why = "`" + e.spelling + "` does not point to numbers";
          return std::nullopt;
        }
        e.bytes = static_cast<std::int64_t>(ctx.ctx().getTypeSize(t) / 8);
        const std::int64_t v = e.bytes * width;
        if (v != 8 && v != 16 && v != 32) {
          why = "`" + e.spelling + "` has " + std::to_string(e.bytes) + "-byte elements";
          return std::nullopt;
        }
        p.arrays.push_back(e);
        it = p.arrays.end() - 1;
      } else if (it->index->terms != poly->terms) {
        why = "`" + it->spelling + "` is accessed at two different elements";
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
    for (const Stmt* s : grid->region.body)
      refs += e.param ? references_to(s, e.param).size() : field_references(s, e.holder, e.field);
    if (refs != e.uses.size()) {
      why = "`" + e.spelling + "` is used other than by its element subscript";
      return std::nullopt;
    }
    // A field holds the same pointer in every thread only while the kernel
    // leaves its struct alone.
    if (e.holder && ctx.modified.count(e.holder)) {
      why = "the kernel changes or takes the address of `" + e.holder->getNameAsString() + "`";
      return std::nullopt;
    }
  }
  bool any_written = false, all_restrict = true, all_params = true;
  std::vector<const ParmVarDecl*> params;
  for (const ElementArray& e : p.arrays) {
    any_written |= e.written;
    all_restrict &= e.restrict_qualified;
    all_params &= e.param != nullptr;
    if (e.param) params.push_back(e.param);
  }
  if (p.arrays.size() > 1 && any_written && !all_restrict) {
    std::string distinct_why;
    if (!all_params || !launches_pass_distinct_pointers(ctx, params, distinct_why)) {
      // Overlapping arrays: an element one thread writes and another reads
      // is a data race in the original, so only a thread's own elements can
      // be shared between arrays, and loading the group first reads what the
      // original read as long as the work reads no array after writing
      // another.
      if (!reads_before_writes(ctx, grid->region.body)) {
        why = "cannot rule out overlapping arrays" +
              (all_params ? ": " + distinct_why : std::string(" (fields of a struct argument)")) +
              ", and the element's work reads an array after writing another";
        return std::nullopt;
      }
      p.overlap_by_race_argument = true;
    }
  }
  // The subscripts may name locals the work declares: those declarations
  // (and the ones before them) are repeated before the vector accesses.
  std::set<const VarDecl*> needed;
  for (const ElementArray& e : p.arrays) {
    std::function<void(const Stmt*)> walk = [&](const Stmt* x) {
      if (!x) return;
      if (const auto* r = dyn_cast<DeclRefExpr>(x))
        if (const auto* v = dyn_cast<VarDecl>(r->getDecl()); v && v->isLocalVarDecl()) needed.insert(v);
      for (const Stmt* c : x->children()) walk(c);
    };
    walk(e.uses.front());
  }
  std::size_t last = 0;
  bool leading = true;
  std::set<const VarDecl*> found;
  for (std::size_t i = 0; i < grid->region.body.size(); ++i) {
    const auto* ds = dyn_cast<DeclStmt>(grid->region.body[i]);
    if (!ds) leading = false;
    if (!ds) continue;
    for (const Decl* d : ds->decls())
      if (const auto* v = dyn_cast<VarDecl>(d); v && needed.count(v)) {
        if (!leading) {
          why = "a subscript names `" + v->getNameAsString() + "`, declared after the work's first statement";
          return std::nullopt;
        }
        found.insert(v);
        last = i + 1;
      }
  }
  for (std::size_t i = 0; i < last; ++i) p.hoisted.push_back(grid->region.body[i]);
  if (!p.hoisted.empty() && !only_pure_declarations(ctx, p.hoisted)) {
    why = "the declarations a subscript needs have effects";
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
      std::string stem = e.param ? e.param->getNameAsString() : e.field->getNameAsString();
      regs.push_back(fresh_name(ctx.file, stem));
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
    // The declarations the subscripts need, at the group's first x.
    std::string hoisted;
    for (const Stmt* s : p->hoisted) {
      auto t = ctx.text(s);
      if (!t) {
        error = "a declaration is spelled in a macro";
        return false;
      }
      hoisted += *t + "\n";
    }
    auto indented = [&](const std::string& text, const std::string& indent) {
      std::string r;
      std::size_t from = 0;
      while (from < text.size()) {
        const std::size_t nl = text.find('\n', from);
        r += indent + text.substr(from, nl - from) + "\n";
        from = nl == std::string::npos ? text.size() : nl + 1;
      }
      return r;
    };
    // The group's first element of each array, and whether it may be vectorised.
    std::string aligned;
    for (const ElementArray& e : p->arrays) {
      auto first = ctx.text(e.uses.front());
      if (!first) {
        error = "an access is spelled in a macro";
        return false;
      }
      aligned += " &&\n          reinterpret_cast<unsigned long long>(&(" + *first + ")) % " +
                 std::to_string(e.bytes * width) + " == 0";
    }
    const std::string in_bounds = xn + " + " + std::to_string(width - 1) + " < " + *xb + " && " + yn + " < " + *yb;
    b += "  bool " + vec + " = false;\n  {\n    const " + xt + " " + xn + " = " + x0 + ";\n";
    if (hoisted.empty()) {
      b += "    " + vec + " = " + in_bounds + aligned + ";\n  }\n";
    } else {
      // Only where the original ran them: under the guard, for the whole group.
      b += "    if (" + in_bounds + ") {\n" + indented(hoisted, "      ") + "      " + vec + " = true" + aligned +
           ";\n    }\n  }\n";
    }
    b += "  if (" + vec + ") {\n    const " + xt + " " + xn + " = " + x0 + ";\n" + indented(hoisted, "    ");
    for (std::size_t k = 0; k < p->arrays.size(); ++k) {
      const ElementArray& e = p->arrays[k];
      const std::string type =
          e.param ? pointee_spelling(e.param) : e.element.getUnqualifiedType().getAsString(ctx.ctx().getPrintingPolicy());
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
    if (p->overlap_by_race_argument)
      out.notes.push_back("the arrays may overlap: an element one thread writes and another reads would be a data race "
                          "in the original, so only a thread's own elements can be shared, and the work reads no array "
                          "after writing another, so loading the group first reads what the original read");
    if (!p->hoisted.empty())
      out.notes.push_back("the pure declarations the subscripts name are repeated at the group's first x, only where the "
                          "guard holds for the whole group (as the original ran them)");
    for (const ElementArray& e : p->arrays)
      if (e.written && !e.written_unconditionally)
        out.notes.push_back("`" + e.spelling + "` is written conditionally: loaded first so untouched "
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
