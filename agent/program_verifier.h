// Verifying candidates of a self-checking program: a .cu file with its own
// main that runs its kernels on realistic sizes, checks them against a
// reference on several input sets and reports (examples/optimize/ and
// docs/optimize.md, "Self-checking programs").
//
// The candidate program is built with nvcc and run with `--sets N --time R`;
// its last line of output (WARPLENS_EXAMPLE {...}) gives correctness, the
// worst error and the timing. The original program is built and run the same
// way (its own checks must pass) and timed before, between and after the
// candidates; the speedup is the original's median over the candidate's.
// Built-in rewrites change only kernels and launch statements, so the same
// checking code judges every candidate; that is why this verifier is meant
// for the built-in policy's candidates (free-form edits, which could touch
// the checks, go through the capture/replay verifier of agent/verifier/).
//
// Batches run in phases: every build in parallel, every correctness run in
// parallel (a few at a time on the GPU), then the timing runs one at a time.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "agent/candidate_verifier.h"
#include "analysis/analyzer.h"

namespace warplens::agent {

// The WARPLENS_EXAMPLE line a self-checking program prints last.
struct ProgramReport {
  std::string name;
  bool ok = false;
  int sets = 0;
  double max_error = 0;
  std::string worst;
  Timing time;
  double bytes = 0;  // fewest bytes the computation must move
  double flops = 0;
};
std::optional<ProgramReport> parse_program_report(std::string_view output);

struct ProgramVerifierOptions {
  std::string nvcc;                        // empty: $CUDA_PATH/bin/nvcc, /usr/local/cuda/bin/nvcc, PATH
  std::string arch = "native";             // nvcc -arch value ("native": the local GPU)
  std::vector<std::string> nvcc_flags = {"-O3", "-std=c++17"};
  std::vector<std::string> include_dirs;   // besides the original's directory
  int input_sets = 5;
  int timed_runs = 30;
  double max_timing_seconds = 3;           // per program: stop timing after this once 10 runs are done
  double timeout_s = 300;                  // per child process
  int compile_jobs = 0;                    // 0: hardware threads
  int check_jobs = 4;                      // correctness runs sharing the GPU at once
  std::filesystem::path work_dir;          // empty: a fresh temporary directory
  std::optional<double> eager_ms, compiled_ms;  // PyTorch references for level 3
  std::string sanitizer;                   // compute-sanitizer; empty: found as the capture verifier finds it
};

class ProgramVerifier final : public CandidateVerifier {
 public:
  ProgramVerifier(SourceFile original, ProgramVerifierOptions options);
  std::string name() const override { return "self-checking program"; }
  CandidateVerdict verify(const Candidate& candidate, std::stop_token stop) override;
  // All candidates in phases (parallel builds, parallel checks, serial timing).
  std::vector<CandidateVerdict> verify_all(const std::vector<Candidate>& candidates, std::stop_token stop);

  // The original program's own run (its checks must pass for any verdict).
  const std::optional<ProgramReport>& original_report() const { return original_; }
  const std::string& original_error() const { return original_error_; }
  // Every timing of the original taken so far (median of them is the baseline).
  const std::vector<double>& original_timings() const { return original_ms_; }
  double baseline_ms() const;
  const ProgramVerifierOptions& options() const { return options_; }

  // The phases, for batches over several programs (verify_programs below).
  struct Built {
    bool ok = false;
    std::string log;
    std::filesystem::path binary;
    double seconds = 0;
  };
  Built build(const std::string& id, const std::string& source, std::stop_token stop) const;  // thread-safe
  bool prepare_original(std::stop_token stop);  // build (unless built), check and time the original
  void build_original(std::stop_token stop);     // thread-safe w.r.t. other builds
  // Correctness run (thread-safe): fills compiled/correct/sets/errors of `v`.
  void check(const Built& built, CandidateVerdict& v, std::stop_token stop) const;
  // Timing run of a checked candidate (one at a time on the GPU).
  void time(const Built& built, CandidateVerdict& v, std::stop_token stop) const;
  void time_original(std::stop_token stop);
  // A winner above 10x runs once more under compute-sanitizer memcheck
  // (`--sets 1 --time 0`): errors make it incorrect, a clean run lets it be
  // offered, a run that cannot happen leaves it held for review.
  void sanitize(const Built& built, CandidateVerdict& v, std::stop_token stop) const;
  // Levels and speedups from the original's timings.
  void finish(CandidateVerdict& v) const;

 private:
  SourceFile original_file_;
  ProgramVerifierOptions options_;
  std::filesystem::path work_;
  bool original_ready_ = false;
  std::optional<Built> original_build_;
  std::filesystem::path original_binary_;
  std::optional<ProgramReport> original_;
  std::string original_error_;
  std::vector<double> original_ms_;
};

// Several self-checking programs with their candidates, verified together:
// all builds in one parallel pool, all correctness runs (a few at a time on
// the GPU), then all timing runs one at a time, each program's original
// re-timed around its candidates.
struct ProgramBatchItem {
  ProgramVerifier* verifier = nullptr;
  std::vector<Candidate> candidates;
  std::vector<CandidateVerdict> verdicts;  // filled
  double wall_seconds = 0;                 // time attributed to this program
};
void verify_programs(std::vector<ProgramBatchItem>& items, int compile_jobs, int check_jobs, std::stop_token stop,
                     const std::function<void(const std::string&)>& log = {});

}  // namespace warplens::agent
