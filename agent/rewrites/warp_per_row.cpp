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
// With contiguous=1 (2..16 lanes) a row's lanes are neighbours instead:
// warp lane t is lane t % lanes of row t / lanes, the formulas of a warp per
// row. That is the shape for short rows walked along (a template's or a
// macro's small width): the row's lanes still read consecutive elements,
// each lane gets several of them, and the shuffle tree is log2(lanes) deep
// instead of five steps for a handful of elements. Proposed only when every
// loop's trip count is a compile-time constant of at most 256.
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
//         (max/min alike), an online softmax pair (`T mn = fmaxf(m, e);
//         s = s * expf(m - mn) + expf(e - mn); m = mn;`), or an arg-max
//         (`if (e > best) { best = e; at = k; }`, `at` declared with a
//         constant below the loop's constant start), read-only
//       - running-sum loops `HEAD; BEFORE; acc += e; AFTER;` read as they go
//         (row_scan.h: a warp takes 32 elements at a time through a shuffle
//         scan; full warps only, no register cache)
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
#include "agent/rewrites/row_loops.h"
#include "agent/rewrites/row_scan.h"
#include "agent/rewrites/row_shuffle_helpers.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

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
      same &= ctx.text(l.counter.init) == ctx.text(first.counter.init) && loop_end_text(ctx, l) == loop_end_text(ctx, first);
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

