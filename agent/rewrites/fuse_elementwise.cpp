// fuse-elementwise (issue 9): two back-to-back launches where kernel A writes
// a temporary buffer element-for-element and kernel B reads it back at the
// same element become one launch of a fused kernel that computes A's value
// in a register where B read it. The temporary is then neither written nor
// read: its traffic (a full write and a full read) disappears.
//
// Conditions, all checked:
//   - A and B are one-element-per-thread kernels over the same index and the
//     same bound (the launches pass the same argument for it);
//   - A's only work is `tmp[i] = E` with E built from A's parameters, i and
//     locals A declares before it (`int col = i % cols;`: pure declarations
//     with an initialiser, never changed; each is inlined into E as its
//     initialiser converted to its type);
//     B only reads tmp, at [i];
//   - the two launches are consecutive statements with identical
//     configurations (grid, block, shared memory, stream) -- or other grids
//     and blocks on the same stream when B is the user's grid-stride loop
//     (right for any grid) and A's launches cover its bound -- or separated
//     only by error checks (`CHECK(cudaGetLastError());`: statements that
//     call nothing but the CUDA error and synchronisation queries and the
//     C printing and exit functions, or the program's own checking function
//     whose body is such a check (`check(cudaGetLastError(), "launch");`),
//     and name no variable of their own function), which stay where they
//     are;
//   - the temporary is a local variable of the launching function whose only
//     other uses are its allocation and cudaFree: no copy, no other kernel,
//     nothing after B reads it.
// The 2-D form (two_d_plan): A and B 2-D kernels over the same (x, y) with
// the same configuration and bounds, A's work pure declarations and one
// `tmp[S] = E` under exactly its bounds, B reading tmp only at S of its own
// (x, y) inside its guard, A reading no array B writes.
// The fused kernel takes A's parameters followed by B's minus the temporary
// (the FusionDeclaration tells a replaying verifier the same).
#include <functional>
#include <regex>
#include <set>

#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/fuse_plan.h"
#include "agent/rewrites/launch_pairs.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;




