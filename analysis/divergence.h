// Control-flow divergence: `divergent-barrier` and `warp-divergence`.
//
// divergent-barrier (error): a block-wide barrier (`__syncthreads*`,
// cooperative-groups block/grid sync) that some threads of a block can skip
// because a condition on the way to it depends on the thread — an `if` on
// threadIdx or on per-thread data, or a loop whose trip count differs per
// thread (`for (i = threadIdx.x; i < n; i += blockDim.x)`). Threads that
// skip it never arrive: undefined behaviour, in practice a hang or a race.
// `__syncwarp()` is judged per warp: only conditions that split the lanes of
// a warp make it divergent. A barrier that follows a thread-dependent early
// exit (`if (i >= n) return;`) is reported as a warning, not an error: the
// programming guide calls it undefined, but on sm_70+ exited threads no
// longer count toward the barrier, so it works; the usual real bug is that
// the exited threads were meant to load their share of a shared tile. An
// early exit (break/continue/return) inside the loop that contains the
// barrier is an error again: the remaining threads run more iterations, and
// more barriers, than the ones that left.
//
// warp-divergence (hint): a branch whose condition splits the lanes of a
// warp for every value of the unknowns (`tid % 2`, `threadIdx.x < 16`), with
// the fraction of lanes on each side. Not reported: boundary checks
// (`i < n`: they split at most one warp), data-dependent conditions (the
// split depends on the data), and single-lane sections (`if (lane == 0)`:
// the idiom for one result per warp, usually predicated).
#pragma once

#include <string>
#include <vector>

#include "analysis/analysis_options.h"
#include "analysis/device_call_inlining.h"
#include "analysis/findings.h"
#include "analysis/launch_contexts.h"

namespace warplens {

std::vector<Finding> find_divergent_barriers(const KernelView& view, const KernelContexts& contexts,
                                             const std::string& file);

std::vector<Finding> find_warp_divergence(const KernelView& view, const KernelContexts& contexts,
                                          const std::string& file);

}  // namespace warplens
