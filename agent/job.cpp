#include "agent/job.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>

#include "agent/text_diff.h"

namespace warplens::agent {

const char* to_string(StopReason r) {
  switch (r) {
    case StopReason::PolicyExhausted: return "policy-exhausted";
    case StopReason::WallBudget: return "wall-time-budget";
    case StopReason::CandidateBudget: return "candidate-budget";
    case StopReason::GpuBudget: return "gpu-time-budget";
    case StopReason::Cancelled: return "cancelled";
    case StopReason::Error: return "error";
  }
  return "?";
}

std::string offer_title(const CandidateVerdict& v) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "Apply verified rewrite: %.2fx faster (level %d, correct on %d input set%s)",
                v.speedup, to_int(v.level), v.input_sets, v.input_sets == 1 ? "" : "s");
  return buf;
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

bool offerable(const CandidateVerdict& v) {
  return to_int(v.level) >= to_int(RewardLevel::Faster) && !v.implausible && v.speedup > 0;
}

std::string summarise(const OptimizeResult& r) {
  int incorrect = 0, not_faster = 0;
  for (const auto& t : r.tried) {
    if (t.verdict.level == RewardLevel::Incorrect) ++incorrect;
    else if (t.verdict.level == RewardLevel::Correct || t.verdict.implausible) ++not_faster;
  }
  char buf[400];
  if (!r.offers.empty()) {
    const Offer& best = r.offers.front();
    std::snprintf(buf, sizeof buf, "best verified: %.2fx faster (%s, level %d); %zu winner(s) of %zu candidate(s)",
                  best.speedup, best.plan.c_str(), to_int(best.level), r.offers.size(), r.tried.size());
  } else {
    std::snprintf(buf, sizeof buf,
                  "nothing beat the original: %zu candidate(s) tried (%d incorrect, %d correct but not >5%% faster); "
                  "stopped: %s",
                  r.tried.size(), incorrect, not_faster, to_string(r.stop_reason));
  }
  return buf;
}

}  // namespace

void finalize_result(OptimizeResult& result, std::string_view original_text) {
  result.offers.clear();
  const std::uint64_t base_hash = text_hash(original_text);
  for (const auto& t : result.tried) {
    if (!offerable(t.verdict)) continue;
    Offer o;
    o.candidate_id = t.candidate.id;
    o.title = offer_title(t.verdict);
    o.plan = to_string(t.candidate.plan);
    o.edits = t.candidate.edits.empty() && t.candidate.source != original_text
                  ? minimal_edits(original_text, t.candidate.source)
                  : t.candidate.edits;
    o.full_text = t.candidate.source;
    o.base_text_hash = base_hash;
    o.speedup = t.verdict.speedup;
    o.level = t.verdict.level;
    o.input_sets = t.verdict.input_sets;
    o.launch_changes = t.candidate.launch_changes;
    result.offers.push_back(std::move(o));
  }
  std::stable_sort(result.offers.begin(), result.offers.end(),
                   [](const Offer& a, const Offer& b) { return a.speedup > b.speedup; });
  result.summary = summarise(result);
}

OptimizeResult run_optimize_job(const OptimizeRequest& request, Policy& policy, CandidateVerifier& verifier,
                                const PolicyTools* tools, const ProgressCallback& progress, std::stop_token stop) {
  const auto start = Clock::now();
  OptimizeResult result;
  result.file = request.file.path;
  result.kernel = request.kernel;
  result.policy = policy.name();
  result.verifier = verifier.name();
  JobProgress p;
  auto report = [&](std::string message) {
    p.elapsed_seconds = seconds_since(start);
    p.gpu_seconds = result.gpu_seconds;
    p.message = std::move(message);
    if (progress) progress(p);
  };
  std::set<std::string> used_ids;
  int next_id = 1;
  const int batch = std::max(1, request.batch_size);
  try {
    for (;;) {
      if (stop.stop_requested()) {
        result.stop_reason = StopReason::Cancelled;
        break;
      }
      const double elapsed = seconds_since(start);
      if (elapsed >= request.budget.wall_seconds) {
        result.stop_reason = StopReason::WallBudget;
        break;
      }
      const int left = request.budget.max_candidates - static_cast<int>(result.tried.size());
      if (left <= 0) {
        result.stop_reason = StopReason::CandidateBudget;
        break;
      }
      if (result.gpu_seconds >= request.budget.gpu_seconds) {
        result.stop_reason = StopReason::GpuBudget;
        break;
      }
      PolicyContext ctx{request.file, request.kernel, request.findings, request.profile, result.tried,
                        BudgetLeft{request.budget.wall_seconds - elapsed, left,
                                   request.budget.gpu_seconds - result.gpu_seconds},
                        tools};
      report("asking " + policy.name() + " for candidates");
      std::vector<Candidate> proposed = policy.propose(ctx, std::min(batch, left), stop);
      if (stop.stop_requested()) {
        result.stop_reason = StopReason::Cancelled;
        break;
      }
      if (proposed.empty()) {
        result.stop_reason = StopReason::PolicyExhausted;
        break;
      }
      if (static_cast<int>(proposed.size()) > left) proposed.resize(static_cast<std::size_t>(left));
      p.proposed += static_cast<int>(proposed.size());
      bool out_of_budget = false;
      for (Candidate& c : proposed) {
        if (c.id.empty() || used_ids.count(c.id)) {
          char id[16];
          do std::snprintf(id, sizeof id, "c%02d", next_id++);
          while (used_ids.count(id));
          c.id = id;
        }
        used_ids.insert(c.id);
        if (c.kernel.empty()) c.kernel = request.kernel;
        if (c.edits.empty() && c.source != request.file.text) c.edits = minimal_edits(request.file.text, c.source);
        if (seconds_since(start) >= request.budget.wall_seconds) {
          result.stop_reason = StopReason::WallBudget;
          out_of_budget = true;
          break;
        }
        if (stop.stop_requested()) break;
        report("verifying " + c.id + ": " + to_string(c.plan));
        CandidateVerdict v = verifier.verify(c, stop);
        v.candidate_id = c.id;
        result.gpu_seconds += v.gpu_seconds;
        ++p.verified;
        if (v.level != RewardLevel::Incorrect) ++p.correct;
        if (offerable(v)) {
          ++p.faster;
          p.best_speedup = std::max(p.best_speedup, v.speedup);
        }
        spdlog::info("optimize {}: {} {} -> level {} ({:.2f}x) {}", request.kernel, c.id, to_string(c.plan),
                     to_int(v.level), v.speedup, v.reason);
        const bool fatal = v.verifier_failed;
        const std::string why = v.reason;
        result.tried.push_back({std::move(c), std::move(v)});
        report("verified " + result.tried.back().candidate.id);
        if (fatal) {
          result.stop_reason = StopReason::Error;
          result.error = "the verifier cannot verify anything: " + why;
          out_of_budget = true;
          break;
        }
        if (result.gpu_seconds >= request.budget.gpu_seconds) {
          result.stop_reason = StopReason::GpuBudget;
          out_of_budget = true;
          break;
        }
      }
      if (out_of_budget) break;
    }
  } catch (const std::exception& e) {
    result.stop_reason = StopReason::Error;
    result.error = e.what();
    spdlog::error("optimize {}: {}", request.kernel, e.what());
  }
  if (stop.stop_requested() && result.stop_reason != StopReason::Error) result.stop_reason = StopReason::Cancelled;

  result.wall_seconds = seconds_since(start);
  finalize_result(result, request.file.text);
  report(result.summary);
  return result;
}

}  // namespace warplens::agent
