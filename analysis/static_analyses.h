// The static memory-access and divergence analyses over a kernel model:
// uncoalesced-global, indirect-access, shared-bank-conflict,
// divergent-barrier, warp-divergence; and, over the host code,
// fusable-intermediate (fusion.h).
//
// Each kernel is analysed with the device functions it calls inlined
// (device_call_inlining.h) under its launch contexts (launch_contexts.h).
// Code reached from several kernels, template instantiations or call sites is
// reported once per source range and access kind: the worst verdict wins.
// Device functions no kernel of the file calls are not judged: their
// parameters could be anything.
#pragma once

#include <stop_token>
#include <vector>

#include "analysis/analysis_options.h"
#include "analysis/findings.h"
#include "analysis/kernel_model.h"

namespace warplens {

std::vector<Finding> run_static_analyses(const KernelModel& model, const AnalysisOptions& options,
                                         std::stop_token stop = {});

}  // namespace warplens
