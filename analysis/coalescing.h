// Global-memory coalescing: `uncoalesced-global` and `indirect-access`.
//
// For each global load and store the warp model counts the distinct 32-byte
// sectors one warp request touches and compares them with the ideal for its
// active lanes (ceil(active × element bytes / 32)), the same pair of
// quantities the profiler reads (`smsp__sass_sectors_mem_global` and
// `_ideal`). A ratio at or above `AnalysisOptions::uncoalesced_threshold`
// (1.25) is a warning; see access_evaluation.h for the per-line rule and
// unknown block shapes. A load or store whose address depends on per-lane
// loaded data (`in[idx[i]]`, `out[pos]` after a search over loaded keys)
// cannot be counted statically: it is reported as information saying so
// (access_evaluation.h, data_dependent_finding), unless its data-dependent
// part is warp-uniform (then it is judged) or one lane runs it. Atomics with
// such addresses get the `indirect-access` hint.
#pragma once

#include <string>
#include <vector>

#include "analysis/analysis_options.h"
#include "analysis/device_call_inlining.h"
#include "analysis/findings.h"
#include "analysis/launch_contexts.h"

namespace warplens {

std::vector<Finding> find_uncoalesced_accesses(const KernelView& view, const KernelContexts& contexts,
                                               const AnalysisOptions& options, const std::string& file);

// `indirect-access` hints: accesses with a data-dependent per-lane address
// that the two memory codes do not report (atomics; shared accesses the
// bank model evaluates over random data).
std::vector<Finding> find_indirect_accesses(const KernelView& view, const KernelContexts& contexts,
                                           const std::string& file);

}  // namespace warplens
