// reduction-grid-stride: in a block reduction whose block results are
// combined atomically into one location, each thread first accumulates many
// elements (a grid-stride loop, optionally with 8/16-byte loads) instead of
// loading one, and the launch becomes a persistent grid. Since one
// associative, commutative operation is the only way the elements meet (the
// thread's accumulation, the block's reduction, the atomic into a location
// that does not depend on the block), any distribution of the elements over
// threads and blocks gives the same result (sums: up to the order of
// floating-point additions; max/min: exactly).
//
// Applies to:
//   sdata[threadIdx.x] = (i < n) ? V(i) : P;      (or if/else, or `T v = P;
//                                                  if (i < n) v = V(i); sdata[tid] = v;`
//                                                  with v used nowhere else), i the global index
//   __syncthreads();
//   <a block sum/max/min of sdata into sdata[0]>   (proven, see find_block_reduction)
//   if (threadIdx.x == 0) atomicOp(A, sdata[0]);   A independent of the block
// with i used nowhere else and no other global writes. atomicOp is atomicAdd
// for a sum (P must be 0), atomicMax/atomicMin for a max/min. A thread's
// accumulator starts at P, so P must not change any result: for a max, P is
// the element type's lowest value (-INFINITY, INT_MIN, 0 unsigned) or V is
// an absolute value (fabsf, abs...) and P <= 0; a min mirrors it. A max/min
// of floats may reach the atomic as its bits (`__float_as_int(sdata[0])`)
// when every value is proven >= +0 (V an absolute value, P = +0), where the
// bits order as the floats do.
#include <algorithm>

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
  const Stmt* load_last = nullptr;       // its last statement (`T v = P; if (...) v = V; s[tid] = v;`)
  const clang::Expr* slot = nullptr;     // sdata[tid] (the destination)
  const clang::Expr* value = nullptr;    // V(i)
  const clang::Expr* bound = nullptr;    // n
  BlockReduction reduction;
  const clang::Expr* padding = nullptr;  // P
  // V(i) reads exactly one element `in[i]` (the only use of i in V): the
  // element a wide load can fetch, and the read V's copies replace.
  const ParmVarDecl* vector_source = nullptr;
  const ArraySubscriptExpr* vector_read = nullptr;
  std::string type;
};

// A math function whose result is never negative (NaN aside).
bool is_absolute_value(const clang::Expr* e) {
  const auto* call = dyn_cast<CallExpr>(e->IgnoreParenImpCasts());
  if (!call || !call->getDirectCallee() || call->getNumArgs() != 1) return false;
  const std::string n = call->getDirectCallee()->getNameAsString();
  // (Not sqrt: sqrt(-0.0) is -0.0, whose bits order below +0's.)
  return n == "fabsf" || n == "fabs" || n == "abs" || n == "labs" || n == "llabs" || n == "__habs" || n == "expf" ||
         n == "exp" || n == "__expf";
}

