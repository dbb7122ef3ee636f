// stage-row-walk: a thread-per-row kernel whose thread walks its own row
// with a serial loop (a recurrence such as the Thomas algorithm's sweeps, an
// IIR filter, a running product: anything warp-per-row cannot split) reads
// and writes `p[t * S + i + c]`: at each step the 32 lanes of a warp touch
// addresses S elements apart, 32 sectors for 128 useful bytes. Here the
// loop runs in chunks of C iterations: the block first copies, for each
// array the loop touches, the chunk's stretch of every row of the block into
// shared memory with consecutive threads at consecutive elements (coalesced),
// then each thread runs the chunk's iterations on shared memory, and the
// stretches the loop wrote go back the same coalesced way.
//
// Applies when, all checked:
//   - one 1-D global index t (thread identity only through it), a plain
//     bounds guard `t < T` (or its early-exit form), no shared memory,
//     barrier, warp primitive or atomic, no return in the guarded body;
//   - the loops to stage are `for` statements at the top level of the
//     guarded body with a counter i stepped by one up or down in the header
//     only, uniform bounds over parameters, constants and declarations
//     before the guard; no nested loop, break, goto, pointer dereference
//     other than subscripts, or call with a pointer or reference argument;
//   - every global access in the kernel is `p[t * S + c]` outside those
//     loops and `p[t * S + i + c]` in them (followed through locals and row
//     pointers by the analysis' lowering), with one uniform S and small
//     constant c, p an unmodified pointer parameter; per loop and array the
//     offsets accessed on every iteration are contiguous and the others
//     within them, so every staged element is one the loop itself reads or
//     writes in that chunk (nothing outside the original's footprint is read
//     or written);
//   - every launch has a 1-D grid and block.
// Checked at run time, uniformly for the whole grid (else the original code
// runs unchanged): the block is the one declared, S > 0, each written
// array's per-row footprint is shorter than S (rows of different threads
// never share an element), and no written array's footprint over all rows
// overlaps any other array's (no aliasing). Then a staged element is read
// and written by its row's thread only, while the block holds it: the order
// of that thread's accesses is the original's, and the barriers between
// chunks make each flush visible before the next load.
#include <algorithm>
#include <functional>

#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

constexpr std::int64_t kMaxOffset = 8;            // |c| accepted
constexpr std::int64_t kStaticSharedBytes = 48 * 1024;

struct RowAccess {
  const ArraySubscriptExpr* expr = nullptr;
  const ParmVarDecl* array = nullptr;
  std::int64_t offset = 0;
  bool write = false, read = false;
  bool certain = true;  // executed on every iteration of its loop
};

struct WalkLoop {
  const ForStmt* loop = nullptr;
  ForCounter counter;
  bool down = false;
  std::string lo, hi;  // smallest and largest iteration, C text (long long)
  std::vector<RowAccess> accesses;
};

struct ArrayInfo {
  const ParmVarDecl* param = nullptr;
  std::string element;  // spelled element type
  std::int64_t size = 0;
  bool written = false;
};

struct Plan {
  IndexVar t;
  GuardedRegion region;
  std::string bound;  // T
  std::string stride; // S, C text
  std::vector<WalkLoop> loops;
  std::vector<RowAccess> outside;  // accesses outside the staged loops
  std::vector<ArrayInfo> arrays;
  const ArrayInfo* info(const ParmVarDecl* p) const {
    for (const ArrayInfo& a : arrays)
      if (a.param == p) return &a;
    return nullptr;
  }
};

// Offsets of one array in one loop: [lo, hi] of all, those every iteration
// accesses, and those written.
struct Footprint {
  std::int64_t lo = 0, hi = 0, wlo = 0, whi = 0;
  bool written = false;
};
std::map<const ParmVarDecl*, Footprint> footprints(const WalkLoop& l) {
  std::map<const ParmVarDecl*, Footprint> out;
  std::map<const ParmVarDecl*, bool> seen, wseen;
  for (const RowAccess& a : l.accesses) {
    Footprint& f = out[a.array];
    if (!seen[a.array]) f.lo = f.hi = a.offset;
    seen[a.array] = true;
    f.lo = std::min(f.lo, a.offset);
    f.hi = std::max(f.hi, a.offset);
    if (a.write) {
      if (!wseen[a.array]) f.wlo = f.whi = a.offset;
      wseen[a.array] = true;
      f.wlo = std::min(f.wlo, a.offset);
      f.whi = std::max(f.whi, a.offset);
      f.written = true;
    }
  }
  return out;
}

