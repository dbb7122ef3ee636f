// warp-per-row: a thread-per-row kernel (matrix-vector products, row sums and
// norms, row-wise softmax and normalisation) becomes warp-per-row. Each
// original thread turns into a warp: its 32 lanes take every 32nd iteration
// of the row's loops (consecutive lanes touch consecutive elements: coalesced),
// a butterfly shuffle gives every lane the total of each reduction, and the
// statements with side effects outside the loops run in lane 0.
//
// Applies to
//   int row = blockIdx.x * blockDim.x + threadIdx.x;   (1-D, unmodified)
//   if (row < M) {                                     (or `if (row >= M) return;`)
//     a sequence of:
//       - side-effect-free declarations                       (every lane)
//       - reduction loops `for (k = S; k < E; ++k)` that only update
//         accumulators declared before them, with `acc += e` / `acc = acc + e`
//         or `acc = fmaxf(acc, e)` (max/min alike), read-only
//       - element-wise loops that modify no outer variable and write only
//         subscripts `base + k` (a different element each iteration)
//       - other statements that store but modify no local   (lane 0)
//   }
// with at least one loop, no break/return/goto in the loops, no barriers,
// atomics or warp primitives, thread identity only through `row`, 1-D blocks
// of a multiple of 32 threads (the 32 threads replacing one thread are one
// warp, so the guard is uniform and the shuffles complete), and launches that
// cover M; the launch starts 32 times the threads (declared).
//
// Sums are reassociated (the verifier's tolerance judges that); max and min
// are exact. A __syncwarp follows each storing statement that is not the last,
// so later statements on other lanes see the stores. Lanes other than 0 start each sum from zero, so a total carried
// from an earlier loop is counted once.
#include <clang/AST/StmtCXX.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

enum class Combine { Add, Max, Min };

struct Accumulator {
  const VarDecl* var = nullptr;
  Combine op = Combine::Add;
  std::string function;  // fmaxf, max, ... for Max/Min
};

struct RowLoop {
  const ForStmt* loop = nullptr;
  const VarDecl* counter = nullptr;
  std::vector<Accumulator> accumulators;  // empty: an element-wise loop
};

struct Match {
  IndexVar row;
  GuardedRegion region;
  std::vector<RowLoop> loops;
  std::vector<const Stmt*> lane0;  // statements with side effects outside the loops
};

bool is_unit_increment(const Stmt* inc, const VarDecl* k) {
  auto refers = [&](const clang::Expr* e) {
    const auto* r = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    return r && r->getDecl() == k;
  };
  if (const auto* uo = dyn_cast_or_null<UnaryOperator>(inc)) return uo->isIncrementOp() && refers(uo->getSubExpr());
  if (const auto* ca = dyn_cast_or_null<CompoundAssignOperator>(inc))
    if (ca->getOpcode() == BO_AddAssign && refers(ca->getLHS())) {
      Expr::EvalResult r;
      return ca->getRHS()->EvaluateAsInt(r, k->getASTContext()) && r.Val.getInt() == 1;
    }
  return false;
}

bool declared_inside(const Stmt* s, const VarDecl* v) {
  bool found = false;
  std::function<void(const Stmt*)> walk = [&](const Stmt* x) {
    if (!x || found) return;
    if (const auto* ds = dyn_cast<DeclStmt>(x))
      for (const Decl* d : ds->decls())
        if (d == v) found = true;
    for (const Stmt* c : x->children()) walk(c);
  };
  walk(s);
  return found;
}

bool has_jump(const Stmt* s, bool nested = false) {
  if (!s) return false;
  if ((isa<BreakStmt>(s) || isa<ContinueStmt>(s)) && !nested) return isa<BreakStmt>(s);
  if (isa<ReturnStmt>(s) || isa<GotoStmt>(s)) return true;
  const bool inner = isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s) || isa<SwitchStmt>(s);
  for (const Stmt* c : s->children())
    if (has_jump(c, nested || inner)) return true;
  return false;
}

