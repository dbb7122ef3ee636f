// reduction-grid-stride: in a block reduction whose block results are added
// atomically into one location, each thread first accumulates many elements
// (a grid-stride loop, optionally with 16-byte loads) instead of loading one,
// and the launch becomes a persistent grid. Since addition is the only way
// the elements meet (the thread's accumulation, the block's sum, the atomic
// add into a location that does not depend on the block), any distribution of
// the elements over threads and blocks gives the same total, up to the order
// of floating-point additions.
//
// Applies to:
//   sdata[threadIdx.x] = (i < n) ? V(i) : 0;     (or if/else), i the global index
//   __syncthreads();
//   <a block sum of sdata into sdata[0]>          (proven, see find_block_reduction)
//   if (threadIdx.x == 0) atomicAdd(P, sdata[0]);  P independent of the block
// with i used nowhere else and no other global writes.
#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

struct Match {
  std::vector<IndexVar> vars;
  IndexVar index;
  const Stmt* load = nullptr;            // the statement that fills sdata[tid]
  const clang::Expr* slot = nullptr;     // sdata[tid] (the destination)
  const clang::Expr* value = nullptr;    // V(i)
  const clang::Expr* bound = nullptr;    // n
  BlockReduction reduction;
  const ParmVarDecl* vector_source = nullptr;  // V(i) is exactly in[i]
  std::string type;
};

bool is_zero(const KernelContext& ctx, const clang::Expr* e) {
  Expr::EvalResult r;
  if (e->isValueDependent()) return false;
  if (e->EvaluateAsRValue(r, ctx.ctx())) {
    if (r.Val.isInt()) return r.Val.getInt() == 0;
    if (r.Val.isFloat()) return r.Val.getFloat().isZero();
  }
  return false;
}

// `i < n` with i the index variable.
const clang::Expr* bound_of(const clang::Expr* cond, const IndexVar& iv) {
  const auto* bo = dyn_cast<BinaryOperator>(cond->IgnoreParenImpCasts());
  if (!bo) return nullptr;
  const clang::Expr *l = bo->getLHS(), *r = bo->getRHS();
  if (bo->getOpcode() == BO_GT) std::swap(l, r);
  else if (bo->getOpcode() != BO_LT) return nullptr;
  const auto* ref = dyn_cast<DeclRefExpr>(strip(l));
  if (!ref || ref->getDecl() != iv.var) return nullptr;
  return r;
}

