// The thread-per-row shape the row rewrites work on (warp-per-row and its
// interleaved and block variants): one 1-D global index `row`, a plain
// guard, and a guarded body of pure declarations, reduction loops,
// element-wise loops, statements that change locals only and statements
// that store (warp_per_row.cpp's header says exactly what is accepted).
// match_row_loops() proves the shape; the emitters decide how lanes split it.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/rewrites/kernel_shapes.h"

namespace warplens::agent::rw {

// MaxIf/MinIf: `if (e > acc) acc = e;` (and `<`): unlike fmaxf it keeps a
// NaN it started from and skips NaN elements, so lanes combine their
// partial results with the same comparison.
// OnlineMax/OnlineSum: the two halves of an online softmax's recurrence
// (`T mn = fmaxf(m, e); s = s * expf(m - mn) + expf(e - mn); m = mn;`):
// the running maximum m and the sum s rescaled to it. They combine as a
// pair (the sum's `partner` is its maximum), never alone.
// ArgValue/Arg*: an arg-max or arg-min, `if (e > best) { best = e; at = k; }`
// with k the loop's counter: the index `at` carries the op (its `partner`
// is the value `best`, which is ArgValue and combines with it). First: a
// strict comparison, so the earliest extreme wins ties; Last: `>=`/`<=`,
// the latest. Lanes combine (value, index) pairs: the better value, or on a
// tie the earlier (later) index, which is the sequential answer when every
// lane starts from the same pair with an index below the loop's start.
enum class Combine { Add, Max, Min, MaxIf, MinIf, OnlineMax, OnlineSum, ArgValue, ArgMaxFirst, ArgMaxLast, ArgMinFirst, ArgMinLast };

// Whether `op` is the index half of an arg-max/arg-min pair.
bool is_arg_index(Combine op);

const char* combine_stem(Combine op);

struct Accumulator {
  const clang::VarDecl* var = nullptr;
  Combine op = Combine::Add;
  std::string function;  // fmaxf, max, ... for Max/Min and OnlineSum's maximum
  const clang::VarDecl* partner = nullptr;  // OnlineSum: its running maximum
  std::string exp_function;                 // OnlineSum: expf, __expf or exp, as written
};

// A running sum inside a row loop (a prefix sum: a CDF, cumulative sums,
// offsets from counts): the body is `HEAD; BEFORE; acc += e; AFTER;` where
// HEAD are pure declarations not naming acc (e reads only them, the counter
// and what was declared before the loop), BEFORE sees the sum of the earlier
// elements and AFTER the sum including this one; nothing else changes acc.
// row_scan.cpp matches it and writes it for a warp (an inclusive shuffle
// scan per 32 elements, the carry in every lane).
struct ScanLoop {
  const clang::Stmt* update = nullptr;    // `acc += e` / `acc = acc + e`
  const clang::Expr* value = nullptr;     // e
  std::vector<const clang::Stmt*> head;   // leading pure declarations e may read
  std::vector<const clang::Stmt*> before; // between HEAD and the update (see the exclusive sum)
  std::vector<const clang::Stmt*> after;  // after the update (see the inclusive sum)
};

struct RowLoop {
  const clang::ForStmt* loop = nullptr;
  ForCounter counter;
  const clang::Expr* end = nullptr;              // E of `k < E` (or of `k <= E`)
  bool inclusive_end = false;                    // `k <= E`: the loop runs to E + 1 exclusive
  std::vector<Accumulator> accumulators;  // empty: an element-wise loop
  bool writes = false;                    // stores one element per iteration (element-wise, or beside a reduction)
  std::optional<ScanLoop> scan;           // a running sum read inside the loop (its accumulator: accumulators[0])
};

struct Match {
  IndexVar row;
  GuardedRegion region;
  std::vector<RowLoop> loops;
  std::vector<const clang::Stmt*> lane0;    // statements with side effects outside the loops
  std::vector<const clang::Stmt*> uniform;  // statements that change locals only (every lane)
};

// The row shape, or nullopt with `why`.
std::optional<Match> match_row_loops(const KernelContext& ctx, std::string& why);

// A loop access where consecutive threads read consecutive elements while
// the loop's counter steps more than one element (`m[r * cols + col]`): a
// walk down columns, coalesced as it is. Its text, or "" when none.
std::string column_walk(const KernelContext& ctx, const Match& m);

// `acc += e`, `acc = acc + e`, `acc = fmaxf(acc, e)`, `if (e > acc) acc = e;`
// ... for an `acc` in `outer`: the accumulator and its op, e in `value`.
std::optional<Accumulator> accumulator_update(const clang::Stmt* s, const std::set<const clang::VarDecl*>& outer,
                                              const clang::Expr** value);

// `if (e > best) { best = e; at = k; }` over the counter `k`: the value and
// the index accumulators (row_accumulators.cpp says which forms), e in `value`.
std::optional<std::pair<Accumulator, Accumulator>> arg_update_of(const clang::Stmt* s,
                                                                 const std::set<const clang::VarDecl*>& outer,
                                                                 const clang::VarDecl* k, const clang::Expr** value);

// An online softmax's (max, rescaled sum) recurrence as the whole body of a
// loop whose `modified` locals are those two: appends both accumulators.
bool online_pair(const KernelContext& ctx, const clang::Stmt* body, const std::set<const clang::VarDecl*>& modified,
                 std::vector<Accumulator>& out);

// The loop's exclusive end as source text: `E`, or `(E) + 1` for `k <= E`;
// nullopt inside a macro.
std::optional<std::string> loop_end_text(const KernelContext& ctx, const RowLoop& l);

// Whether `v` is declared somewhere inside `s`.
bool declared_inside(const clang::Stmt* s, const clang::VarDecl* v);

}  // namespace warplens::agent::rw
