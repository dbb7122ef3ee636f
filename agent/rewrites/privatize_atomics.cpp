// privatize-atomics: a kernel that adds into a small global array with one
// atomic per element (a histogram: `atomicAdd(&bins[in[i]], 1)`) adds into a
// per-block copy in shared memory instead, and each block adds its nonzero
// bins to the global array once at the end: one global atomic per bin per
// block instead of one per element, on memory that is not contended across
// the GPU. With a one-element-per-thread kernel (or a grid-stride loop the
// user wrote) the kernel also becomes a grid-stride loop on a persistent
// grid, so that each block sees many elements.
//
// Applies when, all checked:
//   - every access to the array P is `atomicOp(&P[b], v)` / `atomicOp(P + b, v)`
//     as a statement (the old value unused), with one op for all of them:
//     atomicAdd (P of int, unsigned, unsigned long long, float or double
//     elements), or atomicMax, atomicMin (int, unsigned, long long, unsigned
//     long long), atomicOr, atomicAnd, atomicXor (int, unsigned, unsigned
//     long long): each is associative and commutative, and each has an
//     identity (0 for add, or and xor; the type's lowest value for max, its
//     highest for min, all ones for and) that leaves an element unchanged;
//   - the kernel has no barrier, shared memory or warp primitive;
//   - bins b >= `bins` (or negative) still go to the global array directly,
//     so any b is handled exactly as before (a run-time check per add).
// With every update of P[0] (`atomicAdd(P, v)`: a sum or a count into one
// global counter, `atomicMax(P, v)`: a maximum; the most contended atomics
// there are) each thread first combines its values in a register (converted
// to the element type, as the atomic converts them) and applies that to the
// block's slot once, after all its work. The per-block copy starts at the
// op's identity; a barrier separates the updates from the flush; the flush
// applies each slot s that is not the identity to P[s]: an element some
// thread of the block updated, so only elements the original wrote are
// written (and a slot still at the identity would leave P[s] as it is).
// Integer results are exact in any order; float sums are reassociated (the
// verifier's tolerance judges that).
//
// Shapes: (a) element-wise (`if (i < n) {...}` or `if (i >= n) return;`,
// thread identity only through i): the work runs in a grid-stride loop,
// every element once for any grid, and the launch is persistent (declared);
// (b) a grid-stride loop written by the user: the launch is persistent;
// (c) anything else without barriers: the body runs in a lambda (so its
// `return`s still reach the flush), the launch is unchanged.
#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

enum class Shape { Elementwise, UserGridStride, Any };

// The atomics this rewrite privatises, each associative and commutative.
enum class AtomicOp { Add, Max, Min, Or, And, Xor };

struct AtomicOpInfo {
  AtomicOp op;
  const char* function;  // the CUDA atomic
  const char* stem;      // for names and messages
};

constexpr AtomicOpInfo kAtomicOps[] = {
    {AtomicOp::Add, "atomicAdd", "add"}, {AtomicOp::Max, "atomicMax", "max"}, {AtomicOp::Min, "atomicMin", "min"},
    {AtomicOp::Or, "atomicOr", "or"},    {AtomicOp::And, "atomicAnd", "and"}, {AtomicOp::Xor, "atomicXor", "xor"},
};

const AtomicOpInfo& info(AtomicOp op) {
  for (const AtomicOpInfo& i : kAtomicOps)
    if (i.op == op) return i;
  return kAtomicOps[0];
}

struct AtomicAdd {  // one atomic update `atomicOp(&P[b], v)`
  const CallExpr* call = nullptr;
  AtomicOp op = AtomicOp::Add;
  const Expr* bin = nullptr;    // b
  const Expr* value = nullptr;  // v
};

