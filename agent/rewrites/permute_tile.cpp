// permute-tile: a one-thread-per-output-element kernel over a flat index
// whose single load is a gather through the index's digits (a tensor
// permutation: `c = i / (A*B)`, `b = (i / A) % B`, `a = i % A`,
// `out[i] = in[(a*B + b)*C + c]`) reads a different element for each
// neighbouring thread, 4 bytes from every 32-byte sector. When one digit of
// the index, `(i / S) % K` or `i / S`, steps the load's address by exactly
// one element, the threads are regrouped: each block takes 32 consecutive
// indices (the store's contiguous run) by 32 consecutive values of that digit
// (the load's contiguous run), loads the 32x32 tile with lanes along the
// digit, and stores it with lanes along the index, through a padded shared
// tile. Both global accesses become whole-sector.
//
// The mirror, a permutation written from the input's side (one thread per
// input element, `out[h(i)] = F(in[i])`, NCHW -> NHWC by decoding the input
// index), scatters its store: there the digit steps the store by one
// element, the first pass runs the work with lanes along i (its loads at [i]
// coalesced) and keeps the value, and the second pass stores it with lanes
// along the digit. Which of the two threads writes an element that two
// indices would store to (a permutation never does) is no more defined than
// in the original.
//
// Applies to kernels of the shape (match_elementwise with gathers)
//   T i = blockIdx.x * blockDim.x + threadIdx.x;
//   if (i < N) { [pure declarations] OUT[i] = F(IN[g(i)]); }   (or the early-return form)
//   if (i < N) { [pure declarations] OUT[h(i)] = F(IN[i]); }   (the scatter)
// with exactly one gather (or scatter), thread identity only through i, no shared memory,
// barriers, warp primitives or atomics.
//
// Safety: the element's work depends on the thread only through i, so any
// assignment of indices to threads does the same work, provided every i with
// 0 <= i < N is handled exactly once. The new kernel enumerates i as
// lo + S * (k + K * hi) over lo < S, k < K and hi < ceil(N / (S*K)): each
// i in [0, N) has exactly one such (lo, k, hi) (lo = i % S, k = (i / S) % K,
// hi = i / (S*K)), and values at or past N are skipped, as the original's
// guard skips them (its launches provably start at least N threads). The
// tile loop is grid-stride, so any grid is correct. S, K and N are
// parameters and constants only, evaluated once. The load pass writes a tile
// slot only for an i the store pass reads it for (the same guard). Which
// digit steps the load by one element decides only how fast it is, never
// what it computes.
#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

// A digit of the flat index: (i / stride) % extent, or i / stride when
// extent is null (the top digit, bounded by N).
struct Digit {
  ExprRef stride;
  ExprRef extent;
  std::string key;
};

bool is_index(const ExprRef& e) {
  auto p = to_polynomial(e);
  return p && is_global_id(*p, 0);
}

// Parameters and integer constants only: evaluable once at the top of the
// kernel, the same for every thread.
bool parameters_only(const ExprRef& e) {
  auto p = to_polynomial(e);
  if (!p) return false;
  for (const auto& [monomial, coefficient] : p->terms)
    for (const Symbol& s : monomial)
      if (s.kind != SymbolKind::Param) return false;
  return true;
}

Symbol digit_symbol(std::size_t k) {
  Symbol s;
  s.kind = SymbolKind::Local;
  s.name = "wl_digit#" + std::to_string(k);
  s.uniform = false;
  return s;
}

