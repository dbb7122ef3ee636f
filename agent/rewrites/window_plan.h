#pragma once
// The analysis window-tile works on (window_tile.cpp says what it does with
// it): a 2-D kernel whose thread (x, y) reads one input array over a window
// of loops with constant bounds, matched and proven safe once.
// plan_window() succeeds when, all checked:
//   - match_stencil_grid (stencil_plan.h): a 2-D kernel, pure declarations
//     before a guard naming only x, y, parameters and constants;
//   - one pointer parameter S is read exactly once inside a nest of `for`
//     loops with constant bounds (the window loops) at
//     `base + P * (y + dy) + (x + dx)`, with P uniform, base uniform (a
//     plane of a batch included), dy = b * k_row + c and dx = a * k_col + d
//     over at most one counter each, spans at most 16; that read is not
//     under any condition inside its statement;
//   - in every window loop's body, the statements before the way to the
//     read are declarations, or `if (C) continue;` with C reading no
//     memory, without effects, naming only x, y, the window counters and
//     the pure declarations before it; the read may also sit under
//     `if (C) ...` without else, C of the same kind (`if (xx >= 0 && xx < W)
//     sum += in[yy * W + xx] * ...`); nothing else in the nest leaves (no
//     other continue, no break, return or goto); nothing before the nest in
//     the work leaves early;
//   - the kernel never writes S and nothing it writes reaches it, and the
//     launches cover both bounds (as stencil-tile).
// Either coordinate may be clamped to the edge (Clamp below) when what is
// clamped is exactly the thread's coordinate plus its window offset.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "agent/rewrites/stencil_plan.h"

namespace warplens::agent::rw {

struct WindowLoop {
  const clang::ForStmt* loop = nullptr;
  const clang::VarDecl* counter = nullptr;
  std::int64_t first = 0, last = 0;  // the counter's values, inclusive
};

// `min(max(v, lo), hi)` or `max(min(v, hi), lo)` with lo and hi uniform.
// Or the conditional chain a helper such as `v < lo ? lo : (v > hi ? hi : v)`
// inlines to (either bound first, `<=`/`>=` alike), kept as written.
struct Clamp {
  enum class Form { MinOfMax, MaxOfMin, Chain };
  Symbol symbol;        // stands for the clamp in the index's polynomial
  Polynomial inner;     // v
  Polynomial lo, hi;
  Form form = Form::MinOfMax;
  // Chain: `v first_op first ? first : (v second_op second ? second : v)`,
  // the lower bound first when lo_first.
  std::string first_op, second_op;
  bool lo_first = true;
};

struct WindowPlan {
  StencilGrid sg;
  const clang::ParmVarDecl* array = nullptr;
  std::string type;
  const clang::ArraySubscriptExpr* read = nullptr;
  std::vector<WindowLoop> loops;      // outermost first
  // What decides whether the read happens, in order: pure declarations and
  // `if (C) continue;` before the way to it (stmt), conditions it is under (required).
  struct Check {
    const clang::Stmt* stmt = nullptr;
    const clang::Expr* required = nullptr;
  };
  std::vector<Check> checks;
  const clang::VarDecl* row_counter = nullptr;
  const clang::VarDecl* col_counter = nullptr;
  std::int64_t row_coef = 0, oy = 0, col_coef = 0, ox = 0;
  std::int64_t dy_min = 0, dy_max = 0, dx_min = 0, dx_max = 0;
  Polynomial base, pitch;  // the read's element: base + pitch * row + column
  // Clamp-to-edge coordinates (`min(max(x + dx, 0), W - 1)`): the row's
  // and the column's clamp, applied to the cell's coordinates when loading.
  std::optional<Clamp> row_clamp, col_clamp;
  std::int64_t taps = 1;
  bool line = false;  // a 1-D kernel: no rows
};

// `line`: a 1-D kernel (one global index x; the window moves along x only,
// up to 64 wide), else a 2-D one.
std::optional<WindowPlan> plan_window(const KernelContext& ctx, bool line, std::string& why);

}  // namespace warplens::agent::rw
