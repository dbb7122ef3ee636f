// The warp model: the 32 lanes of one warp, the threads they are, and what
// the memory system makes of the addresses they produce.
//
// Every static memory analysis asks the same three questions of an access:
// which thread is each lane (block shape, linear id = x + y*Bx + z*Bx*By),
// which lanes are active (guards evaluated per lane), and which address does
// each active lane touch (the index expression evaluated per lane). From the
// addresses it counts what the hardware counts: distinct 32-byte sectors for
// global memory (`smsp__sass_sectors_mem_global` vs `_ideal`) and shared-memory
// wavefronts (`l1tex_pipe_lsu_wavefronts_mem_shared` vs `_ideal`).
//
// Values the source does not fix but every lane of a warp shares (blockIdx,
// gridDim, kernel parameters, loop counters, uniform loads) are given
// concrete stand-ins under an `Assumption`. Evaluating under two different
// "large" assumptions and comparing per-lane *differences* tells whether a
// pattern depends on such an unknown (e.g. `threadIdx.x * n`); a third,
// "small" assumption tells a guard that genuinely splits a warp (`tid % 2`)
// from one that only splits the warp at a boundary (`tid < n`).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis_options.h"
#include "analysis/kernel_model.h"
#include "analysis/index_expr.h"

namespace warplens {

inline constexpr int kWarpSize = 32;
inline constexpr int kSectorBytes = 32;   // global-memory transaction granule
inline constexpr int kBankCount = 32;     // shared-memory banks
inline constexpr int kBankWidthBytes = 4; // one bank serves one 4-byte word per wavefront

using LaneMask = std::uint32_t;  // bit i = lane i
inline constexpr LaneMask kAllLanes = 0xffffffffu;
int lane_count(LaneMask m);
inline bool lane_in(LaneMask m, int lane) { return (m >> lane) & 1u; }

struct ThreadCoord {
  std::int64_t x = 0, y = 0, z = 0;
};

// The threads behind the lanes of warp `warp` of a block of `shape`.
struct WarpLanes {
  BlockShape shape;
  int warp = 0;
  std::array<ThreadCoord, kWarpSize> thread{};
  LaneMask exists = 0;  // lanes whose linear thread id is inside the block
};
WarpLanes warp_lanes(const BlockShape& shape, int warp);
int warps_per_block(const BlockShape& shape);

// The warps worth evaluating: warp 0, plus warp 1 when the block's x-extent
// is not a multiple of 32 (2-D blocks narrower than a warp such as 16x16 or
// 8x32, where one warp spans several rows) and the block has a second warp.
std::vector<int> representative_warps(const BlockShape& shape);

// How warp-uniform unknowns are valued. Two kinds:
// - sizes (kernel parameters, gridDim): distinct multiples of 16384 per
//   symbol, so they never fake misalignment (base pointers are assumed
//   256-byte aligned, as cudaMalloc returns) and an unknown per-lane stride
//   comes out large (lanes >= 32 bytes apart);
// - positions (blockIdx, loop counters, other uniform locals and loaded
//   values): distinct multiples of 8, small next to the sizes they index,
//   plus a `variation` (0-3, a different order per symbol): the hardware's
//   count for one source line is summed over every block and iteration, so a
//   row pitch such as `nx + 2` or a loop offset `in[i + k]` is seen at
//   several alignments, not at one lucky or unlucky one.
// The two large assumptions use different multiples so that dependence on
// an unknown shows; the small one (1, 3, 5) tells a guard that splits every
// warp (`tid % 2`) from one that splits a boundary warp only (`tid < n`).
// The edge one (positions 0, sizes 32) looks at the first block: does a
// bounds check switch off some lanes of an edge warp (`i > 0`, `x < W - 1`)
// or only whole warps (`i < n`, sizes being multiples of 32)?
enum class Assumption : std::uint8_t { LargeA, LargeB, Small, Edge };
inline constexpr int kVariations = 4;
inline constexpr std::int64_t kSizeUnit = 16384;
inline constexpr std::int64_t kPositionUnit = 8;
std::int64_t assumed_value(const std::string& key, Assumption a, bool position = false, int variation = 0);

struct EvalContext {
  BlockShape shape;
  Assumption assumption = Assumption::LargeA;
  // Kernel parameters whose value is known (an integer literal at the launch
  // site); they take precedence over the assumption.
  const std::map<std::string, std::int64_t>* known_params = nullptr;
  int variation = 0;  // 0..kVariations-1, see above
  // Values of Iteration symbols (how many iterations of a loop ran), by
  // name; a symbol not in it has run 0 iterations (its loop's first).
  const std::map<std::string, std::int64_t>* iterations = nullptr;
  // > 0: values loaded per lane (`bins[data[i]]`) are pseudo-random 32-bit
  // numbers, one draw per value of this counter; 0: they are unknown.
  int random_draw = 0;
};

// Draws of random data averaged for a shared access whose address depends on
// per-lane loaded data (a histogram's `s_hist[value]++`).
inline constexpr int kRandomDraws = 16;

// Iterations sampled for a loop whose values change non-affinely (a Recur:
// `stride >>= 1`, `offset <<= 1`): 0 .. kIterationSamples-1 for one such
// loop (a factor-of-two walk down from the large sizes the model assumes
// reaches 1 within them), kNestedIterationSamples each for two nested ones.
// Iterations past a loop's end (its condition false for the warp) are left
// out. The hardware runs every iteration and its per-line counts sum over
// them, so the model averages over these.
inline constexpr int kIterationSamples = 32;
inline constexpr int kNestedIterationSamples = 16;
// At most this many such loops around one access are sampled jointly; any
// further one stays at its first iteration.
inline constexpr int kMaxSampledLoops = 2;

// The Iteration symbols an expression mentions, by name (at most
// kMaxSampledLoops).
std::vector<std::string> iteration_symbols(const ExprRef& e);

struct LaneValues {
  std::array<std::int64_t, kWarpSize> value{};
  LaneMask known = 0;  // lanes whose value could be computed
};

// Evaluates `e` for every existing lane of `w`. Lanes that depend on a
// lane-varying unknown (a per-lane load, an unresolved lane-varying local)
// are left out of `known`.
LaneValues evaluate_lanes(const ExprRef& e, const WarpLanes& w, const EvalContext& ctx);

// How a condition divides the lanes of one warp.
enum class LaneSplit : std::uint8_t {
  Uniform,         // every lane agrees under every assumption
  Split,           // lanes disagree, the same way under every assumption (tid % 2, tid < 16)
  ValueDependent,  // lanes disagree under some assumptions only (tid < n: a boundary warp)
  Unknown,         // some lane's value cannot be computed (data-dependent)
};
struct ConditionLanes {
  LaneSplit split = LaneSplit::Unknown;
  LaneMask true_lanes = 0;     // under LargeA, among `considered`
  LaneMask considered = 0;     // the lanes evaluated
  bool splits_under_large = false;  // lanes disagree under both large assumptions
  bool count_stable = true;    // same number of true lanes under all three assumptions
  std::array<int, 3> true_count{};  // true lanes under LargeA, LargeB, Small
};
ConditionLanes classify_condition(const ExprRef& cond, const WarpLanes& w, LaneMask lanes,
                                  const EvalContext& ctx);

// "The statement runs when `condition` evaluates to `taken`."
struct LaneGuard {
  ExprRef condition;
  bool taken = true;
};

// Lanes that execute a statement under `guards`. A guard narrows the set only
// when it splits the warp the same way whatever the unknowns are (`tid % 2`,
// `threadIdx.y == 0` in a 16x16 block); a guard that is uniform or splits
// only a boundary warp (`i < n`) leaves every lane active, because that is
// what almost every execution of the statement looks like.
LaneMask active_lanes(const std::vector<LaneGuard>& guards, const WarpLanes& w, const EvalContext& ctx);

// True when some guard switches off part of a warp at the edge of the data
// (Assumption::Edge): `if (i > 0)`, `if (x < W - 1)`. The whole-run count of
// an access under such a guard is a little below what its interior warps
// show, which matters only for a ratio exactly at a threshold.
bool guards_cut_edge_warps(const std::vector<LaneGuard>& guards, const WarpLanes& w, const EvalContext& ctx);

// Per-lane byte offsets of one memory access, with the dependence check.
struct AccessLanes {
  bool modelled = false;        // every active lane's offset is known
  LaneMask active = 0;
  LaneValues offsets;           // bytes from the base, under LargeA
  bool depends_on_unknown = false;  // per-lane differences change with the unknowns
};
AccessLanes evaluate_access(const ExprRef& byte_offset, const std::vector<LaneGuard>& guards,
                            const WarpLanes& w, const EvalContext& ctx);

// The width of the memory instructions an access of `element_bytes` compiles
// to: the type's alignment (at most 16). A float3 (12 bytes, 4-aligned) is
// three 4-byte loads, a uchar3 three 1-byte loads, a float4 one 16-byte
// load. `element_align` 0 (unknown): the largest power of two dividing the size.
int access_chunk_bytes(int element_bytes, int element_align);
LaneValues shifted(const LaneValues& v, std::int64_t delta);

// Global memory: distinct 32-byte sectors one warp request touches, and the
// ideal for the active lanes (ceil(active * bytes / 32)).
struct SectorCount {
  int sectors = 0;
  int ideal = 0;
  int active = 0;
  double ratio() const { return ideal ? double(sectors) / ideal : 0.0; }
};
SectorCount count_sectors(const LaneValues& offsets, LaneMask active, int element_bytes);
std::int64_t sector_of(std::int64_t byte_offset);

// Shared memory: wavefronts one warp request needs. Accesses up to 4 bytes are
// served in one phase of 32 lanes; 8-byte accesses in two half-warp phases,
// 16-byte accesses in four quarter-warp phases. In each phase every bank
// serves one distinct 4-byte word per wavefront (lanes reading the same word
// share it), so the phase needs as many wavefronts as its busiest bank has
// distinct words. Ideal: one wavefront per phase with active lanes.
struct WavefrontCount {
  int wavefronts = 0;
  int ideal = 0;
  int degree = 1;        // n-way: most distinct words one bank serves in one phase
  int worst_phase = 0;   // the phase with that bank
  int phase_lanes = 32;  // lanes per phase
  std::array<int, kBankCount> words_per_bank{};  // distinct words per bank in the worst phase
  double ratio() const { return ideal ? double(wavefronts) / ideal : 0.0; }
};
WavefrontCount count_wavefronts(const LaneValues& offsets, LaneMask active, int element_bytes);
int bank_of(std::int64_t byte_offset);

// The counts of a whole access: one per alignment-wide piece
// (access_chunk_bytes), summed; for wavefronts, degree and bank map are the
// worst piece's.
SectorCount count_access_sectors(const LaneValues& offsets, LaneMask active, int element_bytes, int element_align);
WavefrontCount count_access_wavefronts(const LaneValues& offsets, LaneMask active, int element_bytes,
                                       int element_align);

}  // namespace warplens