struct Plan {
  const ParmVarDecl* array = nullptr;
  AtomicOp op = AtomicOp::Add;
  std::string type;
  std::string identity;  // the op's identity for the element type, as a C++ expression
  std::vector<AtomicAdd> adds;
  std::optional<std::int64_t> bound;  // exclusive upper bound of b, when provable
  bool single = false;                // every add goes to P[0]: one counter, summed in a register first
  Shape shape = Shape::Any;
  std::optional<GuardedRegion> region;
  IndexVar index;
  std::optional<GridStrideLoop> user_loop;
};

// An exclusive upper bound for a non-negative integer expression, when its
// type or its last operation bounds it (`in[i]` of unsigned char: 256,
// `x % 64`, `x & 255`, `x >> 24` of 32 bits, min(x, C)).
std::optional<std::int64_t> upper_bound(const KernelContext& ctx, const Expr* e, int depth = 0) {
  if (!e || depth > 8) return std::nullopt;
  if (auto c = ctx.eval_int(e)) return *c >= 0 ? std::optional<std::int64_t>(*c + 1) : std::nullopt;
  // Before integral promotion: the operand's own type.
  const Expr* inner = e->IgnoreParens();
  while (const auto* ic = dyn_cast<ImplicitCastExpr>(inner)) {
    const QualType t = ic->getSubExpr()->getType();
    if (t->isUnsignedIntegerType() && ctx.ctx().getTypeSize(t) <= 16)
      return std::int64_t(1) << ctx.ctx().getTypeSize(t);
    inner = ic->getSubExpr()->IgnoreParens();
  }
  if (const auto* c = dyn_cast<CStyleCastExpr>(inner)) {
    const QualType t = c->getType();
    if (t->isUnsignedIntegerType() && ctx.ctx().getTypeSize(t) <= 16) return std::int64_t(1) << ctx.ctx().getTypeSize(t);
    return upper_bound(ctx, c->getSubExpr(), depth + 1);
  }
  if (inner->getType()->isUnsignedIntegerType() && ctx.ctx().getTypeSize(inner->getType()) <= 16)
    return std::int64_t(1) << ctx.ctx().getTypeSize(inner->getType());
  // A local that never changes: its initialiser's bound (`const int bucket = key & 63;`).
  if (const auto* ref = dyn_cast<DeclRefExpr>(inner))
    if (const auto* v = dyn_cast<VarDecl>(ref->getDecl());
        v && v->hasLocalStorage() && !isa<ParmVarDecl>(v) && !ctx.modified.count(v) && v->getInit())
      return upper_bound(ctx, v->getInit(), depth + 1);
  if (const auto* bo = dyn_cast<BinaryOperator>(inner)) {
    auto r = ctx.eval_int(bo->getRHS());
    switch (bo->getOpcode()) {
      case BO_Rem:
        if (r && *r > 0 && bo->getLHS()->getType()->isUnsignedIntegerType()) return *r;
        return std::nullopt;
      case BO_And:
        if (r && *r >= 0) return *r + 1;
        if (auto l = ctx.eval_int(bo->getLHS()); l && *l >= 0) return *l + 1;
        return std::nullopt;
      case BO_Shr:
        if (r && *r >= 0 && *r < 63) {
          if (auto l = upper_bound(ctx, bo->getLHS(), depth + 1)) return ((*l - 1) >> *r) + 1;
          const QualType t = bo->getLHS()->getType();
          if (t->isUnsignedIntegerType()) {
            const std::int64_t bits = static_cast<std::int64_t>(ctx.ctx().getTypeSize(t));
            if (bits - *r <= 20) return std::int64_t(1) << (bits - *r);
          }
        }
        return std::nullopt;
      case BO_Div:
        if (r && *r > 0)
          if (auto l = upper_bound(ctx, bo->getLHS(), depth + 1)) return (*l - 1) / *r + 1;
        return std::nullopt;
      default:
        return std::nullopt;
    }
  }
  if (const auto* call = dyn_cast<CallExpr>(inner); call && call->getDirectCallee() && call->getNumArgs() == 2) {
    const std::string n = call->getDirectCallee()->getNameAsString();
    if (n == "min" || n == "umin")
      for (unsigned i = 0; i < 2; ++i)
        if (auto c = ctx.eval_int(call->getArg(i)); c && *c >= 0) return *c + 1;
  }
  return std::nullopt;
}

