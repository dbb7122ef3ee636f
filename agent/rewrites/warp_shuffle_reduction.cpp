// warp-shuffle-reduction: a shared-memory tree reduction of a block
// (interleaved `tid % (2*s) == 0`, strided-index, or sequential `tid < s`
// addressing) becomes a shuffle reduction inside each warp, one shared slot
// per warp, and a shuffle reduction of those slots by the first warp.
//
// The loop is not recognised by its spelling: it is executed symbolically for
// the launch's block size (every thread, every iteration, guard and indices
// evaluated through the index IR), and the rewrite applies only when that
// execution provably leaves in sdata[0] the sum (or max/min) of sdata[0..B),
// each element counted once, with no thread reading a slot another thread
// writes in the same step. Afterwards the kernel may read only sdata[0].
#include <bitset>

#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

enum class Op { Add, Max, Min };

struct Update {
  const ArraySubscriptExpr* dst = nullptr;
  const ArraySubscriptExpr* src = nullptr;
  Op op = Op::Add;
  std::string function;  // fmaxf/max/... for Max/Min
};

struct Match {
  const ForStmt* loop = nullptr;
  const VarDecl* shared = nullptr;
  Update update;
  std::int64_t block = 0;
  std::string type;
  int steps = 0;
};

const ArraySubscriptExpr* shared_subscript(const clang::Expr* e, const VarDecl*& base) {
  const auto* a = dyn_cast<ArraySubscriptExpr>(e->IgnoreParenImpCasts());
  if (!a) return nullptr;
  const auto* ref = dyn_cast<DeclRefExpr>(a->getBase()->IgnoreParenImpCasts());
  if (!ref) return nullptr;
  const auto* v = dyn_cast<VarDecl>(ref->getDecl());
  if (!v || !v->hasAttr<CUDASharedAttr>()) return nullptr;
  if (base && base != v) return nullptr;
  base = v;
  return a;
}

// `d += s`, `d = d + s`, `d = s + d`, `d = fmaxf(d, s)` (max/min alike).
std::optional<Update> parse_update(const KernelContext& ctx, const Stmt* st, const VarDecl*& base) {
  Update u;
  if (const auto* ca = dyn_cast<CompoundAssignOperator>(st)) {
    if (ca->getOpcode() != BO_AddAssign) return std::nullopt;
    u.dst = shared_subscript(ca->getLHS(), base);
    u.src = shared_subscript(ca->getRHS(), base);
    if (u.dst && u.src) return u;
    return std::nullopt;
  }
  const auto* bo = dyn_cast<BinaryOperator>(st);
  if (!bo || bo->getOpcode() != BO_Assign) return std::nullopt;
  u.dst = shared_subscript(bo->getLHS(), base);
  if (!u.dst) return std::nullopt;
  const clang::Expr* rhs = bo->getRHS()->IgnoreParenImpCasts();
  const clang::Expr *a = nullptr, *b = nullptr;
  if (const auto* add = dyn_cast<BinaryOperator>(rhs); add && add->getOpcode() == BO_Add) {
    a = add->getLHS();
    b = add->getRHS();
  } else if (const auto* call = dyn_cast<CallExpr>(rhs); call && call->getNumArgs() == 2 && call->getDirectCallee()) {
    const std::string n = call->getDirectCallee()->getNameAsString();
    if (n == "fmaxf" || n == "max" || n == "fmax") u.op = Op::Max;
    else if (n == "fminf" || n == "min" || n == "fmin") u.op = Op::Min;
    else return std::nullopt;
    u.function = n;
    a = call->getArg(0);
    b = call->getArg(1);
  } else {
    return std::nullopt;
  }
  const ArraySubscriptExpr* sa = shared_subscript(a, base);
  const ArraySubscriptExpr* sb = shared_subscript(b, base);
  if (!sa || !sb) return std::nullopt;
  const std::string d = to_string(ctx.lower(u.dst->getIdx()));
  if (to_string(ctx.lower(sa->getIdx())) == d) u.src = sb;
  else if (to_string(ctx.lower(sb->getIdx())) == d) u.src = sa;
  else return std::nullopt;
  return u;
}

