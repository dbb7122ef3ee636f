// Choosing what to replay: which captured launches belong to the kernel,
// which input sets to run (captured ones first, the timed launch first of
// all, then fresh re-draws round-robin over the captured launches), and how
// long a candidate run may take before it counts as hung.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agent/verifier/replay_protocol.h"
#include "profiler/capture_format.h"

namespace warplens::verifier {

struct KernelLaunches {
  std::string symbol;          // the captured symbol (all chosen launches share it)
  std::vector<int> launches;   // manifest indices, the timed launch first
};

// `kernel` matches a launch's symbol, its demangled name, or its
// unqualified name. When several symbols match (overloads, template
// instances), the timed launch's symbol wins, else the first launch's.
std::optional<KernelLaunches> select_kernel_launches(const capture::CaptureManifest& manifest,
                                                     const std::string& kernel, int timing_launch,
                                                     std::string* error);

std::vector<InputSetSpec> plan_input_sets(const std::vector<int>& launches, int count, std::uint64_t seed);

// A single candidate run longer than this counts as hung: 50x the
// original's slowest run plus a second, at least 2 s, at most half the
// process time limit.
double candidate_run_deadline(double original_max_run_ms, double timeout_s);

}  // namespace warplens::verifier
