// The one gate every candidate passes: a verifier judges it (compiles it,
// checks it on several input sets, times it against the original) and returns
// a verdict with the reward levels of the CUDA Agent paper.
//
// The optimize job depends only on this interface. Implementations:
//   - ProgramVerifier (agent/program_verifier.h): for self-checking programs
//     (a .cu file with its own main that checks its results, like
//     examples/optimize/): builds and runs the candidate program.
//   - the capture/replay verifier of issue 7 (agent/verifier/), adapted to
//     this interface where it is wired in (server, CLI).
#pragma once

#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "agent/candidate.h"

namespace warplens::agent {

// Reward levels (docs/optimize.md): -1 incorrect (or failed to build),
// 1 correct, 2 correct and more than 5% faster than the original,
// 3 also more than 5% faster than eager PyTorch and torch.compile.
enum class RewardLevel : int { Incorrect = -1, Correct = 1, Faster = 2, FasterThanPyTorch = 3 };
int to_int(RewardLevel l);
const char* describe(RewardLevel l);  // "incorrect", "correct", ...

// "Faster by more than 5%": (t_base - t_new) / t_base > 0.05.
bool faster_by_5_percent(double base_ms, double new_ms);
// The level from the measurements (the paper's milestones).
RewardLevel reward_level(bool correct, double original_ms, double candidate_ms,
                         std::optional<double> eager_ms, std::optional<double> compiled_ms);

struct Timing {
  double median_ms = 0;
  double p10_ms = 0, p90_ms = 0;
  int runs = 0;
};

struct CandidateVerdict {
  std::string candidate_id;
  bool compiled = false;
  std::string compile_log;       // compiler output when the build failed (trimmed)
  bool correct = false;
  int input_sets = 0;            // input sets the candidate was checked on
  double max_error = 0;          // worst error as a fraction of the tolerance (<= 1 passes)
  std::string worst;             // worst element: "out set 2: index 17: expected 1.5, got nan"
  Timing original, candidate;
  double speedup = 0;            // original median / candidate median; 0 when not timed
  std::optional<double> eager_ms, compiled_ms;  // PyTorch references, when supplied
  RewardLevel level = RewardLevel::Incorrect;
  std::string reason;            // why it failed or was demoted
  bool implausible = false;      // held for review: > 1000x, or > 10x without complete evidence; never offered
  bool memcheck_clean = false;   // a compute-sanitizer memcheck run found nothing (winners above 10x)
  std::string memcheck_note;     // what that run found, or why it did not run
  std::vector<std::string> review_notes;  // why a large speedup was offered or held for review
  bool verifier_failed = false;  // nothing can be verified (no GPU, the original fails): the job stops
  double verify_seconds = 0;     // wall time spent verifying
  double gpu_seconds = 0;        // time the GPU was busy for this candidate (approx.)
  std::string evidence;          // free text / JSON the verifier wants kept (command lines, logs)
  // Per input set, the launches that ran (replaying verifiers): "set 0
  // (captured launch 0): grid (8,1,1) block (128,1,1) -> grid (256,1,1) block (128,1,1)".
  std::vector<std::string> replayed;
};

class CandidateVerifier {
 public:
  virtual ~CandidateVerifier() = default;
  virtual std::string name() const = 0;
  // Judges one candidate. Must return (never throw) for bad candidates; honours
  // `stop` by returning early with reason "cancelled".
  virtual CandidateVerdict verify(const Candidate& candidate, std::stop_token stop) = 0;
};

}  // namespace warplens::agent