// Accesses under a condition of the loop body (if branches, ?:, the right of
// && and ||, switch) are not executed on every iteration.
void mark_conditional(const Stmt* s, bool conditional, std::set<const Stmt*>& out) {
  if (!s) return;
  if (conditional) out.insert(s);
  if (const auto* is = dyn_cast<IfStmt>(s)) {
    mark_conditional(is->getCond(), conditional, out);
    mark_conditional(is->getThen(), true, out);
    mark_conditional(is->getElse(), true, out);
    return;
  }
  if (const auto* co = dyn_cast<AbstractConditionalOperator>(s)) {
    mark_conditional(co->getCond(), conditional, out);
    mark_conditional(co->getTrueExpr(), true, out);
    mark_conditional(co->getFalseExpr(), true, out);
    return;
  }
  if (const auto* bo = dyn_cast<BinaryOperator>(s); bo && bo->isLogicalOp()) {
    mark_conditional(bo->getLHS(), conditional, out);
    mark_conditional(bo->getRHS(), true, out);
    return;
  }
  const bool inner = isa<SwitchStmt>(s);
  for (const Stmt* c : s->children()) mark_conditional(c, conditional || inner, out);
}

// Something in `s` that could touch memory outside the subscripts we see.
std::optional<std::string> hidden_memory(const Stmt* s) {
  std::optional<std::string> found;
  std::function<void(const Stmt*)> walk = [&](const Stmt* n) {
    if (!n || found) return;
    if (const auto* uo = dyn_cast<UnaryOperator>(n); uo && uo->getOpcode() == UO_Deref)
      found = "a pointer dereference";
    else if (const auto* me = dyn_cast<MemberExpr>(n); me && me->isArrow())
      found = "a member access through a pointer";
    else if (const auto* ce = dyn_cast<CallExpr>(n)) {
      for (const Expr* a : ce->arguments()) {
        const QualType ty = a->IgnoreParenImpCasts()->getType();
        if (ty->isPointerType() || ty->isArrayType() || ty->isReferenceType()) found = "a call with a pointer argument";
      }
      if (const FunctionDecl* fd = ce->getDirectCallee())
        for (const ParmVarDecl* p : fd->parameters())
          if (p->getType()->isReferenceType()) found = "a call with a reference argument";
    } else if (isa<GotoStmt>(n) || isa<IndirectGotoStmt>(n) || isa<CXXThrowExpr>(n) || isa<GCCAsmStmt>(n)) {
      found = "a goto or asm";
    }
    for (const Stmt* c : n->children()) walk(c);
  };
  walk(s);
  return found;
}

bool has_nested_loop_or_break(const Stmt* body) {
  bool bad = false;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || bad) return;
    if (isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s) || isa<BreakStmt>(s) || isa<CXXForRangeStmt>(s))
      bad = true;
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(body);
  return bad;
}

// A bound every thread of the grid computes alike: no thread index, and only
// parameters, constants and declarations of the prologue (which the
// rewritten kernel keeps before everything else).
bool uniform_bound(const KernelContext& ctx, const Expr* e, const std::set<const VarDecl*>& prologue_vars) {
  if (!e || is_lane_varying(ctx.lower(e)) || contains_any_builtin(e)) return false;
  bool ok = true;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || !ok) return;
    if (const auto* r = dyn_cast<DeclRefExpr>(s))
      if (const auto* v = dyn_cast<VarDecl>(r->getDecl()))
        if (v->hasLocalStorage() && !isa<ParmVarDecl>(v) && (!prologue_vars.count(v) || ctx.modified.count(v)))
          ok = false;
    if (isa<CallExpr>(s) || isa<ArraySubscriptExpr>(s)) ok = false;
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(e);
  return ok;
}

// `i < B`, `i <= B`, `i > B`, `i >= B` (either side); the increment ++/--/+= 1/-= 1.
bool loop_range(const KernelContext& ctx, WalkLoop& w, const std::set<const VarDecl*>& prologue_vars,
                std::string& why) {
  const VarDecl* i = w.counter.var;
  const Expr* inc = w.loop->getInc();
  int step = 0;
  if (const auto* uo = dyn_cast_or_null<UnaryOperator>(inc); uo && refers_to(uo->getSubExpr(), i))
    step = uo->isIncrementOp() ? 1 : uo->isDecrementOp() ? -1 : 0;
  if (const auto* ca = dyn_cast_or_null<CompoundAssignOperator>(inc); ca && refers_to(ca->getLHS(), i))
    if (ctx.eval_int(ca->getRHS()) == std::optional<std::int64_t>(1))
      step = ca->getOpcode() == BO_AddAssign ? 1 : ca->getOpcode() == BO_SubAssign ? -1 : 0;
  if (step == 0) {
    why = "the loop does not step its counter by one";
    return false;
  }
  const auto* cond = dyn_cast_or_null<BinaryOperator>(w.loop->getCond() ? w.loop->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!cond) {
    why = "the loop's condition is not a comparison";
    return false;
  }
  const Expr* lhs = cond->getLHS();
  const Expr* rhs = cond->getRHS();
  BinaryOperatorKind op = cond->getOpcode();
  auto is_counter = [&](const Expr* e) {
    const auto* r = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    return r && r->getDecl() == i;
  };
  if (!is_counter(lhs) && is_counter(rhs)) {
    std::swap(lhs, rhs);
    op = op == BO_LT ? BO_GT : op == BO_GT ? BO_LT : op == BO_LE ? BO_GE : op == BO_GE ? BO_LE : op;
  }
  if (!is_counter(lhs) || refers_to(rhs, i)) {
    why = "the loop's condition does not compare its counter with a bound";
    return false;
  }
  if (!uniform_bound(ctx, rhs, prologue_vars) || !uniform_bound(ctx, w.counter.init, prologue_vars)) {
    why = "the loop's bounds are not uniform over parameters, constants and declarations before the guard";
    return false;
  }
  auto a = ctx.text(w.counter.init), b = ctx.text(rhs);
  if (!a || !b) {
    why = "the loop's bounds are spelled in a macro";
    return false;
  }
  const std::string A = "(long long)(" + *a + ")", B = "(long long)(" + *b + ")";
  if (step > 0 && (op == BO_LT || op == BO_LE)) {
    w.lo = A;
    w.hi = op == BO_LT ? B + " - 1" : B;
  } else if (step < 0 && (op == BO_GT || op == BO_GE)) {
    w.down = true;
    w.hi = A;
    w.lo = op == BO_GT ? B + " + 1" : B;
  } else {
    why = "the loop's condition does not match its direction";
    return false;
  }
  return true;
}

