// Evaluating a kernel's memory accesses under each launch context and
// turning the numbers into verdicts. The coalescing and bank-conflict
// analyses differ only in what they count (sectors or wavefronts); the rest
// is shared and lives here:
//
// - each access is evaluated for the first warps of the block (up to
//   kAveragedWarps: this covers the second warp of blocks narrower than 32
//   and the rows of a 2-D block) at several position variations, and the
//   counts are averaged, as the profiler's sums over all warps are; the hover
//   shows the warp with the worst ratio;
// - an access is flagged in a context when its own ratio (actual / ideal)
//   reaches the threshold *and* so does the sum over the accesses of the
//   same kind on its source line. That is the per-line view the profiler
//   shows (sectors summed over a line's instructions), so a stencil line
//   `in[i-1] + in[i] + in[i+1]` (5 + 4 + 5 sectors for 3 × 4 ideal) is not
//   reported while `float left = in[i-1];` alone (5 for 4) is;
// - a ratio exactly at the threshold under a bounds check that switches off
//   lanes of the edge warps (`if (x > 0 && x < W - 1)`, then `in[y*W + x-1]`
//   on its own line) is not flagged: the edge warps need fewer sectors, so
//   the line's whole-run ratio ends just below the threshold (1.246 for a
//   2048-wide row), and that is what the profiler reports;
// - across contexts: with known shapes the worst context is reported; with
//   guessed shapes a verdict that not every guess shares is downgraded to
//   information.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "analysis/device_call_inlining.h"
#include "analysis/findings.h"
#include "analysis/launch_contexts.h"
#include "analysis/warp_model.h"

namespace warplens {

inline constexpr int kAveragedWarps = 4;

// One access under one launch context: counts averaged over warps and
// variations; the lanes of the worst warp for the hover.
struct AccessEvaluation {
  bool modelled = false;
  WarpLanes warp;
  AccessLanes lanes;        // the worst warp's lanes (for the hover)
  double actual = 0;        // sectors or wavefronts per request, averaged over warps and variations
  double ideal = 0;
  bool alignment_varies = false;  // the count differs between variations
  bool edge_warps_cut = false;    // a bounds check switches off lanes of edge warps
  int degree = 1;           // shared: n-way
  WavefrontCount wavefronts;
  double ratio() const { return ideal > 0 ? actual / ideal : 0.0; }
};

// Counts (actual, ideal) for one evaluation of the lanes; `e` is the warp's
// evaluation, for details the finding shows (filled when `first`).
using AccessMeasure =
    std::function<std::pair<int, int>(const BoundAccess&, const AccessLanes&, AccessEvaluation& e, bool first)>;

// [access][context]. `variations`: how many position variations to average
// (warp_model.h): kVariations for global memory, 1 for shared memory (whose
// banks a uniform shift does not change for naturally aligned accesses).
using EvaluationTable = std::vector<std::vector<AccessEvaluation>>;
EvaluationTable evaluate_accesses(const std::vector<const BoundAccess*>& accesses, const KernelContexts& contexts,
                                  int variations, const AccessMeasure& measure);

// [access][context]: flagged by the own-ratio and same-line rules above.
std::vector<std::vector<bool>> flag_accesses(const std::vector<const BoundAccess*>& accesses,
                                             const EvaluationTable& table, double threshold);

struct Verdict {
  int context = -1;              // the context whose numbers the finding shows
  Severity severity = Severity::Warning;
  bool shape_dependent = false;  // guessed shapes disagree
};
// nullopt: nothing to report for this access.
std::optional<Verdict> combine_contexts(const std::vector<bool>& flagged, const std::vector<AccessEvaluation>& evals,
                                        const KernelContexts& contexts);

}  // namespace warplens
