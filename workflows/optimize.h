// "Optimize this kernel", the one way every door runs it (the editor's
// warplens.optimize job, `warplens optimize FILE --kernel NAME`, later an
// MCP tool): a policy proposes candidates (workflows/optimize_policy.h: the
// built-in rewrite search, or the LLM policy), and a verifier checks and
// times each on this machine's GPU; only verified winners come back.
//
// What candidates are verified against (VerifyChoice::Against):
//   - Workspace (the editor): `profile_command` set: `build_command` (if
//     set), then the kernel's first launches are captured from
//     `/bin/sh -c profile_command` run in the workspace folder
//     (workflows/kernel_capture.h), and candidates are replayed on them
//     (agent/capture_verifier.h). The document must be saved: the capture
//     ran the program built from the file on disk. Without profile_command,
//     a .cu file with its own checking main() is verified by the
//     self-checking program verifier (agent/program_verifier.h) on the
//     given text; otherwise OptimizeUnavailable says how to set one up.
//   - OwnMain (the command line's default): the self-checking program
//     verifier on the file as given, whatever it holds (its build says what
//     is missing).
//   - Capture (`--capture DIR`): launches recorded before by
//     `warplens capture`, replayed by the capture verifier.
//
// The door decides *what* to optimise (file, kernel, budget, findings) and
// turns the outcome into its output; the workflow decides *how*. Tests
// inject a backend with a fake policy and a fake verifier around the real
// agent::run_optimize_job loop, so the gate (only verified winners are
// offered) is the production one; the seams in GpuBackendOptions test the
// real workflow's choices without a GPU.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <vector>

#include "agent/candidate_verifier.h"
#include "agent/job.h"
#include "agent/program_verifier.h"
#include "analysis/analyzer.h"
#include "profiler/gpu_probe.h"
#include "workflows/kernel_capture.h"
#include "workflows/profile.h"
#include "workflows/optimize_policy.h"
#include "workflows/setting_names.h"