// Stores that collect_accesses cannot see (`*p = v`, `p->f = v`, `*p += v`):
// the loop checks below reason only about subscripted stores.
bool writes_through_pointer(const Stmt* s) {
  auto plain = [](const clang::Expr* lhs) {
    lhs = lhs->IgnoreParenImpCasts();
    if (const auto* me = dyn_cast<MemberExpr>(lhs); me && !me->isArrow())
      lhs = me->getBase()->IgnoreParenImpCasts();
    return isa<DeclRefExpr>(lhs) || isa<ArraySubscriptExpr>(lhs);
  };
  bool found = false;
  std::function<void(const Stmt*)> walk = [&](const Stmt* x) {
    if (!x || found) return;
    if (const auto* bo = dyn_cast<BinaryOperator>(x); bo && bo->isAssignmentOp() && !plain(bo->getLHS())) found = true;
    if (const auto* uo = dyn_cast<UnaryOperator>(x); uo && uo->isIncrementDecrementOp() && !plain(uo->getSubExpr()))
      found = true;
    for (const Stmt* c : x->children()) walk(c);
  };
  walk(s);
  return found;
}

// A call that may store to memory or print: printf/malloc/free, or a callee
// taking a pointer or reference to non-const (it could write through it).
bool calls_with_effects(const Stmt* s) {
  if (contains_call_named(s, [](const std::string& n) { return n == "printf" || n == "malloc" || n == "free"; }))
    return true;
  bool found = false;
  std::function<void(const Stmt*)> walk = [&](const Stmt* x) {
    if (!x || found) return;
    if (const auto* call = dyn_cast<CallExpr>(x)) {
      const FunctionDecl* fd = call->getDirectCallee();
      if (!fd) found = true;
      else
        for (const ParmVarDecl* p : fd->parameters()) {
          QualType t = p->getType();
          if ((t->isPointerType() && !t->getPointeeType().isConstQualified()) ||
              (t->isReferenceType() && !t.getNonReferenceType().isConstQualified()))
            found = true;
        }
    }
    for (const Stmt* c : x->children()) walk(c);
  };
  walk(s);
  return found;
}

// A store whose target is not a kernel parameter's memory: a local array (or
// a local pointer, which may point into one) declared outside `s`. Such
// storage is private to each lane, so a store made by one lane only (a lane-0
// statement, an iteration of a split loop) would be missing in the others.
bool stores_to_lane_private(const Stmt* s, std::string& what) {
  for (const Access& a : collect_accesses(s)) {
    if (!a.write || a.is_shared) continue;
    const auto* v = a.base ? dyn_cast<VarDecl>(a.base) : nullptr;
    if (v && (isa<ParmVarDecl>(v) || v->hasGlobalStorage() || declared_inside(s, v))) continue;
    what = a.base ? a.base->getNameAsString() : std::string("?");
    return true;
  }
  return false;
}

bool has_nested_loop(const Stmt* body) {
  bool found = false;
  std::function<void(const Stmt*)> walk = [&](const Stmt* x) {
    if (!x || found) return;
    if (isa<ForStmt>(x) || isa<WhileStmt>(x) || isa<DoStmt>(x) || isa<CXXForRangeStmt>(x)) found = true;
    for (const Stmt* c : x->children()) walk(c);
  };
  walk(body);
  return found;
}

// Types __shfl_xor_sync exchanges and `acc = 0` resets.
bool shuffle_type(QualType t) {
  const auto* b = t.getCanonicalType()->getAs<BuiltinType>();
  if (!b) return false;
  switch (b->getKind()) {
    case BuiltinType::Int: case BuiltinType::UInt: case BuiltinType::Long: case BuiltinType::ULong:
    case BuiltinType::LongLong: case BuiltinType::ULongLong: case BuiltinType::Float: case BuiltinType::Double:
      return true;
    default:
      return false;
  }
}