// The identity of `op` on elements of type t (the value that leaves an
// element unchanged), spelled without headers; nullopt when CUDA has no
// such atomic on t (shared-memory atomics take the same types as global).
std::optional<std::string> identity_for(AtomicOp op, QualType t) {
  const auto* b = t.getCanonicalType()->getAs<BuiltinType>();
  if (!b) return std::nullopt;
  const auto kind = b->getKind();
  const bool i32 = kind == BuiltinType::Int, u32 = kind == BuiltinType::UInt, u64 = kind == BuiltinType::ULongLong,
             i64 = kind == BuiltinType::LongLong;
  switch (op) {
    case AtomicOp::Add:
      if (i32 || u32 || u64 || kind == BuiltinType::Float || kind == BuiltinType::Double) return "0";
      return std::nullopt;
    case AtomicOp::Max:
      if (i32) return "(-2147483647 - 1)";
      if (i64) return "(-9223372036854775807LL - 1)";
      if (u32 || u64) return "0";
      return std::nullopt;
    case AtomicOp::Min:
      if (i32) return "2147483647";
      if (i64) return "9223372036854775807LL";
      if (u32) return "0xffffffffu";
      if (u64) return "0xffffffffffffffffull";
      return std::nullopt;
    case AtomicOp::Or: case AtomicOp::Xor:
      if (i32 || u32 || u64) return "0";
      return std::nullopt;
    case AtomicOp::And:
      if (i32 || u32 || u64) return "~0";
      return std::nullopt;
  }
  return std::nullopt;
}

// atomicOp(&P[b], v) or atomicOp(P + b, v), P a parameter.
std::optional<std::pair<const ParmVarDecl*, AtomicAdd>> as_atomic_add(const CallExpr* call) {
  const FunctionDecl* fd = call->getDirectCallee();
  if (!fd || call->getNumArgs() != 2) return std::nullopt;
  const std::string callee = fd->getNameAsString();
  const AtomicOpInfo* op = nullptr;
  for (const AtomicOpInfo& i : kAtomicOps)
    if (callee == i.function) op = &i;
  if (!op) return std::nullopt;
  const Expr* addr = call->getArg(0)->IgnoreParenImpCasts();
  AtomicAdd a;
  a.call = call;
  a.op = op->op;
  a.value = call->getArg(1);
  const Expr* base = nullptr;
  if (const auto* uo = dyn_cast<UnaryOperator>(addr); uo && uo->getOpcode() == UO_AddrOf) {
    const auto* sub = dyn_cast<ArraySubscriptExpr>(uo->getSubExpr()->IgnoreParenImpCasts());
    if (!sub) return std::nullopt;
    base = sub->getBase();
    a.bin = sub->getIdx();
  } else if (const auto* bo = dyn_cast<BinaryOperator>(addr); bo && bo->getOpcode() == BO_Add) {
    base = bo->getLHS();
    a.bin = bo->getRHS();
    if (!base->getType()->isPointerType()) std::swap(base, a.bin);
  } else if (isa<DeclRefExpr>(addr)) {
    base = addr;  // atomicAdd(P, v): P[0], a single global counter (a sum, a count)
  } else {
    return std::nullopt;
  }
  const auto* ref = dyn_cast<DeclRefExpr>(base->IgnoreParenImpCasts());
  const auto* p = ref ? dyn_cast<ParmVarDecl>(ref->getDecl()) : nullptr;
  if (!p || !p->getType()->isPointerType()) return std::nullopt;
  return std::make_pair(p, a);
}

