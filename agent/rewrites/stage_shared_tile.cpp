// stage-shared-tile: a 2-D element-wise kernel that reads along one axis and
// writes along the other (a transpose, or any `out[f(x,y)] = g(in[h(x,y)])`
// where one access is contiguous in x and the other contiguous in y) moves
// each 32x32 tile through shared memory: the block loads the tile with lanes
// along the load's contiguous axis, synchronises, and stores it with lanes
// along the store's contiguous axis. Both global accesses become coalesced;
// the tile is padded to 33 columns so the column-wise pass is free of bank
// conflicts.
//
// Applies to kernels of the shape
//   int x = blockIdx.x * blockDim.x + threadIdx.x;
//   int y = blockIdx.y * blockDim.y + threadIdx.y;
//   if (x < W && y < H) OUT[e_out] = F(IN[e_in]);     (or the early-return form)
// with exactly one lane-varying load transposed against the store (others,
// such as A[y][x] beside A[x][y], are read in the store's pass as before),
// thread identity only through x and y,
// no shared memory, barriers, warp primitives or atomics, and launches whose
// grids provably cover W and H (the new block is 32 x rows, each block one
// 32x32 tile, so the same (x, y) pairs pass the same guard).
#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

struct Match {
  std::vector<IndexVar> vars;
  std::optional<IndexVar> x, y;
  GuardedRegion region;
  const BinaryOperator* store = nullptr;
  const ArraySubscriptExpr* load = nullptr;
  bool load_along_x = true;  // case A: the load is contiguous in x, the store in y
  std::string element_type;
  std::string why_strided;
};

bool is_unit(const std::optional<Polynomial>& c) { return c && is_constant(*c, 1); }
bool is_strided(const std::optional<Polynomial>& c) { return c && !is_constant(*c, 0) && !is_constant(*c, 1); }

std::optional<Match> match(const KernelContext& ctx, std::string& why) {
  Match m;
  auto grid = match_grid_2d(ctx, why, /*allow_batch=*/true);
  if (!grid) return std::nullopt;
  m.vars = grid->vars;
  m.x = grid->x;
  m.y = grid->y;
  m.region = grid->region;
  for (const Stmt* s : m.region.prologue)
    for (const Decl* d : cast<DeclStmt>(s)->decls()) {
      const auto* v = dyn_cast<VarDecl>(d);
      if (!v || !v->getType()->isScalarType() || v->hasAttr<CUDASharedAttr>()) {
        why = "a non-scalar declaration before the guard";
        return std::nullopt;
      }
    }
  if (!only_pure_declarations(ctx, m.region.prologue)) {
    why = "declarations with effects before the guard";
    return std::nullopt;
  }
  if (m.region.body.size() != 1) {
    why = "the guarded work is not a single store";
    return std::nullopt;
  }
  m.store = dyn_cast<BinaryOperator>(m.region.body[0]);
  if (!m.store || m.store->getOpcode() != BO_Assign) {
    why = "the guarded work is not a single `out[...] = ...` store";
    return std::nullopt;
  }
  const auto* lhs = dyn_cast<ArraySubscriptExpr>(m.store->getLHS()->IgnoreParenImpCasts());
  auto accesses = collect_accesses(m.store);
  const Access* out = nullptr;
  std::vector<const ArraySubscriptExpr*> loads;
  for (const Access& a : accesses) {
    if (a.expr == lhs && a.is_param && a.indices.size() == 1) out = &a;
    else if (a.is_param && a.indices.size() == 1 && is_lane_varying(ctx.lower(a.indices[0]))) {
      loads.push_back(a.expr);
    } else if (a.read && is_lane_varying(ctx.lower(a.indices[0]))) {
      why = "an access that is not a plain parameter subscript";
      return std::nullopt;
    }
  }
  if (!out || loads.empty()) {
    why = "no `out[...] = f(in[...])` shape";
    return std::nullopt;
  }
  const Symbol tx = builtin_symbol(SymbolKind::ThreadIdx, 0), ty = builtin_symbol(SymbolKind::ThreadIdx, 1);
  auto pout = ctx.polynomial(out->indices[0]);
  if (!pout) {
    why = "the subscripts are not affine";
    return std::nullopt;
  }
  auto out_x = coefficient(*pout, tx), out_y = coefficient(*pout, ty);
  const bool store_along_y = is_unit(out_y) && is_strided(out_x), store_along_x = is_unit(out_x) && is_strided(out_y);
  // The staged load is the one transposed against the store (contiguous
  // along the axis the store strides). Other loads (`A[y][x]` beside
  // `A[x][y]` in `(A + A^T) / 2`) stay where they are, read in the store's
  // pass at the same (x, y) as before.
  for (const ArraySubscriptExpr* l : loads) {
    auto pin = ctx.polynomial(l->getIdx());
    if (!pin) continue;
    auto in_x = coefficient(*pin, tx), in_y = coefficient(*pin, ty);
    const bool transposed = (store_along_y && is_unit(in_x) && is_strided(in_y)) ||
                            (store_along_x && is_unit(in_y) && is_strided(in_x));
    if (!transposed) continue;
    if (m.load) {
      why = "more than one load transposed against the store";
      return std::nullopt;
    }
    m.load = l;
  }
  if (m.load && store_along_y) {
    m.load_along_x = true;
    m.why_strided = ctx.text(lhs).value_or("the store");
  } else if (m.load && store_along_x) {
    m.load_along_x = false;
    m.why_strided = ctx.text(m.load).value_or("the load");
  } else {
    why = "no transposed access pair (one access contiguous in x, the other in y)";
    return std::nullopt;
  }
  QualType t = m.load->getType().getUnqualifiedType();
  if (!t->isScalarType() && !t->isRecordType()) {
    why = "the loaded element is not a scalar or a struct";
    return std::nullopt;
  }
  PrintingPolicy pp(ctx.ctx().getLangOpts());
  pp.SuppressTagKeyword = true;
  m.element_type = t.getAsString(pp);
  for (int d = 0; d < 2; ++d) {
    const IndexVar& v = d == 0 ? *m.x : *m.y;
    if (!launches_cover(ctx, d, m.region.bounds.at(v.var), why)) return std::nullopt;
  }
  return m;
}

