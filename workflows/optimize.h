// What runs an "Optimize this kernel" job for the language server: a policy
// (the built-in rewrite search, or the LLM policy when the settings name an
// endpoint and model) proposes candidates, and a verifier checks and times
// each on this machine's GPU, or a test double.
//
// Which verifier (docs/optimize.md, "In the editor"):
//   - `profileCommand` set: buildCommand (if set), then the kernel's first
//     launches are captured from `/bin/sh -c profileCommand` run in the
//     workspace folder (workflows/kernel_capture.h), and candidates are
//     replayed on them (agent/capture_verifier.h). The document must be saved:
//     the capture ran the program built from the file on disk.
//   - otherwise a .cu file with its own checking main(): the self-checking
//     program verifier (agent/program_verifier.h), on the editor's text;
//   - otherwise: OptimizeUnavailable naming warplens.profileCommand.
//
// The server decides *what* to optimise (document, kernel, budget) and turns
// the outcome into editor edits; the backend decides *how*. Tests inject a
// backend with a fake policy and a fake verifier around the real
// agent::run_optimize_job loop, so the gate (only verified winners are
// offered) is the production one; the seams in GpuBackendOptions test the
// real backend's choices without a GPU.
#pragma once

#include <chrono>
#include <functional>
#include <stdexcept>
#include <stop_token>
#include <string>

#include "agent/candidate_verifier.h"
#include "agent/job.h"
#include "workflows/kernel_capture.h"
#include "workflows/profile.h"
#include "analysis/analyzer.h"
#include "workflows/llm_settings.h"

namespace warplens::workflows {

struct OptimizeOutcome {
  agent::OptimizeResult result;
  std::string gpu_name;  // the GPU the winners were verified on, "NVIDIA H200"
};

// The job cannot run at all here (no GPU, no rewrite engine in this build,
// nothing to verify against, a misconfigured LLM): its message says why, in
// words the user can act on.
class OptimizeUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What the backend needs from the door besides the request: the settings
// (profileCommand, buildCommand, llm, analysis), where to run commands, and
// whether the editor's text is what is on disk.
struct OptimizeContext {
  std::string profile_command;   // the profileCommand setting; empty: the file's own main()
  std::string build_command;     // the buildCommand setting; empty: no build
  LlmSettings llm;               // empty: the built-in rewrite search
  AnalysisOptions analysis;      // how the LLM policy's drafts are analysed
  std::string workspace_folder;  // the workspace folder holding the file, else its directory
  bool document_saved = false;   // the editor's text equals the file on disk
};

// Runs the loop on the calling thread (the job runner's); honours `stop`.
// Throws OptimizeUnavailable when nothing can be verified here.
using OptimizeBackend =
    std::function<OptimizeOutcome(const agent::OptimizeRequest& request, const OptimizeContext& context,
                                  const agent::ProgressCallback& progress, std::stop_token stop)>;

// Seams of the real backend. Every empty one gets the production default.
using CaptureRunner = CaptureFn;
using OptimizeLoop =
    std::function<agent::OptimizeResult(const agent::OptimizeRequest&, agent::Policy&, agent::CandidateVerifier&,
                                        const agent::PolicyTools*, const agent::ProgressCallback&, std::stop_token)>;
struct GpuBackendOptions {
  GpuProbe probe;                       // profile::probe_gpus
  CaptureRunner capture;                // verifier::capture_program
  OptimizeLoop loop;                    // agent::run_optimize_job
  std::function<std::string()> llm_api_key;  // workflows::llm_api_key (WARPLENS_LLM_API_KEY)
  int captured_launches = 3;            // K: the first K launches of the kernel are verified against
  std::chrono::seconds command_timeout{600};  // the build command, and the captured program run
};

// The real one, as described at the top.
OptimizeBackend gpu_optimize_backend(GpuBackendOptions options);

}  // namespace warplens::workflows
