// Turning what the child processes reported into a verdict. Pure functions
// over plain data, so every rule (which timing basis, which level, when to
// demote, what to flag) is tested on CI from recorded results.
#pragma once

#include <optional>

#include "agent/verifier/pytorch_reference.h"
#include "agent/verifier/verdict.h"

namespace warplens::verifier {

// Correctness evidence per input set from the candidate's checks.
void record_candidate_checks(Verdict& v, const ReplayPlan& plan, const CandidateResult& c);

// Which timing basis to use. The launch-stream events time the kernel
// exactly; if the candidate's gap between "end on its stream" and "device
// idle" exceeds the original's by more than max(20 us, 25% of its kernel
// time), work ran outside the launch stream: both sides are then timed to
// device idle and the verdict is flagged.
TimingEvidence summarize_timing(const TimingSamples& samples, bool* outside_stream);

// PyTorch eager / torch.compile summaries on the chosen basis.
void add_pytorch_timing(TimingEvidence& t, const PytorchTiming& p);

// Level, reasons, flags and demotion from correctness, timing and the
// source comparison (v.correct, v.timing and v.source_findings set).
void decide_level(Verdict& v);

// A winner's compute-sanitizer memcheck run: an error or a fault demotes it
// to -1 with the sanitizer's message; one that did not run leaves it
// needing review (never offered automatically).
void apply_sanitizer(Verdict& v, const SanitizerEvidence& s);
// Whether a verdict decided so far is a winner that must go under the
// sanitizer before it is offered (level >= 2, not already held for review).
bool wants_sanitizer(const Verdict& v);

// A winner above kLargeSpeedup (flag "large-speedup") is offered only with
// complete evidence: memcheck ran clean, the timed runs used fresh input
// sets on a reloaded module, the timing is steady, at least 3 input sets
// passed and one of them at a size other than the captured one (unless the
// kernel takes no size argument). Otherwise it is held for review (flag
// "incomplete-evidence"), the missing pieces in its notes. Call after the
// sanitizer step.
std::vector<std::string> missing_large_speedup_evidence(const Verdict& v);
void require_complete_evidence(Verdict& v);

}  // namespace warplens::verifier
