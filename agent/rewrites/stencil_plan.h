#pragma once
// The analysis stencil-tile and stencil-stream share: a 2-D stencil kernel
// (each thread (x, y) reads one input array at fixed offsets around its own
// element, `in[(y - 1) * W + x] + in[y * W + x + 1] ...`), matched and
// proven safe once.
//
// plan_stencil() succeeds when, all checked:
//   - a 2-D kernel with x and y global indices, both bounds-checked, thread
//     identity only through them, no shared memory, barrier, warp
//     primitive or atomic (match_grid_2d); declarations before the guard
//     are pure and read no memory; the guard names only x, y, parameters
//     and constants; the launches cover both bounds;
//   - one pointer parameter S is read at least three times on every path
//     through the guarded work (the taps), every such read at `P * y + x + (P * dy + dx) + c` with the same
//     pitch P (uniform), constant offsets |dx|, |dy| <= 4 and nothing else
//     varying (no loop counter); the kernel never writes S, and nothing it
//     writes reaches S (distinct pointers at every launch, or __restrict__).
// Reads of S on only some paths (`x > 0 ? in[i - 1] : c`, after an early
// return) are not taps: they stay memory reads, since loading them ahead of
// the work could read an element the original never reads.
// The edge branch: the work may set the grid's edge apart first,
// `if (E) { ...; return; }` (a Jacobi step copying its fixed boundary), with
// E naming only x, y, parameters and constants, reading no memory and
// without effects, and only statements that never leave before it. Then the
// taps are the reads on every path after it, and a thread reads them
// exactly when `interior` (the guard, and not E) holds; reads before or in
// the branch stay memory reads.
// Then the read of tap (dx, dy) by the thread at (X, Y) reads the same
// element as `first` (the first read, spelled over x and y) evaluated at
// (X + dx, Y + dy), and no write of the kernel changes what any tap reads.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/rewrites/kernel_shapes.h"

namespace warplens::agent::rw {

struct StencilTap {
  const clang::ArraySubscriptExpr* read = nullptr;
  std::int64_t dx = 0, dy = 0;  // relative to the first read
};

struct StencilEdge {
  const clang::IfStmt* branch = nullptr;
  std::string condition;                       // E
  std::vector<const clang::Stmt*> statements;  // the branch's statements before its return
};

struct StencilPlan {
  Grid2D grid;
  const clang::ParmVarDecl* array = nullptr;
  std::string type;  // the element type's spelling
  std::vector<StencilTap> taps;
  std::int64_t dx_min = 0, dx_max = 0, dy_min = 0, dy_max = 0;
  std::string guard;  // the condition under which a thread works, over x, y and parameters
  std::optional<StencilEdge> edge;
  std::string interior;  // when a thread reads the taps: `guard`, and not the edge's condition
  std::string first;  // the first read, spelled over x and y
};

std::optional<StencilPlan> plan_stencil(const KernelContext& ctx, std::string& why);

// The checks every 2-D stencil shape starts with (stencil-tile,
// stencil-stream, window-tile): match_grid_2d (a batch along z allowed),
// pure declarations before the guard that read no memory, a guard naming
// only x, y, parameters and constants. `guard` is when a thread works.
struct StencilGrid {
  Grid2D grid;
  std::string guard;
};
std::optional<StencilGrid> match_stencil_grid(const KernelContext& ctx, std::string& why);

// The same for a 1-D kernel: one global index x (grid.y.var stays null),
// bounds-checked, thread identity only through it, no shared memory,
// barrier, warp primitive or atomic.
std::optional<StencilGrid> match_stencil_line(const KernelContext& ctx, std::string& why);

// The stencil's input is safe to read ahead of the work: the kernel never
// writes `array`, and nothing it writes reaches it (`__restrict__`, or
// distinct pointers at every launch).
bool stencil_input_unwritten(const KernelContext& ctx, const clang::ParmVarDecl* array, std::string& why);

// Every launch covers both of the guard's bounds (`W - 1` counts as `W`);
// x's alone for a line.
bool stencil_launches_cover(const KernelContext& ctx, const Grid2D& grid, std::string& why);

// True when `s` names no local variable besides parameters and `allowed`.
bool names_only(const clang::Stmt* s, const std::set<const clang::ValueDecl*>& allowed);

// True when `s` contains a return, goto, break or continue.
bool may_leave(const clang::Stmt* s);

// Adds to `out` every node under `s` that runs on only some paths: the
// branches of `?:`, the right side of `&&` and `||`, the bodies of if, loops
// and switch, and whatever follows a statement that may leave early
// (`continue`, `break`, `return`, `goto`). With `conditional`, all of `s`.
void mark_conditional_nodes(const clang::Stmt* s, bool conditional, std::set<const clang::Stmt*>& out);

}  // namespace warplens::agent::rw
