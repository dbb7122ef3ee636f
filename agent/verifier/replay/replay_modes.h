// What warplens-replay does, one file each:
//   device-info   which GPU, its arch and L2 size (also the "is there a GPU" probe)
//   reference     the original kernel on every input set: roles, reproduction,
//                 determinism, which shape variations it handles
//   candidate     the candidate on every input set (twice, each run checked
//                 against the original run right after it), then timing of
//                 original and candidate interleaved on fresh input sets
//   sanitize      the candidate alone on exact-size allocations, for
//                 compute-sanitizer --tool memcheck
//   timer-check   whether the timer counts work left on another stream
// Each fills a result struct; replay_main writes it and picks the exit code.
#pragma once

#include <functional>
#include <stdexcept>

#include "agent/verifier/replay_protocol.h"

namespace warplens::replay {

verifier::DeviceProbe probe_device();
// Called when a kernel hangs: writes the result as it stands and ends the
// process at once. It must not return: unwinding would run destructors
// that wait for the GPU, which is still busy with the hung kernel.
using EmergencyExit = std::function<void()>;

// The original faulted on a shape variation (ReferenceResult::failed_set):
// the context is lost, so the replay ends with kReplayExitSetFailed and the
// parent runs it again without that set.
struct SetFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws on problems of the replay itself (bad plan, unreadable capture,
// the original faulting on a captured or fresh set): the caller reports them
// as the result's error.
void compute_reference(const verifier::ReplayPlan& plan, verifier::ReferenceResult& result,
                       const EmergencyExit& on_hang);
// Fills `result` as it goes; a candidate that is incorrect, faults or
// cannot be loaded returns normally with `result.failure` set.
void check_candidate(const verifier::ReplayPlan& plan, const verifier::ReferenceResult& reference,
                     verifier::CandidateResult& result, const EmergencyExit& on_hang);
void sanitize_candidate(const verifier::ReplayPlan& plan, const verifier::ReferenceResult& reference,
                        verifier::SanitizeResult& result, const EmergencyExit& on_hang);

// Times extern "C" spin(long long cycles) from `cubin` on the timer's stream
// and on another stream; JSON with both sample sets.
std::string timer_check(const std::string& cubin, long long cycles, int runs);

}  // namespace warplens::replay
