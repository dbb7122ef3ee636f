#include "workflows/kernel_capture.h"

#include <algorithm>
#include <filesystem>

#include <spdlog/spdlog.h>

#include "agent/verifier/tool_process.h"

namespace warplens::workflows {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kTailBytes = 1500;

std::string tail(const std::string& text) {
  if (text.size() <= kTailBytes) return text;
  return "…" + text.substr(text.size() - kTailBytes);
}

// buildCommand through the shell in the workspace folder; its output is kept
// in the scratch directory and its stderr (else stdout) quoted on failure.
void run_build(const KernelCaptureRequest& req, const profile::ScratchDir& scratch, std::stop_token stop) {
  verifier::ToolSpec spec;
  spec.argv = {"/bin/sh", "-c", req.build_command};
  spec.cwd = req.working_directory;
  spec.timeout_s = static_cast<double>(req.timeout.count());
  spec.log_stem = scratch.file("build");
  verifier::ToolRun run = verifier::run_tool(spec, stop);
  if (stop.stop_requested() || run.process.cancelled || run.succeeded()) return;
  std::string output = run.err.empty() ? run.out : run.err;  // make reports progress on stdout
  while (!output.empty() && (output.back() == '\n' || output.back() == ' ')) output.pop_back();
  throw OptimizeCaptureError("the build command `" + req.build_command + "` failed (" + run.description + ")" +
                             (output.empty() ? std::string() : ":\n" + tail(output)));
}

// Why no launch of the kernel was captured, for the user.
std::string no_launch_message(const KernelCaptureRequest& req, const verifier::CaptureRunResult& r) {
  std::string m = "no launch of `" + req.kernel + "` was captured from `" + req.profile_command + "`";
  if (!r.ok) {
    m += ": " + (r.error.empty() ? std::string("the capture wrote no manifest") : r.error);
  } else {
    const capture::CaptureManifest& man = *r.manifest;
    if (!man.refusals.empty()) {
      m += "; the capture refused " + std::to_string(man.refusals.size()) + " launch(es):";
      const std::size_t shown = std::min<std::size_t>(man.refusals.size(), 3);
      for (std::size_t i = 0; i < shown; ++i)
        m += "\n  - " + man.refusals[i].kernel + " (launch " + std::to_string(man.refusals[i].sequence) +
             "): " + man.refusals[i].reason;
    } else {
      m += " (" + std::to_string(man.counters.driver_launches) + " kernel launch(es) seen, " +
           std::to_string(man.counters.matched_launches) + " of them `" + req.kernel +
           "`; does the command run the program that launches it?)";
    }
    for (const auto& note : man.notes) m += "\n  note: " + note;
  }
  if (r.process.process.started && !r.process.succeeded()) m += "\nthe program " + r.process.description;
  if (!r.process.err.empty()) m += "\nits stderr ends with:\n" + tail(r.process.err);
  return m;
}

}  // namespace

std::string kernel_name_regex(const std::string& name) {
  // Kernel names are identifiers: nothing to escape. Demangled names put the
  // kernel after the start, a space (return type) or `::`, and before its
  // template or parameter list; extern "C" ones stand alone.
  return "(^|[ :])" + name + "[<(]|^" + name + "$";
}

KernelCapture capture_kernel_launches(const KernelCaptureRequest& req, const CaptureFn& capture,
                                      const StepProgress& progress, std::stop_token stop) {
  KernelCapture out;
  out.scratch = std::make_unique<profile::ScratchDir>("warplens-optimize-capture-");
  if (!out.scratch->ok()) throw OptimizeCaptureError("cannot make a capture directory: " + out.scratch->error());
  if (!req.build_command.empty()) {
    progress("building: " + req.build_command);
    run_build(req, *out.scratch, stop);
    if (stop.stop_requested()) return {};
  }
  verifier::CaptureRequest c;
  c.program = {"/bin/sh", "-c", req.profile_command};
  c.kernel_regex = kernel_name_regex(req.kernel);
  for (const auto& k : req.also_kernels) c.kernel_regex += "|" + kernel_name_regex(k);
  c.max_launches = req.max_launches * static_cast<int>(1 + req.also_kernels.size());
  if (!req.also_kernels.empty()) c.max_launches_per_kernel = req.max_launches;
  c.out_dir = out.scratch->file("capture");
  c.timeout_s = static_cast<double>(req.timeout.count());
  c.cwd = req.working_directory;
  std::string which = "`" + req.kernel + "`";
  for (const auto& k : req.also_kernels) which += " and `" + k + "`";
  progress("capturing the first " + std::to_string(req.max_launches) + " launches of " + which + " from `" +
           req.profile_command + "`");
  verifier::CaptureRunResult r = capture(c, stop);
  if (stop.stop_requested()) return {};
  if (!r.ok || !r.manifest || r.manifest->launches.empty()) throw OptimizeCaptureError(no_launch_message(req, r));
  out.capture_dir = c.out_dir.string();
  out.launches = static_cast<int>(r.manifest->launches.size());
  spdlog::info("optimize: captured {} launch(es) of {} from `{}`", out.launches, req.kernel, req.profile_command);
  return out;
}

}  // namespace warplens::workflows