// An integer converted to dim3 (`k<<<(n + 127) / 128, 128>>>`): y = z = 1.
bool one_dimensional(const Expr* e) {
  e = e->IgnoreImplicit();
  if (const auto* c = dyn_cast<CXXConstructExpr>(e)) {
    if (c->getNumArgs() == 0) return false;
    for (unsigned k = 1; k < c->getNumArgs(); ++k)
      if (!isa<CXXDefaultArgExpr>(c->getArg(k))) return false;
    e = c->getArg(0)->IgnoreImplicit();
  }
  return e->getType()->isIntegerType();
}

std::optional<Plan> plan(KernelContext& ctx, std::string& why) {
  Plan p;
  if (!ctx.body) {
    why = "no body";
    return std::nullopt;
  }
  auto vars = global_index_vars(ctx);
  if (vars.size() != 1 || vars[0].dim != 0) {
    why = "needs exactly one 1-D global thread index";
    return std::nullopt;
  }
  p.t = vars[0];
  if (!identity_only_through_index_vars(ctx, vars, why)) return std::nullopt;
  if (contains_barrier(ctx.body) || uses_warp_primitives(ctx.body) || uses_atomics(ctx.body)) {
    why = "barriers, warp primitives or atomics";
    return std::nullopt;
  }
  auto region = guarded_region(ctx, vars, why);
  if (!region) return std::nullopt;
  if (!region->bounds.count(p.t.var) || !region->only_bounds) {
    why = "the guard is not a plain `t < T`";
    return std::nullopt;
  }
  p.region = *region;
  auto bound = ctx.text(region->bounds.at(p.t.var));
  if (!bound) {
    why = "the guard's bound is spelled in a macro";
    return std::nullopt;
  }
  p.bound = *bound;
  if (!only_pure_declarations(ctx, p.region.prologue)) {
    why = "declarations with effects before the guard";
    return std::nullopt;
  }
  std::set<const VarDecl*> prologue_vars;
  for (const Stmt* s : p.region.prologue)
    if (const auto* ds = dyn_cast<DeclStmt>(s))
      for (const Decl* d : ds->decls())
        if (const auto* v = dyn_cast<VarDecl>(d)) prologue_vars.insert(v);
  for (const Stmt* s : p.region.body) {
    if (contains_return(s)) {
      why = "a return inside the row's work";
      return std::nullopt;
    }
    if (auto h = hidden_memory(s)) {
      why = *h + " in the row's work";
      return std::nullopt;
    }
    if (const auto* ds = dyn_cast<DeclStmt>(s))
      for (const Decl* d : ds->decls()) {
        const auto* v = dyn_cast<VarDecl>(d);
        if (!v || !v->getType()->isScalarType() || v->getType()->isReferenceType() ||
            v->getType()->getContainedAutoType() || v->hasAttr<CUDASharedAttr>() || v->isStaticLocal()) {
          why = "a declaration in the guarded body is not of a spelled scalar or pointer type";
          return std::nullopt;
        }
      }
  }
  // The loops to stage: top-level `for`s of the guarded body that touch
  // global memory; any other loop must not.
  const Symbol tx = builtin_symbol(SymbolKind::ThreadIdx, 0), bx = builtin_symbol(SymbolKind::BlockIdx, 0),
               bd = builtin_symbol(SymbolKind::BlockDim, 0);
  std::optional<Polynomial> stride;
  // Classifies one global access: t * S + k * i + c (k = 1 in a loop, 0 outside).
  auto classify = [&](const Access& a, const VarDecl* counter, RowAccess& out) -> bool {
    auto text = ctx.text(a.expr).value_or("a subscript");
    if (!a.root || !a.root_is_param || !a.flat_index) {
      why = "`" + text + "` is not an element of a pointer parameter";
      return false;
    }
    if (a.member || a.indices.size() != 1) {
      why = "`" + text + "` is not a plain element access";
      return false;
    }
    const auto* param = dyn_cast<ParmVarDecl>(a.root);
    if (!param || !param->getType()->isPointerType() || ctx.modified.count(param)) {
      why = "`" + text + "` goes through a pointer parameter the kernel changes";
      return false;
    }
    auto poly = to_polynomial(a.flat_index);
    if (!poly) {
      why = "`" + text + "` is not affine";
      return false;
    }
    auto s = poly->coefficient_of(tx);
    auto sb = poly->coefficient_of(bx);
    if (!s || !sb || (*s * Polynomial::symbol(bd)).terms != sb->terms || (s->is_constant() && s->constant_term() == 0) ||
        !is_uniform(*s)) {
      why = "`" + text + "` is not `t * S + ...` with a uniform row stride S";
      return false;
    }
    for (const auto& [mono, c] : s->terms)
      for (const Symbol& sym : mono)
        if (sym.kind == SymbolKind::LoopCounter || sym.kind == SymbolKind::BlockIdx || sym.kind == SymbolKind::BlockDim) {
          why = "`" + text + "`'s row stride is not uniform";
          return false;
        }
    if (stride && !(*stride - *s).terms.empty()) {
      // (a - b) may keep zero terms; compare the normal forms instead.
      bool same = true;
      for (const auto& [mono, c] : (*stride - *s).terms) same &= c == 0;
      if (!same) {
        why = "rows of different strides (`" + text + "`)";
        return false;
      }
    }
    stride = *s;
    Polynomial rest = *poly - *s * (Polynomial::symbol(bx) * Polynomial::symbol(bd) + Polynomial::symbol(tx));
    if (counter) {
      const Symbol k{SymbolKind::LoopCounter, 0, counter->getNameAsString(), true};
      auto ck = rest.coefficient_of(k);
      if (!ck || !is_constant(*ck, 1)) {
        why = "`" + text + "` does not step one element per iteration of its loop";
        return false;
      }
      rest = rest - Polynomial::symbol(k);
    }
    bool constant = true;
    for (const auto& [mono, c] : rest.terms) constant &= mono.empty() || c == 0;
    if (!constant) {
      why = "`" + text + "` is not `t * S + " + std::string(counter ? "i + " : "") + "c` with a constant c";
      return false;
    }
    out.offset = rest.constant_term();
    if (out.offset < -kMaxOffset || out.offset > kMaxOffset) {
      why = "`" + text + "` reaches too far from the row's position";
      return false;
    }
    out.expr = a.expr;
    out.array = param;
    out.read = a.read;
    out.write = a.write;
    return true;
  };
  std::set<const Stmt*> staged_stmts;
  for (const Stmt* s : p.region.body) {
    const auto* fs = dyn_cast<ForStmt>(s);
    if (!fs) continue;
    bool touches = false;
    for (const Access& a : accesses_in(ctx, fs))
      if (!a.is_shared && (!a.root || a.root_is_param)) touches = true;
    if (!touches) continue;
    WalkLoop w;
    w.loop = fs;
    auto c = ctx.for_counter(fs);
    if (!c) {
      why = "a loop without a counter of its own";
      return std::nullopt;
    }
    w.counter = *c;
    if (modified_variables(fs->getBody()).count(c->var)) {
      why = "the loop's body changes its counter";
      return std::nullopt;
    }
    if (has_nested_loop_or_break(fs->getBody())) {
      why = "a nested loop or break in a row loop";
      return std::nullopt;
    }
    if (!loop_range(ctx, w, prologue_vars, why)) return std::nullopt;
    std::set<const Stmt*> conditional;
    mark_conditional(fs->getBody(), false, conditional);
    for (const Access& a : accesses_in(ctx, fs->getBody())) {
      if (a.is_shared) continue;
      if (a.root && !a.root_is_param) continue;  // a thread's local array
      RowAccess r;
      if (!classify(a, c->var, r)) return std::nullopt;
      r.certain = !conditional.count(a.expr);
      w.accesses.push_back(r);
    }
    // The header may read memory too.
    for (const Stmt* h : {static_cast<const Stmt*>(fs->getCond()), static_cast<const Stmt*>(fs->getInc()),
                          static_cast<const Stmt*>(fs->getInit())})
      if (h && !accesses_in(ctx, h).empty()) {
        why = "a row loop's header reads memory";
        return std::nullopt;
      }
    for (const auto& [arr, f] : footprints(w)) {
      // Offsets executed every iteration: contiguous; others inside them.
      std::set<std::int64_t> certain;
      for (const RowAccess& a : w.accesses)
        if (a.array == arr && a.certain) certain.insert(a.offset);
      if (certain.empty() || *certain.rbegin() - *certain.begin() + 1 != static_cast<std::int64_t>(certain.size()) ||
          f.lo < *certain.begin() || f.hi > *certain.rbegin()) {
        why = "`" + arr->getNameAsString() +
              "` is not read or written at contiguous offsets on every iteration (its stretch could reach past what "
              "the loop touches)";
        return std::nullopt;
      }
    }
    staged_stmts.insert(fs);
    p.loops.push_back(std::move(w));
  }
  if (p.loops.empty()) {
    why = "no loop of the guarded body walks the thread's row";
    return std::nullopt;
  }
  // Every other global access of the kernel: `t * S + c`.
  for (const Access& a : accesses_in(ctx, ctx.body)) {
    if (a.is_shared) {
      why = "shared memory";
      return std::nullopt;
    }
    if (a.root && !a.root_is_param) continue;
    bool in_loop = false;
    for (const WalkLoop& w : p.loops)
      for (const RowAccess& r : w.accesses) in_loop |= r.expr == a.expr;
    if (in_loop) continue;
    RowAccess r;
    if (!classify(a, nullptr, r)) return std::nullopt;
    p.outside.push_back(r);
  }
  for (const Stmt* s : p.region.body)
    if (!staged_stmts.count(s)) {
      bool loop_with_memory = false;
      std::function<void(const Stmt*)> walk = [&](const Stmt* n) {
        if (!n) return;
        if ((isa<ForStmt>(n) || isa<WhileStmt>(n) || isa<DoStmt>(n)) && !accesses_in(ctx, n).empty())
          loop_with_memory = true;
        for (const Stmt* c : n->children()) walk(c);
      };
      walk(s);
      if (loop_with_memory) {
        why = "a loop inside another statement reads or writes memory";
        return std::nullopt;
      }
    }
  auto stride_text = render_index(*stride, "", "");
  if (!stride_text) {
    why = "the row stride cannot be spelled";
    return std::nullopt;
  }
  p.stride = *stride_text;
  if (auto k = stride->is_constant() ? std::optional<std::int64_t>(stride->constant_term()) : std::nullopt; k && *k < 16) {
    why = "rows of fewer than 16 elements: consecutive threads already share lines";
    return std::nullopt;
  }
  // The arrays.
  auto add = [&](const RowAccess& r) {
    for (ArrayInfo& a : p.arrays)
      if (a.param == r.array) {
        a.written |= r.write;
        return;
      }
    ArrayInfo a;
    a.param = r.array;
    const QualType pointee = r.array->getType()->getPointeeType();
    a.element = pointee.getUnqualifiedType().getAsString(ctx.ctx().getPrintingPolicy());
    a.size = ctx.ctx().getTypeSizeInChars(pointee).getQuantity();
    a.written = r.write;
    p.arrays.push_back(a);
  };
  for (const WalkLoop& w : p.loops)
    for (const RowAccess& r : w.accesses) add(r);
  for (const RowAccess& r : p.outside) add(r);
  for (const ArrayInfo& a : p.arrays)
    if (a.size <= 0 || a.size > 16 || !a.param->getType()->getPointeeType()->isScalarType()) {
      why = "`" + a.param->getNameAsString() + "` is not an array of scalars";
      return std::nullopt;
    }
  // Launches: 1-D grids and blocks.
  if (!launches_rewritable(ctx, why)) return std::nullopt;
  for (const CUDAKernelCallExpr* l : ctx.launches) {
    const LaunchConfig lc = launch_config(l);
    for (const Expr* e : {lc.grid, lc.block}) {
      if (!e || one_dimensional(e)) continue;
      auto d = eval_dim3(ctx.file, e);
      if (!d || d->y != 1 || d->z != 1) {
        why = "a launch's grid or block is not provably 1-D";
        return std::nullopt;
      }
    }
  }
  return p;
}

