// Combining profiles: the processes of one run, and a run's two passes.
#pragma once

#include <vector>

#include "profiler/profile_data.h"

namespace warplens::profile {

// One profile from several processes of the same program (each process
// under the injection library writes its own file). Kernels are combined by
// mangled name, per-line records by (file, line, kernel, kind); counts add up.
// An empty input gives an empty profile; one input comes back unchanged.
Profile merge_processes(std::vector<Profile> parts);

// Adds the timing pass (the program run again without SASS metrics) to the
// metrics pass: its launches and durations join each kernel's; everything
// measured (lines, counters) stays from the metrics pass. A kernel launched a
// different number of times in the two passes earns a warning.
void merge_timing_pass(Profile& metrics, const Profile& timing);

}  // namespace warplens::profile
