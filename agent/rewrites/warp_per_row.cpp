// warp-per-row: a thread-per-row kernel (matrix-vector products, row sums and
// norms, softmax, layer norm, row normalisation) gives each row `lanes`
// threads: a warp (lanes = 32) or a whole block (lanes = 128..1024). The
// lanes take every lanes-th iteration of the row's loops (consecutive lanes
// touch consecutive elements: coalesced), a butterfly shuffle (and, for a
// block, one shared slot per warp) gives every lane the total of each
// reduction, and statements that store outside the loops run in lane 0.
// With lanes < 32 (2..16) a warp takes 32/lanes rows, interleaved: warp
// lane t works on row t % (32/lanes) of the warp's rows, as lane
// t / (32/lanes) of it. That is the shape for a thread-per-column kernel
// walking down a matrix (column sums, A^T x, per-channel statistics): the
// consecutive columns of a warp still read consecutive addresses (32/lanes
// of them per row: a full 32-byte sector at 8 floats), and each column gets
// `lanes` threads instead of one. The shuffles of a row use a mask of its
// own lanes (the guard is uniform over them, not over the warp).
// With `cache` > 0 a row that fits (at most lanes x cache elements) is read
// from global memory once: the first loop that reads it keeps its elements
// in registers and the later loops read them from there (a run-time check
// falls back to the strided loops for longer rows).
//
// Applies to
//   int row = blockIdx.x * blockDim.x + threadIdx.x;   (1-D, unmodified)
//   if (row < M) {                                     (or `if (row >= M) return;`)
//     a sequence of:
//       - side-effect-free declarations (row pointers `const float* xr = x + (size_t)row * n` too)
//                                                                (every lane)
//       - reduction loops `for (k = S; k < E; ++k)` (counter declared in the
//         header or before the loop) that only update accumulators declared
//         before them, with `acc += e` / `acc = acc + e` or `acc = fmaxf(acc, e)`
//         (max/min alike), read-only
//       - element-wise loops that modify no outer variable and write each
//         array (followed through pointer locals to its parameter) at one
//         element `base + k`, reading what they write only there
//       - statements that change locals but store nothing      (every lane)
//       - statements that store but change no local             (lane 0)
//   }
// with at least one loop, no break/return/goto in the loops, no barriers,
// atomics or warp primitives, thread identity only through `row`, and
// launches that cover M; for a warp per row, 1-D blocks of a multiple of 32
// threads (the 32 threads replacing one thread are one warp, so the guard is
// uniform and the shuffles complete); for a block per row the block becomes
// `lanes` threads, so the row, and the guard, is the block's. The launch
// starts `lanes` times the threads (declared).
//
// Sums are reassociated (the verifier's tolerance judges that); max and min
// are exact. A __syncwarp (__syncthreads for a block) follows each storing
// statement that is not the last, so later statements on other lanes see the
// stores. Lanes other than 0 start each sum from zero, so a total carried
// from an earlier loop is counted once.
#include <clang/AST/StmtCXX.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <set>

#include "agent/rewrites/sum_terms.h"
#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

// MaxIf/MinIf: `if (e > acc) acc = e;` (and `<`): unlike fmaxf it keeps a
// NaN it started from and skips NaN elements, so lanes combine their
// partial results with the same comparison.
enum class Combine { Add, Max, Min, MaxIf, MinIf };

const char* combine_stem(Combine op) {
  switch (op) {
    case Combine::Add: return "sum";
    case Combine::Max: case Combine::MaxIf: return "max";
    case Combine::Min: case Combine::MinIf: return "min";
  }
  return "?";
}

struct Accumulator {
  const VarDecl* var = nullptr;
  Combine op = Combine::Add;
  std::string function;  // fmaxf, max, ... for Max/Min
};

struct RowLoop {
  const ForStmt* loop = nullptr;
  ForCounter counter;
  const Expr* end = nullptr;              // E of `k < E`
  std::vector<Accumulator> accumulators;  // empty: an element-wise loop
  bool writes = false;                    // stores one element per iteration (element-wise, or beside a reduction)
};