// The accumulator an update statement combines into, or nullopt.
std::optional<Accumulator> update_of(const Stmt* s, const std::set<const VarDecl*>& outer, const Expr** value) {
  auto var_of = [&](const clang::Expr* e) -> const VarDecl* {
    const auto* r = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    const auto* v = r ? dyn_cast<VarDecl>(r->getDecl()) : nullptr;
    return v && outer.count(v) ? v : nullptr;
  };
  if (const auto* ca = dyn_cast<CompoundAssignOperator>(s); ca && ca->getOpcode() == BO_AddAssign) {
    if (const VarDecl* v = var_of(ca->getLHS())) {
      *value = ca->getRHS();
      return Accumulator{v, Combine::Add, ""};
    }
    return std::nullopt;
  }
  const auto* bo = dyn_cast<BinaryOperator>(s);
  if (!bo || bo->getOpcode() != BO_Assign) return std::nullopt;
  const VarDecl* v = var_of(bo->getLHS());
  if (!v) return std::nullopt;
  const clang::Expr* rhs = bo->getRHS()->IgnoreParenImpCasts();
  if (const auto* add = dyn_cast<BinaryOperator>(rhs); add && add->getOpcode() == BO_Add) {
    if (var_of(add->getLHS()) == v) return *value = add->getRHS(), Accumulator{v, Combine::Add, ""};
    if (var_of(add->getRHS()) == v) return *value = add->getLHS(), Accumulator{v, Combine::Add, ""};
    return std::nullopt;
  }
  if (const auto* call = dyn_cast<CallExpr>(rhs); call && call->getNumArgs() == 2 && call->getDirectCallee()) {
    const std::string n = call->getDirectCallee()->getNameAsString();
    Combine op;
    if (n == "fmaxf" || n == "fmax" || n == "max") op = Combine::Max;
    else if (n == "fminf" || n == "fmin" || n == "min") op = Combine::Min;
    else return std::nullopt;
    if (var_of(call->getArg(0)) == v) return *value = call->getArg(1), Accumulator{v, op, n};
    if (var_of(call->getArg(1)) == v) return *value = call->getArg(0), Accumulator{v, op, n};
  }
  return std::nullopt;
}

