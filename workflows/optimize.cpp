#include "workflows/optimize.h"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "agent/capture_verifier.h"
#include "agent/program_verifier.h"
#include "workflows/analyze_file.h"
#include "workflows/llm_policy_tools.h"
#include "workflows/profile.h"

namespace warplens::workflows {

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

// A PyTorch equivalent (the option, else kernel.py next to the file) gives level 3.
fs::path pytorch_reference(const VerifyChoice& v, const std::string& file) {
  fs::path ref = v.pytorch_reference.empty() ? fs::path(file).replace_extension(".py") : v.pytorch_reference;
  return fs::exists(ref) ? ref : fs::path();
}

std::unique_ptr<agent::CandidateVerifier> program_verifier(const agent::OptimizeRequest& request,
                                                           const VerifyChoice& v) {
  // The given text is the original (the editor's buffer): the verifier
  // builds it, and each candidate, with the file's directory on the include path.
  return std::make_unique<agent::ProgramVerifier>(request.file, program_verifier_options(v));
}

agent::CaptureVerifierOptions capture_options(const agent::OptimizeRequest& request, const VerifyChoice& v) {
  agent::CaptureVerifierOptions c;
  c.original_source = request.file.path;
  c.pytorch_reference = pytorch_reference(v, request.file.path);
  c.include_dirs = v.include_dirs;
  c.input_sets = v.input_sets;
  c.timed_runs = v.timed_runs;
  return c;
}

// The verifier the choice and the file call for (see the header); `capture`
// keeps the captured launches alive while the job verifies against them.
std::unique_ptr<agent::CandidateVerifier> choose_verifier(const agent::OptimizeRequest& request,
                                                          const OptimizeContext& context,
                                                          const GpuBackendOptions& seams,
                                                          const agent::ProgressCallback& progress,
                                                          KernelCapture& capture, std::stop_token stop) {
  const VerifyChoice& v = context.verify;
  switch (v.against) {
    case VerifyChoice::Against::OwnMain: return program_verifier(request, v);
    case VerifyChoice::Against::Capture: {
      agent::CaptureVerifierOptions c = capture_options(request, v);
      c.capture_dir = v.capture_dir;
      return std::make_unique<agent::CaptureVerifier>(c);
    }
    case VerifyChoice::Against::Workspace: break;
  }
  if (v.profile_command.empty()) {
    if (!is_self_contained_program(request.file.path, request.file.text))
      throw OptimizeUnavailable("nothing to verify `" + request.kernel + "` against: " + file_name(request.file.path) +
                                " has no main() that checks its own results. " + context.names.nothing_to_verify);
    return program_verifier(request, v);
  }
  if (!v.document_saved)
    throw OptimizeUnavailable(file_name(request.file.path) +
                              " has unsaved changes: save the file first (the launches are captured from the "
                              "program built from the file on disk, so rewrites of the editor's text would not "
                              "match them)");
  KernelCaptureRequest req;
  req.kernel = request.kernel;
  req.profile_command = v.profile_command;
  req.build_command = v.build_command;
  req.working_directory = v.working_directory;
  req.max_launches = v.captured_launches;
  req.timeout = v.command_timeout;
  try {
    capture = capture_kernel_launches(req, seams.capture, [&](const std::string& m) { report_step(progress, m); },
                                      stop);
  } catch (const OptimizeCaptureError& e) {
    throw OptimizeUnavailable(e.what());
  }
  if (stop.stop_requested()) return nullptr;
  report_step(progress, "captured " + std::to_string(capture.launches) + " launch(es) of `" + request.kernel + "`");
  agent::CaptureVerifierOptions c = capture_options(request, v);
  c.capture_dir = capture.capture_dir;
  c.work_dir = capture.scratch->file("verify");  // candidates' sources and builds, removed with the capture
  // A candidate that fuses the kernel with its producer needs both kernels'
  // launches: the program runs once more, capturing the pair, when the first
  // such candidate comes (kept alive, and removed, with the verifier).
  auto pair_captures = std::make_shared<std::vector<KernelCapture>>();
  c.capture_pair = [req, capture_seam = seams.capture, progress, stop, pair_captures](
                       const std::string& first, const std::string& second, std::string& error) -> std::optional<fs::path> {
    KernelCaptureRequest pair = req;
    pair.build_command.clear();  // built once, before the first capture
    pair.kernel = second;
    pair.also_kernels = {first};
    try {
      pair_captures->push_back(
          capture_kernel_launches(pair, capture_seam, [&](const std::string& m) { report_step(progress, m); }, stop));
    } catch (const OptimizeCaptureError& e) {
      error = e.what();
      return std::nullopt;
    }
    if (pair_captures->back().capture_dir.empty()) {
      error = "cancelled";
      return std::nullopt;
    }
    return fs::path(pair_captures->back().capture_dir);
  };
  return std::make_unique<agent::CaptureVerifier>(c);
}

// What the LLM policy may call while it drafts: the analysis of a draft and
// an nvcc compile check for the GPU the job verifies on.
agent::PolicyTools policy_tools(const agent::OptimizeRequest& request, const OptimizeContext& context,
                                const profile::GpuStatus& gpu, std::stop_token stop) {
  PolicyToolsOptions t;
  t.file = request.file.path;
  t.analysis = context.analysis;
  t.include_dirs = context.verify.include_dirs;
  for (const auto& i : t.include_dirs) t.analysis.extra_args.push_back("-I" + i);
  t.arch = context.verify.arch;
  if ((t.arch.empty() || t.arch == "native") && !gpu.devices.empty() && gpu.devices.front().cc_major > 0)
    t.arch = gpu.devices.front().arch();
  if (t.arch.empty()) t.arch = "native";
  t.nvcc = context.verify.nvcc;
  t.compile_timeout_s = context.verify.tool_compile_timeout_s;
  return make_policy_tools(t, stop);
}

GpuBackendOptions with_defaults(GpuBackendOptions seams) {
  if (!seams.probe) seams.probe = [](std::stop_token s) { return profile::probe_gpus(s); };
  if (!seams.capture)
    seams.capture = [](const verifier::CaptureRequest& r, std::stop_token s) { return verifier::capture_program(r, s); };
  if (!seams.loop) seams.loop = agent::run_optimize_job;
  if (!seams.llm_api_key) seams.llm_api_key = llm_api_key;
  return seams;
}

}  // namespace

