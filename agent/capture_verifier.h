// The optimize job's CandidateVerifier backed by the capture/replay verifier
// of issue 7 (agent/verifier/verifier.h): candidates of any kernel, judged on
// the launches captured from the user's program.
//
// A candidate's launch changes are passed as the verifier's launch override
// when that format can express them (a new block and an integer number of
// original threads per candidate thread). Swapped axes, more threads than the
// original, persistent grids and fused launch sequences cannot be replayed
// from a single capture yet: such candidates are reported as not verifiable
// (never offered), with that reason.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "agent/candidate_verifier.h"
#include "agent/verifier/launch_geometry.h"

namespace warplens::agent {

struct CaptureVerifierOptions {
  std::filesystem::path capture_dir;
  std::filesystem::path original_source;
  std::filesystem::path pytorch_reference;   // optional, for level 3
  std::vector<std::string> include_dirs;
  int input_sets = 5;
  int timed_runs = 30;
  std::filesystem::path work_dir;            // empty: a temporary directory
};

// The verifier's override for a candidate's launch changes; nullopt with
// `why` when it cannot express them.
std::optional<verifier::LaunchOverride> launch_override(const std::vector<LaunchChange>& changes, std::string& why);

class CaptureVerifier final : public CandidateVerifier {
 public:
  explicit CaptureVerifier(CaptureVerifierOptions options);
  std::string name() const override { return "capture/replay"; }
  CandidateVerdict verify(const Candidate& candidate, std::stop_token stop) override;

 private:
  CaptureVerifierOptions options_;
};

}  // namespace warplens::agent