// `e` with every digit of the index replaced by a symbol (digit_symbol(k)
// for digits[k]).
ExprRef replace_digits(const ExprRef& e, std::vector<Digit>& digits) {
  if (!e) return e;
  auto digit = [&](ExprRef stride, ExprRef extent) {
    const std::string key = to_string(stride) + "|" + (extent ? to_string(extent) : std::string("-"));
    for (std::size_t k = 0; k < digits.size(); ++k)
      if (digits[k].key == key) return warplens::Expr::sym(digit_symbol(k));
    digits.push_back({std::move(stride), std::move(extent), key});
    return warplens::Expr::sym(digit_symbol(digits.size() - 1));
  };
  if (e->op == ExprOp::Div && e->operands.size() == 2 && is_index(e->operands[0]) && parameters_only(e->operands[1]))
    return digit(e->operands[1], nullptr);
  if (e->op == ExprOp::Rem && e->operands.size() == 2 && parameters_only(e->operands[1])) {
    const ExprRef& x = e->operands[0];
    if (is_index(x)) return digit(warplens::Expr::constant(1), e->operands[1]);
    if (x->op == ExprOp::Div && x->operands.size() == 2 && is_index(x->operands[0]) && parameters_only(x->operands[1]))
      return digit(x->operands[1], e->operands[1]);
  }
  if (e->operands.empty()) return e;
  auto copy = std::make_shared<warplens::Expr>(*e);
  for (auto& o : copy->operands) o = replace_digits(o, digits);
  return copy;
}

struct Match {
  Elementwise e;
  // The access the tile moves: the one gathered load, or (scatter) the one
  // scattered store `out[h(i)] = v`, the mirror: loads along i, the store
  // along the digit.
  const ArraySubscriptExpr* gather = nullptr;
  bool scatter = false;
  const Stmt* store = nullptr;  // the last statement of the element's work
  Digit digit;                  // the one that steps the load by one element
  ExprRef bound;
  std::string element_type;
};