// P converted to the accumulator type `t`: can a thread's accumulator start
// at P without changing any max (min) result? Only when P is at or below
// (above) every value of the type, or V is never negative and P <= 0.
// `bits_ok` says whether P is also +0 or above, so that with V >= 0 every
// value's bit pattern orders as the value does.
bool padding_is_neutral(const KernelContext& ctx, ReductionOp op, QualType t, const clang::Expr* value,
                        const clang::Expr* padding, bool& nonnegative) {
  nonnegative = false;
  if (padding->isValueDependent()) return false;
  Expr::EvalResult r;
  if (!padding->EvaluateAsRValue(r, ctx.ctx())) return false;
  const bool v_nonneg = is_absolute_value(value) || value->getType()->isUnsignedIntegerType();
  if (t->isRealFloatingType()) {
    llvm::APFloat f(0.0);
    if (r.Val.isFloat()) f = r.Val.getFloat();
    else if (r.Val.isInt()) f = llvm::APFloat(static_cast<double>(r.Val.getInt().getSExtValue()));
    else return false;
    nonnegative = v_nonneg && !f.isNegative() && !f.isNaN();
    if (f.isNaN()) return false;
    if (op == ReductionOp::Max) return (f.isInfinity() && f.isNegative()) || (v_nonneg && (f.isZero() || f.isNegative()));
    return f.isInfinity() && !f.isNegative();
  }
  if (!t->isIntegerType() || !r.Val.isInt()) return false;
  const llvm::APSInt& v = r.Val.getInt();
  const unsigned width = static_cast<unsigned>(ctx.ctx().getTypeSize(t));
  const bool is_unsigned = t->isUnsignedIntegerType();
  llvm::APSInt p = v.extOrTrunc(width);
  p.setIsUnsigned(is_unsigned);
  if (llvm::APSInt::compareValues(p.extend(width + 1), v.extend(std::max(v.getBitWidth(), width) + 1)) != 0)
    return false;  // P does not fit the type: its conversion is not P
  nonnegative = v_nonneg && !p.isNegative();
  const llvm::APSInt lowest = llvm::APSInt::getMinValue(width, is_unsigned),
                     highest = llvm::APSInt::getMaxValue(width, is_unsigned);
  if (op == ReductionOp::Max) return p == lowest || (v_nonneg && (p.isZero() || p.isNegative()));
  return p == highest;
}

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

