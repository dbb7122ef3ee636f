// The quick fix that adds or adjusts a kernel's __launch_bounds__.
#pragma once

#include <optional>
#include <string>

#include "analysis/findings.h"
#include "analysis/kernel_model.h"

namespace warplens {

// The attribute text for (max_threads, min_blocks). With an existing
// attribute, its macro name, its first argument's spelling (when the value
// is unchanged: `BLOCK` stays `BLOCK`) and a third argument (max blocks per
// cluster) are kept. min_blocks 0 leaves the minimum out
// (`__launch_bounds__(1024)`) unless a third argument needs the second.
std::string launch_bounds_spelling(const std::optional<LaunchBounds>& existing, int max_threads, int min_blocks);

// Replaces Function::launch_bounds's range, or inserts
// "__launch_bounds__(T, B) " (with a trailing space) at
// Function::declaration_start. nullopt when the model lacks the range to edit
// or the attribute already says exactly this.
std::optional<Fix> launch_bounds_fix(const Function& kernel, const std::string& file, int max_threads,
                                     int min_blocks);

}  // namespace warplens
