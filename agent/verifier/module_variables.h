#pragma once
// What the verifier does with the module variables (`__constant__`,
// `__device__`) a capture recorded beside a launch's allocations
// (capture::ModuleGlobalRecord): the replay restores them into every module
// it loads before each run (replay_sets.h); a launch that writes one cannot
// be verified, because the comparison covers allocations only, and a
// candidate that skipped the write would pass unseen.
#include <string>
#include <vector>

#include "profiler/capture_format.h"

namespace warplens::verifier {

// "" when no launch in `records` modified a module variable; otherwise why
// candidates of the kernel cannot be verified on this capture.
std::string module_variable_refusal(const std::vector<capture::LaunchRecord>& records);

// Whether the capture looked at module variables for every launch (false
// for captures written before they were recorded).
bool module_variables_recorded(const std::vector<capture::LaunchRecord>& records);

// For the verdict's notes: which variables are restored ("" when none).
std::string module_variable_note(const std::vector<capture::LaunchRecord>& records);

}  // namespace warplens::verifier
