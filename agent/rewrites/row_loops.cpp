// The thread-per-row shape (row_loops.h); moved out of warp_per_row.cpp.
#include "agent/rewrites/row_loops.h"
#include "agent/rewrites/row_scan.h"

#include <clang/AST/StmtCXX.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace warplens::agent::rw {

using namespace clang;
using clang::Expr;

const char* combine_stem(Combine op) {
  switch (op) {
    case Combine::Add: return "sum";
    case Combine::Max: case Combine::MaxIf: return "max";
    case Combine::Min: case Combine::MinIf: return "min";
    case Combine::OnlineMax: return "online_max";
    case Combine::OnlineSum: return "online";
    case Combine::ArgValue: return "arg_value";
    case Combine::ArgMaxFirst: return "argmax";
    case Combine::ArgMaxLast: return "argmax_last";
    case Combine::ArgMinFirst: return "argmin";
    case Combine::ArgMinLast: return "argmin_last";
  }
  return "?";
}

bool is_arg_index(Combine op) {
  return op == Combine::ArgMaxFirst || op == Combine::ArgMaxLast || op == Combine::ArgMinFirst ||
         op == Combine::ArgMinLast;
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

namespace {


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
  if (!cond || (cond->getOpcode() != BO_LT && cond->getOpcode() != BO_LE) ||
      !isa<DeclRefExpr>(cond->getLHS()->IgnoreParenImpCasts()) || !refers_to(cond->getLHS(), k) ||
      refers_to(cond->getRHS(), k) || !is_unit_increment(loop->getInc(), k)) {
    why = "a loop is not `for (k = start; k < end; ++k)` (or `k <= last`)";
    return std::nullopt;
  }
  rl.end = cond->getRHS();
  // `k <= E` runs k up to E: the end is E + 1 (E + 1 cannot overflow where
  // the original terminates: k would have to pass E first).
  rl.inclusive_end = cond->getOpcode() == BO_LE;
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
  if (online_pair(ctx, body, modified, rl.accumulators)) return rl;
  bool ok = true;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || !ok) return;
    const Expr* value = nullptr;
    if (auto pair = arg_update_of(s, modified, k, &value)) {
      for (const Accumulator* acc : {&pair->first, &pair->second}) {
        auto it = std::find_if(rl.accumulators.begin(), rl.accumulators.end(),
                               [&](const Accumulator& x) { return x.var == acc->var; });
        if (it != rl.accumulators.end()) ok = false;  // updated twice: not one arg-max
        rl.accumulators.push_back(*acc);
      }
      for (const VarDecl* other : modified)
        if (refers_to(value, other)) ok = false;
      return walk(value);
    }
    if (auto acc = accumulator_update(s, modified, &value)) {
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
    // A running sum that the loop reads as it goes: a scan (row_scan.cpp).
    std::string scan_why;
    if (modified.size() == 1) {
      if (auto scan = match_scan(ctx, loop, rl.counter, *modified.begin(), scan_why)) {
        rl.accumulators = {Accumulator{*modified.begin(), Combine::Add, "", nullptr, ""}};
        rl.scan = std::move(scan);
        return rl;
      }
    }
    why = "an accumulator is read, or combined other than by a sum, max or min, inside its loop" +
          (scan_why.empty() ? std::string() : " (as a running sum: " + scan_why + ")");
    return std::nullopt;
  }
  return rl;
}

// An arg-max's index must enter its loop below the loop's first counter
// value, so that the start pair loses every tie the way the sequential loop
// has it lose (strict: the start is earlier, and kept; inclusive: any
// element replaces it), whichever lane's elements it meets: the index is
// declared with a constant, the counter starts at a larger constant, and no
// statement of the row before the loop changes the index.
bool arg_starts_below(const KernelContext& ctx, const std::vector<const Stmt*>& body, const RowLoop& rl,
                      std::string& why) {
  for (const Accumulator& a : rl.accumulators) {
    if (!is_arg_index(a.op)) continue;
    const std::string n = a.var->getNameAsString();
    clang::Expr::EvalResult start, begin;
    const clang::Expr* init = a.var->getInit();
    if (!init || !init->EvaluateAsInt(start, ctx.ctx()) ||
        !rl.counter.init->EvaluateAsInt(begin, ctx.ctx())) {
      why = "the index `" + n + "` of an arg-max, or its loop's start, is not a compile-time constant";
      return false;
    }
    if (!(start.Val.getInt().getExtValue() < begin.Val.getInt().getExtValue())) {
      why = "the index `" + n + "` of an arg-max does not start below its loop's first counter value";
      return false;
    }
    for (const Stmt* s : body) {
      if (s == rl.loop) break;
      if (modified_variables(s).count(a.var)) {
        why = "the index `" + n + "` of an arg-max is changed before its loop";
        return false;
      }
    }
  }
  return true;
}

}  // namespace

std::optional<Match> match_row_loops(const KernelContext& ctx, std::string& why) {
  Match m;
  auto vars = global_index_vars(ctx);
  if (vars.size() != 1 || vars[0].dim != 0) {
    why = "needs exactly one 1-D global index (the row)";
    return std::nullopt;
  }
  m.row = vars[0];
  // A batch index `blockIdx.y` (one block row per batch) is allowed: the
  // rewrites built on this match change the block's x (and column-block a y
  // of 1), so every launch keeps its grid's y and each block one batch.
  if (!identity_only_through_index_vars(ctx, vars, why, /*allow_block_z=*/false, /*allow_block_y=*/true))
    return std::nullopt;
  if (reads_block_y(ctx.body) && !launches_have_flat_blocks(ctx, why)) return std::nullopt;
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
      if (!arg_starts_below(ctx, m.region.body, *rl, why)) return std::nullopt;
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

std::optional<std::string> loop_end_text(const KernelContext& ctx, const RowLoop& l) {
  auto t = ctx.text(l.end);
  if (!t || !l.inclusive_end) return t;
  return "(" + *t + ") + 1";
}

std::string column_walk(const KernelContext& ctx, const Match& m) {
  const Symbol tx = builtin_symbol(SymbolKind::ThreadIdx, 0);
  for (const RowLoop& l : m.loops) {
    const Symbol ks{SymbolKind::LoopCounter, 0, l.counter.var->getNameAsString(), true};
    for (const Access& a : accesses_in(ctx, l.loop->getBody())) {
      if (a.is_shared || !a.flat_index) continue;
      auto p = to_polynomial(a.flat_index);
      auto c = p ? coefficient(*p, tx) : std::nullopt;
      auto ck = p ? coefficient(*p, ks) : std::nullopt;
      if (c && is_constant(*c, 1) && ck && !is_constant(*ck, 0) && !is_constant(*ck, 1))
        return ctx.text(a.expr).value_or("?");
    }
  }
  return "";
}

}  // namespace warplens::agent::rw