// Classifies a loop of the row's work; `outer` are the locals declared before it.
std::optional<RowLoop> row_loop(const KernelContext& ctx, const ForStmt* loop, const std::set<const VarDecl*>& outer,
                                std::string& why) {
  RowLoop rl;
  rl.loop = loop;
  const auto* init = dyn_cast_or_null<DeclStmt>(loop->getInit());
  rl.counter = init && init->isSingleDecl() ? dyn_cast<VarDecl>(init->getSingleDecl()) : nullptr;
  if (!rl.counter || !rl.counter->getInit() || !rl.counter->getType()->isIntegerType()) {
    why = "a loop does not declare an integer counter";
    return std::nullopt;
  }
  const auto* cond = dyn_cast_or_null<BinaryOperator>(loop->getCond() ? loop->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!cond || cond->getOpcode() != BO_LT || !isa<DeclRefExpr>(cond->getLHS()->IgnoreParenImpCasts()) ||
      !refers_to(cond->getLHS(), rl.counter) || refers_to(cond->getRHS(), rl.counter) ||
      !is_unit_increment(loop->getInc(), rl.counter)) {
    why = "a loop is not `for (k = start; k < end; ++k)`";
    return std::nullopt;
  }
  const Stmt* body = loop->getBody();
  if (has_jump(body) || contains_barrier(body) || uses_atomics(body) || uses_warp_primitives(body)) {
    why = "a loop can exit early, synchronises or uses atomics";
    return std::nullopt;
  }
  if (writes_through_pointer(body) || calls_with_effects(body)) {
    why = "a loop stores through a pointer or calls a function that may store";
    return std::nullopt;
  }
  if (std::string what; stores_to_lane_private(body, what)) {
    why = "a loop stores into `" + what + "`, a local array each lane would fill only in part";
    return std::nullopt;
  }
  const std::set<const VarDecl*> body_modified = modified_variables(body);
  if (body_modified.count(rl.counter)) {
    why = "a loop changes its counter inside its body";
    return std::nullopt;
  }
  std::set<const VarDecl*> modified;
  for (const VarDecl* v : body_modified)
    if (!declared_inside(body, v)) modified.insert(v);
  for (const VarDecl* v : modified)
    if (refers_to(cond->getRHS(), v) || refers_to(rl.counter->getInit(), v)) {
      why = "a loop's bounds depend on `" + v->getNameAsString() + "`, which the loop changes";
      return std::nullopt;
    }
  const Symbol ks{SymbolKind::LoopCounter, 0, rl.counter->getNameAsString(), true};
  if (modified.empty()) {
    // Element-wise: each iteration writes its own elements (base + k), and
    // reads an array it writes only at the element it writes, so the
    // iterations are independent and may run on any lane in any order. No
    // inner loops: their counters could make two iterations' elements meet.
    if (has_nested_loop(body)) {
      why = "an element-wise loop has an inner loop";
      return std::nullopt;
    }
    const auto accesses = collect_accesses(body);
    std::map<const ValueDecl*, std::string> written;  // array -> the index text it is written at
    for (const Access& a : accesses) {
      if (!a.write) continue;
      auto p = a.indices.size() == 1 ? ctx.polynomial(a.indices[0]) : std::nullopt;
      auto c = p ? coefficient(*p, ks) : std::nullopt;
      auto index = a.indices.size() == 1 ? ctx.text(a.indices[0]) : std::nullopt;
      if (a.is_shared || !a.base || !c || !is_constant(*c, 1) || !index ||
          (written.count(a.base) && written[a.base] != *index)) {
        why = "a loop writes `" + ctx.text(a.expr).value_or("?") + "`, not one element per iteration";
        return std::nullopt;
      }
      for (const VarDecl* v : body_modified)
        if (refers_to(a.indices[0], v)) {
          why = "a loop writes `" + ctx.text(a.expr).value_or("?") + "` at an index computed inside the loop";
          return std::nullopt;
        }
      written[a.base] = *index;
    }
    for (const Access& a : accesses) {
      if (!a.read || !a.base || !written.count(a.base)) continue;
      auto index = a.indices.size() == 1 ? ctx.text(a.indices[0]) : std::nullopt;
      if (!index || *index != written[a.base]) {
        why = "a loop reads `" + ctx.text(a.expr).value_or("?") + "` at another element than it writes";
        return std::nullopt;
      }
    }
    return rl;
  }
  // Reduction: only accumulators change, the loop only reads memory.
  for (const Access& a : collect_accesses(body))
    if (a.write) {
      why = "a reduction loop also writes memory";
      return std::nullopt;
    }
  for (const VarDecl* v : modified)
    if (!outer.count(v) || !shuffle_type(v->getType())) {
      why = "a loop modifies `" + v->getNameAsString() + "`, which is not an int/float/double accumulator declared before it";
      return std::nullopt;
    }
  bool ok = true;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || !ok) return;
    const Expr* value = nullptr;
    if (auto acc = update_of(s, modified, &value)) {
      for (const VarDecl* other : modified)
        if (refers_to(value, other)) ok = false;
      auto it = std::find_if(rl.accumulators.begin(), rl.accumulators.end(),
                             [&](const Accumulator& x) { return x.var == acc->var; });
      if (it == rl.accumulators.end()) rl.accumulators.push_back(*acc);
      else if (it->op != acc->op) ok = false;
      return walk(value);
    }
    if (const auto* r = dyn_cast<DeclRefExpr>(s))
      if (const auto* v = dyn_cast<VarDecl>(r->getDecl()); v && modified.count(v)) ok = false;
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(body);
  if (!ok || rl.accumulators.size() != modified.size()) {
    why = "an accumulator is read, or combined other than by a sum, max or min, inside its loop";
    return std::nullopt;
  }
  return rl;
}