class StageSharedTile final : public Rewrite {
 public:
  const char* name() const override { return "stage-shared-tile"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    if (!launches_rewritable(ctx, why)) return CheckResult::refuse(why);
    auto m = match(ctx, why);
    if (!m) return CheckResult::refuse(why);
    CheckResult r;
    for (std::int64_t rows : find_rewrite(name())->params[0].values) {
      Proposal p;
      p.step = {name(), {{"rows", rows}}};
      p.motivation = "`" + m->why_strided + "` is strided across the lanes of a warp while the other access is "
                     "contiguous: stage 32x32 tiles through shared memory (block 32x" + std::to_string(rows) + ")";
      p.predicted_gain = rows == 8 ? 3.0 : rows == 16 ? 2.9 : 2.7;
      r.proposals.push_back(p);
    }
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep& step, RewriteOutput& out, std::string& error) const override {
    auto m = match(ctx, error);
    if (!m) return false;
    const std::int64_t rows = param(step, "rows");
    if (rows != 8 && rows != 16 && rows != 32 && rows != 4) {
      error = "rows must be 4, 8, 16 or 32";
      return false;
    }
    const std::string tile = fresh_name(ctx.file, "tile"), r = fresh_name(ctx.file, "r");
    auto text_of = [&](const Stmt* s) -> std::string {
      auto t = ctx.text(s);
      if (!t) throw std::runtime_error("source text inside a macro");
      return *t;
    };
    try {
      const std::string xt = m->x->var->getType().getAsString(), yt = m->y->var->getType().getAsString();
      const std::string xn = m->x->var->getNameAsString(), yn = m->y->var->getNameAsString();
      std::string cond;
      if (m->region.early_exit) cond = "!(" + text_of(m->region.guard->getCond()) + ")";
      else cond = text_of(m->region.guard->getCond());
      // Prologue declarations other than x and y, re-evaluated for each element.
      std::string prologue;
      for (const Stmt* s : m->region.prologue)
        for (const Decl* d : cast<DeclStmt>(s)->decls()) {
          const auto* v = cast<VarDecl>(d);
          if (v == m->x->var || v == m->y->var) continue;
          prologue += "      " + v->getType().getAsString() + " " + v->getNameAsString();
          if (v->getInit()) prologue += " = " + text_of(v->getInit());
          prologue += ";\n";
        }
      // F with the load replaced by the tile element.
      auto rhs = ctx.char_range(m->store->getRHS()->getSourceRange());
      auto ld = ctx.char_range(m->load->getSourceRange());
      if (!rhs || !ld) throw std::runtime_error("source text inside a macro");
      const unsigned rb = ctx.sm().getFileOffset(rhs->getBegin()), re = ctx.sm().getFileOffset(rhs->getEnd());
      const unsigned lb = ctx.sm().getFileOffset(ld->getBegin()), le = ctx.sm().getFileOffset(ld->getEnd());
      const std::string lane_major = m->load_along_x ? tile + "[threadIdx.x][threadIdx.y + " + r + "]"
                                                     : tile + "[threadIdx.y + " + r + "][threadIdx.x]";
      const std::string value = ctx.slice(rb, lb) + lane_major + ctx.slice(le, re);
      const std::string load_target = m->load_along_x ? tile + "[threadIdx.y + " + r + "][threadIdx.x]"
                                                      : tile + "[threadIdx.x][threadIdx.y + " + r + "]";
      const std::string store_lhs = text_of(m->store->getLHS());
      const std::string load_text = text_of(m->load);
      // Lanes along x for the load (case A) or along y (case B); the store the other way.
      auto coords = [&](bool lanes_along_x) {
        std::string s;
        if (lanes_along_x) {
          s += "      const " + xt + " " + xn + " = blockIdx.x * 32 + threadIdx.x;\n";
          s += "      const " + yt + " " + yn + " = blockIdx.y * 32 + threadIdx.y + " + r + ";\n";
        } else {
          s += "      const " + xt + " " + xn + " = blockIdx.x * 32 + threadIdx.y + " + r + ";\n";
          s += "      const " + yt + " " + yn + " = blockIdx.y * 32 + threadIdx.x;\n";
        }
        return s;
      };
      const std::string rs = std::to_string(rows);
      std::string body = "{\n";
      body += "  // Rewritten by warplens (stage-shared-tile): each block moves one 32x32 tile through shared\n";
      body += "  // memory so that both global accesses are coalesced; 33 columns avoid bank conflicts.\n";
      body += "  __shared__ " + m->element_type + " " + tile + "[32][33];\n";
      body += "  for (int " + r + " = 0; " + r + " < 32; " + r + " += " + rs + ") {\n";
      body += "    {\n" + coords(m->load_along_x) + prologue;
      body += "      if (" + cond + ") " + load_target + " = " + load_text + ";\n    }\n  }\n";
      body += "  __syncthreads();\n";
      body += "  for (int " + r + " = 0; " + r + " < 32; " + r + " += " + rs + ") {\n";
      body += "    {\n" + coords(!m->load_along_x) + prologue;
      body += "      if (" + cond + ") " + store_lhs + " = " + value + ";\n    }\n  }\n";
      body += "}";
      if (!out.edits.replace(ctx.body, body)) {
        error = out.edits.error();
        return false;
      }
    } catch (const std::exception& e) {
      error = e.what();
      return false;
    }
    LaunchChange change;
    change.kernel = ctx.kernel->getNameAsString();
    change.block = Dim3{32, rows, 1};
    change.thread_scale[1] = {1, 32 / rows};  // rows divides 32
    if (!rewrite_launches(ctx, change, out.edits, error)) return false;
    out.launch_changes.push_back(change);
    out.notes.push_back("each block covers one 32x32 tile; the launch grids provably cover both bounds, so the same "
                        "(x, y) pairs pass the same guard");
    out.notes.push_back("element-wise: per (x, y) the staged load and one store (other loads read at the same "
                        "(x, y) in the store's pass), no other per-thread state");
    return true;
  }
};

}  // namespace

const Rewrite& stage_shared_tile_rewrite() {
  static const StageSharedTile r;
  return r;
}

}  // namespace warplens::agent::rw