std::optional<Match> match(const KernelContext& ctx, std::string& why) {
  Match m;
  m.vars = global_index_vars(ctx);
  if (m.vars.size() != 1 || m.vars[0].dim != 0) {
    why = "needs exactly one 1-D global index";
    return std::nullopt;
  }
  m.index = m.vars[0];
  auto red = find_block_reduction(ctx, why);
  if (!red || !red->is_sum) {
    if (why.empty()) why = "no block sum";
    return std::nullopt;
  }
  m.reduction = *red;
  const VarDecl* sh = red->shared;
  // Find the load statement: the only statement using i.
  const Stmt* user = nullptr;
  for (const Stmt* top : ctx.body->body()) {
    if (top == m.index.decl) continue;
    if (refers_to(top, m.index.var)) {
      if (user) {
        why = "the global index is used in more than one statement";
        return std::nullopt;
      }
      user = top;
    }
  }
  if (!user) {
    why = "the global index is unused";
    return std::nullopt;
  }
  m.load = user;
  if (const auto* bo = dyn_cast<BinaryOperator>(user); bo && bo->getOpcode() == BO_Assign) {
    const auto* co = dyn_cast<ConditionalOperator>(bo->getRHS()->IgnoreParenImpCasts());
    if (!co || !is_zero(ctx, co->getFalseExpr())) {
      why = "the load is not `(i < n) ? value : 0`";
      return std::nullopt;
    }
    m.slot = bo->getLHS();
    m.value = co->getTrueExpr();
    m.bound = bound_of(co->getCond(), m.index);
  } else if (const auto* iff = dyn_cast<IfStmt>(user); iff && iff->getElse()) {
    auto t = statements_of(iff->getThen()), e = statements_of(iff->getElse());
    const auto* ta = t.size() == 1 ? dyn_cast<BinaryOperator>(t[0]) : nullptr;
    const auto* ea = e.size() == 1 ? dyn_cast<BinaryOperator>(e[0]) : nullptr;
    if (!ta || !ea || ta->getOpcode() != BO_Assign || ea->getOpcode() != BO_Assign || !is_zero(ctx, ea->getRHS()) ||
        ctx.text(ta->getLHS()) != ctx.text(ea->getLHS())) {
      why = "the load is not `if (i < n) s = value; else s = 0;`";
      return std::nullopt;
    }
    m.slot = ta->getLHS();
    m.value = ta->getRHS();
    m.bound = bound_of(iff->getCond(), m.index);
  }
  if (!m.slot || !m.bound) {
    why = "no `(i < n) ? value : 0` load into shared memory";
    return std::nullopt;
  }
  const auto* slot = dyn_cast<ArraySubscriptExpr>(m.slot->IgnoreParenImpCasts());
  const auto* slot_base = slot ? dyn_cast<DeclRefExpr>(slot->getBase()->IgnoreParenImpCasts()) : nullptr;
  auto slot_index = slot ? ctx.polynomial(slot->getIdx()) : std::nullopt;
  if (!slot_base || slot_base->getDecl() != sh || !slot_index ||
      slot_index->terms != Polynomial::symbol(builtin_symbol(SymbolKind::ThreadIdx, 0)).terms) {
    why = "the load does not fill the reduced array at [threadIdx.x]";
    return std::nullopt;
  }
  if (is_lane_varying(ctx.lower(m.bound))) {
    why = "the bound differs between threads";
    return std::nullopt;
  }
  // The only global writes: atomicAdd into a block-independent address.
  for (const Access& a : collect_accesses(ctx.body))
    if (!a.is_shared && a.write) {
      why = "the kernel stores to global memory (only atomic adds of the block sum are allowed)";
      return std::nullopt;
    }
  bool atomics_ok = true, saw_atomic = false;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s) return;
    if (const auto* call = dyn_cast<CallExpr>(s); call && call->getDirectCallee()) {
      const std::string n = call->getDirectCallee()->getNameAsString();
      if (n.rfind("atomic", 0) == 0) {
        saw_atomic = true;
        if (n != "atomicAdd" || call->getNumArgs() != 2) atomics_ok = false;
        else {
          ExprRef addr = ctx.lower(call->getArg(0));
          if (mentions(addr, [](const Symbol& y) {
                return y.kind == SymbolKind::BlockIdx || y.kind == SymbolKind::ThreadIdx ||
                       (y.kind == SymbolKind::Local && !y.uniform);
              }) ||
              is_lane_varying(addr))
            atomics_ok = false;
          const auto* arg = dyn_cast<ArraySubscriptExpr>(call->getArg(1)->IgnoreParenImpCasts());
          if (!arg || ctx.eval_int(arg->getIdx()) != std::optional<std::int64_t>(0)) atomics_ok = false;
        }
      }
    }
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(ctx.body);
  if (!saw_atomic || !atomics_ok) {
    why = "block results are not combined with atomicAdd(p, sdata[0]) into a block-independent location";
    return std::nullopt;
  }
  // Nothing else depends on the block index or the grid size.
  for (const Stmt* top : ctx.body->body()) {
    if (top == m.index.decl || top == m.load) continue;
    bool grid_dependent = false;
    std::function<void(const Stmt*)> look = [&](const Stmt* s) {
      if (!s || grid_dependent) return;
      if (const auto* e = dyn_cast<clang::Expr>(s))
        if (auto b = as_builtin(e); b && (b->kind == SymbolKind::BlockIdx || b->kind == SymbolKind::GridDim))
          grid_dependent = true;
      for (const Stmt* c : s->children()) look(c);
    };
    look(top);
    if (grid_dependent) {
      why = "other statements depend on the block index or the grid size";
      return std::nullopt;
    }
  }
  QualType st = sh->getType();
  if (const auto* at = dyn_cast<ArrayType>(st.getTypePtr()->getUnqualifiedDesugaredType())) st = at->getElementType();
  m.type = st.getUnqualifiedType().getAsString();
  if (const auto* a = dyn_cast<ArraySubscriptExpr>(m.value->IgnoreParenImpCasts())) {
    const auto* ref = dyn_cast<DeclRefExpr>(strip(a->getIdx()));
    const auto* base = dyn_cast<DeclRefExpr>(a->getBase()->IgnoreParenImpCasts());
    if (ref && ref->getDecl() == m.index.var && base)
      if (const auto* p = dyn_cast<ParmVarDecl>(base->getDecl())) m.vector_source = p;
  }
  return m;
}

class ReductionGridStride final : public Rewrite {
 public:
  const char* name() const override { return "reduction-grid-stride"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    if (!launches_rewritable(ctx, why)) return CheckResult::refuse(why);
    auto m = match(ctx, why);
    if (!m) return CheckResult::refuse(why);
    CheckResult r;
    for (std::int64_t vec : find_rewrite(name())->params[0].values)
      for (std::int64_t k : find_rewrite(name())->params[1].values) {
        if (vec > 1 && !vector_width_ok(ctx, *m, vec)) continue;
        Proposal p;
        p.step = {name(), {{"vector", vec}, {"blocks-per-sm", k}}};
        p.motivation = "one element per thread and one atomic per block: accumulate " +
                       std::string(vec > 1 ? std::to_string(vec) + "-wide loads " : "") +
                       "in a grid-stride loop over at most " + std::to_string(k) + " blocks per SM";
        p.predicted_gain = vec > 1 ? 1.6 : 1.4;
        r.proposals.push_back(p);
      }
    return r;
  }

