// Shared-memory bank conflicts: `shared-bank-conflict`.
//
// Shared memory has 32 banks of 4-byte words (bank = byte address / 4 mod
// 32). The warp model counts the wavefronts one warp request needs (the
// busiest bank's distinct words, per half/quarter-warp phase for 8/16-byte
// accesses) against the conflict-free ideal, the pair the profiler reads
// (`l1tex_pipe_lsu_wavefronts_mem_shared` and `_ideal`). At or above
// `AnalysisOptions::bank_conflict_threshold` (2-way) it is a warning with the
// degree in the message and the bank map in the hover, and, when the array
// can be padded safely, a quick fix that pads its innermost dimension.
#pragma once

#include <string>
#include <vector>

#include "analysis/analysis_options.h"
#include "analysis/device_call_inlining.h"
#include "analysis/findings.h"
#include "analysis/launch_contexts.h"

namespace warplens {

std::vector<Finding> find_bank_conflicts(const KernelView& view, const KernelContexts& contexts,
                                         const AnalysisOptions& options, const std::string& file);

}  // namespace warplens