struct Match {
  IndexVar row;
  GuardedRegion region;
  std::vector<RowLoop> loops;
  std::vector<const Stmt*> lane0;    // statements with side effects outside the loops
  std::vector<const Stmt*> uniform;  // statements that change locals only (every lane)
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

bool has_continue(const Stmt* s) {
  if (!s) return false;
  if (isa<ContinueStmt>(s)) return true;
  if (isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s)) return false;  // binds to the inner loop
  for (const Stmt* c : s->children())
    if (has_continue(c)) return true;
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
    // A class-type element's `=`, `+=`, ... (`__half`, `__nv_bfloat16`): the
    // same rule on the object it assigns.
    if (const auto* op = dyn_cast<CXXOperatorCallExpr>(x);
        op && op->isAssignmentOp() && op->getNumArgs() >= 1 && !plain(op->getArg(0)))
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
      const auto* op = dyn_cast<CXXOperatorCallExpr>(call);
      // A class-type element store (`yr[c] = __float2half(v)`, the move
      // assignment taking `__half&&`): the store is the element access the
      // loop checks see (collect_accesses counts it as a write), and the
      // argument is a temporary nobody else sees.
      const bool element_assignment = op && op->isAssignmentOp();
      if (!fd) found = true;
      else if (!element_assignment) {
        // Arguments line up with parameters after the object of a member operator.
        const unsigned shift = op && isa<CXXMethodDecl>(fd) ? 1 : 0;
        for (unsigned i = 0; i < fd->getNumParams(); ++i) {
          QualType t = fd->getParamDecl(i)->getType();
          const bool temporary = i + shift < call->getNumArgs() &&
                                 isa<MaterializeTemporaryExpr>(call->getArg(i + shift)->IgnoreParenImpCasts());
          if ((t->isPointerType() && !t->getPointeeType().isConstQualified()) ||
              (t->isReferenceType() && !t.getNonReferenceType().isConstQualified() && !temporary))
            found = true;
        }
      }
    }
    for (const Stmt* c : x->children()) walk(c);
  };
  walk(s);
  return found;
}

