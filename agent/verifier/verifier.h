// The verifier: is a candidate rewrite of a kernel correct on the user's real
// launches, and is it faster? Nothing is offered to the user unless this
// says so.
//
//   Verdict v = verify(request, stop_token, progress);
//
// Given a capture (profiler/capture_format.h), the original source and a
// candidate source, it compiles both with nvcc for this GPU, computes the
// original's results on every input set in one child process (the captured
// inputs, then fresh ones re-drawn from their distribution), checks the
// candidate twice per set in another child process with a time limit
// (poisoned outputs, untouched inputs, dtype-aware tolerances, determinism),
// times both interleaved, compares the sources for hard-coded arguments and
// ignored parameters, and decides a reward level with its evidence.
// The caller's process never touches the GPU: nothing a kernel does can
// crash or hang it.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "agent/verifier/launch_sequence.h"
#include "agent/verifier/reassociation.h"
#include "agent/verifier/verdict.h"

namespace warplens::verifier {

struct VerifyRequest {
  std::filesystem::path capture_dir;
  std::filesystem::path original_source;
  std::filesystem::path candidate_source;
  std::string kernel;                          // name ("transpose") or captured symbol
  int timing_launch = -1;                      // manifest index of the launch to time; -1: the first of the kernel

  Tolerance tolerance;
  int input_sets = 5;                          // captured launches of the kernel first, then fresh re-draws
  int timed_runs = 30;
  int warmup_runs = 3;
  std::uint64_t seed = 1;                      // fresh set i uses seed + i
  double timeout_s = 60;                       // per child process
  LaunchOverride candidate_launch;             // set: replaces the candidate's `// warplens:` directives
  // Set: `kernel` is a fused kernel that replaces each captured launch of
  // fusion->first followed by the launch of fusion->second reading its
  // temporary (launch_sequence.h); both are replayed as one unit.
  std::optional<FusionSpec> fusion;
  std::optional<KernelSourceFacts> candidate_facts;  // from an agent with an AST; replaces the token-level facts
  // Set: the candidate reorders float sums of this many terms
  // (reassociation.h). Declared by the caller (the rewrite engine, or
  // `warplens verify --reassociates`), never read from the candidate's text.
  std::optional<Reassociation> reassociation;

  std::filesystem::path pytorch_reference;     // KernelBench-style model.py: enables level 3
  double pytorch_timeout_s = 600;

  std::vector<std::string> include_dirs;       // extra -I for both sources
  std::vector<std::string> nvcc_flags;         // extra nvcc flags for both sources
  std::string arch;                            // empty: the GPU's own (sm_XX)

  std::string nvcc;                            // empty: CUDA_PATH, /usr/local/cuda, PATH
  std::string replay_binary;                   // empty: $WARPLENS_REPLAY or next to this executable
  std::string python;                          // empty: $WARPLENS_PYTHON, else python3
  std::filesystem::path work_dir;              // empty: a fresh temporary directory
  bool keep_work_dir = false;                  // keep cubins, plan and results for inspection

  // Shapes beyond the captured ones (shape_variation.h): integer size
  // arguments shrunk to odd values, at least two variations when there are any.
  bool vary_shapes = true;
  std::uint64_t guard_bytes = 1 << 20;         // guard bands around every replayed allocation
  // compute-sanitizer memcheck over a winner (level >= 2) before it is offered.
  bool sanitize = true;
  // Memcheck only a winner faster than this (the best winner of the same
  // kernel already checked clean, as the caller tracks it): memcheck costs
  // most of a winner's verification on large captures (24 s of 28 s on a
  // 1 GiB stencil capture, H100), and a slower winner would not be the one
  // applied. One at or below it is held (sanitizer-not-run), never offered.
  // 0: every winner.
  double sanitize_min_speedup = 0;
  std::string sanitizer;                       // empty: $WARPLENS_COMPUTE_SANITIZER, next to nvcc, PATH
  double sanitizer_timeout_s = 300;
  // "device": buffer work as GPU kernels; "host": host loops (the pre-change
  // method, for comparison).
  std::string pipeline = "device";
  // The original's compile and reference are computed once per key and
  // reused (reference_cache.h); also kept on disk when a directory is given.
  bool reuse_reference = true;
  std::filesystem::path reference_cache_dir;
  std::uint64_t timing_seed = 0;               // 0: the timed runs' fresh sets are drawn at random
};

struct VerifyProgress {
  std::string stage;   // "compile", "reference", "candidate", "pytorch", "done"
  double fraction = 0; // 0..1
};
using ProgressCallback = std::function<void(const VerifyProgress&)>;

Verdict verify(const VerifyRequest& request, std::stop_token stop = {}, const ProgressCallback& progress = {});

// Several verifications at once (independent candidates): up to
// `max_parallel` run concurrently (0: 4). Their correctness checks share the
// GPU; each timing phase has it to itself (the replay's GPU lock), so
// timing is not affected. The original's reference is computed once.
std::vector<Verdict> verify_many(const std::vector<VerifyRequest>& requests, int max_parallel = 0,
                                 std::stop_token stop = {});

// The `warplens verify ... --json` command line that reproduces `request`.
std::string reproduce_command(const VerifyRequest& request);

}  // namespace warplens::verifier
