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
#include <string>
#include <vector>

#include "analysis/device_call_inlining.h"
#include "analysis/findings.h"
#include "analysis/launch_contexts.h"
#include "analysis/warp_model.h"

namespace warplens {

inline constexpr int kAveragedWarps = 4;
// Powers of two sampled for a mask parameter: 1 .. kMaxMaskSample.
inline constexpr std::int64_t kMaxMaskSample = 1024;
// Values sampled for a shift-count parameter (`N = 1 << log2N`): 0 ..
// kMaxShiftSample. 2^16 4-byte words is past any block's shared memory, so
// the shared arrays such a count indexes are covered.
inline constexpr std::int64_t kMaxShiftSample = 16;

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
  // Over every sample (warps, variations, loop iterations): the worst single
  // request's ratio, how many samples there were and how many exceeded 1.
  double peak_ratio = 0;
  int samples = 0;
  int samples_in_excess = 0;
  bool iterated = false;    // averaged over the iterations of a non-affine loop
  bool loop_never_runs = false;  // no sampled iteration of that loop runs (judged at its first)
  // A kernel parameter used as a power-of-two mask (`tid & (n - 1)`) whose
  // value the launch does not give: each plausible value's ratio (value -1:
  // the large stand-in); the numbers above are the worst value's.
  std::string sampled_parameter;
  std::vector<std::pair<std::int64_t, double>> parameter_ratios;
  // The sampled parameter is a shift count (`1 << log2N`), not a mask: its
  // plausible values are 0 .. kMaxShiftSample, and no large stand-in.
  bool shift_parameter = false;
  // One non-affine loop around the access (`stride >>= 2`): the values its
  // variable took in the sampled iterations, in order, and whether some
  // request conflicted (exceeded its ideal) at that value.
  std::string loop_variable;
  std::vector<std::pair<std::int64_t, bool>> loop_values;
  // The address depends on per-lane loaded data (shared memory only):
  // averaged over draws of uniformly random data (warp_model.h).
  bool random_data = false;
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

// [access][context]: flagged by the own-ratio and same-line rules above
// (the averaged ratio reaches `threshold`) and, when `peak_threshold` is set,
// some single request reaches it (a shared access averaging 1.5× over a
// loop's iterations is reported when some iteration is 2-way).
std::vector<std::vector<bool>> flag_accesses(const std::vector<const BoundAccess*>& accesses,
                                             const EvaluationTable& table, double threshold,
                                             double peak_threshold = 0);

struct Verdict {
  int context = -1;              // the context whose numbers the finding shows
  Severity severity = Severity::Warning;
  bool shape_dependent = false;  // guessed shapes disagree
  std::vector<int> flagged;      // the contexts in which the access is flagged
  std::vector<int> clear;        // the modelled contexts in which it is not
  // A mask parameter (AccessEvaluation::sampled_parameter) for which only
  // some plausible values reach the threshold: those values (-1: large).
  std::string parameter;
  std::vector<std::int64_t> parameter_values;
  bool parameter_shift = false;  // `parameter` is a shift count (its wording)
  // A loop walking a variable over a range that a run-time parameter sets,
  // in which some iterations conflict and others do not: the variable and
  // its values each way (the verdict is information: which iterations run
  // is the parameter's).
  std::string loop_variable, loop_parameter;
  std::vector<std::int64_t> loop_conflicting, loop_clean;
  bool random_data = false;      // modelled with random data: the data decides
};
// nullopt: nothing to report for this access.
// `threshold`: the ratio flagging used, to tell which values of a sampled
// mask parameter reach it (a verdict that holds for some only is information).
std::optional<Verdict> combine_contexts(const std::vector<bool>& flagged, const std::vector<AccessEvaluation>& evals,
                                        const KernelContexts& contexts, double threshold = 0);

// The whole pipeline for one kind of access: the accesses `judged` selects,
// evaluated with `measure`, flagged against `threshold`, combined across
// contexts. One entry per access to report.
struct JudgedAccess {
  const BoundAccess* access = nullptr;
  Verdict verdict;
  const AccessEvaluation* evaluation = nullptr;  // the verdict's context
  const LaunchContext* context = nullptr;
  std::size_t index = 0;                         // into `accesses` / `table`
};
struct Judgement {
  std::vector<const BoundAccess*> accesses;
  EvaluationTable table;
  std::vector<JudgedAccess> reported;
};
Judgement judge_accesses(const KernelView& view, const KernelContexts& contexts,
                         const std::function<bool(const BoundAccess&)>& judged, int variations,
                         const AccessMeasure& measure, double threshold, double peak_threshold = 0);

// Data-dependent addresses: an access whose per-lane address depends on
// data loaded from memory (a gather `in[idx[i]]`, a scatter to a searched
// position `out[pos]`, a binary search's probe `data[pos + s - 1]`), which
// the warp model cannot evaluate for the lanes of a warp. Not one whose
// data-dependent part is warp-uniform (`val[row_ptr[warp] + lane]`: judged
// like any other access), nor one a single lane of each warp runs.
bool per_lane_data_dependent(const BoundAccess& a, const KernelContexts& contexts);

// The information finding `code` (uncoalesced-global or shared-bank-conflict)
// gives such an access: what the address depends on, that the lanes'
// addresses are not known statically and the data decides the cost (up to
// one sector per lane, or a 32-way conflict).
Finding data_dependent_finding(const BoundAccess& a, const KernelView& view, const KernelContexts& contexts,
                               const std::string& file, const std::string& code);

// The end of a finding's message that names the context: "; worst with block
// 16×16", "; only with the guessed blocks 16×16 and 32×32 (not 32×8)", and
// " (in kernel `k`, through the call to `f` at line 12)" for device code.
std::string context_note(const Verdict& v, const KernelContexts& contexts, const BoundAccess& a,
                         const KernelView& view);

// The hover paragraph on the block shape and warp the numbers come from.
std::string shape_paragraph(const Verdict& v, const KernelContexts& contexts, const AccessEvaluation& e);

// Evidence every access finding carries: access, block_shape, block_source, shape_dependent.
void set_context_evidence(Finding& f, const Verdict& v, const KernelContexts& contexts, const BoundAccess& a);

}  // namespace warplens