std::optional<std::int64_t> eval(const ExprRef& e, std::int64_t tid, std::int64_t block, const std::string& s_name,
                                 std::int64_t s) {
  return evaluate(e, [&](const Symbol& sym) -> std::optional<std::int64_t> {
    switch (sym.kind) {
      case SymbolKind::ThreadIdx: return sym.dim == 0 ? std::optional<std::int64_t>(tid) : std::nullopt;
      case SymbolKind::BlockDim: return sym.dim == 0 ? std::optional<std::int64_t>(block) : std::optional<std::int64_t>(1);
      case SymbolKind::WarpSize: return 32;
      case SymbolKind::LoopCounter:
        if (sym.name == s_name) return s;
        return std::nullopt;
      default: return std::nullopt;
    }
  });
}

std::optional<Match> match(const KernelContext& ctx, std::string& why) {
  auto block = constant_block(ctx);
  if (!block || block->y != 1 || block->z != 1 || block->x < 32 || block->x > 1024 || (block->x & (block->x - 1))) {
    why = "needs 1-D blocks of a constant power-of-two size >= 32 at every launch";
    return std::nullopt;
  }
  if (uses_warp_primitives(ctx.body)) {
    why = "the kernel already uses warp primitives";
    return std::nullopt;
  }
  for (const Stmt* top : ctx.body->body()) {
    const auto* loop = dyn_cast<ForStmt>(top);
    if (!loop) continue;
    Match m;
    m.loop = loop;
    m.block = block->x;
    const auto* init = dyn_cast_or_null<DeclStmt>(loop->getInit());
    const VarDecl* s = init && init->isSingleDecl() ? dyn_cast<VarDecl>(init->getSingleDecl()) : nullptr;
    if (!s || !s->getInit() || !loop->getCond() || !loop->getInc()) continue;
    // Body: declarations, one (guarded) update, a barrier at the end.
    std::vector<const Stmt*> body = statements_of(loop->getBody());
    if (body.empty() || !is_barrier_call(body.back())) continue;
    const VarDecl* shared = nullptr;
    std::optional<Update> update;
    const clang::Expr* guard = nullptr;
    bool shape_ok = true;
    for (std::size_t i = 0; i + 1 < body.size() && shape_ok; ++i) {
      const Stmt* st = body[i];
      if (isa<DeclStmt>(st)) {
        shape_ok = only_pure_declarations(ctx, {st});
        continue;
      }
      if (update) shape_ok = false;
      const Stmt* inner = st;
      if (const auto* iff = dyn_cast<IfStmt>(st)) {
        if (iff->getElse() || iff->getInit()) {
          shape_ok = false;
          break;
        }
        guard = iff->getCond();
        auto inner_list = statements_of(iff->getThen());
        if (inner_list.size() != 1) {
          shape_ok = false;
          break;
        }
        inner = inner_list[0];
      }
      update = parse_update(ctx, inner, shared);
      if (!update) shape_ok = false;
    }
    if (!shape_ok || !update || !shared) continue;
    m.shared = shared;
    m.update = *update;
    // Execute the loop symbolically.
    const std::string sname = s->getNameAsString();
    ExprRef init_e = ctx.lower(s->getInit()), cond_e = ctx.lower(loop->getCond());
    ExprRef guard_e = guard ? ctx.lower(guard) : nullptr;
    ExprRef dst_e = ctx.lower(m.update.dst->getIdx()), src_e = ctx.lower(m.update.src->getIdx());
    // The step: s *= c, s <<= c, s >>= c, s /= c, s = s * c, s = s / c, s = s >> c, s = s << c.
    ExprRef step_e;
    if (const auto* ca = dyn_cast<CompoundAssignOperator>(loop->getInc())) {
      ExprOp op;
      switch (ca->getOpcode()) {
        case BO_MulAssign: op = ExprOp::Mul; break;
        case BO_DivAssign: op = ExprOp::Div; break;
        case BO_ShlAssign: op = ExprOp::Shl; break;
        case BO_ShrAssign: op = ExprOp::Shr; break;
        default: op = ExprOp::Opaque;
      }
      if (op != ExprOp::Opaque && refers_to(ca->getLHS(), s))
        step_e = ::warplens::Expr::binary(op, ::warplens::Expr::sym(Symbol{SymbolKind::LoopCounter, 0, sname, true}),
                                          ctx.lower(ca->getRHS()));
    } else if (const auto* bo = dyn_cast<BinaryOperator>(loop->getInc()); bo && bo->getOpcode() == BO_Assign &&
                                                                          refers_to(bo->getLHS(), s)) {
      step_e = ctx.lower(bo->getRHS());
    }
    auto start = eval(init_e, 0, m.block, sname, 0);
    if (!step_e || !start) continue;
    std::vector<std::bitset<1024>> state(static_cast<std::size_t>(m.block));
    for (std::int64_t t = 0; t < m.block; ++t) state[static_cast<std::size_t>(t)].set(static_cast<std::size_t>(t));
    std::int64_t sv = *start;
    bool ok = true;
    for (int iter = 0; ok; ++iter) {
      auto c = eval(cond_e, 0, m.block, sname, sv);
      if (!c) {
        ok = false;
        break;
      }
      if (!*c) break;
      if (iter > 64) {
        ok = false;
        break;
      }
      std::map<std::int64_t, std::int64_t> writes, reads;  // slot -> thread
      std::vector<std::pair<std::int64_t, std::int64_t>> moves;
      for (std::int64_t t = 0; t < m.block && ok; ++t) {
        if (guard_e) {
          auto g = eval(guard_e, t, m.block, sname, sv);
          if (!g) ok = false;
          if (!g || !*g) continue;
        }
        auto d = eval(dst_e, t, m.block, sname, sv), r = eval(src_e, t, m.block, sname, sv);
        if (!d || !r || *d < 0 || *r < 0 || *d >= m.block || *r >= m.block || *d == *r) {
          ok = false;
          break;
        }
        if (writes.count(*d)) ok = false;
        writes[*d] = t;
        reads[*r] = t;
        moves.push_back({*d, *r});
      }
      for (const auto& [slot, t] : reads)
        if (auto w = writes.find(slot); w != writes.end() && w->second != t) ok = false;
      for (const auto& [d, r] : moves) {
        auto& sd = state[static_cast<std::size_t>(d)];
        const auto& sr = state[static_cast<std::size_t>(r)];
        if ((sd & sr).any()) ok = false;
        sd |= sr;
      }
      ++m.steps;
      auto next = eval(step_e, 0, m.block, sname, sv);
      if (!next || *next == sv) {
        ok = false;
        break;
      }
      sv = *next;
    }
    if (!ok || state[0].count() != static_cast<std::size_t>(m.block)) continue;
    // After the loop only sdata[0] is read, and sdata is not written.
    bool after = false, reads_ok = true;
    for (const Stmt* later : ctx.body->body()) {
      if (later == loop) {
        after = true;
        continue;
      }
      if (!after) continue;
      for (const Access& a : collect_accesses(later))
        if (a.base == shared && (a.write || a.indices.size() != 1 || ctx.eval_int(a.indices[0]) != std::optional<std::int64_t>(0)))
          reads_ok = false;
      if (references_to(later, shared).size() != [&] {
            std::size_t n = 0;
            for (const Access& a : collect_accesses(later))
              if (a.base == shared) ++n;
            return n;
          }())
        reads_ok = false;
    }
    if (!reads_ok) {
      why = "after the reduction the kernel reads shared slots other than [0]";
      return std::nullopt;
    }
    QualType et = shared->getType();
    if (const auto* at = dyn_cast<ArrayType>(et.getTypePtr()->getUnqualifiedDesugaredType())) et = at->getElementType();
    if (!et->isArithmeticType()) {
      why = "the reduced values are not numbers";
      return std::nullopt;
    }
    m.type = et.getUnqualifiedType().getAsString();
    return m;
  }
  why = "no shared-memory tree reduction that provably reduces the whole block into slot 0";
  return std::nullopt;
}