std::optional<FusionPlan> plan(KernelContext& ctx, std::string& why) {
  const ParsedFile& f = ctx.file;
  std::map<std::pair<const FunctionDecl*, const FunctionDecl*>, std::vector<Pair>> candidates;
  for (const CUDAKernelCallExpr* l : all_launches(f)) {
    const FunctionDecl* k1 = l->getDirectCallee();
    const auto* next = next_launch(f, l);
    if (!k1 || !next || !next->getDirectCallee()) continue;
    const FunctionDecl* k2 = next->getDirectCallee();
    if (k1->getCanonicalDecl() == k2->getCanonicalDecl()) continue;
    if (k1->getCanonicalDecl() != ctx.kernel->getCanonicalDecl() && k2->getCanonicalDecl() != ctx.kernel->getCanonicalDecl())
      continue;
    candidates[{k1->getCanonicalDecl(), k2->getCanonicalDecl()}].push_back({l, next});
  }
  if (candidates.empty()) {
    why = "no launch of this kernel is immediately followed or preceded by another kernel's launch";
    return std::nullopt;
  }
  for (auto& [kernels, pairs] : candidates) {
    FusionPlan p;
    p.a = kernels.first->getDefinition();
    p.b = kernels.second->getDefinition();
    p.pairs = pairs;
    if (!p.a || !p.b || !is_main_file(f, p.a->getLocation()) || !is_main_file(f, p.b->getLocation())) {
      why = "both kernels must be defined in this file";
      continue;
    }
    KernelContext ca(ctx.file, p.a), cb(ctx.file, p.b);
    // Two 2-D kernels over the same (x, y): the 2-D form.
    auto two_d = [&](const std::string& one_d_why) {
      if (one_d_why.find("1-D global index") == std::string::npos) return false;
      std::string why2;
      if (two_d_plan(ctx, ca, cb, p, why2)) return true;
      why += "; as 2-D kernels: " + why2;
      return false;
    };
    auto ea = match_elementwise(ca, why, /*allow_gathers=*/true, /*allow_grid_stride_loop=*/true);
    if (!ea) {
      why = "`" + p.a->getNameAsString() + "` is not element-wise: " + why;
      if (two_d(why)) return p;
      continue;
    }
    auto eb = match_elementwise(cb, why, /*allow_gathers=*/true, /*allow_grid_stride_loop=*/true);
    if (!eb) {
      why = "`" + p.b->getNameAsString() + "` is not element-wise: " + why;
      continue;
    }
    // A: pure local declarations, then a single `tmp[i] = E;`.
    std::vector<const Stmt*> a_decls;
    for (const Stmt* s : ea->region.prologue)
      if (s != ea->index.decl) a_decls.push_back(s);
    if (ea->region.body.empty()) {
      why = "`" + p.a->getNameAsString() + "` stores nothing";
      continue;
    }
    for (std::size_t k = 0; k + 1 < ea->region.body.size(); ++k) a_decls.push_back(ea->region.body[k]);
    bool decls_ok = only_pure_declarations(ca, a_decls);
    for (const Stmt* s : a_decls) {
      const auto* ds = dyn_cast<DeclStmt>(s);
      if (!ds) {
        decls_ok = false;
        break;
      }
      for (const Decl* d : ds->decls()) {
        const auto* v = dyn_cast<VarDecl>(d);
        if (!v || !v->getInit() || ca.modified.count(v) || v->getType()->isReferenceType() ||
            v->getType()->isArrayType() || !v->getType()->isScalarType())
          decls_ok = false;
        else
          p.a_locals.push_back(v);
      }
    }
    if (!decls_ok) {
      why = "`" + p.a->getNameAsString() + "` does more than declare locals and make one store";
      continue;
    }
    p.a_store = dyn_cast<BinaryOperator>(ea->region.body.back());
    if (!p.a_store || p.a_store->getOpcode() != BO_Assign) {
      why = "`" + p.a->getNameAsString() + "` is not `tmp[i] = expression`";
      continue;
    }
    const ParmVarDecl* tmp_a = nullptr;
    for (const auto& arr : ea->arrays)
      if (arr.written) {
        if (tmp_a || arr.read || !arr.written_unconditionally) tmp_a = nullptr, why = "A writes more than one array";
        else tmp_a = arr.param;
      }
    if (!tmp_a) {
      if (why.empty()) why = "no temporary written by A";
      continue;
    }
    p.tmp_in_a = ca.param_index(tmp_a);
    p.a_index = ea->index;
    const clang::Expr* value = p.a_store->getRHS();
    bool value_ok = true;
    // E and the locals' initialisers may use the index, parameters (not the
    // temporary) and locals declared before them.
    std::set<const VarDecl*> visible;
    std::function<void(const Stmt*)> check_refs = [&](const Stmt* s) {
      if (!s) return;
      if (const auto* r = dyn_cast<DeclRefExpr>(s)) {
        const ValueDecl* d = r->getDecl();
        if (const auto* v = dyn_cast<VarDecl>(d); v && v->hasLocalStorage() && !isa<ParmVarDecl>(v) &&
                                                   v != p.a_index.var && !visible.count(v))
          value_ok = false;
        if (d == tmp_a) value_ok = false;
      }
      for (const Stmt* c : s->children()) check_refs(c);
    };
    for (const VarDecl* v : p.a_locals) {
      check_refs(v->getInit());
      visible.insert(v);
    }
    check_refs(value);
    if (!value_ok) {
      why = "A's value uses locals other than its index";
      continue;
    }
    // Launch pairs: same configuration, the same temporary, the same bound.
    const int bound_a = ca.param_index(dyn_cast_or_null<ParmVarDecl>(
        dyn_cast<DeclRefExpr>(strip(ea->bound)) ? dyn_cast<DeclRefExpr>(strip(ea->bound))->getDecl() : nullptr));
    const int bound_b = cb.param_index(dyn_cast_or_null<ParmVarDecl>(
        dyn_cast<DeclRefExpr>(strip(eb->bound)) ? dyn_cast<DeclRefExpr>(strip(eb->bound))->getDecl() : nullptr));
    if (bound_a < 0 || bound_b < 0) {
      why = "the bounds are not parameters";
      continue;
    }
    const VarDecl* tmp_var = nullptr;
    bool pairs_ok = true;
    // Launches with other grids or blocks still fuse when B is the user's
    // grid-stride loop (right for any grid: the fused launch keeps A's
    // configuration) and A's launches provably cover its bound (A wrote
    // every element B reads); the stream must be the same.
    std::optional<bool> a_covers;
    auto stream_text = [&](const CUDAKernelCallExpr* l) {
      const clang::Expr* st = launch_config(l).stream;
      return st ? ctx.text(st).value_or("?") : std::string();
    };
    for (const Pair& pr : p.pairs) {
      const std::string c1 = config_text(ctx, pr.first), c2 = config_text(ctx, pr.second);
      if (c1.empty() || c1 != c2) {
        bool any_grid = false;
        if (!c1.empty() && !c2.empty() && eb->user_loop && stream_text(pr.first) == stream_text(pr.second)) {
          std::string cover_why;
          if (!a_covers) a_covers = ea->user_loop || launches_cover(ca, 0, ea->bound, cover_why);
          any_grid = *a_covers;
        }
        if (!any_grid) {
          why = "the two launches differ in grid, block, shared memory or stream";
          pairs_ok = false;
          break;
        }
      }
      const VarDecl* v = local_var(pr.first->getArg(static_cast<unsigned>(p.tmp_in_a)));
      if (!v) {
        why = "the temporary is not a local variable of the launching function";
        pairs_ok = false;
        break;
      }
      int in_b = -1;
      for (unsigned k = 0; k < pr.second->getNumArgs(); ++k)
        if (local_var(pr.second->getArg(k)) == v) {
          if (in_b >= 0) in_b = -2;
          else in_b = static_cast<int>(k);
        }
      if (in_b < 0 || (p.tmp_in_b >= 0 && in_b != p.tmp_in_b)) {
        why = "B does not take the temporary exactly once";
        pairs_ok = false;
        break;
      }
      p.tmp_in_b = in_b;
      for (unsigned k = 0; k < pr.first->getNumArgs(); ++k)
        if (static_cast<int>(k) != p.tmp_in_a && local_var(pr.first->getArg(k)) == v) pairs_ok = false;
      if (!same_argument(ctx, pr.first->getArg(static_cast<unsigned>(bound_a)),
                         pr.second->getArg(static_cast<unsigned>(bound_b)))) {
        why = "the two launches pass different bounds";
        pairs_ok = false;
        break;
      }
      // Broadcast and gathered operands (`bias[i % cols]`) are read at
      // elements other threads may write in the fused kernel: their
      // arguments must be variables no written parameter receives.
      if (!ea->gathered.empty() || !eb->gathered.empty()) {
        std::set<const Decl*> written_args;
        bool plain = true;
        auto arg_decl = [&](const CUDAKernelCallExpr* l, const ParmVarDecl* q, const FunctionDecl* k) {
          const Decl* d = argument_decl(l, k, q);
          if (!d) plain = false;
          return d;
        };
        for (const auto& arr : ea->arrays)
          if (arr.written) written_args.insert(arg_decl(pr.first, arr.param, p.a));
        for (const auto& arr : eb->arrays)
          if (arr.written) written_args.insert(arg_decl(pr.second, arr.param, p.b));
        for (const ParmVarDecl* g : ea->gathered)
          if (written_args.count(arg_decl(pr.first, g, p.a))) plain = false;
        for (const ParmVarDecl* g : eb->gathered)
          if (written_args.count(arg_decl(pr.second, g, p.b))) plain = false;
        if (!plain) {
          why = "a broadcast or gathered operand may be an array the fused kernel writes";
          pairs_ok = false;
          break;
        }
      }
      tmp_var = v;
      if (!temporary_used_only_by(ctx, p.pairs, v, why)) {
        pairs_ok = false;
        break;
      }
    }
    if (!pairs_ok || !tmp_var) continue;
    // B reads the temporary only as tmp[i] (match_elementwise: only [i] or uniform subscripts).
    const ParmVarDecl* tmp_b = p.b->getParamDecl(static_cast<unsigned>(p.tmp_in_b));
    if (eb->gathered.count(tmp_b)) {
      why = "B reads the temporary at other elements than [i]";
      continue;
    }
    bool b_ok = false;
    for (const auto& arr : eb->arrays)
      if (arr.param == tmp_b) {
        if (arr.written) break;
        p.b_reads = arr.uses;
        b_ok = true;
      }
    if (!b_ok) {
      why = "B writes the temporary or does not read it element-wise";
      continue;
    }
    return p;
  }
  return std::nullopt;
}

