// The ground-truth view: one tab-separated row per measured (file, line,
// kernel, kind), with the ratios the static analysis predicts, so
// predictions can be checked against the hardware on any corpus
// (`warplens profile --format tsv`). Columns (docs/profile-format.md):
//
//   file line kernel kind executed actual ideal per_request ideal_per_request ratio excess share
//
// global_*/local_*: actual/ideal are 32-byte sectors (local: ideal empty);
//   per_request = sectors per warp request, ratio = actual / ideal.
// shared_*: wavefronts; ratio = n-way conflict.
// branch: actual = divergent executions, ideal = divergent + uniform;
//   ratio = divergent fraction.
// all: actual = thread instructions, ideal = 32 x warp instructions;
//   ratio = SIMT efficiency.
// share: the row's actual over its kernel's total of the same quantity.
#pragma once

#include <string>

#include "profiler/profile_data.h"

namespace warplens::profile {

std::string to_tsv(const Profile& p);

}  // namespace warplens::profile
