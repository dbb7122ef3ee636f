#include "workflows/candidate_sets.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <thread>
#include <tuple>

#include "agent/capture_verifier.h"

namespace warplens::workflows {

namespace fs = std::filesystem;
using namespace warplens::agent;

namespace {

// Per set, what the outcome needs, whichever verifier judged it.
struct Judged {
  std::string verifier;
  std::vector<CandidateVerdict> verdicts;
  double wall_seconds = 0, baseline_ms = 0;
  std::string error;
  std::optional<double> eager_ms, compiled_ms;
};

std::pair<std::optional<double>, std::optional<double>> torch_for(const CandidateSetsRequest& request,
                                                                  const CandidateSet& set, const std::string& dir) {
  const std::string name = set.name.empty() ? fs::path(dir).filename().string() : set.name;
  auto it = request.torch_times.find(name);
  return it == request.torch_times.end() ? std::pair<std::optional<double>, std::optional<double>>{} : it->second;
}

// Each set's own self-checking main, one program verifier per set.
std::vector<Judged> judge_by_own_main(const CandidateSetsRequest& request, std::vector<VerifiedCandidateSet>& sets,
                                      std::stop_token stop, const std::function<void(const std::string&)>& log) {
  std::vector<std::unique_ptr<ProgramVerifier>> verifiers;
  std::vector<ProgramBatchItem> items;
  for (std::size_t i = 0; i < sets.size(); ++i) {
    ProgramVerifierOptions po = program_verifier_options(request.verify);
    for (const auto& inc : absolute_include_dirs(sets[i].set)) po.include_dirs.push_back(inc);
    std::tie(po.eager_ms, po.compiled_ms) = torch_for(request, sets[i].set, request.dirs[i]);
    verifiers.push_back(std::make_unique<ProgramVerifier>(original_of(sets[i].set), po));
    ProgramBatchItem item;
    item.verifier = verifiers.back().get();
    item.candidates = sets[i].set.candidates;
    items.push_back(std::move(item));
  }
  const int jobs = request.verify.compile_jobs > 0 ? request.verify.compile_jobs
                                                   : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  verify_programs(items, jobs, request.verify.check_jobs, stop, log);
  std::vector<Judged> judged(sets.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    const ProgramVerifier& v = *items[i].verifier;
    judged[i] = {v.name(), items[i].verdicts, items[i].wall_seconds, v.baseline_ms(), v.original_error(),
                 v.options().eager_ms, v.options().compiled_ms};
    sets[i].original = v.original_report();
  }
  return judged;
}

// The split-machine path: candidates written with --candidates-only on a
// machine with Clang, replayed here on launches captured from the program.
std::vector<Judged> judge_by_capture(const CandidateSetsRequest& request, const std::vector<VerifiedCandidateSet>& sets,
                                     std::stop_token stop, const std::function<void(const std::string&)>& log) {
  std::vector<std::unique_ptr<CaptureVerifier>> verifiers;
  std::vector<CaptureBatchItem> items;
  for (std::size_t i = 0; i < sets.size(); ++i) {
    const CandidateSet& set = sets[i].set;
    CaptureVerifierOptions co;
    co.capture_dir = fs::absolute(request.captures[i]);
    co.original_source = original_of(set).path;
    co.include_dirs = absolute_include_dirs(set);
    for (const auto& inc : request.verify.include_dirs) co.include_dirs.push_back(inc);
    std::tie(co.eager_ms, co.compiled_ms) = torch_for(request, set, request.dirs[i]);
    co.input_sets = request.verify.input_sets;
    co.timed_runs = request.verify.timed_runs;
    co.timeout_s = std::min(request.verify.timeout_s, 120.0);
    verifiers.push_back(std::make_unique<CaptureVerifier>(co));
    items.push_back({verifiers.back().get(), set.candidates, {}, 0, ""});
  }
  verify_captured(items, stop, log);
  std::vector<Judged> judged(sets.size());
  for (std::size_t i = 0; i < items.size(); ++i)
    judged[i] = {items[i].verifier->name(), items[i].verdicts, items[i].wall_seconds, items[i].baseline_ms(),
                 items[i].error, items[i].verifier->options().eager_ms, items[i].verifier->options().compiled_ms};
  return judged;
}

}  // namespace

CandidateSetsOutcome verify_candidate_sets(const CandidateSetsRequest& request, std::stop_token stop,
                                           const std::function<void(const std::string&)>& log) {
  if (!request.captures.empty() && request.captures.size() != request.dirs.size())
    throw CandidateSetsError("candidate directories and captures pair up in order: " +
                             std::to_string(request.dirs.size()) + " directories and " +
                             std::to_string(request.captures.size()) + " captures given");
  CandidateSetsOutcome outcome;
  for (const auto& d : request.dirs) {
    std::string error;
    auto set = read_candidate_set(d, error);
    if (!set) throw CandidateSetsError(error);
    if (static_cast<int>(set->candidates.size()) > request.max_candidates)
      set->candidates.resize(static_cast<std::size_t>(std::max(0, request.max_candidates)));  // best predicted first
    VerifiedCandidateSet v;
    v.set = std::move(*set);
    outcome.sets.push_back(std::move(v));
  }
  const std::vector<Judged> judged = request.captures.empty() ? judge_by_own_main(request, outcome.sets, stop, log)
                                                              : judge_by_capture(request, outcome.sets, stop, log);
  double log_sum = 0;
  for (std::size_t i = 0; i < outcome.sets.size(); ++i) {
    VerifiedCandidateSet& out = outcome.sets[i];
    const Judged& j = judged[i];
    OptimizeResult& r = out.result;
    r.file = out.set.source_path;
    r.kernel = out.set.kernel;
    r.policy = "builtin (pre-generated)";
    r.verifier = j.verifier;
    r.wall_seconds = j.wall_seconds;
    std::vector<double> verify_seconds;
    for (std::size_t k = 0; k < out.set.candidates.size() && k < j.verdicts.size(); ++k) {
      r.gpu_seconds += j.verdicts[k].gpu_seconds;
      r.tried.push_back({out.set.candidates[k], j.verdicts[k]});
      if (j.verdicts[k].verify_seconds > 0) verify_seconds.push_back(j.verdicts[k].verify_seconds);
    }
    r.stop_reason = stop.stop_requested() ? StopReason::Cancelled : StopReason::PolicyExhausted;
    if (!j.error.empty()) {
      r.stop_reason = StopReason::Error;
      r.error = j.error;
      outcome.any_error = true;
    }
    finalize_result(r, out.set.original_text);
    out.verifier = j.verifier;
    out.bytes = out.original ? out.original->bytes : 0;
    out.baseline_ms = j.baseline_ms;
    out.eager_ms = j.eager_ms;
    out.compiled_ms = j.compiled_ms;
    for (const auto& t : r.tried) out.best_level = std::max(out.best_level, to_int(t.verdict.level));
    if (!r.offers.empty()) {
      outcome.any_winner = true;
      out.best_speedup = r.offers.front().speedup;
    }
    out.best_ms = out.baseline_ms > 0 ? out.baseline_ms / out.best_speedup : 0;
    if (out.baseline_ms > 0) {
      log_sum += std::log(out.best_speedup);
      ++outcome.counted;
    }
    std::sort(verify_seconds.begin(), verify_seconds.end());
    out.median_verify_seconds = verify_seconds.empty() ? 0 : verify_seconds[verify_seconds.size() / 2];
  }
  outcome.geomean_speedup = outcome.counted ? std::exp(log_sum / outcome.counted) : 0;
  outcome.cancelled = stop.stop_requested();
  return outcome;
}

}  // namespace warplens::workflows
