// fusable-intermediate: a device buffer that one kernel writes only for the
// next kernel to read back, element for element, and that nothing uses
// afterwards. Fusing the two kernels keeps the value in a register and
// removes a full write and a full read of the buffer
// (docs/diagnostics/fusable-intermediate.md).
//
// Reads the host-side model (KernelModel::host_functions) and the kernels'
// effects on their pointer parameters (kernel_effects.h). A pair is a
// warning only when everything is proven: same stream, same loop and branch,
// no alias or escape of the buffer, nothing in between that touches the
// first kernel's inputs or outputs, a matching index mapping, and the buffer
// dead after the second launch (freed, overwritten or out of scope). When
// the data flow is there but some of that cannot be proven, the finding is
// information and says why.
#pragma once

#include <stop_token>
#include <vector>

#include "analysis/analysis_options.h"
#include "analysis/findings.h"
#include "analysis/kernel_model.h"

namespace warplens {

std::vector<Finding> find_fusable_intermediates(const KernelModel& model, const AnalysisOptions& options,
                                                std::stop_token stop = {});

}  // namespace warplens