std::optional<Match> match(const KernelContext& ctx, std::string& why) {
  Match m;
  auto vars = global_index_vars(ctx);
  if (vars.size() != 1 || vars[0].dim != 0) {
    why = "needs exactly one 1-D global index (the row)";
    return std::nullopt;
  }
  m.row = vars[0];
  if (!identity_only_through_index_vars(ctx, vars, why)) return std::nullopt;
  if (uses_warp_primitives(ctx.body) || contains_barrier(ctx.body)) {
    why = "the kernel already cooperates across threads (barriers or warp primitives)";
    return std::nullopt;
  }
  for (const Access& a : collect_accesses(ctx.body))
    if (a.is_shared) {
      why = "the kernel uses shared memory, laid out for one thread per row";
      return std::nullopt;
    }
  auto region = guarded_region(ctx, vars, why);
  if (!region) return std::nullopt;
  if (!region->bounds.count(m.row.var) || !region->only_bounds) {
    why = "the row is not checked by a plain `row < rows` guard";
    return std::nullopt;
  }
  m.region = *region;
  std::set<const VarDecl*> declared;
  for (const Stmt* s : m.region.prologue)
    for (const Decl* d : cast<DeclStmt>(s)->decls())
      if (const auto* v = dyn_cast<VarDecl>(d)) declared.insert(v);
  for (const Stmt* s : m.region.body) {
    if (const auto* loop = dyn_cast<ForStmt>(s)) {
      auto rl = row_loop(ctx, loop, declared, why);
      if (!rl) return std::nullopt;
      m.loops.push_back(*rl);
      continue;
    }
    if (const auto* ds = dyn_cast<DeclStmt>(s)) {
      if (!only_pure_declarations(ctx, {s}) || calls_with_effects(s)) {
        why = "a declaration with side effects in the row's work";
        return std::nullopt;
      }
      for (const Decl* d : ds->decls())
        if (const auto* v = dyn_cast<VarDecl>(d)) declared.insert(v);
      continue;
    }
    // Anything else runs in lane 0 only: it may store, but not change what the
    // other lanes see next.
    if (isa<WhileStmt>(s) || isa<DoStmt>(s) || has_jump(s) || uses_atomics(s)) {
      why = "a statement of the row's work is a loop or a jump warp-per-row does not handle";
      return std::nullopt;
    }
    if (std::string what; stores_to_lane_private(s, what)) {
      why = "a statement outside the loops stores into `" + what + "`, a local array only lane 0 would update";
      return std::nullopt;
    }
    if (writes_through_pointer(s)) {
      why = "a statement outside the loops stores through a pointer that may point to lane-private storage";
      return std::nullopt;
    }
    for (const VarDecl* v : modified_variables(s))
      if (!declared_inside(s, v)) {
        why = "`" + v->getNameAsString() + "` is modified outside a loop (lanes would disagree)";
        return std::nullopt;
      }
    m.lane0.push_back(s);
  }
  if (m.loops.empty()) {
    why = "no loop over the row";
    return std::nullopt;
  }
  auto block = constant_block(ctx);
  if (!block || block->y != 1 || block->z != 1 || block->x % 32 != 0) {
    why = "blocks must be 1-D multiples of 32 threads (constant at every launch)";
    return std::nullopt;
  }
  if (!launches_cover(ctx, 0, m.region.bounds.at(m.row.var), why)) return std::nullopt;
  return m;
}

std::string shuffle_helper(const std::string& name, Combine op) {
  const std::string combine = op == Combine::Add   ? "v += __shfl_xor_sync(0xffffffffu, v, offset)"
                              : op == Combine::Max ? "v = max(v, __shfl_xor_sync(0xffffffffu, v, offset))"
                                                   : "v = min(v, __shfl_xor_sync(0xffffffffu, v, offset))";
  const char* what = op == Combine::Add ? "sum" : op == Combine::Max ? "maximum" : "minimum";
  return std::string("// Added by warplens (warp-per-row): ") + what +
         " over the 32 lanes of a warp, in every lane.\ntemplate <typename T>\n__device__ __forceinline__ T " + name +
         "(T v) {\n  for (int offset = 16; offset > 0; offset >>= 1) " + combine + ";\n  return v;\n}\n\n";
}