class FuseElementwise final : public Rewrite {
 public:
  const char* name() const override { return "fuse-elementwise"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    auto p = plan(ctx, why);
    if (!p) return CheckResult::refuse(why);
    CheckResult r;
    Proposal prop;
    prop.step = {name(), {}};
    prop.motivation = "`" + p->a->getNameAsString() + "` writes a temporary that `" + p->b->getNameAsString() +
                      "` reads right back element by element (" + std::to_string(p->pairs.size()) +
                      " launch pair(s)): one fused pass saves a write and a read of it";
    prop.predicted_gain = 1.5;
    r.proposals.push_back(prop);
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep&, RewriteOutput& out, std::string& error) const override {
    auto p = plan(ctx, error);
    if (!p) return false;
    KernelContext ca(ctx.file, p->a), cb(ctx.file, p->b);
    const std::string fused = fresh_name(ctx.file, p->a->getNameAsString() + "_" + p->b->getNameAsString() + "_fused")
                                  .substr(3);  // drop the wl_ prefix: a kernel name people will read
    // A's parameters, renamed so they cannot clash with B's.
    std::map<const ValueDecl*, std::string> a_names;
    std::string params;
    for (unsigned k = 0; k < p->a->getNumParams(); ++k) {
      const ParmVarDecl* q = p->a->getParamDecl(k);
      const std::string nn = fresh_name(ctx.file, "a_" + q->getNameAsString());
      a_names[q] = nn;
      params += (params.empty() ? "" : ", ") + q->getType().getAsString() + " " + nn;
    }
    for (unsigned k = 0; k < p->b->getNumParams(); ++k) {
      if (static_cast<int>(k) == p->tmp_in_b) continue;
      auto t = cb.text(p->b->getParamDecl(k)->getSourceRange());
      if (!t) {
        error = "a parameter of B is not plain source text";
        return false;
      }
      params += ", " + *t;
    }
    // B's body with tmp[i] replaced by A's value at that element.
    std::map<const Stmt*, std::string> reads;
    for (const ArraySubscriptExpr* r : p->b_reads) {
      auto idx = cb.text(r->getIdx());
      if (!idx) {
        error = "B's subscript crosses a macro";
        return false;
      }
      std::map<const ValueDecl*, std::string> names = a_names;
      if (p->two_d) {
        names[p->a_x] = p->b_x->getNameAsString();
        names[p->a_y] = p->b_y->getNameAsString();
      } else {
        names[p->a_index.var] = "(" + *idx + ")";
      }
      // A's locals, each its initialiser at this element, as its own type.
      for (const VarDecl* v : p->a_locals) {
        auto init = text_with_renames(ca, v->getInit(), names);
        if (!init) {
          error = "A's local `" + v->getNameAsString() + "` crosses a macro";
          return false;
        }
        names[v] = "static_cast<" + v->getType().getUnqualifiedType().getAsString() + ">(" + *init + ")";
      }
      auto value = text_with_renames(ca, p->a_store->getRHS(), names);
      if (!value) {
        error = "A's value crosses a macro";
        return false;
      }
      reads[r] = "(" + *value + ")";
    }
    auto body = text_with_replacements(cb, p->b->getBody(), {}, reads);
    if (!body) {
      error = "B's body crosses a macro";
      return false;
    }
    const std::string kernel = "\n\n// Added by warplens (fuse-elementwise): `" + p->a->getNameAsString() + "` and `" +
                               p->b->getNameAsString() + "` in one pass; the temporary is neither written nor read.\n" +
                               "__global__ void " + fused + "(" + params + ") " + *body + "\n";
    if (!out.edits.insert_at_offset(cb.offset_after_statement(p->b->getBody()), kernel)) {
      error = out.edits.error();
      return false;
    }
    for (const Pair& pr : p->pairs) {
      std::string args;
      for (unsigned k = 0; k < pr.first->getNumArgs(); ++k) {
        auto t = ctx.text(pr.first->getArg(k));
        if (!t) {
          error = "a launch argument crosses a macro";
          return false;
        }
        args += (args.empty() ? "" : ", ") + *t;
      }
      for (unsigned k = 0; k < pr.second->getNumArgs(); ++k) {
        if (static_cast<int>(k) == p->tmp_in_b) continue;
        auto t = ctx.text(pr.second->getArg(k));
        if (!t) {
          error = "a launch argument crosses a macro";
          return false;
        }
        args += ", " + *t;
      }
      const std::string launch = fused + "<<<" + config_text(ctx, pr.first) + ">>>(" + args + ");";
      // Adjacent launches become one statement; error checks between them
      // stay, after the fused launch, and the second launch goes.
      const bool adjacent = next_statement(ctx.file, pr.first) == pr.second;
      const bool ok =
          adjacent ? out.edits.replace_offsets(ctx.offset(pr.first->getBeginLoc()), ctx.offset_after_statement(pr.second),
                                               launch)
                   : out.edits.replace_offsets(ctx.offset(pr.first->getBeginLoc()), ctx.offset_after_statement(pr.first),
                                               launch) &&
                         out.edits.replace_offsets(ctx.offset(pr.second->getBeginLoc()),
                                                   ctx.offset_after_statement(pr.second),
                                                   "/* " + p->b->getNameAsString() + " runs in " + fused + " above */");
      if (!ok) {
        error = out.edits.error();
        return false;
      }
    }
    FusionDeclaration decl;
    decl.fused_kernel = fused;
    decl.first = p->a->getNameAsString();
    decl.second = p->b->getNameAsString();
    for (unsigned k = 0; k < p->a->getNumParams(); ++k) decl.params.push_back({0, static_cast<int>(k)});
    for (unsigned k = 0; k < p->b->getNumParams(); ++k)
      if (static_cast<int>(k) != p->tmp_in_b) decl.params.push_back({1, static_cast<int>(k)});
    decl.elided = p->tmp_in_a;
    out.fusion = decl;
    out.result_kernel = fused;
    if (p->two_d)
      out.notes.push_back("both kernels are 2-D over the same (x, y) with the same bounds and configuration; the second "
                          "reads the temporary only at the element the first's thread (x, y) wrote, and the first "
                          "reads no array the second writes");
    else
      out.notes.push_back("both kernels are element-wise over the same index and bound; the launches are consecutive "
                        "with identical configurations");
    out.notes.push_back("the temporary's only other uses are its allocation and cudaFree: nothing else reads it");
    out.notes.push_back("the temporary stays allocated and is passed to the fused kernel, unused");
    return true;
  }
};

}  // namespace

const Rewrite& fuse_elementwise_rewrite() {
  static const FuseElementwise r;
  return r;
}

}  // namespace warplens::agent::rw
