// What the tools share: the workspace, the limits fixed by whoever started
// the server (never by the agent), the candidates verified so far, and the
// seams tests replace (the verifier, the GPU probe, the optimize backend,
// the launch capture). Every empty seam gets the production function, the
// same one the language server and the command line call.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <vector>

#include "agent/verifier/verifier.h"
#include "analysis/analyzer.h"
#include "mcp/candidate_registry.h"
#include "mcp/tool.h"
#include "mcp/workspace.h"
#include "profiler/scratch_dir.h"
#include "workflows/analyze_file.h"
#include "workflows/kernel_capture.h"
#include "workflows/optimize.h"
#include "workflows/profile.h"

namespace warplens::mcp {

// Fixed at start (`warplens mcp` options); the agent cannot change them.
// These are the "documented limits" of docs/mcp.md: the verifier's input
// sets, tolerances and timing are the defaults of `warplens verify` unless
// the person who configured the server changed them here.
struct ToolOptions {
  AnalysisOptions analysis;      // arch, compile_commands_dir
  bool resource_usage = true;    // nvcc --resource-usage for occupancy
  std::string docs_dir;          // docs/diagnostics, for each diagnostic's documentation link
  // The verifier (verify, and optimize's candidates).
  int input_sets = 5;
  int timed_runs = 30;
  double verify_timeout_s = 60;  // per replay child process
  std::string nvcc;              // empty: CUDA_PATH, /usr/local/cuda, PATH
  std::string replay_binary;     // empty: $WARPLENS_REPLAY, else next to the binary
  std::string arch;              // empty: the GPU's own
  // The configured commands (build, profile, the captured program).
  std::chrono::seconds command_timeout{600};
  // optimize's default budget (the agent may ask for less, never more).
  int optimize_max_candidates = 16;
  double optimize_max_minutes = 10;
};

using VerifyFn =
    std::function<verifier::Verdict(const verifier::VerifyRequest&, std::stop_token, const verifier::ProgressCallback&)>;
using AnalyzeFn = std::function<workflows::FileAnalysis(const SourceFile&, const AnalysisOptions&, bool resource_usage,
                                                        std::stop_token)>;
using ProfileFn = std::function<workflows::ProfileJobResult(const workflows::ProfileJobRequest&, std::stop_token,
                                                            const workflows::ProfileProgress&,
                                                            const workflows::GpuProbe&)>;

struct ToolServices {
  AnalyzeFn analyze;                     // workflows::analyze_file
  VerifyFn verify;                       // verifier::verify
  workflows::GpuProbe probe;             // profile::probe_gpus
  ProfileFn profile;                     // workflows::run_profile_job
  workflows::OptimizeBackend optimize;   // workflows::gpu_optimize_backend
  workflows::CaptureFn capture;          // verifier::capture_program
};

class ToolEnv {
 public:
  ToolEnv(WorkspaceConfig workspace, ToolOptions options, ToolServices services = {});

  const Workspace& workspace() const { return workspace_; }
  const ToolOptions& options() const { return options_; }
  const ToolServices& services() const { return services_; }
  CandidateRegistry& candidates() { return candidates_; }
  // One GPU job at a time (profile, capture, verify, optimize), as in the
  // language server's job runner: timings of two jobs sharing a GPU mean
  // nothing.
  std::mutex& gpu() { return gpu_; }
  // The session's own files (submitted candidates, verifier work
  // directories), outside the workspace; removed when the session ends.
  const std::filesystem::path& scratch() const { return scratch_path_; }

 private:
  Workspace workspace_;
  ToolOptions options_;
  ToolServices services_;
  CandidateRegistry candidates_;
  std::mutex gpu_;
  std::unique_ptr<profile::ScratchDir> scratch_;
  std::filesystem::path scratch_path_;
};

// Every tool, in the order tools/list gives them.
std::vector<Tool> make_tools(ToolEnv& env);

// The tools, one per file (tool_<name>.cpp).
Tool make_analyze_tool(ToolEnv& env);
Tool make_kernel_report_tool(ToolEnv& env);
Tool make_verify_tool(ToolEnv& env);
Tool make_apply_rewrite_tool(ToolEnv& env);
Tool make_profile_tool(ToolEnv& env);
Tool make_capture_tool(ToolEnv& env);
Tool make_optimize_tool(ToolEnv& env);

}  // namespace warplens::mcp
