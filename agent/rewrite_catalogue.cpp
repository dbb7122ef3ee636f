// The names, parameters and purposes of the built-in rewrites. Kept apart
// from their Clang implementations (agent/rewrites/) so that builds without
// Clang can still list them, read candidate plans and print documentation.
// docs/rewrites.md has one section per entry.
#include "agent/rewrite_engine.h"
#include "analysis/findings.h"

namespace warplens::agent {

const char* to_string(RewriteStage s) {
  switch (s) {
    case RewriteStage::Structure: return "structure";
    case RewriteStage::Memory: return "memory";
    case RewriteStage::Loop: return "loop";
    case RewriteStage::Launch: return "launch";
  }
  return "?";
}

const std::vector<RewriteInfo>& rewrite_catalogue() {
  using S = RewriteStage;
  static const std::vector<RewriteInfo> catalogue = {
      {"inline-device-call",
       "inline a small read-only __device__ helper where the kernel calls it (its loop becomes the kernel's), so "
       "that the rewrites built on the kernel's loops (warp-per-row and its row cache) see the helper's work",
       S::Structure,
       {},
       {},
       /*enabling=*/true},
      {"pointer-walk",
       "spell a pointer the kernel steps once per loop iteration (`p += cols;` at the end of the body) from the "
       "loop's counter (`p[(long long)(r - 0) * cols]`), so that the rewrites built on a loop's subscripts "
       "(column-block, warp-per-row) see the elements it reads",
       S::Structure,
       {},
       {},
       /*enabling=*/true},
      {"block-dim-index",
       "spell a global index written with the block size as a constant (`blockIdx.x * BLOCK + threadIdx.x`, a "
       "macro or template parameter), or a block index alone (`row = blockIdx.y` with one thread along y), with "
       "blockDim, when every launch has that block size, so that the rewrites built on global indices apply",
       S::Structure,
       {},
       {}},
      {"unflatten-index",
       "turn a 1-D kernel over a flattened M x N index (`r = i / N`, `c = i % N`, `i < M * N`) into a 2-D kernel "
       "on 32x8 blocks whose grid is sized from M and N, so that the 2-D rewrites apply",
       S::Structure,
       {},
       {codes::kUncoalescedGlobal}},
      {"register-accumulator",
       "keep a sum that a loop accumulates straight into global memory (`out[i] += ...`) in a register: one load "
       "before the loop, one store after it",
       S::Structure,
       {},
       {}},
      {"pad-shared",
       "pad the innermost dimension of a __shared__ array so a warp's accesses spread over all 32 banks",
       S::Memory,
       {{"pad", {1, 2, 4}, "elements added to the innermost dimension (the bank-conflict quick fix's choice)"}},
       {codes::kSharedBankConflict}},
      {"stage-shared-tile",
       "stage a transposed (strided) global access through a padded 32x32 shared tile so both the load and "
       "the store are coalesced",
       S::Structure,
       {{"rows", {8, 16, 32}, "thread rows per block (each thread moves 32/rows elements)"}},
       {codes::kUncoalescedGlobal}},
      {"permute-tile",
       "regroup a one-thread-per-output permutation (`out[i] = in[g(i)]`, g through the index's digits `i / S`, "
       "`(i / S) % K`) into 32x32 tiles of (i, the digit that steps the load by one element) moved through a "
       "padded shared tile, so both the gathered load and the store are coalesced",
       S::Structure,
       {{"rows", {8, 16}, "thread rows per block (each thread moves 32/rows elements per tile)"}},
       {codes::kUncoalescedGlobal}},
      {"restrict-const",
       "mark read-only pointer parameters `const __restrict__` (and written ones `__restrict__`) when no "
       "launch passes aliasing pointers",
       S::Memory,
       {},
       {}},
      {"vectorize",
       "process `width` consecutive elements per thread with 8/16-byte loads and stores, with an alignment "
       "guard and a scalar tail; grid-stride, so any grid is correct",
       S::Memory,
       {{"width", {4, 2}, "elements per vector access"},
        {"shrink-grid", {1, 0}, "1: launch width-times fewer threads; 0: keep the original grid"}},
       {codes::kUncoalescedGlobal}},
      {"vectorize-struct",
       "load and store a whole array-of-structures element with 16/8-byte accesses instead of one field "
       "at a time, through a local copy",
       S::Memory,
       {},
       {codes::kUncoalescedGlobal}},
      {"vectorize-loop",
       "read and write a per-thread loop's contiguous chunk (`for (k = 0; k < C; ++k) ... A[base + k]`) with "
       "16/8-byte accesses, behind an alignment check",
       S::Memory,
       {},
       {codes::kUncoalescedGlobal}},
      {"coarsen-2d",
       "let each thread of a 2-D element-wise kernel handle `width` consecutive x, with one 8/16-byte access per "
       "array when the group is in bounds and aligned",
       S::Memory,
       {{"width", {4, 2}, "consecutive x elements per thread"}},
       {codes::kUncoalescedGlobal}},
      {"block-size",
       "launch with another block shape, the grid recomputed to cover the same threads",
       S::Launch,
       {{"x", {128, 256, 512, 1024}, "block x extent"}, {"y", {1}, "block y extent"}},
       {codes::kLowOccupancy, codes::kCannotLaunch}},
      {"launch-bounds",
       "add __launch_bounds__(block, min-blocks) so the compiler caps registers for that many resident blocks",
       S::Launch,
       {{"min-blocks", {2, 3, 4, 8}, "blocks that must fit on one multiprocessor"}},
       {codes::kLowOccupancy, codes::kCannotLaunch, codes::kRegisterSpill}},
      {"unroll", "add `#pragma unroll factor` to innermost loops that have none", S::Loop,
       {{"factor", {4, 8, 2}, "unroll factor"}}, {}},
      {"grid-stride",
       "turn a one-element-per-thread kernel into a grid-stride loop (correct for any grid) and optionally "
       "launch a persistent grid",
       S::Loop,
       {{"blocks-per-sm", {8, 16, 32}, "at most this many blocks per SM (the kernel is correct for any grid)"}},
       {}},
      {"warp-shuffle-reduction",
       "replace a shared-memory tree reduction (interleaved or sequential addressing) with warp shuffles and "
       "one shared slot per warp",
       S::Structure,
       {},
       {codes::kWarpDivergence, codes::kSharedBankConflict}},
      {"reduction-grid-stride",
       "let each thread of an atomically-combined block reduction accumulate many elements (grid-stride, "
       "optionally vectorised) and launch a persistent grid",
       S::Structure,
       {{"vector", {4, 1}, "elements per load"}, {"blocks-per-sm", {4, 8}, "blocks per SM"}},
       {}},
      {"swap-thread-mapping",
       "exchange the x and y roles of a 2-D kernel whose threadIdx.x drives the slow (strided) dimension of "
       "its global accesses; the launch swaps grid and block so the same (i, j) pairs are computed",
       S::Structure,
       {},
       {codes::kUncoalescedGlobal}},
      {"tile-k-loop",
       "stage the operands of a 2-D kernel's reduction loop (acc += f(A[row, k], B[k, col])) through shared "
       "tiles, so each element is loaded once per block instead of once per thread",
       S::Structure,
       {{"tile", {32, 16}, "tile edge; the block becomes tile x tile"}},
       {codes::kUncoalescedGlobal}},
      {"register-tile",
       "compute a matrix-product-like kernel (acc += f(A[row, k], B[k, col])) in 16x16 blocks that own a tile x tile "
       "output tile, each thread (tile/16)^2 outputs in registers, the operands staged through shared slices with "
       "vector loads",
       S::Structure,
       {{"tile", {128, 64}, "output tile edge per block (each thread computes (tile/16)^2 outputs)"}},
       {codes::kUncoalescedGlobal}},
      {"privatize-atomics",
       "add a kernel's contended global atomicAdds (histograms) into a per-block copy in shared memory and flush "
       "each nonzero bin once per block; element-wise kernels become grid-stride loops on a persistent grid",
       S::Structure,
       {{"bins", {1024, 4096}, "slots of the per-block copy (the bin count when the analysis can bound it)"},
        {"blocks-per-sm", {8, 4}, "persistent blocks per SM (0: launch unchanged)"}},
       {}},
      {"stencil-tile",
       "stage a 2-D stencil's neighbourhood (halo included) in shared memory once per block, so each input element "
       "is read from global memory once instead of once per neighbour",
       S::Structure,
       {{"rows", {8, 16}, "thread rows per block (the block becomes 32 x rows)"}},
       {codes::kUncoalescedGlobal}},
      {"window-tile",
       "stage the neighbourhood a 2-D kernel's window loops read (a convolution's K x K taps, zero padding "
       "spelled as `continue`) in shared memory once per block, so each input element is read from global memory "
       "once instead of once per window position",
       S::Structure,
       {{"rows", {8, 16}, "thread rows per block (the block becomes 32 x rows)"}},
       {codes::kUncoalescedGlobal}},
      {"window-tile-1d",
       "stage the stretch a 1-D kernel's window loop reads (a 1-D convolution's taps, zero padding spelled as "
       "`continue` or `if`, or clamped) in shared memory once per block",
       S::Structure,
       {{"block", {256}, "threads per block (the block becomes block x 1)"}},
       {}},
      {"stencil-stream",
       "compute several consecutive rows of a 2-D stencil per thread, loading each input element the rows read "
       "once into a register (vertical neighbours are the next rows' centres)",
       S::Structure,
       {{"rows", {4, 8}, "output rows per thread (the block becomes 32 x 4)"}},
       {codes::kUncoalescedGlobal}},
      {"interleave-chunks",
       "make a thread-per-chunk loop (thread t handles elements t*K .. t*K+K-1) interleaved (element k*T + t), "
       "so each step of the loop is coalesced; the same elements are processed",
       S::Structure,
       {},
       {codes::kUncoalescedGlobal}},
      {"split-serial-loop",
       "spread the iterations of a thread's final loop (a 3-D stencil walking z, a thread per row writing its "
       "row) over threads along the grid's z when they are independent: more threads in flight, the same "
       "elements written",
       S::Structure,
       {{"splits", {8, 4, 16}, "threads along z sharing one loop's iterations"}},
       {codes::kLowOccupancy}},
      {"stage-row-walk",
       "run a thread-per-row serial walk (a recurrence along the thread's own row: `p[t * S + i]`, lanes a row "
       "apart) in chunks whose stretch of every row of the block is copied through shared memory, coalesced",
       S::Structure,
       {{"block", {64, 32, 128}, "threads (rows) per block (the block becomes block x 1)"},
        {"chunk", {32, 16}, "loop steps per chunk (each row's stretch in shared memory)"}},
       {codes::kUncoalescedGlobal}},
      {"warp-per-row",
       "give each row of a thread-per-row kernel (matvec, softmax, norms) a warp or a block: lanes stride the "
       "row, shuffle (and shared) reductions combine them, lane 0 finishes; optionally the row is read once "
       "into registers",
       S::Structure,
       {{"lanes", {32, 256, 1024, 4, 8, 16}, "threads per row: 32 (a warp), a whole block, or 2..16 (32/lanes rows "
                  "interleaved in a warp: a thread-per-column walk down a matrix stays coalesced)"},
        {"cache", {0, 8, 16, 32}, "row elements each lane keeps in registers (0: none; longer rows fall back)"},
        {"contiguous", {0, 1}, "with 2..16 lanes: 1 puts a row's lanes next to each other in the warp (short rows "
                               "walked along: 32/lanes whole rows per warp), 0 interleaves them (column walks)"}},
       {codes::kUncoalescedGlobal}},
      {"column-block",
       "give a thread-per-column walk down a matrix (column sums, A^T x, per-channel statistics) 2-D blocks of 32 "
       "columns x lanes: the lanes along y share each column's rows, reductions meet in shared memory",
       S::Structure,
       {{"lanes", {32, 16, 8}, "threads along y per column (the block is 32 x lanes)"}},
       {codes::kLowOccupancy}},
      {"fuse-elementwise",
       "fuse two back-to-back element-wise launches that communicate through a temporary buffer into one "
       "kernel; the temporary is no longer written or read",
       S::Structure,
       {},
       {codes::kFusableIntermediate}},
  };
  return catalogue;
}

const RewriteInfo* find_rewrite(const std::string& name) {
  for (const auto& r : rewrite_catalogue())
    if (r.name == name) return &r;
  return nullptr;
}

namespace {

std::int64_t step_param(const RewriteStep& step, const std::string& name) {
  if (auto it = step.params.find(name); it != step.params.end()) return it->second;
  if (const RewriteInfo* info = find_rewrite(step.rewrite))
    for (const auto& p : info->params)
      if (p.name == name && !p.values.empty()) return p.values.front();
  return 0;
}

}  // namespace

// Mirrors what each rewrite in agent/rewrites/ puts in ApplyResult (the
// recorded candidates are checked against it, see
// tests/unit/agent/candidate_launch_catalogue_test.cpp).
std::optional<DeclaredLaunch> declared_launch(const RewriteStep& step) {
  const std::string& r = step.rewrite;
  DeclaredLaunch d;
  LaunchChange c;
  if (r == "pad-shared" || r == "restrict-const" || r == "vectorize-struct" || r == "vectorize-loop" ||
      r == "launch-bounds" || r == "unroll" || r == "warp-shuffle-reduction" || r == "interleave-chunks" ||
      r == "register-accumulator" || r == "block-dim-index" || r == "inline-device-call" || r == "pointer-walk")
    return d;
  if (r == "unflatten-index") {
    // The grid comes from the kernel's own M and N (which parameters: the
    // kernel decides, so the recorded declaration is compared by shape).
    c.block = Dim3{32, 8, 1};
    c.cover = std::array<ParamExtent, 2>{ParamExtent{-1, 1000}, ParamExtent{-1, 1000}};  // a stand-in M x N
    d.changes_depend_on_kernel = true;
  } else if (r == "stage-shared-tile") {
    const std::int64_t rows = step_param(step, "rows");
    c.block = Dim3{32, rows, 1};
    c.thread_scale[1] = {1, rows > 0 ? 32 / rows : 0};
  } else if (r == "permute-tile") {
    c.block = Dim3{32, step_param(step, "rows"), 1};
    c.thread_scale[0] = {1, 32};
  } else if (r == "vectorize") {
    if (step_param(step, "shrink-grid") == 0) return d;
    c.thread_scale[0] = {1, step_param(step, "width")};
  } else if (r == "block-size") {
    c.block = Dim3{step_param(step, "x"), step_param(step, "y"), 1};
  } else if (r == "grid-stride" || r == "reduction-grid-stride") {
    const std::int64_t k = step_param(step, "blocks-per-sm");
    if (k <= 0 && r == "grid-stride") return d;  // a grid-stride loop over the original grid
    c.persistent_blocks_per_sm = static_cast<int>(k);
  } else if (r == "swap-thread-mapping") {
    c.swap_xy = true;
  } else if (r == "tile-k-loop") {
    const std::int64_t tile = step_param(step, "tile");
    c.block = Dim3{tile, tile, 1};
  } else if (r == "warp-per-row") {
    const std::int64_t lanes = step_param(step, "lanes");
    c.thread_scale[0] = {lanes, 1};
    if (lanes > 32) c.block = Dim3{lanes, 1, 1};  // a block per row
  } else if (r == "split-serial-loop") {
    c.thread_scale[2] = {step_param(step, "splits"), 1};
  } else if (r == "column-block") {
    const std::int64_t lanes = step_param(step, "lanes");
    c.block = Dim3{32, lanes, 1};
    c.thread_scale[1] = {lanes, 1};
  } else if (r == "register-tile") {
    const std::int64_t per = step_param(step, "tile") / 16;  // outputs per thread along each axis
    c.block = Dim3{16, 16, 1};
    c.thread_scale[0] = {1, per};
    c.thread_scale[1] = {1, per};
  } else if (r == "stencil-tile" || r == "window-tile") {
    c.block = Dim3{32, step_param(step, "rows"), 1};
  } else if (r == "window-tile-1d" || r == "stage-row-walk") {
    c.block = Dim3{step_param(step, "block"), 1, 1};
  } else if (r == "stencil-stream") {
    c.block = Dim3{32, 4, 1};
    c.thread_scale[1] = {1, step_param(step, "rows")};
  } else if (r == "coarsen-2d") {
    c.thread_scale[0] = {1, step_param(step, "width")};
  } else if (r == "privatize-atomics") {
    const std::int64_t k = step_param(step, "blocks-per-sm");
    if (k <= 0) return d;
    // Persistent only when the kernel's work can become a grid-stride loop
    // (element-wise or already grid-stride); otherwise the launch is kept.
    c.persistent_blocks_per_sm = static_cast<int>(k);
    d.changes_depend_on_kernel = true;
  } else if (r == "fuse-elementwise") {
    d.fuses = true;
    return d;
  } else {
    return std::nullopt;
  }
  d.changes.push_back(c);
  return d;
}

std::vector<RewriteStep> catalogue_variants(const RewriteInfo& info) {
  std::vector<RewriteStep> out{RewriteStep{info.name, {}}};
  for (const auto& p : info.params) {
    std::vector<RewriteStep> next;
    for (const auto& step : out)
      for (std::int64_t v : p.values) {
        RewriteStep s = step;
        s.params[p.name] = v;
        next.push_back(std::move(s));
      }
    out = std::move(next);
  }
  return out;
}

}  // namespace warplens::agent