std::optional<Match> match(const KernelContext& ctx, std::string& why) {
  auto e = match_elementwise(ctx, why, /*allow_gathers=*/true, /*allow_grid_stride_loop=*/false,
                             /*allow_scatter_stores=*/true);
  if (!e) return std::nullopt;
  Match m;
  m.scatter = !e->scatters.empty();
  if (m.scatter && (e->scatters.size() != 1 || !e->gathers.empty())) {
    why = e->gathers.empty() ? "more than one scattered store" : "a scattered store beside a gathered load";
    return std::nullopt;
  }
  if (!m.scatter && e->gathers.size() != 1) {
    why = e->gathers.empty() ? "no gathered load or scattered store (every access is at [i])"
                             : "more than one gathered load";
    return std::nullopt;
  }
  m.gather = m.scatter ? e->scatters.front() : e->gathers.front();
  const char* moved = m.scatter ? "scattered store" : "gathered load";
  const auto& body = e->region.body;
  if (body.empty()) {
    why = "no element work";
    return std::nullopt;
  }
  m.store = body.back();
  const auto* assign = dyn_cast<BinaryOperator>(m.store);
  if (m.scatter) {
    // The work ends with its one store `out[h(i)] = v`; nothing else is written.
    for (const auto& a : e->arrays)
      if (a.written) {
        why = "the kernel writes at [i] as well as at scattered elements";
        return std::nullopt;
      }
    if (!assign || assign->getOpcode() != BO_Assign || assign->getLHS()->IgnoreParenImpCasts() != m.gather) {
      why = "the element's work does not end with its one scattered store `out[h(i)] = ...`";
      return std::nullopt;
    }
  }
  // The work ends with its one store `out[i] = ...`: the only array written.
  const Elementwise::Array* out = nullptr;
  for (const auto& a : e->arrays)
    if (a.written) {
      if (out) {
        why = "more than one array is written";
        return std::nullopt;
      }
      out = &a;
    }
  const auto* stored = m.scatter ? nullptr
                     : assign && assign->getOpcode() == BO_Assign
                           ? dyn_cast<ArraySubscriptExpr>(assign->getLHS()->IgnoreParenImpCasts())
                           : nullptr;
  if (!m.scatter && (!stored || !out || !out->written_unconditionally ||
                     std::find(out->uses.begin(), out->uses.end(), stored) == out->uses.end())) {
    why = "the element's work does not end with its one store `out[i] = ...`";
    return std::nullopt;
  }
  for (std::size_t k = 0; k + 1 < body.size(); ++k)
    if (!isa<DeclStmt>(body[k])) {
      why = "the element's work is more than declarations and one store";
      return std::nullopt;
    }
  if (!only_pure_declarations(ctx, std::vector<const Stmt*>(body.begin(), body.end() - 1))) {
    why = "declarations with effects in the element's work";
    return std::nullopt;
  }
  if (uses_atomics(ctx.body) || calls_thread_dependent_function(ctx.body)) {
    why = "atomics or calls that depend on the thread";
    return std::nullopt;
  }
  // Which digit of i steps the gather by one element.
  ExprRef index = ctx.lower(m.gather->getIdx());
  std::vector<Digit> digits;
  ExprRef replaced = replace_digits(index, digits);
  auto p = to_polynomial(replaced);
  if (!p) {
    why = std::string("the ") + moved + "'s index is not a sum of the index's digits (`i / S`, `(i / S) % K`, `i % K`) times constants";
    return std::nullopt;
  }
  if (auto direct = p->coefficient_of(builtin_symbol(SymbolKind::ThreadIdx, 0)); !direct || !is_constant(*direct, 0)) {
    why = std::string("the ") + moved + "'s index uses the flat index other than through its digits";
    return std::nullopt;
  }
  std::optional<std::size_t> unit;
  for (std::size_t k = 0; k < digits.size(); ++k) {
    auto c = p->coefficient_of(digit_symbol(k));
    if (!c || !is_constant(*c, 1)) continue;
    auto s = to_polynomial(digits[k].stride);
    if (s && s->is_constant() && s->constant_term() < 32) continue;  // i % K itself, or a digit finer than a warp
    if (unit) {
      why = std::string("two digits of the index step the ") + moved + " by one element";
      return std::nullopt;
    }
    unit = k;
  }
  if (!unit) {
    why = std::string("no digit of the index (`i / S` or `(i / S) % K` with S >= 32) steps the ") + moved +
          " by one element";
    return std::nullopt;
  }
  m.digit = digits[*unit];
  m.bound = ctx.lower(e->bound);
  if (!parameters_only(m.bound)) {
    why = "the bound is not made of parameters and constants";
    return std::nullopt;
  }
  std::vector<const ParmVarDecl*> pointers;
  for (const auto& a : e->arrays) pointers.push_back(a.param);
  for (const ParmVarDecl* g : e->gathered)
    if (std::find(pointers.begin(), pointers.end(), g) == pointers.end()) pointers.push_back(g);
  for (const ParmVarDecl* g : e->scattered)
    if (std::find(pointers.begin(), pointers.end(), g) == pointers.end()) pointers.push_back(g);
  if (!launches_pass_distinct_pointers(ctx, pointers, why)) return std::nullopt;
  if (!launches_cover(ctx, 0, e->bound, why)) return std::nullopt;
  if (ctx.kernel->hasAttr<CUDALaunchBoundsAttr>()) {
    why = "the kernel has __launch_bounds__ (the block becomes 32 x rows threads)";
    return std::nullopt;
  }
  QualType t = m.gather->getType().getUnqualifiedType();
  if (!t->isScalarType() && !t->isRecordType()) {
    why = std::string("the ") + moved + "'s element is not a scalar or a struct";
    return std::nullopt;
  }
  PrintingPolicy pp(ctx.ctx().getLangOpts());
  pp.SuppressTagKeyword = true;
  m.element_type = t.getAsString(pp);
  m.e = std::move(*e);
  return m;
}

std::string as_long_long(const ExprRef& e) { return "(long long)(" + to_string(e) + ")"; }

