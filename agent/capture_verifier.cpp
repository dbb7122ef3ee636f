#include "agent/capture_verifier.h"

#include <fstream>
#include <random>

#include "agent/verifier/verifier.h"

namespace warplens::agent {

namespace fs = std::filesystem;

std::optional<verifier::LaunchOverride> launch_override(const std::vector<LaunchChange>& changes, std::string& why) {
  verifier::LaunchOverride o;
  for (const LaunchChange& c : changes) {
    if (c.swap_xy) {
      why = "swapped grid axes cannot be expressed as a replay launch override";
      return std::nullopt;
    }
    if (c.persistent_blocks_per_sm > 0) {
      why = "a persistent grid cannot be expressed as a replay launch override";
      return std::nullopt;
    }
    for (int d = 0; d < 3; ++d) {
      const Ratio r = c.thread_scale[d];
      if (r.num != 1) {
        why = "a candidate with more threads than the original cannot be expressed as a replay launch override";
        return std::nullopt;
      }
      // ceil(ceil(x / a) / b) == ceil(x / (a * b)): successive coarsenings multiply.
      o.coarsen[d] *= static_cast<std::uint32_t>(r.den);
    }
    if (c.block)
      o.block = verifier::Dim3{static_cast<std::uint32_t>(c.block->x), static_cast<std::uint32_t>(c.block->y),
                               static_cast<std::uint32_t>(c.block->z)};
  }
  return o;
}

CaptureVerifier::CaptureVerifier(CaptureVerifierOptions options) : options_(std::move(options)) {
  if (options_.work_dir.empty()) {
    std::random_device rd;
    options_.work_dir = fs::temp_directory_path() / ("warplens-optimize-capture-" + std::to_string(rd()));
  }
  fs::create_directories(options_.work_dir);
}

CandidateVerdict CaptureVerifier::verify(const Candidate& c, std::stop_token stop) {
  CandidateVerdict out;
  out.candidate_id = c.id;
  if (c.fusion) {
    out.reason = "a fused launch sequence needs both captured launches replayed together: not supported by the "
                 "capture verifier yet";
    return out;
  }
  std::string why;
  auto override_ = launch_override(c.launch_changes, why);
  if (!override_) {
    out.reason = why;
    return out;
  }
  const fs::path src = options_.work_dir / (c.id + ".cu");
  {
    std::ofstream f(src);
    f << c.source;
  }
  verifier::VerifyRequest req;
  req.capture_dir = options_.capture_dir;
  req.original_source = options_.original_source;
  req.candidate_source = src;
  req.kernel = c.result_kernel.empty() ? c.kernel : c.result_kernel;
  req.input_sets = options_.input_sets;
  req.timed_runs = options_.timed_runs;
  req.candidate_launch = *override_;
  req.pytorch_reference = options_.pytorch_reference;
  req.include_dirs = options_.include_dirs;
  if (!options_.original_source.parent_path().empty())
    req.include_dirs.push_back(options_.original_source.parent_path().string());
  verifier::Verdict v = verifier::verify(req, stop);
  out.compiled = v.candidate_compile.ok;
  if (!out.compiled) out.compile_log = v.candidate_compile.log;
  out.correct = v.correct;
  for (const auto& s : v.input_sets) {
    if (s.checked) ++out.input_sets;
    if (!s.failure.empty() && out.worst.empty()) out.worst = s.failure;
    for (const auto& b : s.buffers) out.max_error = std::max(out.max_error, b.comparison.max_rel_error);
  }
  if (v.timing) {
    out.original.median_ms = v.timing->original.median_us / 1000.0;
    out.original.p10_ms = v.timing->original.p25_us / 1000.0;
    out.original.p90_ms = v.timing->original.p75_us / 1000.0;
    out.original.runs = v.timing->original.runs;
    out.candidate.median_ms = v.timing->candidate.median_us / 1000.0;
    out.candidate.p10_ms = v.timing->candidate.p25_us / 1000.0;
    out.candidate.p90_ms = v.timing->candidate.p75_us / 1000.0;
    out.candidate.runs = v.timing->candidate.runs;
    if (v.timing->eager) out.eager_ms = v.timing->eager->median_us / 1000.0;
    if (v.timing->compiled) out.compiled_ms = v.timing->compiled->median_us / 1000.0;
  }
  out.speedup = v.speedup;
  out.level = static_cast<RewardLevel>(v.status == verifier::VerdictStatus::Verified ? v.level : -1);
  out.implausible = v.needs_review;
  for (const auto& r : v.reasons) out.reason += (out.reason.empty() ? "" : "; ") + r;
  if (v.status != verifier::VerdictStatus::Verified && !v.error.empty()) out.reason = v.error;
  // No GPU, a bad capture, an original that does not replay: nothing else will verify either.
  out.verifier_failed = v.status == verifier::VerdictStatus::Error;
  out.verify_seconds = v.wall_ms / 1000.0;
  out.gpu_seconds = v.wall_ms / 1000.0;
  out.evidence = verifier::to_json_text(v);
  return out;
}

}  // namespace warplens::agent
