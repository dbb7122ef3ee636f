#include "agent/capture_verifier.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>

#include "agent/verifier/kernel_signature.h"
#include "agent/verifier/verifier.h"
#include "profiler/capture_format.h"

namespace warplens::agent {

namespace fs = std::filesystem;

verifier::LaunchReshape to_reshape(const LaunchChange& c) {
  verifier::LaunchReshape r;
  if (c.block)
    r.block = verifier::Dim3{static_cast<std::uint32_t>(c.block->x), static_cast<std::uint32_t>(c.block->y),
                             static_cast<std::uint32_t>(c.block->z)};
  r.swap_xy = c.swap_xy;
  for (int d = 0; d < 3; ++d)
    r.scale[static_cast<std::size_t>(d)] = {static_cast<std::uint32_t>(c.thread_scale[d].num),
                                            static_cast<std::uint32_t>(c.thread_scale[d].den)};
  r.persistent_blocks_per_sm = static_cast<std::uint32_t>(std::max(0, c.persistent_blocks_per_sm));
  if (c.cover) {
    std::array<verifier::Extent, 2> cover{};
    for (std::size_t d = 0; d < 2; ++d) cover[d] = {(*c.cover)[d].param, (*c.cover)[d].constant};
    r.cover = cover;
  }
  return r;
}

std::optional<verifier::LaunchOverride> launch_override(const std::vector<LaunchChange>& changes, std::string& why,
                                                        const std::string& kernel) {
  verifier::LaunchOverride o;
  constexpr std::int64_t kMax = 0x7fffffff;
  for (const LaunchChange& c : changes) {
    if (!kernel.empty() && !c.kernel.empty() && c.kernel != kernel) continue;
    auto in_range = [&](std::int64_t v) { return v > 0 && v <= kMax; };
    if (c.block && !(in_range(c.block->x) && in_range(c.block->y) && in_range(c.block->z))) {
      why = "the launch change " + format_launch_declaration(c) + " has a block no launch can have";
      return std::nullopt;
    }
    for (const Ratio& r : c.thread_scale)
      if (!in_range(r.num) || !in_range(r.den)) {
        why = "the launch change " + format_launch_declaration(c) + " has a thread scale no launch can have";
        return std::nullopt;
      }
    if (c.persistent_blocks_per_sm < 0) {
      why = "the launch change " + format_launch_declaration(c) + " has a negative persistent grid";
      return std::nullopt;
    }
    o.reshapes.push_back(to_reshape(c));
  }
  return o;
}

namespace {
std::string shape(const verifier::LaunchGeometry& g) {
  return "grid " + verifier::to_string(g.grid) + " block " + verifier::to_string(g.block);
}
std::string shapes(const std::vector<verifier::LaunchGeometry>& gs) {
  std::string s;
  for (const auto& g : gs) s += (s.empty() ? "" : " then ") + shape(g);
  return s;
}
}  // namespace

std::vector<std::string> replayed_launches(const verifier::Verdict& v) {
  std::vector<std::string> out;
  for (const auto& s : v.input_sets)
    if (s.checked && !s.candidate_launches.empty())
      out.push_back("set " + std::to_string(s.index) + " (" + s.origin + "): " + shapes(s.original_launches) + " -> " +
                    shapes(s.candidate_launches));
  return out;
}

verifier::FusionSpec to_fusion_spec(const FusionDeclaration& f) {
  verifier::FusionSpec s;
  s.first = f.first;
  s.second = f.second;
  for (const auto& p : f.params) s.params.push_back({p.launch, p.index});
  s.elided = f.elided;
  return s;
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
  const std::string kernel = c.result_kernel.empty() ? c.kernel : c.result_kernel;
  std::string why;
  auto override_ = launch_override(c.launch_changes, why, kernel);
  if (!override_) {
    out.reason = why;
    return out;
  }
  // The file carries the candidate's declarations (as in a candidates
  // directory), so the verdict's `reproduce` command replays it the same way.
  const fs::path src = options_.work_dir / (c.id + ".cu");
  {
    std::ofstream f(src);
    f << candidate_file_header(c) << c.source;
  }
  verifier::VerifyRequest req;
  req.capture_dir = options_.capture_dir;
  if (c.fusion) {
    req.capture_dir = pair_capture(c.fusion->first, c.fusion->second, why);
    if (req.capture_dir.empty()) {
      out.reason = "not verifiable: " + why;
      return out;
    }
  }
  req.original_source = options_.original_source;
  req.candidate_source = src;
  req.kernel = kernel;
  req.input_sets = options_.input_sets;
  req.timed_runs = options_.timed_runs;
  req.timeout_s = options_.timeout_s;
  req.candidate_launch = *override_;
  if (c.fusion) req.fusion = to_fusion_spec(*c.fusion);
  // The engine's rewrites know which float sums they reorder; a free-form
  // (LLM) candidate never carries a declaration (agent/candidate.h).
  if (c.reassociation) {
    verifier::Reassociation r;
    for (const ParamExtent& e : *c.reassociation) r.terms.push_back({e.param, e.constant});
    req.reassociation = r;
  }
  req.pytorch_reference = options_.pytorch_reference;
  req.sanitize_min_speedup = best_clean_[kernel];
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
  // Level 3 from measured PyTorch times, by the same rule, when the
  // verifier did not time a reference itself.
  if (options_.pytorch_reference.empty() && options_.eager_ms && options_.compiled_ms &&
      out.level == RewardLevel::Faster && !v.needs_review) {
    out.eager_ms = options_.eager_ms;
    out.compiled_ms = options_.compiled_ms;
    out.level = reward_level(true, out.original.median_ms, out.candidate.median_ms, out.eager_ms, out.compiled_ms);
  }
  out.implausible = v.needs_review;
  if (v.sanitizer) {
    out.memcheck_clean = v.sanitizer->ran && v.sanitizer->clean;
    out.memcheck_note = !v.sanitizer->ran ? "compute-sanitizer memcheck did not run: " + v.sanitizer->note
                        : v.sanitizer->clean
                            ? "compute-sanitizer memcheck: no errors in " + std::to_string(v.sanitizer->runs) + " run(s)"
                            : "compute-sanitizer memcheck: " + std::to_string(v.sanitizer->errors) + " error(s)";
  }
  // Why a large speedup was offered or held (verdict_builder's
  // require_complete_evidence), and any other review note, for the report.
  for (const auto& n : v.notes)
    if (n.find("complete evidence") != std::string::npos || n.find("held for review") != std::string::npos ||
        n.find("needs review") != std::string::npos || n.find("implausible") != std::string::npos)
      out.review_notes.push_back(n);
  for (const auto& r : v.reasons) out.reason += (out.reason.empty() ? "" : "; ") + r;
  if (v.status != verifier::VerdictStatus::Verified && !v.error.empty()) out.reason = v.error;
  // No GPU, a bad capture, an original that does not replay: nothing else will verify either. A fused
  // candidate's errors (no producer/consumer pair captured, the pair does not replay) are its own, unless
  // there is no GPU at all.
  const bool no_gpu = v.stage_ms.count("device_probe") && v.device.name.empty();
  out.verifier_failed = v.status == verifier::VerdictStatus::Error && (!c.fusion || no_gpu);
  if (v.status == verifier::VerdictStatus::Error && !out.verifier_failed) out.reason = "not verifiable: " + v.error;
  if (out.memcheck_clean && !out.implausible && to_int(out.level) >= to_int(RewardLevel::Faster))
    best_clean_[kernel] = std::max(best_clean_[kernel], out.speedup);
  out.verify_seconds = v.wall_ms / 1000.0;
  out.gpu_seconds = v.wall_ms / 1000.0;
  out.evidence = verifier::to_json_text(v);
  out.replayed = replayed_launches(v);
  return out;
}

fs::path CaptureVerifier::pair_capture(const std::string& first, const std::string& second, std::string& error) {
  auto key = std::make_pair(first, second);
  if (auto it = pair_captures_.find(key); it != pair_captures_.end()) {
    error = it->second.error;
    return it->second.dir;
  }
  PairCapture& p = pair_captures_[key];
  try {
    const capture::CaptureManifest m = capture::load_capture(options_.capture_dir);
    bool first_seen = false, paired = false;
    for (const auto& l : m.launches) {
      const std::string name = verifier::kernel_base_name(l.kernel);
      if (name == first) first_seen = true;
      if (name == second && first_seen) paired = true;
    }
    if (paired) return p.dir = options_.capture_dir;  // the verifier pairs them up (and explains a bad pair)
    // Why the capture lacks one of them, when it refused it (a byte cap,
    // a launch limit): the fix is in that reason, not in the kernel list.
    for (const auto& r : m.refusals) {
      const std::string name = verifier::kernel_base_name(r.kernel);
      if ((name == first || name == second) && p.refused.find("`" + name + "`") == std::string::npos)
        p.refused += (p.refused.empty() ? "" : "; ") + std::string("the capture refused `") + name + "`: " + r.reason;
    }
  } catch (const std::exception&) {
    return p.dir = options_.capture_dir;  // verify() reports the bad capture
  }
  if (!options_.capture_pair) {
    p.error = "the capture holds no launch of `" + first + "` followed by one of `" + second + "`" +
              (p.refused.empty() ? std::string() : " (" + p.refused + ")") + ": capture both (warplens capture --kernel '" +
              first + "|" + second + "' --launches-per-kernel 3) to verify a candidate that fuses them";
  } else if (auto dir = options_.capture_pair(first, second, p.error)) {
    p.dir = *dir;
  }
  error = p.error;
  return p.dir;
}

double CaptureBatchItem::baseline_ms() const {
  std::vector<double> medians;
  for (const auto& v : verdicts)
    if (v.original.median_ms > 0) medians.push_back(v.original.median_ms);
  if (medians.empty()) return 0;
  std::sort(medians.begin(), medians.end());
  const std::size_t n = medians.size();
  return n % 2 ? medians[n / 2] : 0.5 * (medians[n / 2 - 1] + medians[n / 2]);
}

void verify_captured(std::vector<CaptureBatchItem>& items, std::stop_token stop,
                     const std::function<void(const std::string&)>& log) {
  for (auto& item : items) {
    const auto t0 = std::chrono::steady_clock::now();
    item.verdicts.clear();
    for (const auto& c : item.candidates) {
      CandidateVerdict v;
      v.candidate_id = c.id;
      if (stop.stop_requested()) {
        v.reason = "cancelled";
      } else if (!item.error.empty()) {
        v.reason = "not verified: " + item.error;
      } else {
        v = item.verifier->verify(c, stop);
        if (v.verifier_failed) item.error = v.reason;
        if (log) {
          char line[160];
          std::snprintf(line, sizeof line, "%s: level %d, %.2fx, %.1f s", c.id.c_str(), to_int(v.level), v.speedup,
                        v.verify_seconds);
          log(std::string(line) + (v.reason.empty() ? "" : ": " + v.reason.substr(0, 200)));
        }
      }
      item.verdicts.push_back(std::move(v));
    }
    item.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
}

}  // namespace warplens::agent