bool used_as_statement(const KernelContext& ctx, const CallExpr* call) {
  auto parents = ctx.ctx().getParents(*call);
  if (parents.empty()) return false;
  if (parents[0].get<CompoundStmt>()) return true;
  if (const auto* ifs = parents[0].get<IfStmt>()) return ifs->getThen() == call || ifs->getElse() == call;
  if (const auto* f = parents[0].get<ForStmt>()) return f->getBody() == call;
  if (const auto* w = parents[0].get<WhileStmt>()) return w->getBody() == call;
  return false;
}

std::optional<Plan> plan(const KernelContext& ctx, std::string& why) {
  if (!ctx.body) {
    why = "the kernel has no body";
    return std::nullopt;
  }
  std::map<const ParmVarDecl*, std::vector<AtomicAdd>> adds;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s) return;
    if (const auto* call = dyn_cast<CallExpr>(s))
      if (auto a = as_atomic_add(call)) adds[a->first].push_back(a->second);
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(ctx.body);
  if (adds.empty()) {
    why = "no atomicAdd (or atomicMax, atomicMin, atomicOr, atomicAnd, atomicXor) into a parameter array";
    return std::nullopt;
  }
  if (contains_barrier(ctx.body) || uses_warp_primitives(ctx.body)) {
    why = "the kernel synchronises or uses warp primitives";
    return std::nullopt;
  }
  for (const Access& a : collect_accesses(ctx.body))
    if (a.is_shared) {
      why = "the kernel already uses shared memory";
      return std::nullopt;
    }
  Plan p;
  for (auto& [param, list] : adds) {
    const AtomicOp op = list.front().op;
    const char* fn = info(op).function;
    auto identity = identity_for(op, param->getType()->getPointeeType());
    if (!identity) {
      why = "`" + param->getNameAsString() + "` has elements shared-memory " + fn + " does not take";
      continue;
    }
    // Only these atomics reach the array, all with the same op.
    std::size_t in_adds = 0;
    bool ok = true;
    for (const AtomicAdd& a : list) {
      in_adds += references_to(a.call, param).size();
      if (a.op != op) {
        why = "`" + param->getNameAsString() + "` is updated by different atomics (" + fn + " and " +
              info(a.op).function + ")";
        ok = false;
      }
      if (!used_as_statement(ctx, a.call)) {
        why = std::string("the value ") + info(a.op).function + " returns is used";
        ok = false;
      }
      if (refers_to(a.value, param) || (a.bin && refers_to(a.bin, param))) ok = false;
    }
    if (!ok) continue;
    if (references_to(ctx.body, param).size() != in_adds) {
      why = "`" + param->getNameAsString() + "` is used other than by " + fn;
      continue;
    }
    p.array = param;
    p.op = op;
    p.identity = *identity;
    p.type = pointee_spelling(param);
    p.adds = list;
    break;
  }
  if (!p.array) return std::nullopt;
  // The largest provable bin bound over all adds.
  std::optional<std::int64_t> bound = std::int64_t(0);
  p.single = true;
  for (const AtomicAdd& a : p.adds) {
    const auto c = a.bin ? ctx.eval_int(a.bin) : std::optional<std::int64_t>(0);
    p.single &= c && *c == 0;
    auto b = a.bin ? upper_bound(ctx, a.bin) : std::optional<std::int64_t>(1);
    if (!b) bound.reset();
    else if (bound) bound = std::max(*bound, *b);
  }
  if (bound && *bound > 0 && *bound <= 8192) p.bound = bound;
  // Shape.
  std::string shape_why;
  auto vars = global_index_vars(ctx);
  if (vars.size() == 1 && vars[0].dim == 0 && identity_only_through_index_vars(ctx, vars, shape_why)) {
    auto region = guarded_region(ctx, vars, shape_why);
    bool ok = region && region->bounds.count(vars[0].var) && region->only_bounds && region->bounds.size() == 1;
    if (ok)
      for (const Stmt* s : region->prologue)
        if (s != vars[0].decl && refers_to(s, vars[0].var)) ok = false;
    if (ok)
      for (const Stmt* s : region->body) ok &= !contains_return(s) && !isa<BreakStmt>(s) && !isa<ContinueStmt>(s);
    if (ok && only_pure_declarations(ctx, region->prologue) && cast<DeclStmt>(vars[0].decl)->isSingleDecl()) {
      p.shape = Shape::Elementwise;
      p.region = region;
      p.index = vars[0];
      return p;
    }
  }
  if (auto g = match_grid_stride_loop(ctx, shape_why); g && only_pure_declarations(ctx, g->prologue)) {
    p.shape = Shape::UserGridStride;
    p.user_loop = g;
    return p;
  }
  p.shape = Shape::Any;
  return p;
}