class WarpPerRow final : public Rewrite {
 public:
  const char* name() const override { return "warp-per-row"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    if (!launches_rewritable(ctx, why)) return CheckResult::refuse(why);
    auto m = match(ctx, why);
    if (!m) return CheckResult::refuse(why);
    // How strided is the row walk? Lane stride of the accesses in the loops.
    std::string example;
    double gain = 2.0;
    const Symbol tx = builtin_symbol(SymbolKind::ThreadIdx, 0);
    for (const RowLoop& l : m->loops)
      for (const Access& a : collect_accesses(l.loop->getBody())) {
        if (a.indices.size() != 1 || a.is_shared) continue;
        auto p = ctx.polynomial(a.indices[0]);
        auto c = p ? coefficient(*p, tx) : std::nullopt;
        if (c && !is_constant(*c, 0) && !is_constant(*c, 1)) {
          if (example.empty()) example = ctx.text(a.expr).value_or("?");
          gain = 8.0;
        }
      }
    CheckResult r;
    Proposal p;
    p.step = {name(), {}};
    p.motivation = "thread-per-row work in " + std::to_string(m->loops.size()) + " loop(s)" +
                   (example.empty() ? "" : ": lanes of a warp access `" + example + "` a row apart") +
                   "; a warp per row walks each row contiguously";
    p.predicted_gain = gain;
    r.proposals.push_back(p);
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep&, RewriteOutput& out, std::string& error) const override {
    auto m = match(ctx, error);
    if (!m) return false;
    Edits& e = out.edits;
    const std::string lane = fresh_name(ctx.file, "lane");
    std::map<Combine, std::string> helpers;
    for (const RowLoop& l : m->loops)
      for (const Accumulator& a : l.accumulators)
        if (!helpers.count(a.op))
          helpers[a.op] = fresh_name(ctx.file, a.op == Combine::Add ? "warp_sum" : a.op == Combine::Max ? "warp_max" : "warp_min");
    auto gid = ctx.text(m->row.var->getInit());
    if (!gid) {
      error = "the row's initialiser is not plain source text";
      return false;
    }
    // row = gid / 32; lane = gid % 32
    if (!e.replace(m->row.var->getInit(), "(" + *gid + ") / 32") ||
        !e.insert_after(m->row.decl->getEndLoc(), "\n" + ctx.indentation_at(m->row.decl->getBeginLoc()) +
                                                        "const int " + lane + " = static_cast<int>((" + *gid +
                                                        ") % 32);")) {
      error = e.error();
      return false;
    }
    // Lanes store different elements (element-wise loops) or only lane 0
    // stores; what follows may read those stores from another lane, which
    // only __syncwarp makes visible. The guard is uniform, so all 32 lanes
    // reach each __syncwarp.
    const Stmt* last = m->region.body.back();
    auto sync_after = [&](const Stmt* s, const std::string& indent) {
      return s == last ? std::string() : "\n" + indent + "__syncwarp();";
    };
    for (const RowLoop& l : m->loops) {
      const std::string indent = ctx.indentation_at(l.loop->getBeginLoc());
      std::string before;
      for (const Accumulator& a : l.accumulators)
        if (a.op == Combine::Add) before += "if (" + lane + " != 0) " + a.var->getNameAsString() + " = 0;\n" + indent;
      auto start = ctx.text(l.counter->getInit());
      if (!start) {
        error = "a loop header is not plain source text";
        return false;
      }
      if ((!before.empty() && !e.insert(l.loop->getBeginLoc(), before)) ||
          !e.replace(l.counter->getInit(), "(" + *start + ") + " + lane) ||
          !e.replace(l.loop->getInc(), l.counter->getNameAsString() + " += 32")) {
        error = e.error();
        return false;
      }
      std::string after = l.accumulators.empty() ? sync_after(l.loop, indent) : "";
      for (const Accumulator& a : l.accumulators)
        after += "\n" + indent + a.var->getNameAsString() + " = " + helpers[a.op] + "(" + a.var->getNameAsString() + ");";
      if (!after.empty() && !e.insert_at_offset(ctx.offset_after_statement(l.loop), after)) {
        error = e.error();
        return false;
      }
    }
    for (const Stmt* s : m->lane0) {
      const std::string indent = ctx.indentation_at(s->getBeginLoc());
      if (!e.insert(s->getBeginLoc(), "if (" + lane + " == 0) {\n" + indent + "  ") ||
          !e.insert_at_offset(ctx.offset_after_statement(s), "\n" + indent + "}" + sync_after(s, indent))) {
        error = e.error();
        return false;
      }
    }
    std::string helper_text;
    for (const auto& [op, n] : helpers) helper_text += shuffle_helper(n, op);
    if (!helper_text.empty() && !insert_before_kernel(ctx, e, helper_text)) {
      error = e.error();
      return false;
    }
    LaunchChange change;
    change.kernel = ctx.kernel->getNameAsString();
    change.thread_scale[0] = {32, 1};
    if (!rewrite_launches(ctx, change, e, error)) return false;
    out.launch_changes.push_back(change);
    out.notes.push_back("each row is handled by one full warp (blocks are multiples of 32); the row guard is uniform "
                        "across the warp");
    out.notes.push_back("reductions combine only by sum, max or min, and every lane receives the total; element-wise "
                        "loops write one element per iteration; stores outside loops run once, in lane 0; "
                        "__syncwarp orders stores before later reads by other lanes");
    out.notes.push_back("the launch grid covers the rows, and starts 32x the threads");
    return true;
  }
};

}  // namespace

const Rewrite& warp_per_row_rewrite() {
  static const WarpPerRow r;
  return r;
}

}  // namespace warplens::agent::rw