class WarpShuffleReduction final : public Rewrite {
 public:
  const char* name() const override { return "warp-shuffle-reduction"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    auto m = match(ctx, why);
    if (!m) return CheckResult::refuse(why);
    CheckResult r;
    Proposal p;
    p.step = {name(), {}};
    p.motivation = "tree reduction over `" + m->shared->getNameAsString() + "` in " + std::to_string(m->steps) +
                   " barrier-separated steps for blocks of " + std::to_string(m->block) +
                   ": shuffles need two barriers";
    p.predicted_gain = 1.8;
    r.proposals.push_back(p);
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep&, RewriteOutput& out, std::string& error) const override {
    auto m = match(ctx, error);
    if (!m) return false;
    const std::string sh = m->shared->getNameAsString();
    const std::string v = fresh_name(ctx.file, "v"), o = fresh_name(ctx.file, "offset"),
                      warp = fresh_name(ctx.file, "warp_partials");
    auto combine = [&](const std::string& a, const std::string& b) {
      if (m->update.op == Op::Add) return a + " + " + b;
      return m->update.function + "(" + a + ", " + b + ")";
    };
    const std::string identity = m->update.op == Op::Add ? m->type + "(0)" : warp + "[0]";
    const std::string shuffle = "    for (int " + o + " = 16; " + o + " > 0; " + o + " >>= 1) " + v + " = " +
                                combine(v, "__shfl_down_sync(0xffffffffu, " + v + ", " + o + ")") + ";\n";
    std::string text = "{\n";
    // The kind names the combining function so that find_block_reduction can
    // read the generated block back (reduction-grid-stride builds on it).
    text += "    // Rewritten by warplens (warp-shuffle-reduction, " +
            (m->update.op == Op::Add ? std::string("sum") : (m->update.op == Op::Max ? "max " : "min ") + m->update.function) +
            "): reduce within each warp with shuffles,\n";
    text += "    // then the warps' partial results with the first warp; " + sh + "[0] holds the result.\n";
    text += "    " + m->type + " " + v + " = " + sh + "[threadIdx.x];\n";
    text += shuffle;
    text += "    __shared__ " + m->type + " " + warp + "[32];\n";
    text += "    if ((threadIdx.x & 31) == 0) " + warp + "[threadIdx.x >> 5] = " + v + ";\n";
    text += "    __syncthreads();\n";
    text += "    if (threadIdx.x < 32) {\n";
    text += "      " + v + " = threadIdx.x < (blockDim.x >> 5) ? " + warp + "[threadIdx.x] : " + identity + ";\n";
    text += "  " + shuffle;
    text += "      if (threadIdx.x == 0) " + sh + "[0] = " + v + ";\n";
    text += "    }\n";
    text += "    __syncthreads();\n";
    text += "  }";
    if (!out.edits.replace(m->loop, text)) {
      error = out.edits.error();
      return false;
    }
    out.notes.push_back("the replaced loop was executed symbolically for blocks of " + std::to_string(m->block) +
                        ": it reduces every slot into [0] exactly once, race-free");
    out.notes.push_back("afterwards only " + sh + "[0] is read; floating-point sums are reassociated");
    // The block's slots are added in another tree: a sum of block-size terms.
    if (m->update.op == Op::Add && (m->type == "float" || m->type == "double" || m->type == "half" || m->type == "__half" || m->type == "__nv_bfloat16"))
      out.reassociation = ReassociatedTerms{{-1, static_cast<std::int64_t>(m->block)}};
    return true;
  }
};

}  // namespace

