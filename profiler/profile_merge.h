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

// Adds the timing pass (the program run again with the Activity API and
// without SASS metrics) to the metrics pass (SASS metrics without the
// Activity API). From the timing pass: each kernel's launches, durations
// and geometry, the copies, the dropped-activity count; devices it
// describes that the metrics pass did not (or only partly). From the
// metrics pass: per-line records, counters, launch counts, metric launches,
// the chip. A kernel launched a different number of times in the two passes
// earns the warning `launches-differ`; the timing pass's warnings join with
// the prefix "timing pass: ".
void merge_timing_pass(Profile& metrics, const Profile& timing);

}  // namespace warplens::profile