// A store whose target is not memory every lane shares: a local array (or a
// local pointer the analysis cannot follow to a parameter or a __device__
// variable) declared outside `s`. Such storage is private to each lane, so a
// store made by one lane only (a lane-0 statement, an iteration of a split
// loop) would be missing in the others. Row pointers (`float* yr = y + off`)
// are followed to their parameter and are shared.
bool stores_to_lane_private(const KernelContext& ctx, const Stmt* s, std::string& what) {
  for (const Access& a : accesses_in(ctx, s)) {
    if (!a.write || a.is_shared) continue;
    if (a.root_is_param) continue;
    const auto* root = a.root ? dyn_cast<VarDecl>(a.root) : nullptr;
    if (root && (root->hasGlobalStorage() || declared_inside(s, root))) continue;
    const auto* v = a.base ? dyn_cast<VarDecl>(a.base) : nullptr;
    if (v && !root && declared_inside(s, v)) continue;
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
  // if (e > acc) acc = e;   if (acc < e) acc = e;   (min alike), no else, e
  // the same expression in both places.
  if (const auto* ifs = dyn_cast<IfStmt>(s); ifs && !ifs->getElse() && !ifs->getInit() && !ifs->getConditionVariable()) {
    const Stmt* then = ifs->getThen();
    if (const auto* cs = dyn_cast<CompoundStmt>(then); cs && cs->size() == 1) then = cs->body_front();
    const auto* assign = dyn_cast<BinaryOperator>(then);
    const auto* cmp = dyn_cast<BinaryOperator>(ifs->getCond()->IgnoreParenImpCasts());
    if (!assign || assign->getOpcode() != BO_Assign || !cmp || !cmp->isRelationalOp()) return std::nullopt;
    const VarDecl* v = var_of(assign->getLHS());
    if (!v) return std::nullopt;
    const clang::Expr* e = nullptr;
    bool greater = false;  // the condition holds when e is greater than acc
    if (var_of(cmp->getRHS()) == v) {
      e = cmp->getLHS();
      greater = cmp->getOpcode() == BO_GT || cmp->getOpcode() == BO_GE;
    } else if (var_of(cmp->getLHS()) == v) {
      e = cmp->getRHS();
      greater = cmp->getOpcode() == BO_LT || cmp->getOpcode() == BO_LE;
    } else {
      return std::nullopt;
    }
    llvm::FoldingSetNodeID a, b;
    e->IgnoreParenImpCasts()->Profile(a, v->getASTContext(), /*Canonical=*/true);
    assign->getRHS()->IgnoreParenImpCasts()->Profile(b, v->getASTContext(), /*Canonical=*/true);
    if (a != b || refers_to(e, v)) return std::nullopt;
    *value = assign->getRHS();
    return Accumulator{v, greater ? Combine::MaxIf : Combine::MinIf, ""};
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

// Same element: the same root and the same flattened index (polynomials
// compared exactly), or, when the analysis cannot follow the address, the
// same base and the same subscript text.
struct ElementKey {
  const ValueDecl* root = nullptr;
  std::optional<Polynomial> index;
  std::string text;
  bool operator==(const ElementKey& o) const {
    if (root != o.root) return false;
    if (index && o.index) return index->terms == o.index->terms;
    return !index && !o.index && text == o.text;
  }
};

ElementKey element_of(const KernelContext& ctx, const Access& a) {
  ElementKey k;
  k.root = a.root ? a.root : a.base;
  if (a.root && a.flat_index) k.index = to_polynomial(a.flat_index);
  if (!k.index && a.indices.size() == 1) k.text = ctx.text(a.indices[0]).value_or("?");
  return k;
}

// Classifies a loop of the row's work; `outer` are the locals declared before it.
std::optional<RowLoop> row_loop(const KernelContext& ctx, const ForStmt* loop, const std::set<const VarDecl*>& outer,
                                std::string& why) {
  RowLoop rl;
  rl.loop = loop;
  auto counter = ctx.for_counter(loop);
  if (!counter || !counter->var->getType()->isIntegerType()) {
    why = "a loop does not have an integer counter initialised in its header";
    return std::nullopt;
  }
  rl.counter = *counter;
  const VarDecl* k = counter->var;
  const auto* cond = dyn_cast_or_null<BinaryOperator>(loop->getCond() ? loop->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!cond || cond->getOpcode() != BO_LT || !isa<DeclRefExpr>(cond->getLHS()->IgnoreParenImpCasts()) ||
      !refers_to(cond->getLHS(), k) || refers_to(cond->getRHS(), k) || !is_unit_increment(loop->getInc(), k)) {
    why = "a loop is not `for (k = start; k < end; ++k)`";
    return std::nullopt;
  }
  rl.end = cond->getRHS();
  const Stmt* body = loop->getBody();
  if (has_jump(body) || has_continue(body) || contains_barrier(body) || uses_atomics(body) ||
      uses_warp_primitives(body)) {
    why = "a loop can exit early, synchronises or uses atomics";
    return std::nullopt;
  }
  if (writes_through_pointer(body) || calls_with_effects(body)) {
    why = "a loop stores through a pointer or calls a function that may store";
    return std::nullopt;
  }
  if (std::string what; stores_to_lane_private(ctx, body, what)) {
    why = "a loop stores into `" + what + "`, a local array each lane would fill only in part";
    return std::nullopt;
  }
  const std::set<const VarDecl*> body_modified = modified_variables(body);
  if (body_modified.count(k)) {
    why = "a loop changes its counter inside its body";
    return std::nullopt;
  }
  std::set<const VarDecl*> modified;
  for (const VarDecl* v : body_modified)
    if (!declared_inside(body, v)) modified.insert(v);
  for (const VarDecl* v : modified)
    if (refers_to(cond->getRHS(), v) || refers_to(counter->init, v)) {
      why = "a loop's bounds depend on `" + v->getNameAsString() + "`, which the loop changes";
      return std::nullopt;
    }
  const Symbol ks{SymbolKind::LoopCounter, 0, k->getNameAsString(), true};
  // Each iteration writes its own elements (base + k), and reads an array it
  // writes only at the element it writes, so the iterations' stores are
  // independent and may run on any lane in any order. No inner loops: their
  // counters could make two iterations' elements meet.
  auto elements_independent = [&]() -> bool {
    if (has_nested_loop(body)) {
      why = "a loop that stores has an inner loop";
      return false;
    }
    const auto accesses = accesses_in(ctx, body);
    std::vector<ElementKey> written;
    for (const Access& a : accesses) {
      if (!a.write) continue;
      std::optional<Polynomial> p;
      if (a.flat_index) p = to_polynomial(a.flat_index);
      else if (a.indices.size() == 1) p = ctx.polynomial(a.indices[0]);
      auto c = p ? coefficient(*p, ks) : std::nullopt;
      const ElementKey key = element_of(ctx, a);
      bool clash = false;
      for (const ElementKey& w : written) clash |= w.root == key.root && !(w == key);
      if (a.is_shared || !key.root || !c || !is_constant(*c, 1) || clash) {
        why = "a loop writes `" + ctx.text(a.expr).value_or("?") + "`, not one element per iteration";
        return false;
      }
      for (const VarDecl* v : body_modified)
        for (const clang::Expr* idx : a.indices)
          if (refers_to(idx, v)) {
            why = "a loop writes `" + ctx.text(a.expr).value_or("?") + "` at an index computed inside the loop";
            return false;
          }
      written.push_back(key);
    }
    for (const Access& a : accesses) {
      if (!a.read) continue;
      const ElementKey key = element_of(ctx, a);
      bool writes_root = false, same = false;
      for (const ElementKey& w : written) {
        writes_root |= w.root == key.root;
        same |= w == key;
      }
      if (writes_root && !same) {
        why = "a loop reads `" + ctx.text(a.expr).value_or("?") + "` at another element than it writes";
        return false;
      }
    }
    rl.writes = !written.empty();
    return true;
  };
  if (modified.empty()) {
    if (!elements_independent()) return std::nullopt;
    return rl;
  }
  // Reduction: only accumulators change. A loop that also stores (`y[k] =
  // expf(x[k] - m); s += y[k];`) stores as an element-wise loop does.
  bool stores = false;
  for (const Access& a : collect_accesses(body)) stores |= a.write;
  if (stores && !elements_independent()) return std::nullopt;
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
    if (isa<WhileStmt>(s) || isa<DoStmt>(s) || has_jump(s) || uses_atomics(s)) {
      why = "a statement of the row's work is a loop or a jump warp-per-row does not handle";
      return std::nullopt;
    }
    if (writes_through_pointer(s) || calls_with_effects(s)) {
      why = "a statement outside the loops stores through a pointer that may point to lane-private storage";
      return std::nullopt;
    }
    bool stores = false;
    for (const Access& a : collect_accesses(s)) stores |= a.write;
    bool changes_outer = false;
    std::string changed;
    for (const VarDecl* v : modified_variables(s))
      if (!declared_inside(s, v)) {
        changes_outer = true;
        changed = v->getNameAsString();
      }
    if (!stores) {
      // Locals only (`mean /= n;`): every lane runs it on the same values
      // (each reduction left its total in every lane), so they stay equal.
      m.uniform.push_back(s);
      continue;
    }
    // It stores: only lane 0 runs it, so it must not change what the other
    // lanes see next.
    if (std::string what; stores_to_lane_private(ctx, s, what)) {
      why = "a statement outside the loops stores into `" + what + "`, a local array only lane 0 would update";
      return std::nullopt;
    }
    if (changes_outer) {
      why = "`" + changed + "` is modified outside a loop by a statement that also stores (lanes would disagree)";
      return std::nullopt;
    }
    m.lane0.push_back(s);
  }
  if (m.loops.empty()) {
    why = "no loop over the row";
    return std::nullopt;
  }
  if (!launches_cover(ctx, 0, m.region.bounds.at(m.row.var), why)) return std::nullopt;
  return m;
}

// ---- the register cache -------------------------------------------------------------

// An array read in two or more loops at the element `base + k` (the same
// base in every loop, the same loop range), never written by the kernel, and
// not reachable through a pointer the kernel writes (distinct pointers at
// every launch, or `__restrict__`): keeping what the first loop reads in
// registers gives the later loops the same values.
struct RowCache {
  const ParmVarDecl* param = nullptr;
  std::vector<std::size_t> loops;                          // indices into Match::loops, in order
  std::map<std::size_t, std::vector<const ArraySubscriptExpr*>> reads;  // per loop
  std::string type;
};

std::optional<RowCache> row_cache(const KernelContext& ctx, const Match& m, std::string& why) {
  // Every parameter root the kernel writes.
  std::set<const ValueDecl*> written;
  for (const Access& a : accesses_in(ctx, ctx.body))
    if (a.write && a.root) written.insert(a.root);
  struct Use {
    std::size_t loop;
    const ArraySubscriptExpr* expr;
    Polynomial base;  // the index minus the counter
  };
  std::map<const ParmVarDecl*, std::vector<Use>> uses;
  std::set<const ParmVarDecl*> unusable;
  for (std::size_t i = 0; i < m.loops.size(); ++i) {
    const RowLoop& l = m.loops[i];
    const Symbol ks{SymbolKind::LoopCounter, 0, l.counter.var->getNameAsString(), true};
    for (const Access& a : accesses_in(ctx, l.loop->getBody())) {
      const auto* p = dyn_cast_or_null<ParmVarDecl>(a.root);
      if (!p || !a.root_is_param) continue;
      auto poly = a.flat_index ? to_polynomial(a.flat_index) : std::nullopt;
      auto c = poly ? coefficient(*poly, ks) : std::nullopt;
      if (a.write || a.member || !c || !is_constant(*c, 1)) {
        unusable.insert(p);
        continue;
      }
      Polynomial base = *poly - Polynomial::symbol(ks);
      uses[p].push_back({i, a.expr, base});
    }
  }
  std::optional<RowCache> best;
  for (const auto& [p, list] : uses) {
    if (unusable.count(p) || written.count(p)) continue;
    std::set<std::size_t> loops;
    for (const Use& u : list) loops.insert(u.loop);
    if (loops.size() < 2) continue;
    bool same = true;
    for (const Use& u : list) same &= u.base.terms == list.front().base.terms;
    // The same range in every loop that reads it (start and end as written).
    const RowLoop& first = m.loops[*loops.begin()];
    for (std::size_t i : loops) {
      const RowLoop& l = m.loops[i];
      same &= ctx.text(l.counter.init) == ctx.text(first.counter.init) && ctx.text(l.end) == ctx.text(first.end);
      // The index must not use locals declared inside the loop (the preload
      // runs before it).
      for (const Use& u : list)
        if (u.loop == i)
          for (const Stmt* c : u.expr->children()) {
            bool inner = false;
            std::function<void(const Stmt*)> walk = [&](const Stmt* x) {
              if (!x || inner) return;
              if (const auto* r = dyn_cast<DeclRefExpr>(x))
                if (const auto* v = dyn_cast<VarDecl>(r->getDecl()); v && declared_inside(l.loop->getBody(), v))
                  inner = true;
              for (const Stmt* y : x->children()) walk(y);
            };
            walk(c);
            same &= !inner;
          }
    }
    if (!same) continue;
    RowCache rc;
    rc.param = p;
    rc.loops.assign(loops.begin(), loops.end());
    for (const Use& u : list) rc.reads[u.loop].push_back(u.expr);
    rc.type = pointee_spelling(p);
    if (!best || rc.loops.size() > best->loops.size()) best = rc;
  }
  if (!best) {
    why = "no array is read element by element in two or more loops over the same range";
    return std::nullopt;
  }
  // Nothing the kernel writes may reach the cached array.
  if (!best->param->getType().isRestrictQualified()) {
    std::vector<const ParmVarDecl*> ptrs = {best->param};
    for (const ValueDecl* w : written)
      if (const auto* p = dyn_cast<ParmVarDecl>(w)) ptrs.push_back(p);
    if (!launches_pass_distinct_pointers(ctx, ptrs, why)) return std::nullopt;
  }
  return best;
}

// A butterfly over the lanes of a warp. With `stride` > 1 (rows
// interleaved in the warp) only the lanes `stride` apart combine: the lanes
// of one row, named by `mask`.
std::string shuffle_helper(const std::string& name, Combine op, std::int64_t stride = 1) {
  const std::string mask = stride > 1 ? "mask" : "0xffffffffu";
  const std::string combine =
      op == Combine::Add     ? "v += __shfl_xor_sync(" + mask + ", v, offset)"
      : op == Combine::Max   ? "v = max(v, __shfl_xor_sync(" + mask + ", v, offset))"
      : op == Combine::Min   ? "v = min(v, __shfl_xor_sync(" + mask + ", v, offset))"
      : op == Combine::MaxIf ? "{\n    const T o = __shfl_xor_sync(" + mask + ", v, offset);\n    if (o > v) v = o;\n  }"
                             : "{\n    const T o = __shfl_xor_sync(" + mask + ", v, offset);\n    if (o < v) v = o;\n  }";
  const char* what = op == Combine::Add ? "sum" : op == Combine::Max || op == Combine::MaxIf ? "maximum" : "minimum";
  if (stride > 1)
    return std::string("// Added by warplens (warp-per-row): ") + what + " over the " + std::to_string(32 / stride) +
           " lanes of a row (lanes " + std::to_string(stride) + " apart in the warp, named by mask), in each of them." +
           "\ntemplate <typename T>\n__device__ __forceinline__ T " + name + "(T v, unsigned mask) {\n  for (int offset = 16; offset >= " +
           std::to_string(stride) + "; offset >>= 1) " + combine + ";\n  return v;\n}\n\n";
  return std::string("// Added by warplens (warp-per-row): ") + what +
         " over the 32 lanes of a warp, in every lane.\ntemplate <typename T>\n__device__ __forceinline__ T " + name +
         "(T v) {\n  for (int offset = 16; offset > 0; offset >>= 1) " + combine + ";\n  return v;\n}\n\n";
}

// The same over the whole block (blockDim.x a multiple of 32, at most 1024):
// the warps' results meet in one shared slot per warp, every warp reduces
// the slots. The leading barrier protects the slots from the previous call.
std::string block_helper(const std::string& name, const std::string& warp, Combine op) {
  const char* what = op == Combine::Add ? "sum" : op == Combine::Max || op == Combine::MaxIf ? "maximum" : "minimum";
  const std::string other = op == Combine::Add ? "T(0)" : "wl_slot[0]";
  return std::string("// Added by warplens (warp-per-row): ") + what +
         " over the threads of a block, in every thread.\ntemplate <typename T>\n__device__ __forceinline__ T " + name +
         "(T v) {\n  __shared__ T wl_slot[32];\n  v = " + warp +
         "(v);\n  __syncthreads();\n  if (threadIdx.x % 32 == 0) wl_slot[threadIdx.x / 32] = v;\n  __syncthreads();\n"
         "  v = threadIdx.x % 32 < blockDim.x / 32 ? wl_slot[threadIdx.x % 32] : " + other + ";\n  return " + warp +
         "(v);\n}\n\n";
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
    std::string example, column_example;
    double gain = 2.0;
    const Symbol tx = builtin_symbol(SymbolKind::ThreadIdx, 0);
    for (const RowLoop& l : m->loops) {
      const Symbol ks{SymbolKind::LoopCounter, 0, l.counter.var->getNameAsString(), true};
      for (const Access& a : accesses_in(ctx, l.loop->getBody())) {
        if (a.is_shared || !a.flat_index) continue;
        auto p = to_polynomial(a.flat_index);
        auto c = p ? coefficient(*p, tx) : std::nullopt;
        if (c && !is_constant(*c, 0) && !is_constant(*c, 1)) {
          if (example.empty()) example = ctx.text(a.expr).value_or("?");
          gain = 8.0;
        }
        // Consecutive threads at consecutive elements while the loop steps
        // a whole row: a walk down columns, already coalesced; a warp per
        // "row" (column) would break that, interleaved lanes keep it.
        auto ck = p ? coefficient(*p, ks) : std::nullopt;
        if (c && is_constant(*c, 1) && ck && !is_constant(*ck, 0) && !is_constant(*ck, 1) && column_example.empty())
          column_example = ctx.text(a.expr).value_or("?");
      }
    }
    auto block = constant_block(ctx);
    const bool warp_ok = block && block->y == 1 && block->z == 1 && block->x % 32 == 0;
    std::string cache_why;
    auto cache = row_cache(ctx, *m, cache_why);
    const std::string base = "thread-per-row work in " + std::to_string(m->loops.size()) + " loop(s)" +
                             (example.empty() ? "" : ": lanes of a warp access `" + example + "` a row apart");
    CheckResult r;
    auto propose = [&](std::int64_t lanes, std::int64_t cached, double factor, const std::string& how) {
      Proposal p;
      p.step = {name(), {{"lanes", lanes}, {"cache", cached}}};
      p.motivation = base + "; " + how;
      p.predicted_gain = gain * factor;
      r.proposals.push_back(p);
    };
    if (warp_ok && !column_example.empty()) {
      // `lanes` threads per column, 32/lanes consecutive columns per warp.
      // Measured on three column walks (H200, 2026-12-04: column sums, A^T x,
      // per-channel statistics; docs/benchmarks.md): 8 lanes 3.5-3.8x, 4
      // lanes 2.0-2.4x, 2 lanes 1.2-1.4x; the walk is latency-bound, so more
      // threads per column win over full sectors.
      propose(8, 0, 1.6, "each column `" + column_example + "` walks gets 8 lanes, 4 columns per warp, so 8x the "
                         "threads share the walk");
      propose(16, 0, 1.55, "each column `" + column_example + "` walks gets 16 lanes, 2 columns per warp");
      propose(4, 0, 1.5, "each column `" + column_example + "` walks gets 4 lanes, 8 columns per warp (a 32-byte "
                         "sector of floats per row and step)");
    }
    if (warp_ok) propose(32, 0, column_example.empty() ? 1.0 : 0.5, "a warp per row walks each row contiguously");
    if (cache) {
      const std::string arr = cache->param->getNameAsString();
      if (warp_ok)
        propose(32, 32, 1.15, "a warp per row, rows of up to 1024 elements of `" + arr +
                                  "` kept in registers (read once, not " + std::to_string(cache->loops.size()) +
                                  " times)");
      propose(256, 16, 1.2, "a block of 256 per row, rows of up to 4096 elements of `" + arr +
                                "` kept in registers (read once, not " + std::to_string(cache->loops.size()) + " times)");
      propose(1024, 8, 1.1, "a block of 1024 per row, rows of up to 8192 elements of `" + arr + "` kept in registers");
    }
    propose(256, 0, warp_ok ? 0.95 : 1.0, "a block of 256 threads per row (for long rows), shuffle and shared "
                                          "reductions");
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep& step, RewriteOutput& out, std::string& error) const override {
    auto m = match(ctx, error);
    if (!m) return false;
    const std::int64_t lanes = param(step, "lanes"), cached = param(step, "cache");
    if (lanes < 2 || lanes > 1024 || (lanes & (lanes - 1)) != 0) {
      error = "lanes must be a power of two from 2 to 1024";
      return false;
    }
    if (cached < 0 || cached > 64) {
      error = "cache must be 0..64 elements per lane";
      return false;
    }
    const bool block_row = lanes > 32;
    // Below 32 lanes the warp holds `stride` rows, interleaved: lane t of
    // the warp is lane t / stride of row t % stride.
    const std::int64_t stride = lanes < 32 ? 32 / lanes : 1;
    if (!block_row) {
      auto block = constant_block(ctx);
      if (!block || block->y != 1 || block->z != 1 || block->x % 32 != 0) {
        error = "a warp per row needs 1-D blocks of a multiple of 32 threads (constant at every launch)";
        return false;
      }
    }
    std::optional<RowCache> cache;
    if (cached > 0) {
      cache = row_cache(ctx, *m, error);
      if (!cache) return false;
    }
    const std::string W = std::to_string(lanes);
    Edits& e = out.edits;
    const std::string lane = fresh_name(ctx.file, "lane");
    const std::string mask = fresh_name(ctx.file, "row_mask");
    std::map<Combine, std::string> warp_helpers, block_helpers;
    for (const RowLoop& l : m->loops)
      for (const Accumulator& a : l.accumulators)
        if (!warp_helpers.count(a.op)) {
          const std::string stem = std::string(combine_stem(a.op)) +
                                   (a.op == Combine::MaxIf || a.op == Combine::MinIf ? "_if" : "");
          warp_helpers[a.op] = fresh_name(ctx.file, std::string("warp_") + stem);
          block_helpers[a.op] = fresh_name(ctx.file, std::string("block_") + stem);
        }
    auto gid = ctx.text(m->row.var->getInit());
    if (!gid) {
      error = "the row's initialiser is not plain source text";
      return false;
    }
    // row = gid / W; lane = gid % W (for a block per row: blockIdx.x and threadIdx.x).
    // Interleaved (stride S rows per warp): row = gid / 32 * S + gid % S, lane = gid % 32 / S.
    const std::string row_indent = "\n" + ctx.indentation_at(m->row.decl->getBeginLoc());
    std::string row_init = "(" + *gid + ") / " + W, lane_init = "static_cast<int>((" + *gid + ") % " + W + ")";
    std::string extra;
    if (stride > 1) {
      const std::string S = std::to_string(stride);
      row_init = "(" + *gid + ") / 32 * " + S + " + (" + *gid + ") % " + S;
      lane_init = "static_cast<int>((" + *gid + ") % 32 / " + S + ")";
      std::uint32_t pattern = 0;
      for (std::int64_t l = 0; l < lanes; ++l) pattern |= 1u << (l * stride);
      char hex[16];
      std::snprintf(hex, sizeof hex, "0x%08xu", pattern);
      extra = row_indent + "const unsigned " + mask + " = " + hex + " << (threadIdx.x % " + S + ");  // this row's lanes";
    }
    if (!e.replace(m->row.var->getInit(), row_init) ||
        !e.insert_after(m->row.decl->getEndLoc(), row_indent + "const int " + lane + " = " + lane_init + ";" + extra)) {
      error = e.error();
      return false;
    }
    // Lanes store different elements (element-wise loops) or only lane 0
    // stores; what follows may read those stores from another lane, which
    // only a barrier makes visible. The guard is uniform over the lanes of a
    // row, so all of them reach it.
    const std::string sync = block_row ? "__syncthreads();" : stride > 1 ? "__syncwarp(" + mask + ");" : "__syncwarp();";
    const Stmt* last = m->region.body.back();
    auto sync_after = [&](const Stmt* s, const std::string& indent) {
      return s == last ? std::string() : "\n" + indent + sync;
    };
    const std::string cache_name = fresh_name(ctx.file, "row");
    const std::string fits = fresh_name(ctx.file, "row_fits");
    const std::string j = fresh_name(ctx.file, "j");
    bool cache_loaded = false;
    for (std::size_t li = 0; li < m->loops.size(); ++li) {
      const RowLoop& l = m->loops[li];
      const std::string indent = ctx.indentation_at(l.loop->getBeginLoc());
      std::string before;
      for (const Accumulator& a : l.accumulators)
        if (a.op == Combine::Add) before += "if (" + lane + " != 0) " + a.var->getNameAsString() + " = 0;\n" + indent;
      auto start = ctx.text(l.counter.init);
      auto end = ctx.text(l.end);
      if (!start || !end) {
        error = "a loop header is not plain source text";
        return false;
      }
      std::string after = l.accumulators.empty() || l.writes ? sync_after(l.loop, indent) : "";
      for (const Accumulator& a : l.accumulators)
        after += "\n" + indent + a.var->getNameAsString() + " = " +
                 (block_row ? block_helpers[a.op] : warp_helpers[a.op]) + "(" + a.var->getNameAsString() +
                 (stride > 1 ? ", " + mask : std::string()) + ");";
      const bool cached_loop =
          cache && std::find(cache->loops.begin(), cache->loops.end(), li) != cache->loops.end();
      if (cached_loop) {
        // if (fits) { for j < cache: k = S + lane + j*W; if (k < E) BODY' }  else  { strided loop }
        const std::string k = l.counter.var->getNameAsString();
        const std::string kt = l.counter.var->getType().getUnqualifiedType().getAsString();
        std::map<const Stmt*, std::string> nodes;
        for (const ArraySubscriptExpr* a : cache->reads[li]) nodes[a] = cache_name + "[" + j + "]";
        auto body = statement_text(ctx, l.loop->getBody(), cache_loaded ? nodes : std::map<const Stmt*, std::string>{});
        auto plain = statement_text(ctx, l.loop->getBody(), {});
        if (!body || !plain) {
          error = "a loop body crosses a macro";
          return false;
        }
        std::string text;
        if (!cache_loaded) {
          // The first loop that reads the row fills the registers.
          text += cache->type + " " + cache_name + "[" + std::to_string(cached) + "];\n" + indent;
          text += "const bool " + fits + " = (" + *end + ") - (" + *start + ") <= " + std::to_string(cached * lanes) +
                  ";\n" + indent;
        }
        text += before;
        text += "if (" + fits + ") {\n" + indent + "#pragma unroll\n" + indent + "  for (int " + j + " = 0; " + j +
                " < " + std::to_string(cached) + "; ++" + j + ") {\n";
        text += indent + "    const " + kt + " " + k + " = (" + *start + ") + " + lane + " + " + j + " * " + W + ";\n";
        text += indent + "    if (" + k + " < " + *end + ") {\n";
        if (!cache_loaded) {
          auto load = text_with_replacements(ctx, cache->reads[li].front(), {}, {});
          if (!load) {
            error = "the cached access crosses a macro";
            return false;
          }
          text += indent + "      " + cache_name + "[" + j + "] = " + *load + ";\n";
          std::map<const Stmt*, std::string> use_cache;
          for (const ArraySubscriptExpr* a : cache->reads[li]) use_cache[a] = cache_name + "[" + j + "]";
          body = statement_text(ctx, l.loop->getBody(), use_cache);
          if (!body) {
            error = "a loop body crosses a macro";
            return false;
          }
        }
        text += indent + "      " + *body + "\n" + indent + "    }\n" + indent + "  }\n" + indent + "} else {\n";
        // The strided loop, as written but for its start and step.
        auto header_init = ctx.text(l.loop->getInit());
        auto cond = ctx.text(l.loop->getCond());
        if (!header_init || !cond) {
          error = "a loop header is not plain source text";
          return false;
        }
        std::string init_text = l.counter.declared_in_header
                                    ? kt + " " + k + " = (" + *start + ") + " + lane
                                    : k + " = (" + *start + ") + " + lane;
        text += indent + "  for (" + init_text + "; " + *cond + "; " + k + " += " + W + ") " + *plain + "\n" +
                indent + "}";
        cache_loaded = true;
        const unsigned b = ctx.offset(l.loop->getBeginLoc());
        if (!e.replace_offsets(b, ctx.offset_after_statement(l.loop), text + after)) {
          error = e.error();
          return false;
        }
      } else {
        if ((!before.empty() && !e.insert(l.loop->getBeginLoc(), before)) ||
            !e.replace(l.counter.init, "(" + *start + ") + " + lane) ||
            !e.replace(l.loop->getInc(), l.counter.var->getNameAsString() + " += " + W) ||
            (!after.empty() && !e.insert_at_offset(ctx.offset_after_statement(l.loop), after))) {
          error = e.error();
          return false;
        }
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
    for (const auto& [op, n] : warp_helpers) {
      helper_text += shuffle_helper(n, op, stride);
      if (block_row) helper_text += block_helper(block_helpers[op], n, op);
    }
    if (!helper_text.empty() && !insert_before_kernel(ctx, e, helper_text)) {
      error = e.error();
      return false;
    }
    LaunchChange change;
    change.kernel = ctx.kernel->getNameAsString();
    change.thread_scale[0] = {lanes, 1};
    if (block_row) change.block = Dim3{lanes, 1, 1};
    if (!rewrite_launches(ctx, change, e, error)) return false;
    out.launch_changes.push_back(change);
    if (block_row)
      out.notes.push_back("each row is handled by one block of " + W + " threads: the row, and so the guard, is the "
                          "block's, so every thread reaches the barriers of the block reductions");
    else if (stride > 1)
      out.notes.push_back("each warp (blocks are multiples of 32) handles " + std::to_string(stride) + " rows with " + W +
                          " lanes each, interleaved; a row's guard is uniform across its lanes, and its shuffles and "
                          "__syncwarp name exactly those lanes");
    else
      out.notes.push_back("each row is handled by one full warp (blocks are multiples of 32); the row guard is uniform "
                          "across the warp");
    out.notes.push_back("reductions combine only by sum, max or min, and every lane receives the total; element-wise "
                        "loops write one element per iteration (followed through pointer locals to the parameter) and "
                        "read what they write only there; stores outside loops run once, in lane 0; statements that "
                        "change locals only run in every lane on equal values; " + sync +
                        " orders stores before later reads by other lanes");
    if (cache)
      out.notes.push_back("`" + cache->param->getNameAsString() + "` is read at the same elements in " +
                          std::to_string(cache->loops.size()) + " loops over the same range and nothing the kernel "
                          "writes reaches it (" +
                          (cache->param->getType().isRestrictQualified() ? std::string("__restrict__")
                                                                          : std::string("distinct pointers at every launch")) +
                          "): rows of up to " + std::to_string(cached * lanes) +
                          " elements are read once into registers, longer rows take the strided loops");
    out.notes.push_back("the launch grid covers the rows, and starts " + W + "x the threads");
    // Float sums across lanes add in a tree instead of left to right: the
    // verifier's tolerance for a sum of the row's length (max and min are
    // exact in any order).
    for (const RowLoop& l : m->loops)
      for (const Accumulator& a : l.accumulators)
        if (a.op == Combine::Add && reorders_rounding(a.var->getType()))
          out.reassociation = combine_reassociations(out.reassociation, sum_terms(ctx, l.end));
    return true;
  }
};

}  // namespace

const Rewrite& warp_per_row_rewrite() {
  static const WarpPerRow r;
  return r;
}

}  // namespace warplens::agent::rw
