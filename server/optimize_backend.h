// What runs an "Optimize this kernel" job for the language server: the
// built-in rewrite search, every candidate verified on this machine's GPU
// (agent/program_verifier.h), or a test double.
//
// The server decides *what* to optimise (document, kernel, budget) and turns
// the outcome into editor edits; the backend decides *how*. Tests inject a
// backend with a fake policy and a fake verifier around the real
// agent::run_optimize_job loop, so the gate (only verified winners are
// offered) is the production one.
#pragma once

#include <functional>
#include <stdexcept>
#include <stop_token>
#include <string>

#include "agent/job.h"
#include "server/profile_job.h"

namespace warplens::server {

struct OptimizeOutcome {
  agent::OptimizeResult result;
  std::string gpu_name;  // the GPU the winners were verified on, "NVIDIA H200"
};

// The job cannot run at all here (no GPU, no rewrite engine in this build):
// its message says why, in words the user can act on.
class OptimizeUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Runs the loop on the calling thread (the job runner's); honours `stop`.
// Throws OptimizeUnavailable when nothing can be verified here.
using OptimizeBackend = std::function<OptimizeOutcome(const agent::OptimizeRequest& request,
                                                      const agent::ProgressCallback& progress, std::stop_token stop)>;

// The real one: the built-in RewriteSearch, and the self-checking-program
// verifier on the GPU `probe` finds (profile::probe_gpus when empty).
OptimizeBackend gpu_optimize_backend(GpuProbe probe);

}  // namespace warplens::server
