// The optimize job's CandidateVerifier backed by the capture/replay verifier
// of issue 7 (agent/verifier/verifier.h): candidates of any kernel, judged on
// the launches captured from the user's program.
//
// Every launch change a rewrite can declare (agent/candidate.h: new blocks,
// fewer or more threads per original thread, swapped x/y, persistent grids,
// several in order) becomes the verifier's launch reshape, applied with the
// same rule; a fused candidate (FusionDeclaration) is replayed against the
// captured producer/consumer pairs (agent/verifier/launch_sequence.h), so
// the capture must hold both kernels' launches: when `capture_dir` holds no
// such pair, `capture_pair` (the editor's: run the program again capturing
// both kernels) is asked for one, once per pair; by hand, `warplens capture
// --kernel 'a|b' --launches-per-kernel K`.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agent/candidate_verifier.h"
#include "agent/verifier/launch_geometry.h"
#include "agent/verifier/launch_sequence.h"
#include "agent/verifier/verdict.h"

namespace warplens::agent {

struct CaptureVerifierOptions {
  std::filesystem::path capture_dir;
  std::filesystem::path original_source;
  std::filesystem::path pytorch_reference;   // optional, for level 3 (timed by the verifier per candidate)
  // Measured PyTorch times (e.g. from tests/gpu/optimize_torch_baselines.py),
  // used for level 3 when no pytorch_reference is given.
  std::optional<double> eager_ms, compiled_ms;
  std::vector<std::string> include_dirs;
  int input_sets = 5;
  int timed_runs = 30;
  double timeout_s = 60;                     // per replay child
  std::filesystem::path work_dir;            // empty: a temporary directory
  // A capture holding launches of `first` followed by `second` (program
  // order), for fused candidates; nullopt with `error` when it cannot be made.
  std::function<std::optional<std::filesystem::path>(const std::string& first, const std::string& second,
                                                     std::string& error)>
      capture_pair;
};

// The verifier's launch override for a candidate's launch changes (those of
// `kernel`, in order); nullopt with `why` for values no launch can have
// (zero or negative sizes and ratios).
std::optional<verifier::LaunchOverride> launch_override(const std::vector<LaunchChange>& changes, std::string& why,
                                                        const std::string& kernel = "");
verifier::LaunchReshape to_reshape(const LaunchChange& change);
// The verifier's form of a fusion declaration.
verifier::FusionSpec to_fusion_spec(const FusionDeclaration& fusion);
// Per checked input set, what the original and the candidate launched
// (CandidateVerdict::replayed).
std::vector<std::string> replayed_launches(const verifier::Verdict& v);

class CaptureVerifier final : public CandidateVerifier {
 public:
  explicit CaptureVerifier(CaptureVerifierOptions options);
  std::string name() const override { return "capture/replay"; }
  CandidateVerdict verify(const Candidate& candidate, std::stop_token stop) override;
  const CaptureVerifierOptions& options() const { return options_; }

 private:
  // The capture a fused candidate of `first` then `second` is replayed on
  // (options_.capture_dir when it holds such pairs); empty with `error`.
  std::filesystem::path pair_capture(const std::string& first, const std::string& second, std::string& error);

  CaptureVerifierOptions options_;
  struct PairCapture {
    std::filesystem::path dir;
    std::string error;
    std::string refused;  // the capture's refusals of either kernel, for the message
  };
  std::map<std::pair<std::string, std::string>, PairCapture> pair_captures_;
  // Per kernel, the fastest winner that memcheck found clean: later winners
  // are memchecked (and offered) only when faster (VerifyRequest::sanitize_min_speedup).
  std::map<std::string, double> best_clean_;
};

// Pre-generated candidates of one program (a candidates directory) against
// its capture: `warplens optimize --verify-dir DIR --capture CAPTURE` on a
// GPU machine without Clang.
struct CaptureBatchItem {
  CaptureVerifier* verifier = nullptr;
  std::vector<Candidate> candidates;
  std::vector<CandidateVerdict> verdicts;  // filled, one per candidate
  double wall_seconds = 0;
  std::string error;                       // set when the original itself could not be verified
  // The original's median over the candidates that were timed (each verdict
  // times the original beside the candidate); 0 when none was.
  double baseline_ms() const;
};
// One candidate at a time (each verification is timed on the whole GPU).
// After a verdict that says nothing can be verified (no GPU, the original
// does not replay), the program's remaining candidates are not run.
void verify_captured(std::vector<CaptureBatchItem>& items, std::stop_token stop,
                     const std::function<void(const std::string&)>& log = {});

}  // namespace warplens::agent