class PrivatizeAtomics final : public Rewrite {
 public:
  const char* name() const override { return "privatize-atomics"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    auto p = plan(ctx, why);
    if (!p) return CheckResult::refuse(why);
    const bool persistent = p->shape != Shape::Any;
    if (persistent && !launches_rewritable(ctx, why)) return CheckResult::refuse(why);
    CheckResult r;
    std::vector<std::int64_t> sizes;
    if (p->bound) sizes.push_back(*p->bound);
    else sizes = {1024, 4096};
    const std::string arr = p->array->getNameAsString();
    for (std::int64_t bins : sizes)
      for (std::int64_t bps : persistent ? std::vector<std::int64_t>{8, 4} : std::vector<std::int64_t>{0}) {
        Proposal pr;
        pr.step = {name(), {{"bins", bins}, {"blocks-per-sm", bps}}};
        pr.motivation = std::to_string(p->adds.size()) + " global " + info(p->op).function + "(s) into `" + arr +
                        "` per element" + (p->bound ? " (bins below " + std::to_string(*p->bound) + ")" : "") +
                        ": a per-block copy of " + std::to_string(bins) + " bins in shared memory, one global " +
                        info(p->op).stem + " per bin per block" +
                        (persistent ? ", " + std::to_string(bps) + " blocks per SM in a grid-stride loop" : "");
        // One counter is the worst contention there is: every add of the
        // grid serialises on one address (a register sum makes it one add
        // per thread).
        pr.predicted_gain = (persistent ? 6.0 : 2.0) * (p->single ? 2.0 : 1.0) * (bps == 8 ? 1.02 : 1.0) *
                            (p->bound ? 1.05 : 1.0) * (bins == 1024 ? 1.01 : 1.0);
        r.proposals.push_back(pr);
      }
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep& step, RewriteOutput& out, std::string& error) const override {
    auto p = plan(ctx, error);
    if (!p) return false;
    const std::int64_t bins = param(step, "bins"), bps = param(step, "blocks-per-sm");
    if (bins < 1 || bins > 8192) {
      error = "bins must be 1..8192";
      return false;
    }
    if (bps < 0 || bps > 64) {
      error = "blocks-per-sm must be 0..64";
      return false;
    }
    const std::string N = std::to_string(bins);
    const AtomicOpInfo& op = info(p->op);
    const std::string fn = op.function, T = p->type, identity = "static_cast<" + p->type + ">(" + p->identity + ")";
    const std::string hist = fresh_name(ctx.file, "hist"), slot = fresh_name(ctx.file, "slot"),
                      add = fresh_name(ctx.file, std::string("private_") + op.stem), tid = fresh_name(ctx.file, "tid"),
                      threads = fresh_name(ctx.file, "threads"), g = fresh_name(ctx.file, "g");
    const std::string arr = p->array->getNameAsString();
    // Each add: to the block's copy when the bin is in range, else as before.
    std::map<const Stmt*, std::string> nodes;
    const std::string acc = fresh_name(ctx.file, p->op == AtomicOp::Add ? "sum" : op.stem);
    // The register combine of the single-counter case, as the atomic would
    // combine (the value converted to T first, as the call converts it).
    auto combine_into_acc = [&](const std::string& v) -> std::string {
      const std::string cv = "static_cast<" + T + ">(" + v + ")";
      switch (p->op) {
        case AtomicOp::Add: return "(" + acc + " += " + cv + ")";
        case AtomicOp::Max: return "(" + acc + " = ::max(" + acc + ", " + cv + "))";
        case AtomicOp::Min: return "(" + acc + " = ::min(" + acc + ", " + cv + "))";
        case AtomicOp::Or: return "(" + acc + " |= " + cv + ")";
        case AtomicOp::And: return "(" + acc + " &= " + cv + ")";
        case AtomicOp::Xor: return "(" + acc + " ^= " + cv + ")";
      }
      return {};
    };
    for (const AtomicAdd& a : p->adds) {
      auto b = a.bin ? ctx.text(a.bin) : std::optional<std::string>("0"), v = ctx.text(a.value);
      if (!b || !v) {
        error = "an " + fn + " is spelled in a macro";
        return false;
      }
      if (p->single)  // P[0] only: the thread's own result, applied to the block's slot once at the end
        nodes[a.call] = combine_into_acc(*v);
      else
        nodes[a.call] = add + "<" + N + ">(" + hist + ", " + arr + ", static_cast<long long>(" + *b + "), " + *v + ")";
    }
    const std::string helper =
        std::string("// Added by warplens (privatize-atomics): an ") + op.stem +
        " to the block's copy when the bin is in it, else to the "
        "array.\ntemplate <int N, typename T, typename V>\n__device__ __forceinline__ void " + add +
        "(T* block_copy, T* array, long long bin, V v) {\n  if (bin >= 0 && bin < N)\n"
        "    " + fn + "(&block_copy[bin], static_cast<T>(v));\n  else\n    " + fn + "(&array[bin], static_cast<T>(v));\n}\n\n";
    if (!p->single && !insert_before_kernel(ctx, out.edits, helper)) {
      error = out.edits.error();
      return false;
    }
    auto stmt_text = [&](const Stmt* s) { return statement_text(ctx, s, nodes); };
    const std::string updates = p->op == AtomicOp::Add ? "adds" : fn + " calls";
    const std::string head =
        "  // Rewritten by warplens (privatize-atomics): " + updates + " go to a per-block copy of `" + arr +
        "` in shared memory;\n  // each block " + (p->op == AtomicOp::Add ? std::string("adds its nonzero bins to `")
                                                                        : "applies its updated bins to `") +
        arr + "` once.\n" + "  __shared__ " + p->type +
        " " + hist + "[" + N + "];\n" + "  const unsigned " + tid +
        " = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n" + "  const unsigned " + threads +
        " = blockDim.x * blockDim.y * blockDim.z;\n" + "  for (unsigned " + slot + " = " + tid + "; " + slot + " < " + N +
        "; " + slot + " += " + threads + ") " + hist + "[" + slot + "] = " + identity + ";\n" +
        "  __syncthreads();\n" +
        (p->single ? "  " + p->type + " " + acc + " = " + identity + ";  // this thread's " + updates + " to `" + arr +
                         "[0]`\n"
                   : std::string());
    const std::string flush_own =
        p->single ? "  if (" + acc + " != " + identity + ") " + fn + "(&" + hist + "[0], " + acc + ");\n" : std::string();
    const std::string tail = flush_own + "  __syncthreads();\n  for (unsigned " + slot + " = " + tid + "; " + slot + " < " + N + "; " +
                             slot + " += " + threads + ")\n    if (" + hist + "[" + slot + "] != " + identity + ") " + fn +
                             "(&" + arr + "[" + slot + "], " + hist + "[" + slot + "]);\n";
    std::string body;
    bool persistent = false;
    if (p->shape == Shape::Elementwise && bps > 0) {
      persistent = true;
      const GuardedRegion& region = *p->region;
      const std::string iname = p->index.var->getNameAsString();
      const std::string itype = p->index.var->getType().getUnqualifiedType().getAsString();
      auto bound = ctx.text(region.bounds.at(p->index.var));
      if (!bound) {
        error = "the bound is spelled in a macro";
        return false;
      }
      for (const Stmt* s : region.prologue) {
        if (s == p->index.decl) continue;
        auto t = ctx.text(s);
        if (!t) {
          error = "a declaration is spelled in a macro";
          return false;
        }
        body += "  " + *t + "\n";
      }
      body += "  for (long long " + g + " = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; " + g +
              " < static_cast<long long>(" + *bound + "); " + g + " += static_cast<long long>(gridDim.x) * blockDim.x) {\n";
      body += "    const " + itype + " " + iname + " = static_cast<" + itype + ">(" + g + ");\n";
      for (const Stmt* s : region.body) {
        auto t = stmt_text(s);
        if (!t) {
          error = "the element's work is spelled in a macro";
          return false;
        }
        body += "    " + *t + "\n";
      }
      body += "  }\n";
    } else if (p->shape == Shape::UserGridStride && bps > 0) {
      persistent = true;
      for (const Stmt* s : ctx.body->body()) {
        auto t = stmt_text(s);
        if (!t) {
          error = "the kernel's code is spelled in a macro";
          return false;
        }
        body += "  " + *t + "\n";
      }
    } else {
      // Any shape: the original body in a lambda, so that its returns still
      // reach the flush. No launch change.
      auto t = text_with_replacements(ctx, ctx.body, {}, nodes);
      if (!t) {
        error = "the kernel's code is spelled in a macro";
        return false;
      }
      body += "  [&]() " + *t + "();\n";
    }
    if (!out.edits.replace(ctx.body, "{\n" + head + body + tail + "}")) {
      error = out.edits.error();
      return false;
    }
    if (persistent) {
      LaunchChange change;
      change.kernel = ctx.kernel->getNameAsString();
      change.persistent_blocks_per_sm = static_cast<int>(bps);
      if (!rewrite_launches(ctx, change, out.edits, error)) return false;
      out.launch_changes.push_back(change);
      out.notes.push_back(p->shape == Shape::Elementwise
                              ? "the element-wise work runs in a grid-stride loop: every element below the bound once, "
                                "for any grid; the launch is persistent"
                              : "the kernel is a grid-stride loop (correct for any grid): the launch is persistent");
    }
    if (p->single)
      out.notes.push_back(p->op == AtomicOp::Add
                              ? "every add goes to `" + arr + "[0]`: each thread sums its adds in a register and adds the "
                                "sum (when nonzero) to the block's slot once, after all its work"
                              : "every " + fn + " goes to `" + arr + "[0]`: each thread combines its values in a register "
                                "and applies the result (unless it is the identity " + p->identity +
                                ") to the block's slot once, after all its work");
    out.notes.push_back("every access to `" + arr + "` is an " + fn + " statement; bins outside [0, " + N +
                        ") still go to `" + arr + "` directly, so every update reaches the same element as before");
    out.notes.push_back(p->op == AtomicOp::Add
                            ? "the per-block copy starts at zero, a barrier separates the adds from the flush, and only "
                              "nonzero slots (elements the block added to) are added to `" + arr + "`"
                            : "the per-block copy starts at " + fn + "'s identity " + p->identity +
                              ", a barrier separates the updates from the flush, and only slots that moved from it "
                              "(elements the block updated) are applied to `" + arr + "`; " + fn +
                              " is associative and commutative, so the order does not matter");
    out.notes.push_back(std::string("no barrier, shared memory or warp primitive in the original") +
                        (p->type == "float" || p->type == "double" ? "; float sums are reassociated" : ""));
    // A bin's adds now meet per block first: up to every element the
    // kernel reads may land in one bin (terms unknown, bounded by that).
    if (p->type == "float" || p->type == "double" || p->type == "half" || p->type == "__half")
      out.reassociation = ReassociatedTerms{};
    return true;
  }
};

}  // namespace

const Rewrite& privatize_atomics_rewrite() {
  static const PrivatizeAtomics r;
  return r;
}

}  // namespace warplens::agent::rw