class WarpPerRow final : public Rewrite {
 public:
  const char* name() const override { return "warp-per-row"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    if (!launches_rewritable(ctx, why)) return CheckResult::refuse(why);
    auto m = match_row_loops(ctx, why);
    if (!m) return CheckResult::refuse(why);
    // How strided is the row walk? Lane stride of the accesses in the loops.
    std::string example, column_example;
    double gain = 2.0;
    const Symbol tx = builtin_symbol(SymbolKind::ThreadIdx, 0);
    for (const RowLoop& l : m->loops) {
      for (const Access& a : accesses_in(ctx, l.loop->getBody())) {
        if (a.is_shared || !a.flat_index) continue;
        auto p = to_polynomial(a.flat_index);
        auto c = p ? coefficient(*p, tx) : std::nullopt;
        if (c && !is_constant(*c, 0) && !is_constant(*c, 1)) {
          if (example.empty()) example = ctx.text(a.expr).value_or("?");
          gain = 8.0;
        }
      }
    }
    // A walk down columns, already coalesced: a warp per "row" (column)
    // would break that, interleaved lanes keep it.
    column_example = column_walk(ctx, *m);
    auto block = constant_block(ctx);
    const bool warp_ok = block && block->y == 1 && block->z == 1 && block->x % 32 == 0;
    // A running sum (row_scan.h) is written for a full warp per row only.
    std::string scan_name;
    for (const RowLoop& l : m->loops)
      if (l.scan && scan_name.empty()) scan_name = l.accumulators.front().var->getNameAsString();
    if (!scan_name.empty()) {
      if (!warp_ok)
        return CheckResult::refuse("the running sum `" + scan_name + "` is written for a warp per row, which needs "
                                   "1-D blocks of a multiple of 32 threads (constant at every launch)");
      if (!column_example.empty())
        return CheckResult::refuse("the running sum `" + scan_name + "` walks down columns (`" + column_example +
                                   "`): a warp along it would break the coalesced walk");
    }
    std::string cache_why;
    auto cache = scan_name.empty() ? row_cache(ctx, *m, cache_why) : std::nullopt;
    const std::string base = "thread-per-row work in " + std::to_string(m->loops.size()) + " loop(s)" +
                             (example.empty() ? "" : ": lanes of a warp access `" + example + "` a row apart");
    CheckResult r;
    auto propose = [&](std::int64_t lanes, std::int64_t cached, double factor, const std::string& how,
                       bool contiguous = false) {
      Proposal p;
      p.step = {name(), {{"lanes", lanes}, {"cache", cached}}};
      if (contiguous) p.step.params["contiguous"] = 1;
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
    // Short rows of a length known at compile time (a template's DIM, a
    // macro): a whole warp per row leaves most of each shuffle tree to
    // combine a handful of elements per lane. Groups of neighbouring lanes
    // give each lane several elements and the warp several rows, with the
    // row's lanes still reading consecutive elements.
    std::optional<std::int64_t> row_length;
    for (const RowLoop& l : m->loops) {
      auto first = ctx.eval_int(l.counter.init), end = ctx.eval_int(l.end);
      if (end && l.inclusive_end) ++*end;
      if (!first || !end || *end < *first) {
        row_length.reset();
        break;
      }
      row_length = std::max(row_length.value_or(0), *end - *first);
    }
    if (warp_ok && column_example.empty() && row_length && *row_length <= 256) {
      const std::string n = std::to_string(*row_length);
      propose(8, 0, 1.1, "rows of " + n + " elements: 8 neighbouring lanes per row, 4 rows per warp, shorter "
                         "shuffle trees", true);
      propose(16, 0, 1.02, "rows of " + n + " elements: 16 neighbouring lanes per row, 2 rows per warp", true);
    }
    // Rows whose length only the run time knows (a width parameter, CSR's
    // row_ptr): sparse and ELL rows are often a few dozen elements or fewer,
    // where a whole warp per row loses to the original (ELL rows of 16 on
    // the H100: 0.35x for 32 lanes, 2026-12-07). Groups of 8 neighbouring
    // lanes are proposed beside the warp, and the verifier's timing decides.
    if (warp_ok && column_example.empty() && !row_length && scan_name.empty())
      propose(8, 0, 0.97, "rows whose length is known only at run time: 8 neighbouring lanes per row, 4 rows per "
                          "warp (short rows, as sparse rows often are)", true);
    if (!scan_name.empty()) {
      propose(32, 0, 1.0, "a warp per row walks each row contiguously; the running sum `" + scan_name +
                              "` becomes a shuffle scan over 32 elements at a time");
      return r;
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
    auto m = match_row_loops(ctx, error);
    if (!m) return false;
    const std::int64_t lanes = param(step, "lanes"), cached = param(step, "cache");
    const bool contiguous = param(step, "contiguous") != 0;
    if (lanes < 2 || lanes > 1024 || (lanes & (lanes - 1)) != 0) {
      error = "lanes must be a power of two from 2 to 1024";
      return false;
    }
    if (contiguous && lanes >= 32) {
      error = "contiguous=1 is for 2..16 lanes per row (a warp or a block is contiguous already)";
      return false;
    }
    if (cached < 0 || cached > 64) {
      error = "cache must be 0..64 elements per lane";
      return false;
    }
    const bool block_row = lanes > 32;
    // Below 32 lanes the warp holds 32 / lanes rows: interleaved, lane t of
    // the warp is lane t / stride of row t % stride; contiguous, lane t is
    // lane t % lanes of row t / lanes (the row formulas of a warp per row).
    const std::int64_t stride = lanes < 32 && !contiguous ? 32 / lanes : 1;
    const bool masked = lanes < 32;
    const LaneSpan span = lane_span(lanes, contiguous);
    if (!block_row) {
      auto block = constant_block(ctx);
      if (!block || block->y != 1 || block->z != 1 || block->x % 32 != 0) {
        error = "a warp per row needs 1-D blocks of a multiple of 32 threads (constant at every launch)";
        return false;
      }
    }
    std::string scan_helper;
    for (const RowLoop& l : m->loops)
      if (l.scan) {
        if (lanes != 32 || cached > 0) {
          error = "a running sum (`" + l.accumulators.front().var->getNameAsString() +
                  "`) is written for a warp per row: lanes=32, cache=0";
          return false;
        }
        scan_helper = fresh_name(ctx.file, "warp_scan");
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
    const Accumulator* online = nullptr;  // the first online pair's sum: its helpers' type and functions
    for (const RowLoop& l : m->loops)
      for (const Accumulator& a : l.accumulators) {
        if (l.scan) continue;  // its own loop leaves the total in every lane
        if (a.op == Combine::OnlineMax || a.op == Combine::ArgValue) continue;  // combined with its partner
        if (a.op == Combine::OnlineSum) {
          if (online && (online->var->getType().getCanonicalType().getUnqualifiedType() !=
                             a.var->getType().getCanonicalType().getUnqualifiedType() ||
                         online->function != a.function || online->exp_function != a.exp_function)) {
            error = "two online softmax passes use different types or functions";
            return false;
          }
          if (!online) online = &a;
        }
        if (!warp_helpers.count(a.op)) {
          const std::string stem = std::string(combine_stem(a.op)) +
                                   (a.op == Combine::MaxIf || a.op == Combine::MinIf ? "_if" : "");
          warp_helpers[a.op] = fresh_name(ctx.file, std::string("warp_") + stem);
          block_helpers[a.op] = fresh_name(ctx.file, std::string("block_") + stem);
        }
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
    if (masked && contiguous) {
      const std::uint32_t pattern = static_cast<std::uint32_t>((std::uint64_t{1} << lanes) - 1);
      char hex[16];
      std::snprintf(hex, sizeof hex, "0x%08xu", pattern);
      extra = row_indent + "const unsigned " + mask + " = " + hex + " << (threadIdx.x % 32 / " + W + " * " + W +
              ");  // this row's lanes";
    } else if (stride > 1) {
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
    const std::string sync = block_row ? "__syncthreads();" : masked ? "__syncwarp(" + mask + ");" : "__syncwarp();";
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
      if (l.scan) {
        auto text = warp_scan_loop_text(ctx, l, scan_helper, error);
        if (!text) return false;
        const std::string after = l.writes ? sync_after(l.loop, indent) : "";
        if (!e.replace_offsets(ctx.offset(l.loop->getBeginLoc()), ctx.offset_after_statement(l.loop), *text + after)) {
          error = e.error();
          return false;
        }
        continue;
      }
      std::string before;
      for (const Accumulator& a : l.accumulators)
        if (a.op == Combine::Add || a.op == Combine::OnlineSum)
          before += "if (" + lane + " != 0) " + a.var->getNameAsString() + " = 0;\n" + indent;
      auto start = ctx.text(l.counter.init);
      auto end = loop_end_text(ctx, l);
      if (!start || !end) {
        error = "a loop header is not plain source text";
        return false;
      }
      std::string after = l.accumulators.empty() || l.writes ? sync_after(l.loop, indent) : "";
      for (const Accumulator& a : l.accumulators) {
        if (a.op == Combine::OnlineMax || a.op == Combine::ArgValue) continue;  // its partner's helper updates both
        const std::string helper = block_row ? block_helpers.at(a.op) : warp_helpers.at(a.op);
        if (a.op == Combine::OnlineSum || is_arg_index(a.op))
          after += "\n" + indent + helper + "(" + a.partner->getNameAsString() + ", " + a.var->getNameAsString() +
                   (masked ? ", " + mask : std::string()) + ");";
        else
          after += "\n" + indent + a.var->getNameAsString() + " = " + helper + "(" + a.var->getNameAsString() +
                   (masked ? ", " + mask : std::string()) + ");";
      }
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
    std::string helper_text = scan_helper.empty() ? std::string() : scan_helper_text(scan_helper);
    for (const auto& [op, n] : warp_helpers) {
      if (op == Combine::OnlineSum) {
        helper_text += online_warp_helper(n, *online, span);
        if (block_row) helper_text += online_block_helper(block_helpers[op], n, *online);
        continue;
      }
      if (is_arg_index(op)) {
        helper_text += arg_warp_helper(n, op, span);
        if (block_row) helper_text += arg_block_helper(block_helpers[op], n, op);
        continue;
      }
      helper_text += shuffle_helper(n, op, span);
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
    else if (masked && contiguous)
      out.notes.push_back("each warp (blocks are multiples of 32) handles " + std::to_string(32 / lanes) +
                          " rows with " + W + " neighbouring lanes each; a row's guard is uniform across its lanes, "
                          "and its shuffles (xor offsets below " + W + " stay inside the row's aligned group) and "
                          "__syncwarp name exactly those lanes");
    else if (stride > 1)
      out.notes.push_back("each warp (blocks are multiples of 32) handles " + std::to_string(stride) + " rows with " + W +
                          " lanes each, interleaved; a row's guard is uniform across its lanes, and its shuffles and "
                          "__syncwarp name exactly those lanes");
    else
      out.notes.push_back("each row is handled by one full warp (blocks are multiples of 32); the row guard is uniform "
                          "across the warp");
    out.notes.push_back("reductions combine only by sum, max or min (or as an online softmax or arg-max pair), and every lane receives the total; element-wise "
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
        if ((a.op == Combine::Add || a.op == Combine::OnlineSum) && reorders_rounding(a.var->getType()))
          out.reassociation = combine_reassociations(out.reassociation, sum_terms(ctx, l.end));
    for (const RowLoop& l : m->loops)
      for (const Accumulator& a : l.accumulators)
        if (is_arg_index(a.op)) {
          const bool first = a.op == Combine::ArgMaxFirst || a.op == Combine::ArgMinFirst;
          out.notes.push_back("`" + a.partner->getNameAsString() + "` and `" + a.var->getNameAsString() +
                              "` are an arg-" + (a.op == Combine::ArgMaxFirst || a.op == Combine::ArgMaxLast ? "max" : "min") +
                              " over the loop's counter: each lane walks its elements in increasing order from the "
                              "same start pair, whose index is below the loop's start, so pairs combine by the better "
                              "value and, on a tie, the " + (first ? "earlier" : "later") + " index, as the sequential "
                              "loop's " + (first ? "strict" : "inclusive") + " comparison decides");
        }
    for (const RowLoop& l : m->loops)
      if (l.scan)
        out.notes.push_back("`" + l.accumulators.front().var->getNameAsString() + "` is a running sum read inside "
                            "its loop: the warp takes 32 elements at a time, a shuffle scan gives each lane the sum up "
                            "to its element (statements after the update read the sum with it, statements before it "
                            "without), and every lane adds the chunk's total, so the sum leaves the loop as the row's "
                            "total in every lane; the value added reads nothing the statements before the update "
                            "change, and every store hits its own iteration's element, so evaluating the 32 values "
                            "first computes what the sequential loop did, up to the order of the additions");
    if (online)
      out.notes.push_back("the loop over `" + online->partner->getNameAsString() + "` and `" +
                          online->var->getNameAsString() + "` is an online softmax (the maximum so far, and the sum of " +
                          online->exp_function + "(e - maximum) rescaled whenever the maximum grows): each lane keeps "
                          "the pair over its own elements, and pairs combine exactly as the recurrence does (the "
                          "larger maximum, each sum rescaled to it), so every lane ends with the row's pair up to "
                          "rounding; lanes other than 0 start their sum at 0, keeping the start maximum");
    return true;
  }
};

}  // namespace

const Rewrite& warp_per_row_rewrite() {
  static const WarpPerRow r;
  return r;
}

}  // namespace warplens::agent::rw
