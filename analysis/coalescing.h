// Global-memory coalescing: `uncoalesced-global` and `indirect-access`.
//
// For each global load and store the warp model counts the distinct 32-byte
// sectors one warp request touches and compares them with the ideal for its
// active lanes (ceil(active × element bytes / 32)), the same pair of
// quantities the profiler reads (`smsp__sass_sectors_mem_global` and
// `_ideal`). A ratio at or above `AnalysisOptions::uncoalesced_threshold`
// (1.25) is a warning; see access_evaluation.h for the per-line rule and
// unknown block shapes. Accesses whose address depends on per-lane loaded
// data (`in[idx[i]]`) cannot be judged statically and get an
// `indirect-access` hint instead.
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

// Global and shared accesses with a data-dependent per-lane address (a
// load whose index differs between the lanes of a warp).
std::vector<Finding> find_indirect_accesses(const KernelView& view, const KernelContexts& contexts,
                                           const std::string& file);

}  // namespace warplens
