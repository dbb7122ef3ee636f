#include "agent/verifier/verify_reference.h"

#include <sys/stat.h>

#include <chrono>
#include <cstdio>

#include "agent/verifier/replay_process.h"
#include "agent/verifier/verifier_json.h"

namespace warplens::verifier {

namespace fs = std::filesystem;

namespace {

std::string file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return path;
  return path + "@" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

std::string shorten(const std::string& s, std::size_t n) { return s.size() <= n ? s : s.substr(0, n) + " [...]"; }

}  // namespace

std::string reference_key(const ReplayPlan& plan, const CompileRequest& compile, const std::string& original_text,
                          const std::string& manifest_text, const std::string& replay_binary) {
  json p = {{"layouts", plan.layouts},     {"input_sets", plan.input_sets}, {"tolerance", plan.tolerance},
            {"guard_bytes", plan.guard_bytes}, {"pipeline", plan.pipeline},   {"symbol", plan.original.symbol},
            {"name", plan.original.name},  {"deadline", plan.run_deadline_s},
            {"sequences", plan.sequences},  {"original_steps", plan.original_steps}};
  std::string flags;
  for (const auto& f : compile.extra_flags) flags += f + "\n";
  std::string includes;
  for (const auto& i : compile.include_dirs) includes += i + "\n";
  return reference_cache_key({plan.capture_dir, manifest_text, original_text, compile.arch, flags, includes,
                              compile.nvcc, file_identity(replay_binary), p.dump()});
}

CachedReference compute_reference_entry(const fs::path& dir, ReplayPlan plan, CompileRequest compile,
                                        const std::string& replay, double timeout_s, std::stop_token stop) {
  CachedReference c;
  c.dir = dir;
  c.cubin = dir / "original.cubin";
  c.reference_path = dir / "reference.json";
  compile.output = c.cubin;
  c.original_compile = compile_to_cubin(compile, stop);
  if (!c.original_compile.ok) {
    c.error = "the original does not compile: " + shorten(c.original_compile.log, 1500);
    return c;
  }
  plan.original.cubin = c.cubin.string();
  for (auto& k : plan.original_steps) k.cubin = c.cubin.string();  // a launch sequence's kernels: the same source
  plan.work_dir = dir.string();
  const fs::path plan_path = dir / "reference-plan.json";
  const auto t0 = std::chrono::steady_clock::now();
  // Each shape variation the original faults or hangs on ends the child;
  // it runs again without that one (marked skipped, with the reason). First,
  // though, a fresh set (a variation is one too) it faults or hangs on runs
  // again with the captured floating-point scalars: a re-drawn float can be
  // a scale that computes addresses (an upsampling kernel's). The captured
  // sets are never skipped.
  for (std::size_t attempt = 0; attempt <= 2 * plan.input_sets.size(); ++attempt) {
    write_text_file(plan_path, to_json_text(plan));
    ReferenceResult reference;
    ReplayRun run = run_reference_child(replay, plan_path, c.reference_path, timeout_s, reference, stop);
    c.reference_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (stop.stop_requested()) {
      c.error = "cancelled";
      return c;
    }
    const int code = run.process.process.exit_code;
    const int failed = reference.failed_set;
    const bool retry = run.have_result && failed >= 0 && static_cast<std::size_t>(failed) < plan.input_sets.size() &&
                       (!plan.input_sets[static_cast<std::size_t>(failed)].variation.empty() ||
                        plan.input_sets[static_cast<std::size_t>(failed)].fresh) &&
                       !plan.input_sets[static_cast<std::size_t>(failed)].skipped &&
                       (code == kReplayExitSetFailed || code == kReplayExitHung);
    if (retry) {
      auto& spec = plan.input_sets[static_cast<std::size_t>(failed)];
      if (spec.fresh && !spec.captured_scalars) {
        spec.captured_scalars = true;
        continue;
      }
      spec.skipped = true;
      spec.skip_reason = code == kReplayExitHung
                             ? "the original itself did not finish within " + std::to_string(plan.run_deadline_s) +
                                   (spec.variation.empty() ? " s on these re-drawn inputs" : " s at this shape")
                             : reference.error;
      continue;
    }
    if (!run.have_result || !reference.ok) {
      std::string why = run.have_result ? reference.error
                        : run.read_error.empty() ? explain_replay_failure(run.process)
                                                 : run.read_error;
      c.error = "replaying the original failed: " + why;
      return c;
    }
    c.reference = std::move(reference);
    c.input_sets = plan.input_sets;
    c.ok = true;
    return c;
  }
  c.error = "replaying the original failed: too many shape variations ended the reference replay";
  return c;
}

}  // namespace warplens::verifier