agent::ProgramVerifierOptions program_verifier_options(const VerifyChoice& v) {
  agent::ProgramVerifierOptions p;
  p.nvcc = v.nvcc;
  p.arch = v.arch;
  for (const auto& d : v.defines) p.nvcc_flags.push_back("-D" + d);
  p.include_dirs = v.include_dirs;
  p.input_sets = v.input_sets;
  p.timed_runs = v.timed_runs;
  p.max_timing_seconds = v.max_timing_seconds;
  p.timeout_s = v.timeout_s;
  p.compile_jobs = v.compile_jobs;
  p.check_jobs = v.check_jobs;
  return p;
}

PreparedOptimize::~PreparedOptimize() = default;

std::unique_ptr<PreparedOptimize> prepare_optimize(const agent::OptimizeRequest& request,
                                                   const OptimizeContext& context, const GpuBackendOptions& given,
                                                   const agent::ProgressCallback& progress, std::stop_token stop) {
  const GpuBackendOptions seams = with_defaults(given);
  std::unique_ptr<PreparedOptimize> run(new PreparedOptimize());
  run->request_ = request;
  run->loop_ = seams.loop;
  // The policy first: a misconfigured LLM is reported before any GPU work.
  run->policy_ =
      choose_optimize_policy(context.policy, seams.llm_api_key(), context.names, request.budget.max_candidates);
  // Then the GPU: a rewrite is offered only after it ran faster and correct
  // on this machine's GPU, so without one there is nothing to do.
  profile::GpuStatus gpu;
  if (context.require_gpu) {
    gpu = seams.probe(stop);
    if (!gpu.available)
      throw OptimizeUnavailable("no GPU to verify rewrites on (" + gpu.reason +
                                "); every rewrite must be checked and timed on a local GPU before it is offered, "
                                "so nothing is offered");
  }
  run->gpu_name_ =
      gpu.devices.empty() || gpu.devices.front().name.empty() ? "this GPU" : gpu.devices.front().name;
  if (context.analyze_when_no_findings && run->request_.findings.empty() && frontend_available()) {
    AnalysisOptions a = context.analysis;
    for (const auto& i : context.verify.include_dirs) a.extra_args.push_back("-I" + i);
    run->request_.findings = analyze_file(request.file, a, /*resource_usage=*/true, stop).findings();
    if (stop.stop_requested()) return nullptr;
  }
  run->verifier_ = choose_verifier(request, context, seams, progress, run->capture_, stop);
  if (!run->verifier_) return nullptr;  // cancelled while building or capturing
  if (run->policy_.wants_tools) run->tools_ = policy_tools(request, context, gpu, stop);
  spdlog::info("optimize: {} in {} on {}: {}, verified by {}", request.kernel, request.file.path, run->gpu_name_,
               run->policy(), run->verifier());
  return run;
}

OptimizeOutcome PreparedOptimize::run(const agent::ProgressCallback& progress, std::stop_token stop) {
  OptimizeOutcome out;
  out.gpu_name = gpu_name_;
  out.result = loop_(request_, *policy_.policy, *verifier_, tools_ ? &*tools_ : nullptr, progress, stop);
  return out;
}

OptimizeBackend gpu_optimize_backend(GpuBackendOptions seams) {
  return [seams](const agent::OptimizeRequest& request, const OptimizeContext& context,
                 const agent::ProgressCallback& progress, std::stop_token stop) -> OptimizeOutcome {
    std::unique_ptr<PreparedOptimize> prepared = prepare_optimize(request, context, seams, progress, stop);
    if (!prepared) {  // cancelled while building or capturing
      OptimizeOutcome out;
      out.result.kernel = request.kernel;
      out.result.stop_reason = agent::StopReason::Cancelled;
      return out;
    }
    return prepared->run(progress, stop);
  };
}

}  // namespace warplens::workflows
