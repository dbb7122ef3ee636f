// Evaluating a kernel's memory accesses under each launch context and
// turning the numbers into verdicts. The coalescing and bank-conflict
// analyses differ only in what they count (sectors or wavefronts); the rest
// is shared and lives here:
//
// - each access is evaluated for the representative warps of each context
//   and the worst warp kept;
// - an access is flagged in a context when its own ratio (actual / ideal)
//   reaches the threshold *and* so does the sum over the accesses of the
//   same kind on its source line. That is the per-line view the profiler
//   shows (sectors summed over a line's instructions), so a stencil line
//   `in[i-1] + in[i] + in[i+1]` (5 + 4 + 5 sectors for 3 × 4 ideal) is not
//   reported while `float left = in[i-1];` alone (5 for 4) is;
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

// One access under one launch context: its worst representative warp.
struct AccessEvaluation {
  bool modelled = false;
  WarpLanes warp;
  AccessLanes lanes;
  int actual = 0;  // sectors or wavefronts
  int ideal = 0;
  int degree = 1;  // shared: n-way
  WavefrontCount wavefronts;
  double ratio() const { return ideal > 0 ? double(actual) / ideal : 0.0; }
};

// Fills actual/ideal (and degree) from `lanes`, for one warp.
using AccessMeasure = std::function<void(const BoundAccess&, AccessEvaluation&)>;

// [access][context]
using EvaluationTable = std::vector<std::vector<AccessEvaluation>>;
EvaluationTable evaluate_accesses(const std::vector<const BoundAccess*>& accesses, const KernelContexts& contexts,
                                  const AccessMeasure& measure);

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