namespace warplens::workflows {

struct OptimizeOutcome {
  agent::OptimizeResult result;
  std::string gpu_name;  // the GPU the winners were verified on, "NVIDIA H200" ("this GPU" when not probed)
};

// The job cannot run at all here (no GPU, no rewrite engine in this build,
// nothing to verify against, a misconfigured LLM): its message says why, in
// words the user can act on.
class OptimizeUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What candidates are checked against, and how (see the top).
struct VerifyChoice {
  enum class Against { Workspace, OwnMain, Capture } against = Against::Workspace;
  // Workspace:
  std::string profile_command;    // the profileCommand setting; empty: the file's own main()
  std::string build_command;      // the buildCommand setting; empty: no build
  std::string working_directory;  // the workspace folder holding the file, else its directory
  bool document_saved = true;     // the given text equals the file on disk
  int captured_launches = 3;      // K: the first K launches of the kernel are verified against
  std::chrono::seconds command_timeout{600};  // the build command, and the captured program run
  // Capture:
  std::string capture_dir;
  // Both verifiers (agent::ProgramVerifierOptions, agent::CaptureVerifierOptions):
  std::string nvcc;                        // empty: $CUDA_PATH/bin/nvcc, /usr/local/cuda/bin/nvcc, PATH
  std::string arch = "native";             // nvcc -arch ("native": the local GPU)
  std::vector<std::string> include_dirs;   // absolute; besides the file's own directory
  std::vector<std::string> defines;        // NAME or NAME=VALUE
  int input_sets = 5;
  int timed_runs = 30;
  double max_timing_seconds = 3;
  double timeout_s = 300;                  // per build or program run
  int compile_jobs = 0;                    // 0: hardware threads
  int check_jobs = 4;                      // correctness runs sharing the GPU at once
  std::filesystem::path pytorch_reference; // for level 3 (when it exists); empty: FILE.py
  double tool_compile_timeout_s = 180;     // the LLM policy's compile check
};

// Everything about one optimize run besides the request itself.
struct OptimizeContext {
  PolicyChoice policy;
  VerifyChoice verify;
  AnalysisOptions analysis;  // how the LLM policy's drafts are analysed
  SettingNames names = SettingNames::editor();  // the door's words for its settings, in messages
  // Refuse before anything else when the probe finds no GPU (the editor).
  // The command line lets the verifier say so instead: the LLM policy may
  // still talk to its endpoint, and a candidate directory still be written.
  bool require_gpu = true;
  // The request has no findings: run the static analysis and resource usage
  // first (workflows/analyze_file.h, with `analysis` and the include
  // directories) so they guide the search. The editor passes the document's
  // diagnostics instead.
  bool analyze_when_no_findings = false;
};

// The self-checking program verifier's options for `verify` (also for a
// door that verifies candidate directories itself).
agent::ProgramVerifierOptions program_verifier_options(const VerifyChoice& verify);

// Runs the loop on the calling thread (a job runner's); honours `stop`.
// Throws OptimizeUnavailable when nothing can be verified here.
using OptimizeBackend =
    std::function<OptimizeOutcome(const agent::OptimizeRequest& request, const OptimizeContext& context,
                                  const agent::ProgressCallback& progress, std::stop_token stop)>;

// Seams of the real workflow. Every empty one gets the production default.
using OptimizeLoop =
    std::function<agent::OptimizeResult(const agent::OptimizeRequest&, agent::Policy&, agent::CandidateVerifier&,
                                        const agent::PolicyTools*, const agent::ProgressCallback&, std::stop_token)>;
struct GpuBackendOptions {
  GpuProbe probe;                            // profile::probe_gpus
  CaptureFn capture;                         // verifier::capture_program
  OptimizeLoop loop;                         // agent::run_optimize_job
  std::function<std::string()> llm_api_key;  // workflows::llm_api_key (WARPLENS_LLM_API_KEY)
};

// An optimize run whose policy and verifier are chosen (and whose capture,
// when there is one, was taken): what a door may report before the job.
class PreparedOptimize {
 public:
  PreparedOptimize(const PreparedOptimize&) = delete;
  PreparedOptimize& operator=(const PreparedOptimize&) = delete;
  ~PreparedOptimize();

  const std::string& policy() const { return policy_.description; }  // "built-in rewrite search", "LLM policy: ..."
  std::string verifier() const { return verifier_->name(); }         // "capture/replay", "self-checking program"
  const std::string& gpu_name() const { return gpu_name_; }

  // The job: the loop on the calling thread, honouring `stop`.
  OptimizeOutcome run(const agent::ProgressCallback& progress, std::stop_token stop);

 private:
  friend std::unique_ptr<PreparedOptimize> prepare_optimize(const agent::OptimizeRequest&, const OptimizeContext&,
                                                            const GpuBackendOptions&,
                                                            const agent::ProgressCallback&, std::stop_token);
  PreparedOptimize() = default;

  agent::OptimizeRequest request_;
  OptimizeLoop loop_;
  ChosenPolicy policy_;
  KernelCapture capture_;  // keeps the captured launches alive while the job verifies against them
  std::unique_ptr<agent::CandidateVerifier> verifier_;
  std::optional<agent::PolicyTools> tools_;
  std::string gpu_name_;
};

// Chooses the policy (a misconfigured LLM is reported before any GPU work),
// checks the GPU (require_gpu), builds and captures when the workspace says
// so, and picks the verifier. Throws OptimizeUnavailable; returns null when
// `stop` was requested while building or capturing.
std::unique_ptr<PreparedOptimize> prepare_optimize(const agent::OptimizeRequest& request,
                                                   const OptimizeContext& context, const GpuBackendOptions& seams,
                                                   const agent::ProgressCallback& progress, std::stop_token stop);

// prepare_optimize, then run: the backend the language server uses.
OptimizeBackend gpu_optimize_backend(GpuBackendOptions seams);

}  // namespace warplens::workflows