std::optional<BlockReduction> find_block_reduction(const KernelContext& ctx, std::string& why) {
  if (auto m = match(ctx, why)) {
    const ReductionOp op =
        m->update.op == Op::Add ? ReductionOp::Sum : (m->update.op == Op::Max ? ReductionOp::Max : ReductionOp::Min);
    return BlockReduction{m->loop, m->shared, op, m->update.function};
  }
  // The block this rewrite generated (it was proven when it was generated);
  // its comment names the kind: `sum`, `max fmaxf`, `min fminf`.
  static const std::string kTag = "Rewritten by warplens (warp-shuffle-reduction, ";
  for (const Stmt* top : ctx.body->body()) {
    const auto* c = dyn_cast<CompoundStmt>(top);
    if (!c) continue;
    auto text = ctx.text(c);
    const std::size_t at = text ? text->find(kTag) : std::string::npos;
    if (at == std::string::npos) continue;
    const std::size_t from = at + kTag.size(), close = text->find(')', from);
    if (close == std::string::npos) continue;
    const std::string kind = text->substr(from, close - from);
    BlockReduction r;
    r.statement = c;
    if (kind == "sum") {
      r.op = ReductionOp::Sum;
    } else if (kind.rfind("max ", 0) == 0 || kind.rfind("min ", 0) == 0) {
      r.op = kind[1] == 'a' ? ReductionOp::Max : ReductionOp::Min;
      r.function = kind.substr(4);
    } else {
      continue;
    }
    for (const Access& a : collect_accesses(c))
      if (a.is_shared && a.write && a.indices.size() == 1 && ctx.eval_int(a.indices[0]) == std::optional<std::int64_t>(0)) {
        r.shared = dyn_cast<VarDecl>(a.base);
        return r;
      }
  }
  return std::nullopt;
}

const Rewrite& warp_shuffle_reduction_rewrite() {
  static const WarpShuffleReduction r;
  return r;
}

}  // namespace warplens::agent::rw