// Pitch of a staged row: the stretch's length made odd, so that both the
// coalesced copy (consecutive elements of a row) and the walk (one row per
// thread, the same element) spread over the banks.
std::int64_t pitch(std::int64_t width) { return width % 2 == 1 ? width : width + 1; }

// Bytes of shared memory the plan needs at (block, chunk): the largest loop.
std::int64_t shared_bytes(const Plan& p, std::int64_t block, std::int64_t chunk) {
  std::int64_t most = 0;
  for (const WalkLoop& w : p.loops) {
    std::int64_t bytes = 0;
    for (const auto& [arr, f] : footprints(w)) {
      const std::int64_t size = p.info(arr)->size;
      bytes = (bytes + 15) / 16 * 16 + block * pitch(chunk + f.hi - f.lo) * size;
    }
    most = std::max(most, bytes);
  }
  return most;
}

std::string ll(std::int64_t v) { return "(long long)(" + std::to_string(v) + ")"; }

class StageRowWalk final : public Rewrite {
 public:
  const char* name() const override { return "stage-row-walk"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    auto p = plan(ctx, why);
    if (!p) return CheckResult::refuse(why);
    CheckResult r;
    const RewriteInfo* info = find_rewrite(name());
    for (std::int64_t block : info->params[0].values)
      for (std::int64_t chunk : info->params[1].values) {
        if (shared_bytes(*p, block, chunk) > kStaticSharedBytes) {
          why = "the staged stretches need more than 48 KB of shared memory";
          continue;
        }
        if (!launch_bounds_admit(ctx, block, why)) continue;
        Proposal pr;
        pr.step = {name(), {{"block", block}, {"chunk", chunk}}};
        const RowAccess& ex = p->loops.front().accesses.front();
        pr.motivation = "each thread walks its own row (`" + ctx.text(ex.expr).value_or("?") +
                        "`): a warp's lanes are a row apart at every step; " + std::to_string(chunk) +
                        " steps of every row of the block go through shared memory, copied coalesced";
        // A strided walk uses one 4-byte word of each 32-byte sector; staged,
        // the copies are coalesced. Measured on the H100 for Thomas' sweeps
        // at 3% of copy bandwidth before; not yet measured after.
        pr.predicted_gain = 6.0 - (block == 64 ? 0 : 0.1) - (chunk == 32 ? 0 : 0.05);
        r.proposals.push_back(pr);
      }
    if (r.proposals.empty()) return CheckResult::refuse(why);
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep& step, RewriteOutput& out, std::string& error) const override {
    auto p = plan(ctx, error);
    if (!p) return false;
    const std::int64_t block = param(step, "block"), chunk = param(step, "chunk");
    if (block < 32 || block > 1024 || block % 32 != 0 || chunk < 4 || chunk > 256) {
      error = "block must be a multiple of 32 up to 1024 and chunk 4 to 256";
      return false;
    }
    const std::int64_t bytes = shared_bytes(*p, block, chunk);
    if (bytes > kStaticSharedBytes) {
      error = "the staged stretches need " + std::to_string(bytes) + " bytes of shared memory (48 KB at most)";
      return false;
    }
    const std::string S = fresh_name(ctx.file, "S"), T = fresh_name(ctx.file, "T"), ok = fresh_name(ctx.file, "ok"),
                      active = fresh_name(ctx.file, "active"), stage = fresh_name(ctx.file, "stage"),
                      disjoint = fresh_name(ctx.file, "disjoint"), c0 = fresh_name(ctx.file, "c"),
                      clo = fresh_name(ctx.file, "clo"), chi = fresh_name(ctx.file, "chi"),
                      e = fresh_name(ctx.file, "e"), row = fresh_name(ctx.file, "row"), g = fresh_name(ctx.file, "g"),
                      it = fresh_name(ctx.file, "i"), lo = fresh_name(ctx.file, "lo"), hi = fresh_name(ctx.file, "hi"),
                      rr = fresh_name(ctx.file, "r"), jj = fresh_name(ctx.file, "j");
    const std::string B = std::to_string(block), C = std::to_string(chunk);

    // Per array, the footprint of a row's thread over the whole kernel:
    // [t*S + flo, t*S + fhi], as C expressions (min/max over the loops).
    std::map<const ParmVarDecl*, std::pair<std::vector<std::string>, std::vector<std::string>>> extent;
    for (const RowAccess& r : p->outside) {
      extent[r.array].first.push_back(ll(r.offset));
      extent[r.array].second.push_back(ll(r.offset));
    }
    for (std::size_t k = 0; k < p->loops.size(); ++k)
      for (const auto& [arr, f] : footprints(p->loops[k])) {
        extent[arr].first.push_back("(" + p->loops[k].lo + ") + " + ll(f.lo));
        extent[arr].second.push_back("(" + p->loops[k].hi + ") + " + ll(f.hi));
      }
    auto fold = [](const std::vector<std::string>& v, const char* fn) {
      std::string s = v.front();
      for (std::size_t k = 1; k < v.size(); ++k) s = std::string(fn) + "(" + s + ", " + v[k] + ")";
      return s;
    };

    std::string body = "{\n  // Rewritten by warplens (stage-row-walk): each row loop runs in chunks of " + C +
                       " steps; the block copies the chunk's stretch of every row through shared memory, coalesced.\n";
    for (const Stmt* s : p->region.prologue) {
      auto t = statement_text(ctx, s);
      if (!t) {
        error = "a declaration before the guard is spelled in a macro";
        return false;
      }
      body += "  " + *t + "\n";
    }
    body += "  const long long " + S + " = " + p->stride + ";\n";
    body += "  const long long " + T + " = (long long)(" + p->bound + ");\n";
    // The run-time conditions: the same value in every thread of the grid.
    body += "  bool " + ok + " = blockDim.x == " + B + " && " + S + " > 0;\n";
    for (const ArrayInfo& a : p->arrays) {
      const auto& [los, his] = extent[a.param];
      body += "  const long long " + lo + "_" + a.param->getNameAsString() + " = " + fold(los, "min") + ";\n";
      body += "  const long long " + hi + "_" + a.param->getNameAsString() + " = " + fold(his, "max") + ";\n";
      if (a.written)
        body += "  " + ok + " = " + ok + " && " + hi + "_" + a.param->getNameAsString() + " - " + lo + "_" +
                a.param->getNameAsString() + " < " + S + ";  // rows never share an element\n";
    }
    for (std::size_t x = 0; x < p->arrays.size(); ++x)
      for (std::size_t y = x + 1; y < p->arrays.size(); ++y) {
        const ArrayInfo &a = p->arrays[x], &b = p->arrays[y];
        if (!a.written && !b.written) continue;
        const std::string an = a.param->getNameAsString(), bn = b.param->getNameAsString();
        body += "  " + ok + " = " + ok + " && " + disjoint + "(" + an + ", " + lo + "_" + an + ", (" + T + " - 1) * " + S +
                " + " + hi + "_" + an + ", sizeof(" + an + "[0]), " + bn + ", " + lo + "_" + bn + ", (" + T + " - 1) * " +
                S + " + " + hi + "_" + bn + ", sizeof(" + bn + "[0]));\n";
      }
    // The original, for launches the conditions do not hold for.
    std::string original;
    {
      std::vector<const Stmt*> rest{p->region.guard};
      if (p->region.early_exit) rest.insert(rest.end(), p->region.body.begin(), p->region.body.end());
      for (const Stmt* s : rest) {
        auto t = statement_text(ctx, s);
        if (!t) {
          error = "a statement is spelled in a macro";
          return false;
        }
        original += "    " + *t + "\n";
      }
    }
    body += "  if (!" + ok + ") {  // as written\n" + original + "    return;\n  }\n";
    const std::string cond = ctx.text(p->region.guard->getCond()).value_or("");
    if (cond.empty()) {
      error = "the guard is spelled in a macro";
      return false;
    }
    body += "  const bool " + active + " = " + (p->region.early_exit ? "!(" + cond + ")" : "(" + cond + ")") + ";\n";
    body += "  __shared__ __align__(16) unsigned char " + stage + "[" + std::to_string(std::max<std::int64_t>(bytes, 16)) +
            "];\n";
    for (const Stmt* s : p->region.body) {
      if (const auto* ds = dyn_cast<DeclStmt>(s)) {
        for (const Decl* d : ds->decls()) {
          const auto* v = cast<VarDecl>(d);
          const std::string type = v->getType().getAsString(ctx.ctx().getPrintingPolicy());
          const std::string bare = v->getType().getUnqualifiedType().getAsString(ctx.ctx().getPrintingPolicy());
          if (!v->getInit()) {
            body += "  " + type + " " + v->getNameAsString() + ";\n";
            continue;
          }
          auto init = ctx.text(v->getInit());
          if (!init) {
            error = "a declaration's initialiser is spelled in a macro";
            return false;
          }
          body += "  " + type + " " + v->getNameAsString() + " = " + active + " ? static_cast<" + bare + ">(" + *init +
                  ") : static_cast<" + bare + ">(0);\n";
        }
        continue;
      }
      const auto w = std::find_if(p->loops.begin(), p->loops.end(), [&](const WalkLoop& l) { return l.loop == s; });
      if (w == p->loops.end()) {
        auto text = statement_text(ctx, s);
        if (!text) {
          error = "a statement is spelled in a macro";
          return false;
        }
        body += "  if (" + active + ") {\n    " + *text + "\n  }\n";
        continue;
      }
      // A staged loop.
      const auto fps = footprints(*w);
      std::map<const ParmVarDecl*, std::string> tile;
      std::string decls;
      std::int64_t at = 0;
      for (const auto& [arr, f] : fps) {
        const ArrayInfo* info = p->info(arr);
        at = (at + 15) / 16 * 16;
        tile[arr] = fresh_name(ctx.file, "s_" + arr->getNameAsString());
        decls += "    " + info->element + "* const " + tile[arr] + " = reinterpret_cast<" + info->element + "*>(" +
                 stage + " + " + std::to_string(at) + ");  // " + B + " rows x " +
                 std::to_string(pitch(chunk + f.hi - f.lo)) + "\n";
        at += block * pitch(chunk + f.hi - f.lo) * info->size;
      }
      std::map<const Stmt*, std::string> nodes;
      for (const RowAccess& r : w->accesses) {
        const Footprint& f = fps.at(r.array);
        nodes[r.expr] = tile[r.array] + "[threadIdx.x * " + std::to_string(pitch(chunk + f.hi - f.lo)) + " + (int)(" +
                        it + " - " + clo + ") + " + std::to_string(r.offset - f.lo) + "]";
      }
      auto loop_body = statement_text(ctx, w->loop->getBody(), nodes);
      if (!loop_body) {
        error = "a loop body is spelled in a macro";
        return false;
      }
      const std::string i = w->counter.var->getNameAsString();
      const std::string ctype = w->counter.var->getType().getUnqualifiedType().getAsString(ctx.ctx().getPrintingPolicy());
      auto copy = [&](bool load) {
        std::string s;
        for (const auto& [arr, f] : fps) {
          if (!load && !f.written) continue;
          const std::int64_t first = load ? f.lo : f.wlo, last = load ? f.hi : f.whi;
          const std::int64_t width = chunk + last - first, P = pitch(chunk + f.hi - f.lo);
          const std::string W = std::to_string(width), a = arr->getNameAsString();
          s += "      for (int " + e + " = threadIdx.x; " + e + " < " + B + " * " + W + "; " + e + " += " + B + ") {\n";
          s += "        const int " + rr + " = " + e + " / " + W + ", " + jj + " = " + e + " % " + W + ";\n";
          s += "        const long long " + row + " = (long long)blockIdx.x * " + B + " + " + rr + ", " + g + " = " + clo +
               " + " + ll(first) + " + " + jj + ";\n";
          s += "        if (" + row + " < " + T + " && " + g + " <= " + chi + " + " + ll(last) + ") ";
          const std::string shared =
              tile.at(arr) + "[" + rr + " * " + std::to_string(P) + " + " + jj + " + " + std::to_string(first - f.lo) + "]";
          const std::string global = a + "[" + row + " * " + S + " + " + g + "]";
          s += load ? shared + " = " + global + ";\n" : global + " = " + shared + ";\n";
          s += "      }\n";
        }
        return s;
      };
      body += "  {  // `" + i + "` in chunks of " + C + (w->down ? ", downwards" : "") + "\n";
      body += decls;
      body += "    const long long " + lo + " = " + w->lo + ", " + hi + " = " + w->hi + ";\n";
      if (!w->down) {
        body += "    for (long long " + c0 + " = " + lo + "; " + c0 + " <= " + hi + "; " + c0 + " += " + C + ") {\n";
        body += "      const long long " + clo + " = " + c0 + ", " + chi + " = min(" + c0 + " + " + C + " - 1, " + hi + ");\n";
      } else {
        body += "    for (long long " + c0 + " = " + hi + "; " + c0 + " >= " + lo + "; " + c0 + " -= " + C + ") {\n";
        body += "      const long long " + chi + " = " + c0 + ", " + clo + " = max(" + c0 + " - " + C + " + 1, " + lo + ");\n";
      }
      body += "      __syncthreads();  // earlier writes of the block are visible; the stage is free\n";
      body += copy(true);
      body += "      __syncthreads();\n";
      body += "      if (" + active + ") {\n";
      if (!w->down)
        body += "        for (long long " + it + " = " + clo + "; " + it + " <= " + chi + "; ++" + it + ") {\n";
      else
        body += "        for (long long " + it + " = " + chi + "; " + it + " >= " + clo + "; --" + it + ") {\n";
      body += "          " + std::string(w->counter.declared_in_header ? "const " + ctype + " " : "") + i +
              " = static_cast<" + ctype + ">(" + it + ");\n";
      body += "          " + *loop_body + "\n        }\n      }\n";
      body += "      __syncthreads();\n";
      body += copy(false);
      body += "    }\n    __syncthreads();  // the stretches written back are visible to what follows\n  }\n";
    }
    body += "}";
    if (!out.edits.replace(ctx.body, body)) {
      error = out.edits.error();
      return false;
    }
    const std::string helper =
        "// Added by warplens (stage-row-walk): whether two arrays' footprints [lo, hi] (elements) share no byte.\n"
        "__device__ __forceinline__ bool " + disjoint +
        "(const void* a, long long alo, long long ahi, unsigned long long asz,\n"
        "    const void* b, long long blo, long long bhi, unsigned long long bsz) {\n"
        "  const long long pa = (long long)a, pb = (long long)b;\n"
        "  return pa + (ahi + 1) * (long long)asz <= pb + blo * (long long)bsz ||\n"
        "         pb + (bhi + 1) * (long long)bsz <= pa + alo * (long long)asz;\n"
        "}\n\n";
    if (!insert_before_kernel(ctx, out.edits, helper)) {
      error = out.edits.error();
      return false;
    }
    LaunchChange change;
    change.kernel = ctx.kernel->getNameAsString();
    change.block = Dim3{block, 1, 1};
    if (!rewrite_launches(ctx, change, out.edits, error)) return false;
    out.launch_changes.push_back(change);
    out.notes.push_back("blocks of " + B + " threads; each row loop runs in chunks of " + C +
                        " steps, the chunk's stretch of every row of the block copied into shared memory with "
                        "consecutive threads at consecutive elements, and the written stretches copied back the same way");
    out.notes.push_back("every staged element is one the loop reads or writes in that chunk (contiguous offsets on "
                        "every iteration), so nothing outside the original's footprint is touched");
    out.notes.push_back("checked at run time for the whole grid, else the original code runs: the block size, S > 0, "
                        "each written array's per-row footprint shorter than S, and no written array overlapping "
                        "another");
    out.notes.push_back("the guard became a flag: every thread reaches the barriers; inactive rows load and store "
                        "nothing");
    return true;
  }
};

}  // namespace

const Rewrite& stage_row_walk_rewrite() {
  static const StageRowWalk r;
  return r;
}

}  // namespace warplens::agent::rw
