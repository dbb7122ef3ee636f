#pragma once
// Which captured allocations a kernel writes, beyond what one launch's bytes
// show.
#include <cstddef>

#include "profiler/capture_format.h"

namespace warplens::verifier {

// True when another captured launch of the same kernel modified the
// allocation that a parameter pointing into allocation `allocation` of
// `launch` points into there. A launch can leave a buffer it writes
// unchanged: a benchmark loop's second launch on the same inputs stores the
// values the first one stored. Judged by its bytes alone such a buffer would
// be an input, and a candidate that writes it within tolerance (a sum in
// another order) would be refused for changing an input.
bool written_by_another_launch(const capture::CaptureManifest& manifest, const capture::LaunchRecord& launch,
                               std::size_t allocation);

}  // namespace warplens::verifier