  static bool vector_width_ok(const KernelContext& ctx, const Match& m, std::int64_t vec) {
    if (!m.vector_source) return false;
    QualType e = m.vector_source->getType()->getPointeeType();
    const auto bytes = static_cast<std::int64_t>(ctx.ctx().getTypeSize(e) / 8);
    return e->isArithmeticType() && (bytes * vec == 16 || bytes * vec == 8);
  }

  bool apply(KernelContext& ctx, const RewriteStep& step, RewriteOutput& out, std::string& error) const override {
    auto m = match(ctx, error);
    if (!m) return false;
    const std::int64_t vec = param(step, "vector"), k = param(step, "blocks-per-sm");
    if (vec > 1 && !vector_width_ok(ctx, *m, vec)) {
      error = "the loaded value is not a plain array element of a suitable size";
      return false;
    }
    auto slot = ctx.text(m->slot), value = ctx.text(m->value), bound = ctx.text(m->bound);
    if (!slot || !value || !bound) {
      error = "the load crosses a macro";
      return false;
    }
    const std::string iname = m->index.var->getNameAsString();
    const std::string itype = m->index.var->getType().getUnqualifiedType().getAsString();
    const std::string acc = fresh_name(ctx.file, "acc"), kk = fresh_name(ctx.file, "k"), t = fresh_name(ctx.file, "t"),
                      stride = fresh_name(ctx.file, "stride"), n = fresh_name(ctx.file, "n");
    std::string text = "{\n";
    text += "    // Rewritten by warplens (reduction-grid-stride): each thread accumulates a grid-stride\n";
    text += "    // share of the elements before the block reduction.\n";
    text += "    " + m->type + " " + acc + " = " + m->type + "(0);\n";
    text += "    const long long " + n + " = static_cast<long long>(" + *bound + ");\n";
    text += "    const long long " + t + " = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;\n";
    text += "    const long long " + stride + " = static_cast<long long>(gridDim.x) * blockDim.x;\n";
    std::string scalar_loop = "for (long long " + kk + " = START; " + kk + " < " + n + "; " + kk + " += " + stride +
                              ") {\n      const " + itype + " " + iname + " = static_cast<" + itype + ">(" + kk +
                              ");\n      " + acc + " += " + *value + ";\n    }\n";
    auto loop_from = [&](const std::string& start) {
      std::string s = scalar_loop;
      s.replace(s.find("START"), 5, start);
      return s;
    };
    if (vec > 1) {
      const std::string src = m->vector_source->getNameAsString(), w = std::to_string(vec);
      const std::string ptype = m->vector_source->getType()->getPointeeType().getUnqualifiedType().getAsString();
      const std::string q = fresh_name(ctx.file, "q"), e = fresh_name(ctx.file, "e"), nv = fresh_name(ctx.file, "nv");
      std::string sum = e + "[0]";
      for (int c = 1; c < vec; ++c) sum += " + " + e + "[" + std::to_string(c) + "]";
      text += "    const long long " + nv + " = reinterpret_cast<unsigned long long>(" + src + ") % " +
              std::to_string(16) + " == 0 ? " + n + " / " + w + " : 0;\n";
      text += "    for (long long " + q + " = " + t + "; " + q + " < " + nv + "; " + q + " += " + stride + ") {\n";
      text += "      " + ptype + " " + e + "[" + w + "];\n";
      text += "      wl_vector_load<" + w + ">(" + e + ", " + src + " + " + q + " * " + w + ");\n";
      text += "      " + acc + " += " + sum + ";\n    }\n";
      text += "    " + loop_from(nv + " * " + w + " + " + t);
    } else {
      text += "    " + loop_from(t);
    }
    text += "    " + *slot + " = " + acc + ";\n  }";
    const unsigned begin = ctx.offset(m->load->getBeginLoc()), end = ctx.offset_after_statement(m->load);
    if (!out.edits.replace_offsets(begin, end, text)) {
      error = out.edits.error();
      return false;
    }
    if (vec > 1 && ctx.file.text.find("wl_vector_load") == std::string::npos &&
        !insert_before_kernel(ctx, out.edits, vector_helpers_text())) {
      error = out.edits.error();
      return false;
    }
    LaunchChange change;
    change.kernel = ctx.kernel->getNameAsString();
    change.persistent_blocks_per_sm = static_cast<int>(k);
    if (!rewrite_launches(ctx, change, out.edits, error)) return false;
    out.launch_changes.push_back(change);
    out.notes.push_back("elements meet only through additions (thread, block sum, atomicAdd into a block-independent "
                        "address): any distribution over threads gives the same total, up to rounding order");
    out.notes.push_back("grid-stride accumulation: every element below the bound is added once, for any grid");
    // Each thread's running sum covers other elements than before: the
    // total's rounding order changes (terms: the elements read).
    if (m->type == "float" || m->type == "double" || m->type == "half" || m->type == "__half" || m->type == "__nv_bfloat16") out.reassociation = ReassociatedTerms{};
    return true;
  }
};

}  // namespace

const Rewrite& reduction_grid_stride_rewrite() {
  static const ReductionGridStride r;
  return r;
}

}  // namespace warplens::agent::rw
