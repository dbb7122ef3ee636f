#include "server/optimize_backend.h"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <memory>
#include <optional>

#include "agent/capture_verifier.h"
#include "agent/program_verifier.h"
#include "profiler/gpu_probe.h"
#include "server/llm_policy_tools.h"
#include "server/optimize_policy.h"

namespace warplens::server {

namespace fs = std::filesystem;

namespace {

std::string file_name(const std::string& path) { return fs::path(path).filename().string(); }

// Reports a setup step (building, capturing) through the job's progress.
void report_step(const agent::ProgressCallback& progress, const std::string& m) {
  if (!progress) return;
  agent::JobProgress p;
  p.message = m;
  progress(p);
}

// The verifier the settings and the file call for (see the header); `capture`
// keeps the captured launches alive while the job verifies against them.
std::unique_ptr<agent::CandidateVerifier> choose_verifier(const agent::OptimizeRequest& request,
                                                          const OptimizeContext& context,
                                                          const GpuBackendOptions& options,
                                                          const agent::ProgressCallback& progress,
                                                          KernelCapture& capture, std::stop_token stop) {
  const Settings& s = context.settings;
  if (s.profile_command.empty()) {
    if (!is_self_contained_program(request.file.path, request.file.text))
      throw OptimizeUnavailable(
          "nothing to verify `" + request.kernel + "` against: " + file_name(request.file.path) +
          " has no main() that checks its own results. Set warplens.profileCommand to the shell command that runs "
          "your program (and warplens.buildCommand to rebuild it) — VS Code: \"warplens.profileCommand\" in "
          "settings.json; Neovim: settings = { profileCommand = '...' } in require('warplens').setup — so its "
          "real launches of the kernel are captured and every rewrite is checked against them");
    // The editor's buffer is the original: the verifier builds it (and each
    // candidate) from this text, with the file's directory on the include path.
    return std::make_unique<agent::ProgramVerifier>(request.file, agent::ProgramVerifierOptions{});
  }
  if (!context.document_saved)
    throw OptimizeUnavailable(file_name(request.file.path) +
                              " has unsaved changes: save the file first (the launches are captured from the "
                              "program built from the file on disk, so rewrites of the editor's text would not "
                              "match them)");
  KernelCaptureRequest req;
  req.kernel = request.kernel;
  req.profile_command = s.profile_command;
  req.build_command = s.build_command;
  req.working_directory = context.workspace_folder;
  req.max_launches = options.captured_launches;
  req.timeout = options.command_timeout;
  try {
    capture = capture_kernel_launches(req, options.capture, [&](const std::string& m) { report_step(progress, m); },
                                      stop);
  } catch (const OptimizeCaptureError& e) {
    throw OptimizeUnavailable(e.what());
  }
  if (stop.stop_requested()) return nullptr;
  report_step(progress, "captured " + std::to_string(capture.launches) + " launch(es) of `" + request.kernel + "`");
  agent::CaptureVerifierOptions v;
  v.capture_dir = capture.capture_dir;
  v.original_source = request.file.path;
  v.work_dir = capture.scratch->file("verify");  // candidates' sources and builds, removed with the capture
  // A PyTorch equivalent next to the file (kernel.py) gives level 3, as in the CLI.
  if (fs::path ref = fs::path(request.file.path).replace_extension(".py"); fs::exists(ref)) v.pytorch_reference = ref;
  return std::make_unique<agent::CaptureVerifier>(v);
}

}  // namespace

OptimizeBackend gpu_optimize_backend(GpuBackendOptions options) {
  if (!options.probe) options.probe = [](std::stop_token s) { return profile::probe_gpus(s); };
  if (!options.capture)
    options.capture = [](const verifier::CaptureRequest& r, std::stop_token s) { return verifier::capture_program(r, s); };
  if (!options.loop) options.loop = agent::run_optimize_job;
  if (!options.llm_api_key) options.llm_api_key = llm_api_key;
  return [options](const agent::OptimizeRequest& request, const OptimizeContext& context,
                   const agent::ProgressCallback& progress, std::stop_token stop) -> OptimizeOutcome {
    // The policy first: a misconfigured LLM is reported before any GPU work.
    ChosenPolicy policy =
        choose_optimize_policy(context.settings.llm, options.llm_api_key(), request.budget.max_candidates,
                               to_analysis_options(context.settings));
    // Then the GPU: a rewrite is offered only after it ran faster and correct
    // on this machine's GPU, so without one there is nothing to do.
    profile::GpuStatus gpu = options.probe(stop);
    if (!gpu.available)
      throw OptimizeUnavailable("no GPU to verify rewrites on (" + gpu.reason +
                                "); every rewrite must be checked and timed on a local GPU before it is offered, "
                                "so nothing is offered");
    OptimizeOutcome out;
    out.gpu_name = gpu.devices.empty() || gpu.devices.front().name.empty() ? "this GPU" : gpu.devices.front().name;
    KernelCapture capture;
    std::unique_ptr<agent::CandidateVerifier> verifier =
        choose_verifier(request, context, options, progress, capture, stop);
    if (!verifier) {  // cancelled while building or capturing
      out.result.kernel = request.kernel;
      out.result.stop_reason = agent::StopReason::Cancelled;
      return out;
    }
    spdlog::info("optimize: {} in {} on {}: policy {}, verifier {}", request.kernel, request.file.path, out.gpu_name,
                 policy.description, verifier->name());
    std::optional<agent::PolicyTools> tools;
    if (policy.wants_tools) {
      PolicyToolsOptions t;
      t.file = request.file.path;
      t.analysis = to_analysis_options(context.settings);
      if (!gpu.devices.empty() && gpu.devices.front().cc_major > 0) t.arch = gpu.devices.front().arch();
      tools = make_policy_tools(t, stop);
    }
    out.result = options.loop(request, *policy.policy, *verifier, tools ? &*tools : nullptr, progress, stop);
    return out;
  };
}

}  // namespace warplens::server
