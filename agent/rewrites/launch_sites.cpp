// Launch sites: reading their grid/block values, proving that a launch
// covers a kernel's bounds (also through launches an earlier rewrite
// reshaped), and rewriting them to apply a LaunchChange through the inserted
// wl_launch helpers.
#include "agent/rewrites/kernel_shapes.h"

namespace warplens::agent::rw {

using namespace clang;
using clang::Expr;

// ---- launch sites -------------------------------------------------------------------

LaunchConfig launch_config(const CUDAKernelCallExpr* launch) {
  LaunchConfig c;
  const CallExpr* cfg = launch->getConfig();
  if (!cfg) return c;
  auto arg = [&](unsigned i) -> const Expr* {
    if (i >= cfg->getNumArgs()) return nullptr;
    const Expr* a = cfg->getArg(i);
    if (isa<CXXDefaultArgExpr>(a)) return nullptr;
    return a;
  };
  c.grid = arg(0);
  c.block = arg(1);
  c.shared_bytes = arg(2);
  c.stream = arg(3);
  return c;
}

namespace {

const Expr* strip_construct(const Expr* e) {
  for (;;) {
    const Expr* next = e->IgnoreParenImpCasts();
    if (const auto* m = dyn_cast<MaterializeTemporaryExpr>(next)) next = m->getSubExpr();
    if (const auto* b = dyn_cast<CXXBindTemporaryExpr>(next)) next = b->getSubExpr();
    if (const auto* c = dyn_cast<CXXConstructExpr>(next);
        c && c->getNumArgs() == 1 && c->getConstructor()->isCopyOrMoveConstructor())
      next = c->getArg(0);
    if (next == e) return e;
    e = next;
  }
}

std::optional<std::int64_t> host_int_impl(const ParsedFile& f, const Expr* e, int depth = 0) {
  if (!e || depth > 8 || e->isValueDependent()) return std::nullopt;
  Expr::EvalResult r;
  if (e->EvaluateAsInt(r, f.ctx())) return r.Val.getInt().getExtValue();
  const Expr* s = strip(e);
  if (const auto* m = dyn_cast<MemberExpr>(s)) {
    const std::string field = m->getMemberDecl()->getName().str();
    const int d = field == "x" ? 0 : field == "y" ? 1 : field == "z" ? 2 : -1;
    if (d < 0) return std::nullopt;
    auto v = eval_dim3(f, m->getBase());
    if (!v) return std::nullopt;
    return d == 0 ? v->x : d == 1 ? v->y : v->z;
  }
  if (const auto* ref = dyn_cast<DeclRefExpr>(s))
    if (const auto* v = dyn_cast<VarDecl>(ref->getDecl()); v && v->hasLocalStorage() && v->getInit()) {
      const FunctionDecl* fn = dyn_cast_or_null<FunctionDecl>(v->getDeclContext());
      if (fn && fn->getBody() && !modified_variables(fn->getBody()).count(v)) return host_int_impl(f, v->getInit(), depth + 1);
    }
  if (const auto* bo = dyn_cast<BinaryOperator>(s)) {
    auto a = host_int_impl(f, bo->getLHS(), depth + 1), b = host_int_impl(f, bo->getRHS(), depth + 1);
    if (!a || !b) return std::nullopt;
    switch (bo->getOpcode()) {
      case BO_Add: return *a + *b;
      case BO_Sub: return *a - *b;
      case BO_Mul: return *a * *b;
      case BO_Div: return *b ? std::optional<std::int64_t>(*a / *b) : std::nullopt;
      default: return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::int64_t> host_int(const ParsedFile& f, const Expr* e) { return host_int_impl(f, e); }

std::optional<Dim3> eval_dim3(const ParsedFile& f, const Expr* e) {
  if (!e) return std::nullopt;
  e = strip_construct(e);
  if (const auto* c = dyn_cast<CXXConstructExpr>(e)) {
    std::int64_t v[3] = {1, 1, 1};
    for (unsigned i = 0; i < c->getNumArgs() && i < 3; ++i) {
      const Expr* a = c->getArg(i);
      if (isa<CXXDefaultArgExpr>(a)) continue;
      auto x = host_int(f, a);
      if (!x) return std::nullopt;
      v[i] = *x;
    }
    return Dim3{v[0], v[1], v[2]};
  }
  if (const auto* ref = dyn_cast<DeclRefExpr>(e)) {
    if (const auto* v = dyn_cast<VarDecl>(ref->getDecl()); v && v->hasLocalStorage() && v->getInit()) {
      const FunctionDecl* fn = dyn_cast_or_null<FunctionDecl>(v->getDeclContext());
      if (v->getType()->isIntegerType()) {
        if (auto x = host_int(f, e)) return Dim3{*x, 1, 1};
        return std::nullopt;
      }
      if (fn && fn->getBody() && !modified_variables(fn->getBody()).count(v)) return eval_dim3(f, v->getInit());
    }
    return std::nullopt;
  }
  if (e->getType()->isIntegerType())
    if (auto x = host_int(f, e)) return Dim3{*x, 1, 1};
  return std::nullopt;
}

const FunctionDecl* enclosing_function(const ParsedFile& f, const Stmt* s) {
  DynTypedNodeList parents = f.ctx().getParents(*s);
  while (!parents.empty()) {
    if (const auto* fd = parents[0].get<FunctionDecl>()) {
      // A lambda's operator() is a method of a local class; keep climbing to
      // the function that contains it.
      if (const auto* md = dyn_cast<CXXMethodDecl>(fd); md && md->getParent()->isLambda()) {
        parents = f.ctx().getParents(*md->getParent());
        continue;
      }
      return fd;
    }
    parents = f.ctx().getParents(parents[0]);
  }
  return nullptr;
}

// ---- launch helpers -----------------------------------------------------------------

namespace {

constexpr const char* kLaunchHelpers = R"(
#ifndef WARPLENS_LAUNCH_HELPERS
#define WARPLENS_LAUNCH_HELPERS
// Added by warplens: launch shapes for rewritten kernels. wl_launch::grid
// applies the documented rule (docs/optimize.md, "Launch changes"): scale the
// threads per dimension, cover them with the new block, cap persistent grids.
namespace wl_launch {
inline unsigned cover(unsigned long long threads, unsigned block) {
  unsigned long long g = (threads + block - 1) / block;
  return g == 0 ? 1u : static_cast<unsigned>(g);
}
inline dim3 swap_xy(dim3 d) { return dim3(d.y, d.x, d.z); }
inline dim3 grid(dim3 g, dim3 b, dim3 nb, bool swap, long long xn, long long xd, long long yn, long long yd,
                 long long zn, long long zd, int blocks_per_sm) {
  if (swap) {
    g = swap_xy(g);
    b = swap_xy(b);
  }
  dim3 r(cover((1ull * g.x * b.x * xn + xd - 1) / xd, nb.x), cover((1ull * g.y * b.y * yn + yd - 1) / yd, nb.y),
         cover((1ull * g.z * b.z * zn + zd - 1) / zd, nb.z));
  if (blocks_per_sm > 0) {
    static int sms = 0;
    if (sms == 0) {
      int dev = 0;
      cudaGetDevice(&dev);
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
      if (sms <= 0) sms = 1;
    }
    const unsigned cap = static_cast<unsigned>(sms * blocks_per_sm);
    if (r.x > cap) r.x = cap;
  }
  return r;
}
}  // namespace wl_launch
#endif
)";

}  // namespace

bool ensure_launch_helpers(const ParsedFile& file, Edits& edits) {
  if (file.text.find("WARPLENS_LAUNCH_HELPERS") != std::string::npos) return true;
  // After the last #include that precedes the first kernel or function body.
  std::size_t pos = 0, insert_at = std::string::npos;
  std::size_t first_code = file.text.size();
  for (const FunctionDecl* k : kernels_in(file)) {
    unsigned off = file.sm().getFileOffset(file.sm().getExpansionLoc(k->getBeginLoc()));
    first_code = std::min<std::size_t>(first_code, off);
  }
  while (pos < file.text.size() && pos < first_code) {
    std::size_t eol = file.text.find('\n', pos);
    if (eol == std::string::npos) eol = file.text.size();
    std::size_t s = file.text.find_first_not_of(" \t", pos);
    if (s != std::string::npos && s < eol && file.text.compare(s, 8, "#include") == 0) insert_at = eol + 1;
    pos = eol + 1;
  }
  // No #include (nvcc includes the CUDA runtime implicitly): the top of the file.
  if (insert_at == std::string::npos) insert_at = 0;
  if (insert_at > file.text.size()) return false;
  return edits.insert_at_offset(static_cast<unsigned>(insert_at), kLaunchHelpers);
}

bool launches_rewritable(const KernelContext& ctx, std::string& why) {
  if (ctx.launches.empty()) {
    why = "no launch of the kernel in this file: its launch shape cannot be changed here";
    return false;
  }
  for (const CUDAKernelCallExpr* l : ctx.launches) {
    LaunchConfig c = launch_config(l);
    if (!c.grid || !c.block) {
      why = "a launch without grid/block arguments";
      return false;
    }
    // The launch itself must be spelled in the file. Its grid and block may
    // name macros (`<<<(N + THREADS - 1) / THREADS, THREADS>>>`): they are
    // replaced by their spelling in the file, which makeFileCharRange gives
    // when the expression begins and ends at macro boundaries.
    if (l->getBeginLoc().isMacroID() || l->getEndLoc().isMacroID()) {
      why = "a launch is written inside a macro";
      return false;
    }
    if (!ctx.text(c.grid) || !ctx.text(c.block)) {
      why = "a launch's grid/block expressions are spelled partly inside a macro";
      return false;
    }
  }
  return true;
}

bool launch_bounds_admit(const KernelContext& ctx, std::int64_t threads, std::string& why) {
  const auto* lb = ctx.kernel->getAttr<clang::CUDALaunchBoundsAttr>();
  if (!lb) return true;
  auto max = lb->getMaxThreads() ? ctx.eval_int(lb->getMaxThreads()) : std::nullopt;
  if (max && threads <= *max) return true;
  why = "the kernel's __launch_bounds__ (" + (max ? std::to_string(*max) : std::string("not a constant")) +
        " threads) does not admit a block of " + std::to_string(threads) + " threads";
  return false;
}

bool rewrite_launches(KernelContext& ctx, const LaunchChange& change, Edits& edits, std::string& error) {
  if (!launches_rewritable(ctx, error)) return false;
  // Every rewrite that sets a block passes here.
  if (change.block && !launch_bounds_admit(ctx, change.block->x * change.block->y * change.block->z, error))
    return false;
  if (!ensure_launch_helpers(ctx.file, edits)) {
    error = "cannot place the launch helpers: " + edits.error();
    return false;
  }
  for (const CUDAKernelCallExpr* l : ctx.launches) {
    LaunchConfig c = launch_config(l);
    const std::string g = *ctx.text(c.grid), b = *ctx.text(c.block);
    std::string new_block;
    if (change.block)
      new_block = "dim3(" + std::to_string(change.block->x) + ", " + std::to_string(change.block->y) + ", " +
                  std::to_string(change.block->z) + ")";
    else if (change.swap_xy)
      new_block = "wl_launch::swap_xy(dim3(" + b + "))";
    else
      new_block = "dim3(" + b + ")";
    std::ostringstream grid;
    if (change.cover) {
      // Sized from the launch's own arguments (a flattened index made 2-D):
      // enough blocks for the extent along x and y; a non-positive extent
      // (the kernel then does nothing) launches one block.
      if (!change.block) {
        error = "a grid sized from the arguments needs a new block";
        return false;
      }
      const std::int64_t nb[2] = {change.block->x, change.block->y};
      grid << "dim3(";
      for (int d = 0; d < 2; ++d) {
        const ParamExtent& e = (*change.cover)[static_cast<std::size_t>(d)];
        std::string extent = std::to_string(e.constant);
        if (e.param >= 0) {
          const Expr* arg = static_cast<unsigned>(e.param) < l->getNumArgs() ? l->getArg(static_cast<unsigned>(e.param)) : nullptr;
          auto t = arg ? ctx.text(arg) : std::nullopt;
          if (!t || arg->HasSideEffects(ctx.ctx())) {
            error = "a launch's argument for the grid's extent is not plain source text without side effects";
            return false;
          }
          extent = "(" + *t + ")";
        }
        grid << (d ? ", " : "") << "wl_launch::cover(static_cast<unsigned long long>(" << extent << " > 0 ? " << extent
             << " : 1), " << nb[d] << ")";
      }
      grid << ", 1)";
    } else {
      grid << "wl_launch::grid(dim3(" << g << "), dim3(" << b << "), " << new_block << ", "
           << (change.swap_xy ? "true" : "false");
      for (int d = 0; d < 3; ++d) grid << ", " << change.thread_scale[d].num << ", " << change.thread_scale[d].den;
      grid << ", " << change.persistent_blocks_per_sm << ")";
    }
    if (!edits.replace(c.grid, grid.str())) {
      error = edits.error();
      return false;
    }
    if ((change.block || change.swap_xy) && !edits.replace(c.block, new_block)) {
      error = edits.error();
      return false;
    }
  }
  return true;
}

std::optional<Dim3> constant_block(const KernelContext& ctx) {
  std::optional<Dim3> block;
  for (const CUDAKernelCallExpr* l : ctx.launches) {
    auto b = eval_dim3(ctx.file, launch_config(l).block);
    if (!b || (block && !(*block == *b))) return std::nullopt;
    block = b;
  }
  return block;
}

namespace {

// Additive terms of an expression: (sign, term).
void additive_terms(const ParsedFile& f, const Expr* e, int sign, std::vector<std::pair<int, const Expr*>>& out,
                    int depth = 0) {
  const Expr* s = strip(e);
  if (const auto* bo = dyn_cast<BinaryOperator>(s); bo && (bo->getOpcode() == BO_Add || bo->getOpcode() == BO_Sub)) {
    additive_terms(f, bo->getLHS(), sign, out, depth);
    additive_terms(f, bo->getRHS(), bo->getOpcode() == BO_Add ? sign : -sign, out, depth);
    return;
  }
  out.push_back({sign, s});
}

// Follows an unmodified host local to its initialiser.
const Expr* follow_local(const ParsedFile& f, const Expr* e) {
  for (int depth = 0; depth < 8; ++depth) {
    const Expr* s = strip(e);
    const auto* ref = dyn_cast<DeclRefExpr>(s);
    if (!ref) return s;
    const auto* v = dyn_cast<VarDecl>(ref->getDecl());
    if (!v || !v->hasLocalStorage() || !v->getInit() || isa<ParmVarDecl>(v)) return s;
    const auto* fn = dyn_cast_or_null<FunctionDecl>(v->getDeclContext());
    if (!fn || !fn->getBody() || modified_variables(fn->getBody()).count(v)) return s;
    e = v->getInit();
  }
  return strip(e);
}

// A host variable whose value may change inside its function: two mentions
// of it need not be the same value.
bool modified_in_its_function(const ValueDecl* d) {
  const auto* v = dyn_cast<VarDecl>(d);
  if (!v || !v->hasLocalStorage()) return false;
  const auto* fn = dyn_cast_or_null<FunctionDecl>(v->getDeclContext());
  return !fn || !fn->getBody() || modified_variables(fn->getBody()).count(v);
}

bool same_value(const ParsedFile& f, const Expr* a, const Expr* b) {
  const Expr* x = strip(a);
  const Expr* y = strip(b);
  if (const auto* rx = dyn_cast<DeclRefExpr>(x))
    if (const auto* ry = dyn_cast<DeclRefExpr>(y)) {
      if (rx->getDecl()->getCanonicalDecl() != ry->getDecl()->getCanonicalDecl()) return false;
      if (!modified_in_its_function(rx->getDecl())) return true;
      // Assigned somewhere (`if (argc > 1) n = atoi(argv[1]);`), but not
      // between the two reads.
      const auto* v = dyn_cast<VarDecl>(rx->getDecl());
      const auto* fn = v ? dyn_cast_or_null<FunctionDecl>(v->getDeclContext()) : nullptr;
      if (!fn || !fn->getBody()) return false;
      const bool x_first = f.sm().isBeforeInTranslationUnit(rx->getBeginLoc(), ry->getBeginLoc());
      return keeps_value_between(v, fn->getBody(), x_first ? rx : ry, x_first ? ry : rx, f.sm());
    }
  auto cx = host_int(f, x), cy = host_int(f, y);
  if (cx && cy) return *cx == *cy;
  // The same arithmetic over the same values (`B * T` at the grid and at the
  // argument): operands compared by these rules, so each variable in them is
  // one that keeps its value.
  if (const auto* bx = dyn_cast<BinaryOperator>(x))
    if (const auto* by = dyn_cast<BinaryOperator>(y))
      return bx->getOpcode() == by->getOpcode() && (bx->isMultiplicativeOp() || bx->isAdditiveOp()) &&
             same_value(f, bx->getLHS(), by->getLHS()) && same_value(f, bx->getRHS(), by->getRHS());
  // Same spelling (e.g. `n / CHUNK` in both places).
  CharSourceRange rx = Lexer::makeFileCharRange(CharSourceRange::getTokenRange(x->getSourceRange()), f.sm(), f.lang());
  CharSourceRange ry = Lexer::makeFileCharRange(CharSourceRange::getTokenRange(y->getSourceRange()), f.sm(), f.lang());
  if (rx.isInvalid() || ry.isInvalid()) return false;
  return Lexer::getSourceText(rx, f.sm(), f.lang()) == Lexer::getSourceText(ry, f.sm(), f.lang()) &&
         Lexer::getSourceText(rx, f.sm(), f.lang()).find_first_of("()+-*/") == StringRef::npos;
}

// Component `dim` of a grid argument (an integer for x, a dim3 constructor or
// variable).
const Expr* grid_component(const ParsedFile& f, const Expr* grid, int dim) {
  const Expr* g = grid;
  for (int depth = 0; depth < 8; ++depth) {
    const Expr* s = g->IgnoreParenImpCasts();
    if (const auto* m = dyn_cast<MaterializeTemporaryExpr>(s)) s = m->getSubExpr()->IgnoreParenImpCasts();
    if (const auto* c = dyn_cast<CXXConstructExpr>(s)) {
      if (c->getNumArgs() == 1 && c->getConstructor()->isCopyOrMoveConstructor()) {
        g = c->getArg(0);
        continue;
      }
      if (static_cast<unsigned>(dim) < c->getNumArgs() && !isa<CXXDefaultArgExpr>(c->getArg(dim))) return c->getArg(dim);
      return nullptr;  // defaulted to 1
    }
    if (s->getType()->isIntegerType()) return dim == 0 ? s : nullptr;
    if (const auto* ref = dyn_cast<DeclRefExpr>(s)) {
      const auto* v = dyn_cast<VarDecl>(ref->getDecl());
      if (!v || !v->getInit()) return nullptr;
      const auto* fn = dyn_cast_or_null<FunctionDecl>(v->getDeclContext());
      if (!fn || !fn->getBody() || modified_variables(fn->getBody()).count(v)) return nullptr;
      g = v->getInit();
      continue;
    }
    return nullptr;
  }
  return nullptr;
}

}  // namespace

namespace {

const Expr* strip_casts_and_copies(const Expr* e) {
  for (int depth = 0; depth < 16 && e; ++depth) {
    const Expr* next = e->IgnoreParenImpCasts();
    if (const auto* m = dyn_cast<MaterializeTemporaryExpr>(next)) next = m->getSubExpr()->IgnoreParenImpCasts();
    if (const auto* b = dyn_cast<CXXBindTemporaryExpr>(next)) next = b->getSubExpr()->IgnoreParenImpCasts();
    if (const auto* f = dyn_cast<CXXFunctionalCastExpr>(next)) next = f->getSubExpr()->IgnoreParenImpCasts();
    if (const auto* c = dyn_cast<CXXConstructExpr>(next);
        c && c->getNumArgs() == 1 && c->getConstructor()->isCopyOrMoveConstructor())
      next = c->getArg(0)->IgnoreParenImpCasts();
    if (next == e) return e;
    e = next;
  }
  return e;
}

// wl_launch::grid(g, b, nb, swap, xn, xd, yn, yd, zn, zd, blocks_per_sm): a
// launch already reshaped by an earlier rewrite.
const CallExpr* reshaped_launch(const Expr* grid) {
  const auto* call = dyn_cast<CallExpr>(strip_casts_and_copies(grid));
  if (!call || call->getNumArgs() != 11 || !call->getDirectCallee()) return nullptr;
  const FunctionDecl* fd = call->getDirectCallee();
  if (fd->getName() != "grid") return nullptr;
  const auto* ns = dyn_cast<NamespaceDecl>(fd->getDeclContext());
  return ns && ns->getName() == "wl_launch" ? call : nullptr;
}

// `(E + D - 1) / D`, spelled out or through a helper function whose body is
// just that (`ceil_div(n, block_size)`, `DIV_UP(n, b)` from a macro): E and D
// as written at the launch, so that they can be compared with the bound's
// argument and the block. Then grid * D >= E for any D > 0.
struct CeilQuotient {
  const Expr* dividend = nullptr;
  const Expr* divisor = nullptr;
};

std::optional<CeilQuotient> ceil_quotient_form(const ParsedFile& f, const Expr* g) {
  const auto* div = dyn_cast<BinaryOperator>(strip(g));
  if (!div || div->getOpcode() != BO_Div) return std::nullopt;
  const Expr* d = strip(div->getRHS());
  std::vector<std::pair<int, const Expr*>> terms;
  additive_terms(f, div->getLHS(), 1, terms);
  std::int64_t constant = 0;
  const Expr* e = nullptr;
  bool divisor_seen = false;
  const auto dconst = host_int(f, d);
  for (auto& [sign, t] : terms) {
    if (auto v = host_int(f, t)) {
      constant += sign * *v;
    } else if (sign > 0 && !dconst && !divisor_seen && same_value(f, t, d)) {
      divisor_seen = true;  // the `+ D` of `E + D - 1` with a variable D
    } else if (sign > 0 && !e) {
      e = t;
    } else {
      return std::nullopt;
    }
  }
  if (!e) return std::nullopt;
  if (dconst ? constant != *dconst - 1 : !(divisor_seen && constant == -1)) return std::nullopt;
  return CeilQuotient{e, d};
}

// `X > 0 ? X : 1` (how rewrite_launches spells an extent): X, since a
// non-positive extent needs no threads.
const Expr* positive_or_one(const ParsedFile& f, const Expr* e) {
  const auto* c = dyn_cast<ConditionalOperator>(strip(e));
  if (!c || host_int(f, c->getFalseExpr()) != std::optional<std::int64_t>(1)) return e;
  const auto* gt = dyn_cast<BinaryOperator>(strip(c->getCond()));
  if (!gt || gt->getOpcode() != BO_GT || host_int(f, gt->getRHS()) != std::optional<std::int64_t>(0)) return e;
  if (!same_value(f, gt->getLHS(), c->getTrueExpr())) return e;
  return strip(c->getTrueExpr());
}

std::optional<CeilQuotient> ceil_quotient(const ParsedFile& f, const Expr* g) {
  if (auto q = ceil_quotient_form(f, g)) return q;
  // wl_launch::cover(E, B) of the launch helpers: ceil(E / B), at least 1.
  if (const auto* call = dyn_cast<CallExpr>(strip(g)); call && call->getNumArgs() == 2 && call->getDirectCallee()) {
    const FunctionDecl* fd = call->getDirectCallee();
    const auto* ns = dyn_cast<NamespaceDecl>(fd->getDeclContext());
    if (fd->getName() == "cover" && ns && ns->getName() == "wl_launch")
      return CeilQuotient{positive_or_one(f, call->getArg(0)), strip(call->getArg(1))};
  }
  // A call of a function whose body is `return (a + b - 1) / b;` over its two
  // parameters, which are not modified: the same with the call's arguments.
  const auto* call = dyn_cast<CallExpr>(strip(g));
  const FunctionDecl* fn = call ? call->getDirectCallee() : nullptr;
  if (!fn || fn->getNumParams() != 2 || call->getNumArgs() != 2 || !fn->hasBody()) return std::nullopt;
  const auto* body = dyn_cast_or_null<CompoundStmt>(fn->getBody());
  if (!body || body->size() != 1) return std::nullopt;
  const auto* ret = dyn_cast<ReturnStmt>(body->body_front());
  if (!ret || !ret->getRetValue() || !modified_variables(body).empty()) return std::nullopt;
  auto q = ceil_quotient_form(f, ret->getRetValue());
  if (!q) return std::nullopt;
  const auto param_index = [&](const Expr* e) -> int {
    const auto* r = dyn_cast<DeclRefExpr>(strip(e));
    for (unsigned i = 0; r && i < 2; ++i)
      if (r->getDecl() == fn->getParamDecl(i)) return static_cast<int>(i);
    return -1;
  };
  const int ei = param_index(q->dividend), di = param_index(q->divisor);
  if (ei < 0 || di < 0 || ei == di) return std::nullopt;
  return CeilQuotient{call->getArg(static_cast<unsigned>(ei)), call->getArg(static_cast<unsigned>(di))};
}

// Does a launch with this grid and block start at least `bound` threads along `dim`?
// `e` is field `field` of the value `arg` holds (`d.N` at the grid where the
// launch passes `d`, the variable keeping its value between the two).
bool same_field_value(const ParsedFile& f, const Expr* e, const Expr* arg, const FieldDecl* field) {
  const auto* m = dyn_cast<MemberExpr>(strip(e));
  if (!m || m->isArrow() || !m->getMemberDecl() ||
      m->getMemberDecl()->getCanonicalDecl() != field->getCanonicalDecl())
    return false;
  const auto* base = dyn_cast<DeclRefExpr>(strip_construct(m->getBase()));
  const auto* passed = dyn_cast<DeclRefExpr>(strip_construct(arg));
  return base && passed && same_value(f, base, passed);
}

bool covers(const ParsedFile& f, const Expr* grid, const Expr* block, int dim, const Expr* bound_arg,
            std::optional<std::int64_t> bconst, std::string& why, int depth = 0,
            const FieldDecl* bound_field = nullptr) {
  if (depth > 8) return false;
  if (const CallExpr* r = reshaped_launch(grid)) {
    bool swap = false;
    if (!r->getArg(3)->EvaluateAsBooleanCondition(swap, f.ctx())) return false;
    auto num = host_int(f, r->getArg(4 + 2 * dim)), den = host_int(f, r->getArg(5 + 2 * dim));
    auto persistent = host_int(f, r->getArg(10));
    if (!num || !den || !persistent || *persistent != 0 || *num < *den) {
      why = "an earlier rewrite launches fewer threads along this axis";
      return false;
    }
    const int source = swap && dim < 2 ? 1 - dim : dim;
    // The reshaped launch starts at least the threads the inner launch started along `source`.
    return covers(f, r->getArg(0), r->getArg(1), source, bound_arg, bconst, why, depth + 1, bound_field);
  }
  auto blockv = eval_dim3(f, strip_casts_and_copies(block));
  const std::int64_t bextent = !blockv ? 0 : dim == 0 ? blockv->x : dim == 1 ? blockv->y : blockv->z;
  const Expr* gc = grid ? grid_component(f, strip_casts_and_copies(grid), dim) : nullptr;
  if (blockv && gc) {
    auto g = host_int(f, gc);
    std::optional<std::int64_t> n = bconst ? bconst : bound_field ? std::nullopt : host_int(f, bound_arg);
    if (g && n) {
      if (*g * bextent >= *n) return true;
      why = "a launch starts fewer threads than the bound";
      return false;
    }
  }
  // The block's extent along `dim` as written, when it is not a constant
  // (`block_size`, a parameter of the launching function).
  const Expr* bc = !blockv && block ? grid_component(f, strip_casts_and_copies(block), dim) : nullptr;
  if (!gc || (!blockv && !bc)) {
    why = "the grid or block of a launch is not a form warplens can check";
    return false;
  }
  if (auto q = ceil_quotient(f, follow_local(f, gc))) {
    const bool divisor_is_block = blockv ? host_int(f, q->divisor) == std::optional<std::int64_t>(bextent)
                                         : same_value(f, q->divisor, bc);
    if (divisor_is_block && bound_arg &&
        (bound_field ? same_field_value(f, q->dividend, bound_arg, bound_field) : same_value(f, q->dividend, bound_arg)))
      return true;
  }
  why = "cannot prove that a launch's grid covers the bound (expected a grid of (n + block - 1) / block)";
  return false;
}

// One factor of a product bound (`M * N`) as a launch passes it: the
// argument expression, or a constant.
struct Factor {
  const Expr* arg = nullptr;
  std::optional<std::int64_t> value;
};

// The factors of a host product (`N * C * H * W`, `(size_t)rows * cols`,
// through unmodified locals holding parts of it); constants are multiplied
// into `constant`.
void host_factors(const ParsedFile& f, const Expr* e, std::vector<const Expr*>& out, std::int64_t& constant,
                  int depth = 0) {
  const Expr* s = depth < 8 ? follow_local(f, e) : strip(e);
  if (auto v = host_int(f, s)) {
    constant *= *v;
    return;
  }
  if (const auto* mul = dyn_cast<BinaryOperator>(s); mul && mul->getOpcode() == BO_Mul && depth < 8) {
    host_factors(f, mul->getLHS(), out, constant, depth + 1);
    host_factors(f, mul->getRHS(), out, constant, depth + 1);
    return;
  }
  out.push_back(s);
}

// Does a launch start at least the product of `factors` threads along
// `dim`, for a product bound whose factors the launch passes as `factors`
// (arguments or constants)? The grid is ceil(E / block) with E the same
// product (any order, any grouping, through locals), or everything is
// constant.
bool covers_product(const ParsedFile& f, const Expr* grid, const Expr* block, int dim,
                    const std::vector<Factor>& factors, std::string& why) {
  auto blockv = eval_dim3(f, strip_casts_and_copies(block));
  const std::int64_t bextent = !blockv ? 0 : dim == 0 ? blockv->x : dim == 1 ? blockv->y : blockv->z;
  const Expr* gc = grid && !reshaped_launch(grid) ? grid_component(f, strip_casts_and_copies(grid), dim) : nullptr;
  const Expr* bc = !blockv && block ? grid_component(f, strip_casts_and_copies(block), dim) : nullptr;
  if (!gc || (!blockv && !bc)) {
    why = "the grid or block of a launch is not a form warplens can check";
    return false;
  }
  // The launch side of each factor: its constant, or the argument's factors.
  std::int64_t want_constant = 1;
  std::vector<const Expr*> want;
  for (const Factor& x : factors) {
    if (x.value) want_constant *= *x.value;
    else host_factors(f, x.arg, want, want_constant);
  }
  if (blockv && want.empty())
    if (auto g = host_int(f, gc)) {
      if (*g * bextent >= want_constant) return true;
      why = "a launch starts fewer threads than the bound";
      return false;
    }
  if (auto q = ceil_quotient(f, follow_local(f, gc))) {
    const bool divisor_is_block = blockv ? host_int(f, q->divisor) == std::optional<std::int64_t>(bextent)
                                         : same_value(f, q->divisor, bc);
    std::int64_t have_constant = 1;
    std::vector<const Expr*> have;
    host_factors(f, q->dividend, have, have_constant);
    bool same = divisor_is_block && have_constant == want_constant && have.size() == want.size();
    // Each of the grid's factors is one of the bound's (a matching, greedy:
    // same_value is an equivalence on these plain factors).
    std::vector<bool> used(want.size(), false);
    for (std::size_t i = 0; same && i < have.size(); ++i) {
      bool found = false;
      for (std::size_t j = 0; j < want.size() && !found; ++j)
        if (!used[j] && same_value(f, have[i], want[j])) used[j] = found = true;
      same = found;
    }
    if (same) return true;
  }
  why = "cannot prove that a launch's grid covers the bound (expected a grid of (a * b + block - 1) / block)";
  return false;
}

// The factors of a kernel-side product bound (`M * N`, `N * C * H * W`, an
// unmodified local holding it): each an unmodified integer parameter or a
// constant. False when some factor is neither.
bool kernel_factors(const KernelContext& ctx, const Expr* e, std::vector<const Expr*>& out, int depth = 0) {
  const Expr* s = strip(e);
  if (const auto* ref = dyn_cast<DeclRefExpr>(s); ref && depth < 8)
    if (const auto* v = dyn_cast<VarDecl>(ref->getDecl());
        v && !isa<ParmVarDecl>(v) && v->hasLocalStorage() && v->getInit() && !ctx.modified.count(v))
      return kernel_factors(ctx, v->getInit(), out, depth + 1);
  if (const auto* mul = dyn_cast<BinaryOperator>(s); mul && mul->getOpcode() == BO_Mul && depth < 8)
    return kernel_factors(ctx, mul->getLHS(), out, depth + 1) && kernel_factors(ctx, mul->getRHS(), out, depth + 1);
  if (ctx.eval_int(s)) {
    out.push_back(s);
    return true;
  }
  const auto* ref = dyn_cast<DeclRefExpr>(s);
  const auto* p = ref ? dyn_cast<ParmVarDecl>(ref->getDecl()) : nullptr;
  if (!p || ctx.param_index(p) < 0 || ctx.modified.count(p) || !p->getType()->isIntegerType()) return false;
  out.push_back(s);
  return true;
}

bool launches_cover_factors(const KernelContext& ctx, int dim, const std::vector<const Expr*>& kernel_side,
                            std::string& why) {
  if (ctx.launches.empty()) {
    why = "no launch in this file to check the grid against the bound";
    return false;
  }
  for (const CUDAKernelCallExpr* l : ctx.launches) {
    std::vector<Factor> factors;
    for (const Expr* e : kernel_side) {
      if (auto c = ctx.eval_int(e)) {
        factors.push_back(Factor{nullptr, c});
        continue;
      }
      const auto* p = cast<ParmVarDecl>(cast<DeclRefExpr>(e)->getDecl());
      factors.push_back(Factor{l->getArg(static_cast<unsigned>(ctx.param_index(p))), std::nullopt});
    }
    LaunchConfig c = launch_config(l);
    if (!covers_product(ctx.file, c.grid, c.block, dim, factors, why)) return false;
  }
  return true;
}

}  // namespace

bool launches_cover_product(const KernelContext& ctx, int dim, const Expr* a, const Expr* b, std::string& why) {
  std::vector<const Expr*> factors;
  if (!kernel_factors(ctx, a, factors) || !kernel_factors(ctx, b, factors)) {
    why = "a factor of the bound is neither an unmodified parameter nor a constant";
    return false;
  }
  return launches_cover_factors(ctx, dim, factors, why);
}

bool launches_cover(const KernelContext& ctx, int dim, const Expr* bound, std::string& why) {
  if (ctx.launches.empty()) {
    why = "no launch in this file to check the grid against the bound";
    return false;
  }
  const Expr* b = strip(bound);
  const auto* bref = dyn_cast<DeclRefExpr>(b);
  const ParmVarDecl* bparam = bref ? dyn_cast<ParmVarDecl>(bref->getDecl()) : nullptr;
  auto bconst = ctx.eval_int(bound);
  // A field of a structure passed by value (`d.N`, `MatDims d`), neither the
  // parameter nor any of its fields changed in the kernel: the launch's
  // grid must cover that field of what the launch passes.
  const FieldDecl* bfield = nullptr;
  if (const auto* m = dyn_cast<MemberExpr>(b); m && !bparam && !bconst && !m->isArrow())
    if (const auto* base = dyn_cast<DeclRefExpr>(strip(m->getBase())))
      if (const auto* p = dyn_cast<ParmVarDecl>(base->getDecl());
          p && ctx.param_index(p) >= 0 && p->getType()->isRecordType() && !ctx.modified.count(p))
        if (const auto* fd = dyn_cast<FieldDecl>(m->getMemberDecl()); fd && fd->getType()->isIntegerType()) {
          bparam = p;
          bfield = fd;
        }
  // A product of parameters and constants (`batch * DIM`, `rows * cols`,
  // `N * C * H * W`, or a kernel local holding one): the grid must cover
  // it as a product.
  if (!bparam && !bconst) {
    std::vector<const Expr*> factors;
    if (kernel_factors(ctx, b, factors) && !factors.empty()) return launches_cover_factors(ctx, dim, factors, why);
  }
  if (!bparam && !bconst) {
    why = "the bound `" + ctx.text(bound).value_or("?") + "` is neither a parameter nor a constant";
    return false;
  }
  for (const CUDAKernelCallExpr* l : ctx.launches) {
    LaunchConfig c = launch_config(l);
    const Expr* bound_arg = bparam ? l->getArg(static_cast<unsigned>(ctx.param_index(bparam))) : nullptr;
    if (!covers(ctx.file, c.grid, c.block, dim, bound_arg, bconst, why, 0, bfield)) {
      if (why.find("bound") != std::string::npos && bound)
        why += " `" + ctx.text(bound).value_or("?") + "`";
      return false;
    }
  }
  return true;
}

}  // namespace warplens::agent::rw
