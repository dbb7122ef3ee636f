// Verifying candidate directories written elsewhere, several at once: the
// split-machine path (`warplens optimize FILE --candidates-only --out DIR` on
// a machine with Clang writes each directory; a machine with a GPU verifies
// them with `warplens optimize --verify-dir DIR ...`), and the batch runs of
// the held-out sets. Each directory is judged either by its own program's
// self-checking main (the program verifier) or, given one capture per
// directory, by replaying the launches captured from the program (the
// capture verifier); the batch shares compile and GPU slots across
// directories.
//
// Plain C++ in and out: the door (cli/optimize.cpp) reads its options and
// the PyTorch times file, and renders the per-set results and the summary.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "agent/candidate_store.h"
#include "agent/job.h"
#include "agent/program_verifier.h"
#include "workflows/optimize.h"

namespace warplens::workflows {

struct CandidateSetsRequest {
  std::vector<std::string> dirs;
  // Empty: each set's own self-checking main. Otherwise one capture
  // directory per set, in the same order.
  std::vector<std::string> captures;
  int max_candidates = 6;  // the first N of each directory (best predicted first)
  // How candidates are built and checked (compiler, arch, include dirs,
  // input sets, timed runs, timeouts, compile and GPU slots).
  VerifyChoice verify;
  // Eager PyTorch and torch.compile times per set name (the directory's name
  // when the set has none), for reward level 3.
  std::map<std::string, std::pair<std::optional<double>, std::optional<double>>> torch_times;
};

struct VerifiedCandidateSet {
  agent::CandidateSet set;
  agent::OptimizeResult result;  // tried, offers (verified winners only), stop reason, error
  std::optional<agent::ProgramReport> original;  // the program verifier's report of the original
  std::string verifier;
  double baseline_ms = 0;  // the original's time; 0 when it could not be judged
  double best_ms = 0, best_speedup = 1.0;
  int best_level = -1;
  double bytes = 0;  // bytes the original moved (program verifier), for a roofline
  double median_verify_seconds = 0;
  std::optional<double> eager_ms, compiled_ms;
};

struct CandidateSetsOutcome {
  std::vector<VerifiedCandidateSet> sets;
  double geomean_speedup = 0;  // over the sets whose original was timed
  int counted = 0;
  bool any_error = false, any_winner = false, cancelled = false;
};

// A directory that cannot be read, or captures that do not pair up with the
// directories.
class CandidateSetsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

CandidateSetsOutcome verify_candidate_sets(const CandidateSetsRequest& request, std::stop_token stop,
                                           const std::function<void(const std::string&)>& log);

}  // namespace warplens::workflows
