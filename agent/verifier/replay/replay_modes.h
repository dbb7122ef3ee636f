// The three things warplens-replay does, one file each:
//   device-info   which GPU, its arch and L2 size (also the "is there a GPU" probe)
//   reference     the original kernel on every input set: roles, expected outputs
//   candidate     the candidate on every input set (twice), then timing of
//                 original and candidate interleaved
// Each fills a result struct; replay_main writes it and picks the exit code.
#pragma once

#include <functional>

#include "agent/verifier/replay_protocol.h"

namespace warplens::replay {

verifier::DeviceProbe probe_device();
// Called when a kernel hangs: writes the result as it stands and ends the
// process at once. It must not return: unwinding would run destructors
// that wait for the GPU, which is still busy with the hung kernel.
using EmergencyExit = std::function<void()>;

// Throws on problems of the replay itself (bad plan, unreadable capture,
// the original faulting): the caller reports them as the result's error.
void compute_reference(const verifier::ReplayPlan& plan, verifier::ReferenceResult& result,
                       const EmergencyExit& on_hang);
// Fills `result` as it goes; a candidate that is incorrect, faults or
// cannot be loaded returns normally with `result.failure` set.
void check_candidate(const verifier::ReplayPlan& plan, const verifier::ReferenceResult& reference,
                     verifier::CandidateResult& result, const EmergencyExit& on_hang);

verifier::LaunchGeometry captured_geometry(const capture::LaunchRecord& launch);

}  // namespace warplens::replay