// `T v = P; if (i < n) v = V; slot = v;`, three consecutive statements of
// the kernel's body with v named nowhere else: the same load as `slot = (i
// < n) ? V : P;` when v has the slot's type (no rounding in between).
bool padded_local_load(const KernelContext& ctx, const IfStmt* iff, Match& m, std::string& why) {
  why = "the load is not `T v = padding; if (i < n) v = value; sdata[tid] = v;`";
  const auto body = std::vector<const Stmt*>(ctx.body->body_begin(), ctx.body->body_end());
  const auto at = std::find(body.begin(), body.end(), iff);
  if (at == body.end() || at == body.begin() || std::next(at) == body.end() || iff->getInit() ||
      iff->getConditionVariable())
    return false;
  const auto* decl = dyn_cast<DeclStmt>(*std::prev(at));
  const auto* v = decl && decl->isSingleDecl() ? dyn_cast<VarDecl>(decl->getSingleDecl()) : nullptr;
  if (!v || !v->hasLocalStorage() || v->isStaticLocal() || !v->getInit() || !v->getType()->isArithmeticType())
    return false;
  auto names_v = [&](const clang::Expr* e) {
    const auto* r = dyn_cast_or_null<DeclRefExpr>(e ? e->IgnoreParenImpCasts() : nullptr);
    return r && r->getDecl() == v;
  };
  auto then = statements_of(iff->getThen());
  const auto* set = then.size() == 1 ? dyn_cast<BinaryOperator>(then[0]) : nullptr;
  const auto* store = dyn_cast<BinaryOperator>(*std::next(at));
  if (!set || set->getOpcode() != BO_Assign || !names_v(set->getLHS()) || !store ||
      store->getOpcode() != BO_Assign || !names_v(store->getRHS()))
    return false;
  // v is read or written by these two statements only.
  int uses = 0;
  std::function<void(const Stmt*)> count = [&](const Stmt* x) {
    if (!x) return;
    if (const auto* r = dyn_cast<DeclRefExpr>(x); r && r->getDecl() == v) ++uses;
    for (const Stmt* c : x->children()) count(c);
  };
  count(ctx.body);
  if (uses != 2) {
    why = "the padded local `" + v->getNameAsString() + "` is used outside its load";
    return false;
  }
  if (ctx.ctx().getCanonicalType(v->getType().getUnqualifiedType()) !=
      ctx.ctx().getCanonicalType(store->getLHS()->getType().getUnqualifiedType())) {
    why = "the padded local `" + v->getNameAsString() + "` has another type than the reduced array";
    return false;
  }
  m.load = decl;
  m.load_last = store;
  m.slot = store->getLHS();
  m.value = set->getRHS();
  m.padding = v->getInit();
  m.bound = bound_of(iff->getCond(), m.index);
  why.clear();
  return true;
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
  if (!red) {
    if (why.empty()) why = "no block reduction";
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
    if (!co) {
      why = "the load is not `(i < n) ? value : padding`";
      return std::nullopt;
    }
    m.slot = bo->getLHS();
    m.value = co->getTrueExpr();
    m.padding = co->getFalseExpr();
    m.bound = bound_of(co->getCond(), m.index);
  } else if (const auto* iff = dyn_cast<IfStmt>(user); iff && iff->getElse()) {
    auto t = statements_of(iff->getThen()), e = statements_of(iff->getElse());
    const auto* ta = t.size() == 1 ? dyn_cast<BinaryOperator>(t[0]) : nullptr;
    const auto* ea = e.size() == 1 ? dyn_cast<BinaryOperator>(e[0]) : nullptr;
    if (!ta || !ea || ta->getOpcode() != BO_Assign || ea->getOpcode() != BO_Assign ||
        ctx.text(ta->getLHS()) != ctx.text(ea->getLHS())) {
      why = "the load is not `if (i < n) s = value; else s = padding;`";
      return std::nullopt;
    }
    m.slot = ta->getLHS();
    m.value = ta->getRHS();
    m.padding = ea->getRHS();
    m.bound = bound_of(iff->getCond(), m.index);
  } else if (const auto* iff = dyn_cast<IfStmt>(user); iff && !iff->getElse()) {
    if (!padded_local_load(ctx, iff, m, why)) return std::nullopt;
  }
  if (!m.load_last) m.load_last = m.load;
  if (!m.slot || !m.bound || !m.padding) {
    why = "no `(i < n) ? value : padding` load into shared memory";
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
  QualType st = sh->getType();
  if (const auto* at = dyn_cast<ArrayType>(st.getTypePtr()->getUnqualifiedDesugaredType())) st = at->getElementType();
  st = st.getUnqualifiedType();
  m.type = st.getAsString();
  // The padding must leave every result unchanged, as the accumulators start at it.
  bool nonnegative = false;
  if (red->op == ReductionOp::Sum) {
    if (!is_zero(ctx, m.padding)) {
      why = "a block sum whose out-of-range lanes load something other than 0";
      return std::nullopt;
    }
  } else if (!padding_is_neutral(ctx, red->op, st, m.value, m.padding, nonnegative)) {
    why = std::string("the out-of-range lanes' value is not neutral for a ") +
          (red->op == ReductionOp::Max ? "max" : "min") +
          " (it must be the type's " + (red->op == ReductionOp::Max ? "lowest" : "highest") +
          " value, or <= 0 under an absolute value)";
    return std::nullopt;
  }
  // The only global writes: atomics of the block result into a block-independent address.
  for (const Access& a : collect_accesses(ctx.body))
    if (!a.is_shared && a.write) {
      why = "the kernel stores to global memory (only atomics of the block result are allowed)";
      return std::nullopt;
    }
  const char* atomic_name =
      red->op == ReductionOp::Sum ? "atomicAdd" : (red->op == ReductionOp::Max ? "atomicMax" : "atomicMin");
  bool atomics_ok = true, saw_atomic = false;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s) return;
    if (const auto* call = dyn_cast<CallExpr>(s); call && call->getDirectCallee()) {
      const std::string n = call->getDirectCallee()->getNameAsString();
      if (n.rfind("atomic", 0) == 0) {
        saw_atomic = true;
        if (n != atomic_name || call->getNumArgs() != 2) atomics_ok = false;
        else {
          ExprRef addr = ctx.lower(call->getArg(0));
          if (mentions(addr, [](const Symbol& y) {
                return y.kind == SymbolKind::BlockIdx || y.kind == SymbolKind::ThreadIdx ||
                       (y.kind == SymbolKind::Local && !y.uniform);
              }) ||
              is_lane_varying(addr))
            atomics_ok = false;
          // The block result itself, or (a max/min of values >= +0) its bits.
          const clang::Expr* arg = call->getArg(1)->IgnoreParenImpCasts();
          if (const auto* cast = dyn_cast<CallExpr>(arg); cast && cast->getDirectCallee() && cast->getNumArgs() == 1) {
            const std::string c = cast->getDirectCallee()->getNameAsString();
            if ((c == "__float_as_int" || c == "__float_as_uint") && red->op != ReductionOp::Sum && nonnegative)
              arg = cast->getArg(0)->IgnoreParenImpCasts();
          }
          const auto* slot0 = dyn_cast<ArraySubscriptExpr>(arg);
          if (!slot0 || ctx.eval_int(slot0->getIdx()) != std::optional<std::int64_t>(0)) atomics_ok = false;
        }
      }
    }
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(ctx.body);
  if (!saw_atomic || !atomics_ok) {
    why = std::string("block results are not combined with ") + atomic_name +
          "(p, sdata[0]) into a block-independent location";
    return std::nullopt;
  }
  // Nothing else depends on the block index or the grid size.
  for (const Stmt* top : ctx.body->body()) {
    if (top == m.index.decl || top == m.load || top == m.load_last) continue;
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
  // A wide load needs V's element read: the only use of i in V, at [i] of a pointer parameter.
  std::vector<const ArraySubscriptExpr*> reads;
  std::function<void(const Stmt*)> find_reads = [&](const Stmt* s) {
    if (!s) return;
    if (const auto* a = dyn_cast<ArraySubscriptExpr>(s)) {
      const auto* ref = dyn_cast<DeclRefExpr>(strip(a->getIdx()));
      if (ref && ref->getDecl() == m.index.var) reads.push_back(a);
    }
    for (const Stmt* c : s->children()) find_reads(c);
  };
  find_reads(m.value);
  if (reads.size() == 1 && references_to(m.value, m.index.var).size() == 1)
    if (const auto* base = dyn_cast<DeclRefExpr>(reads[0]->getBase()->IgnoreParenImpCasts()))
      if (const auto* p = dyn_cast<ParmVarDecl>(base->getDecl()); p && p->getType()->isPointerType()) {
        m.vector_source = p;
        m.vector_read = reads[0];
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
    auto slot = ctx.text(m->slot), value = ctx.text(m->value), bound = ctx.text(m->bound),
         padding = ctx.text(m->padding);
    if (!slot || !value || !bound || !padding) {
      error = "the load crosses a macro";
      return false;
    }
    const ReductionOp op = m->reduction.op;
    const std::string iname = m->index.var->getNameAsString();
    const std::string itype = m->index.var->getType().getUnqualifiedType().getAsString();
    const std::string acc = fresh_name(ctx.file, "acc"), kk = fresh_name(ctx.file, "k"), t = fresh_name(ctx.file, "t"),
                      stride = fresh_name(ctx.file, "stride"), n = fresh_name(ctx.file, "n");
    // One element's contribution to the thread's accumulator.
    auto accumulate = [&](const std::string& v) {
      if (op == ReductionOp::Sum) return acc + " += " + v + ";";
      return acc + " = " + m->reduction.function + "(" + acc + ", static_cast<" + m->type + ">(" + v + "));";
    };
    std::string text = "{\n";
    text += "    // Rewritten by warplens (reduction-grid-stride): each thread accumulates a grid-stride\n";
    text += "    // share of the elements before the block reduction.\n";
    if (op == ReductionOp::Sum) text += "    " + m->type + " " + acc + " = " + m->type + "(0);\n";
    else text += "    " + m->type + " " + acc + " = static_cast<" + m->type + ">(" + *padding + ");\n";
    text += "    const long long " + n + " = static_cast<long long>(" + *bound + ");\n";
    text += "    const long long " + t + " = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;\n";
    text += "    const long long " + stride + " = static_cast<long long>(gridDim.x) * blockDim.x;\n";
    std::string scalar_loop = "for (long long " + kk + " = START; " + kk + " < " + n + "; " + kk + " += " + stride +
                              ") {\n      const " + itype + " " + iname + " = static_cast<" + itype + ">(" + kk +
                              ");\n      " + accumulate(*value) + "\n    }\n";
    auto loop_from = [&](const std::string& start) {
      std::string s = scalar_loop;
      s.replace(s.find("START"), 5, start);
      return s;
    };
    if (vec > 1) {
      const std::string src = m->vector_source->getNameAsString(), w = std::to_string(vec);
      const std::string ptype = m->vector_source->getType()->getPointeeType().getUnqualifiedType().getAsString();
      const std::string q = fresh_name(ctx.file, "q"), e = fresh_name(ctx.file, "e"), nv = fresh_name(ctx.file, "nv");
      // V with its element read replaced by the c-th loaded element.
      const bool plain = m->value->IgnoreParenImpCasts() == m->vector_read;
      std::vector<std::string> parts;
      for (int c = 0; c < vec; ++c) {
        const std::string element = e + "[" + std::to_string(c) + "]";
        auto v = plain ? std::optional<std::string>(element)
                       : text_with_replacements(ctx, m->value, {}, {{m->vector_read, element}});
        if (!v) {
          error = "the loaded value is spelled in a macro";
          return false;
        }
        parts.push_back(plain ? *v : "(" + *v + ")");
      }
      text += "    const long long " + nv + " = reinterpret_cast<unsigned long long>(" + src + ") % " +
              std::to_string(16) + " == 0 ? " + n + " / " + w + " : 0;\n";
      text += "    for (long long " + q + " = " + t + "; " + q + " < " + nv + "; " + q + " += " + stride + ") {\n";
      text += "      " + ptype + " " + e + "[" + w + "];\n";
      text += "      wl_vector_load<" + w + ">(" + e + ", " + src + " + " + q + " * " + w + ");\n";
      if (op == ReductionOp::Sum) {
        std::string sum = parts[0];
        for (std::size_t c = 1; c < parts.size(); ++c) sum += " + " + parts[c];
        text += "      " + accumulate(sum) + "\n    }\n";
      } else {
        for (const std::string& part : parts) text += "      " + accumulate(part) + "\n";
        text += "    }\n";
      }
      text += "    " + loop_from(nv + " * " + w + " + " + t);
    } else {
      text += "    " + loop_from(t);
    }
    text += "    " + *slot + " = " + acc + ";\n  }";
    const unsigned begin = ctx.offset(m->load->getBeginLoc()), end = ctx.offset_after_statement(m->load_last);
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
    if (op == ReductionOp::Sum) {
      out.notes.push_back("elements meet only through additions (thread, block sum, atomicAdd into a block-independent "
                          "address): any distribution over threads gives the same total, up to rounding order");
      out.notes.push_back("grid-stride accumulation: every element below the bound is added once, for any grid");
      // Each thread's running sum covers other elements than before: the
      // total's rounding order changes (terms: the elements read).
      if (m->type == "float" || m->type == "double" || m->type == "half" || m->type == "__half" ||
          m->type == "__nv_bfloat16")
        out.reassociation = ReassociatedTerms{};
    } else {
      const std::string what = op == ReductionOp::Max ? "max" : "min";
      out.notes.push_back("elements meet only through " + m->reduction.function + " (thread, block " + what +
                          ", atomic " + what + " into a block-independent address): any distribution over threads "
                          "gives the same result, exactly");
      out.notes.push_back("each accumulator starts at the out-of-range lanes' value `" + *padding +
                          "`, which cannot change a " + what + " of these values");
      out.notes.push_back("grid-stride accumulation: every element below the bound is read once, for any grid");
    }
    return true;
  }
};

}  // namespace

const Rewrite& reduction_grid_stride_rewrite() {
  static const ReductionGridStride r;
  return r;
}

}  // namespace warplens::agent::rw