class PermuteTile final : public Rewrite {
 public:
  const char* name() const override { return "permute-tile"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    if (!launches_rewritable(ctx, why)) return CheckResult::refuse(why);
    auto m = match(ctx, why);
    if (!m) return CheckResult::refuse(why);
    CheckResult r;
    const std::string load = ctx.text(m->gather).value_or("the gathered load");
    const std::string i = m->e.index.var->getNameAsString();
    for (std::int64_t rows : find_rewrite(name())->params[0].values) {
      Proposal p;
      p.step = {name(), {{"rows", rows}}};
      p.motivation = std::string(m->scatter ? "the store " : "") + "`" + load + "` steps by one element along the index digit `" +
                     (m->digit.extent ? "(" + i + " / " + to_string(m->digit.stride) + ") % " + to_string(m->digit.extent)
                                      : i + " / " + to_string(m->digit.stride)) +
                     "`, not along the warp: move 32x32 tiles (32 indices by 32 values of that digit) through "
                     "shared memory so that the load and the store are both coalesced (block 32x" +
                     std::to_string(rows) + ")";
      p.predicted_gain = rows == 8 ? 3.0 : 2.8;
      r.proposals.push_back(p);
    }
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep& step, RewriteOutput& out, std::string& error) const override {
    auto m = match(ctx, error);
    if (!m) return false;
    const std::int64_t rows = param(step, "rows");
    if (rows != 4 && rows != 8 && rows != 16 && rows != 32) {
      error = "rows must be 4, 8, 16 or 32";
      return false;
    }
    const std::string rs = std::to_string(rows);
    auto fresh = [&](const char* stem) { return fresh_name(ctx.file, stem); };
    const std::string tile = fresh("tile"), n = fresh("n"), s = fresh("s"), k = fresh("k");
    const std::string lo_tiles = fresh("lo_tiles"), k_tiles = fresh("k_tiles"), tiles = fresh("tiles");
    const std::string t = fresh("t"), lo0 = fresh("lo0"), k0 = fresh("k0"), hi = fresh("hi");
    const std::string r = fresh("r"), lo = fresh("lo"), kk = fresh("kk"), f = fresh("f");
    const VarDecl* index = m->e.index.var;
    const std::string itype = index->getType().getUnqualifiedType().getAsString();
    const std::string iname = index->getNameAsString();

    std::string prologue;
    for (const Stmt* st : m->e.region.prologue) {
      if (st == m->e.index.decl) continue;
      auto text = statement_text(ctx, st);
      if (!text) {
        error = "a declaration before the guard is spelled in a macro";
        return false;
      }
      prologue += "  " + *text + "\n";
    }
    auto gather_text = ctx.text(m->gather);
    if (!gather_text) {
      error = "the gathered load is spelled in a macro";
      return false;
    }
    // The element's declarations and store, for one pass. The tile is indexed [lo - lo0][k - k0] in both modes. Gather: the first
    // pass (lanes along k) stores the gathered value, the second (lanes along
    // lo) runs the work with the slot for the gather. Scatter: the first pass
    // (lanes along lo, loads at [i] coalesced) stores the value the work
    // would store, the second (lanes along k) stores the slot at h(i).
    const auto* final_store = cast<BinaryOperator>(m->store);
    auto element = [&](bool first_pass, const std::string& indent) -> std::optional<std::string> {
      std::map<const Stmt*, std::string> nodes;
      if (!first_pass) {
        if (m->scatter) nodes[final_store->getRHS()] = tile + "[" + r + "][threadIdx.x]";
        else nodes[m->gather] = tile + "[threadIdx.x][" + r + "]";
      }
      std::string text;
      const auto& body = m->e.region.body;
      for (std::size_t q = 0; q + 1 < body.size(); ++q) {
        auto st = statement_text(ctx, body[q], nodes);
        if (!st) return std::nullopt;
        text += indent + *st + "\n";
      }
      if (first_pass && m->scatter) {
        auto value = ctx.text(final_store->getRHS());
        if (!value) return std::nullopt;
        text += indent + tile + "[threadIdx.x][" + r + "] = " + *value + ";\n";
      } else if (first_pass) {
        text += indent + tile + "[" + r + "][threadIdx.x] = " + *gather_text + ";\n";
      } else {
        auto st = statement_text(ctx, body.back(), nodes);
        if (!st) return std::nullopt;
        text += indent + *st + "\n";
      }
      return text;
    };
    auto first_pass = element(true, "        "), second_pass = element(false, "        ");
    if (!first_pass || !second_pass) {
      error = "the element's work is spelled in a macro";
      return false;
    }
    const std::string extent = m->digit.extent ? as_long_long(m->digit.extent) : "(" + n + " + " + s + " - 1) / " + s;
    auto pass = [&](bool lanes_along_digit, const std::string& work) {
      // Lanes along the digit (k), rows along the index (lo), or the other way.
      const std::string lo_of = lanes_along_digit ? lo0 + " + " + r : lo0 + " + threadIdx.x";
      const std::string k_of = lanes_along_digit ? k0 + " + threadIdx.x" : k0 + " + " + r;
      std::string p = "    for (int " + r + " = threadIdx.y; " + r + " < 32; " + r + " += " + rs + ") {\n";
      p += "      const long long " + lo + " = " + lo_of + ", " + kk + " = " + k_of + ";\n";
      p += "      const long long " + f + " = " + lo + " + " + s + " * (" + kk + " + " + k + " * " + hi + ");\n";
      p += "      if (" + lo + " < " + s + " && " + kk + " < " + k + " && " + f + " < " + n + ") {\n";
      p += "        const " + itype + " " + iname + " = (" + itype + ")" + f + ";\n";
      p += work;
      p += "      }\n    }\n";
      return p;
    };
    std::string text = "{\n";
    text += "  // Rewritten by warplens (permute-tile): each block moves 32x32 tiles (32 consecutive " + iname +
            " by 32 values\n"
            "  // of the digit that steps the " + (m->scatter ? "store" : "load") +
            " by one element) through shared memory, so that the load and the store\n"
            "  // are both coalesced; 33 columns avoid bank conflicts. A grid-stride loop over the tiles handles "
            "every " + iname + "\n"
            "  // below the bound once.\n";
    text += prologue;
    text += "  __shared__ " + m->element_type + " " + tile + "[32][33];\n";
    text += "  const long long " + n + " = " + as_long_long(m->bound) + ";\n";
    text += "  const long long " + s + " = " + as_long_long(m->digit.stride) + ";\n";
    text += "  const long long " + k + " = " + extent + ";\n";
    text += "  if (" + n + " <= 0 || " + s + " <= 0 || " + k + " <= 0) return;\n";
    text += "  const long long " + lo_tiles + " = (" + s + " + 31) / 32, " + k_tiles + " = (" + k + " + 31) / 32;\n";
    text += "  const long long " + tiles + " = " + lo_tiles + " * " + k_tiles + " * ((" + n + " + " + s + " * " + k +
            " - 1) / (" + s + " * " + k + "));\n";
    text += "  for (long long " + t + " = blockIdx.x + (long long)gridDim.x * (blockIdx.y + (long long)gridDim.y * "
            "blockIdx.z); " + t + " < " + tiles + "; " + t + " += (long long)gridDim.x * gridDim.y * gridDim.z) {\n";
    text += "    const long long " + lo0 + " = " + t + " % " + lo_tiles + " * 32;\n";
    text += "    const long long " + k0 + " = " + t + " / " + lo_tiles + " % " + k_tiles + " * 32;\n";
    text += "    const long long " + hi + " = " + t + " / (" + lo_tiles + " * " + k_tiles + ");\n";
    text += pass(!m->scatter, *first_pass);
    text += "    __syncthreads();\n";
    text += pass(m->scatter, *second_pass);
    text += "    __syncthreads();\n";
    text += "  }\n}";
    if (!out.edits.replace(ctx.body, text)) {
      error = out.edits.error();
      return false;
    }
    LaunchChange change;
    change.kernel = ctx.kernel->getNameAsString();
    change.block = Dim3{32, rows, 1};
    change.thread_scale[0] = {1, 32};  // one 32x32 tile (1024 indices) per block of 32 x rows
    if (!rewrite_launches(ctx, change, out.edits, error)) return false;
    out.launch_changes.push_back(change);
    out.notes.push_back("the element's work depends on the thread only through " + iname +
                        " (no shared memory, barrier, warp primitive or atomic): regrouping indices into tiles does "
                        "the same work");
    out.notes.push_back("every " + iname + " in [0, " + to_string(m->bound) + ") is lo + S * (k + K * hi) for exactly "
                        "one lo < S, k < K, hi (S = " + to_string(m->digit.stride) + "); the launches start at least " +
                        to_string(m->bound) + " threads, so the original handled the same indices");
    out.notes.push_back("a grid-stride loop over the tiles: correct for any grid");
    if (m->scatter)
      out.notes.push_back("the scatter: the stored array is used nowhere else and nothing is written at [" + iname +
                          "], so each index stores the value its own work computed at the element its own digits "
                          "name, as before; only the order of the stores changes");
    return true;
  }
};

}  // namespace

const Rewrite& permute_tile_rewrite() {
  static const PermuteTile r;
  return r;
}

}  // namespace warplens::agent::rw
