// The optimize job: the loop that asks a policy for candidates, sends every
// one through the verifier, and ends with a ranked list of verified winners
// (or a clear "nothing beat the original" with what was tried).
//
// Plain C++: a request, a policy, a verifier, a progress callback and a
// stop_token. The CLI (`warplens optimize`), the language server's
// "Optimize kernel" action and the MCP tool all reach run_optimize_job
// through workflows/optimize.h, on the thread their caller gives it (the
// server's job runner; the CLI's main thread).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "agent/candidate.h"
#include "agent/candidate_verifier.h"
#include "agent/policy.h"

namespace warplens::agent {

struct OptimizeRequest {
  SourceFile file;                       // the original text (the editor's buffer)
  std::string kernel;                    // kernel name
  Budget budget;
  std::vector<Finding> findings;         // static/measured findings, when the caller has them
  std::optional<ProfileHints> profile;
  int batch_size = 4;                    // candidates asked of the policy per round
};

struct JobProgress {
  int proposed = 0;
  int verified = 0;
  int correct = 0;
  int faster = 0;              // level >= 2
  double best_speedup = 0;     // best verified (level >= 2) speedup so far, 0 if none
  double elapsed_seconds = 0;
  double gpu_seconds = 0;
  std::string message;         // "verifying c03: pad-shared(pad=1)"
};
using ProgressCallback = std::function<void(const JobProgress&)>;

enum class StopReason { PolicyExhausted, WallBudget, CandidateBudget, GpuBudget, Cancelled, Error };
const char* to_string(StopReason r);

// A verified winner, ready to become a code action / workspace edit.
struct Offer {
  std::string candidate_id;
  std::string title;             // "Apply verified rewrite: 3.4x faster (level 2, correct on 5 input sets)"
  std::string plan;              // "swap-thread-mapping() + unroll(factor=4)"
  std::vector<TextEdit> edits;   // minimal edits against the original text
  std::string full_text;         // the whole rewritten file (for a full replacement)
  std::uint64_t base_text_hash = 0;  // text_hash() of the original the edits apply to
  double speedup = 0;
  RewardLevel level = RewardLevel::Incorrect;
  int input_sets = 0;
  std::vector<LaunchChange> launch_changes;  // also visible in the edits (host code)
};

struct OptimizeResult {
  std::string file;
  std::string kernel;
  std::string policy;
  std::string verifier;
  std::vector<TriedCandidate> tried;   // in verification order
  std::vector<Offer> offers;           // level >= 2, plausible, fastest first; may be empty
  StopReason stop_reason = StopReason::PolicyExhausted;
  std::string summary;                 // one line: best result, or why nothing is offered
  double wall_seconds = 0;
  double gpu_seconds = 0;
  std::string error;                   // set with StopReason::Error
};

// Runs the loop synchronously on the calling thread. Never throws for bad
// candidates (they become incorrect verdicts); policy/verifier exceptions end
// the job with StopReason::Error.
OptimizeResult run_optimize_job(const OptimizeRequest& request, Policy& policy, CandidateVerifier& verifier,
                                 const PolicyTools* tools, const ProgressCallback& progress,
                                 std::stop_token stop = {});

// "Apply verified rewrite: 3.4x faster (level 2, correct on 5 input sets)"
std::string offer_title(const CandidateVerdict& verdict);

// Fills `offers` (verified level >= 2, plausible, fastest first) and
// `summary` from `tried`; used by the job and by batch verification.
void finalize_result(OptimizeResult& result, std::string_view original_text);

}  // namespace warplens::agent
