#include "mcp/tool_env.h"

#include <stdexcept>

#include "agent/verifier/capture_program.h"

namespace warplens::mcp {

ToolEnv::ToolEnv(WorkspaceConfig workspace, ToolOptions options, ToolServices services)
    : workspace_(std::move(workspace)), options_(std::move(options)), services_(std::move(services)) {
  if (!services_.analyze)
    services_.analyze = [](const SourceFile& f, const AnalysisOptions& o, bool resources, std::stop_token stop) {
      return workflows::analyze_file(f, o, resources, stop);
    };
  if (!services_.verify)
    services_.verify = [](const verifier::VerifyRequest& r, std::stop_token stop,
                          const verifier::ProgressCallback& progress) { return verifier::verify(r, stop, progress); };
  if (!services_.probe) services_.probe = [](std::stop_token stop) { return profile::probe_gpus(stop); };
  if (!services_.profile) services_.profile = workflows::run_profile_job;
  if (!services_.capture)
    services_.capture = [](const verifier::CaptureRequest& r, std::stop_token stop) {
      return verifier::capture_program(r, stop);
    };
  if (!services_.optimize) {
    workflows::GpuBackendOptions seams;
    seams.probe = services_.probe;
    seams.capture = services_.capture;
    services_.optimize = workflows::gpu_optimize_backend(seams);
  }
  scratch_ = std::make_unique<profile::ScratchDir>("warplens-mcp-");
  if (!scratch_->ok()) throw std::runtime_error("cannot create the session's scratch directory: " + scratch_->error());
  scratch_path_ = scratch_->path();
}

std::vector<Tool> make_tools(ToolEnv& env) {
  return {make_analyze_tool(env), make_kernel_report_tool(env), make_verify_tool(env), make_apply_rewrite_tool(env),
          make_profile_tool(env), make_capture_tool(env),       make_optimize_tool(env)};
}

}  // namespace warplens::mcp
