// The optimize job's loop with a scripted policy and verifier (test doubles):
// budgets, cancellation, ranking, what is offered, progress.
#include <doctest/doctest.h>

#include <atomic>
#include <deque>
#include <set>

#include "agent/job.h"
#include "agent/text_diff.h"

using namespace warplens;
using namespace warplens::agent;

namespace {

// Proposes candidates from a script, `batch` per round, then nothing.
class ScriptedPolicy final : public Policy {
 public:
  explicit ScriptedPolicy(std::vector<Candidate> script) : script_(script.begin(), script.end()) {}
  std::string name() const override { return "scripted"; }
  std::vector<Candidate> propose(const PolicyContext& ctx, int max, std::stop_token) override {
    rounds.push_back(static_cast<int>(ctx.history.size()));
    std::vector<Candidate> out;
    while (!script_.empty() && static_cast<int>(out.size()) < max) {
      out.push_back(script_.front());
      script_.pop_front();
    }
    return out;
  }
  std::vector<int> rounds;  // history size seen at each round

 private:
  std::deque<Candidate> script_;
};

// Returns a verdict per candidate description: "speedup=2.5", "wrong", "slow".
class ScriptedVerifier final : public CandidateVerifier {
 public:
  std::string name() const override { return "scripted"; }
  double gpu_seconds_each = 1.0;
  std::stop_source* cancel_after_first = nullptr;
  int calls = 0;
  CandidateVerdict verify(const Candidate& c, std::stop_token) override {
    ++calls;
    if (cancel_after_first) cancel_after_first->request_stop();
    CandidateVerdict v;
    v.compiled = true;
    v.gpu_seconds = gpu_seconds_each;
    v.input_sets = 5;
    v.original.median_ms = 1.0;
    if (c.description == "wrong") {
      v.reason = "wrong result";
      return v;
    }
    const double s = c.description == "slow" ? 0.9 : std::stod(c.description.substr(8));
    v.correct = true;
    v.candidate.median_ms = 1.0 / s;
    v.speedup = s;
    v.level = reward_level(true, 1.0, v.candidate.median_ms, std::nullopt, std::nullopt);
    v.implausible = s > 10;
    return v;
  }
};

Candidate candidate(const std::string& what, const std::string& source = "int y;\n") {
  Candidate c;
  c.description = what;
  c.source = source;
  c.plan = {{"unroll", {{"factor", 4}}}};
  return c;
}

OptimizeRequest request() {
  OptimizeRequest r;
  r.file = {"/tmp/k.cu", "int x;\n"};
  r.kernel = "k";
  r.batch_size = 2;
  return r;
}

}  // namespace

TEST_CASE("the job verifies everything, offers only level >= 2 winners, fastest first") {
  ScriptedPolicy policy({candidate("speedup=1.5"), candidate("wrong"), candidate("speedup=3.0"),
                         candidate("slow"), candidate("speedup=1.02"), candidate("speedup=40")});
  ScriptedVerifier verifier;
  std::vector<JobProgress> seen;
  OptimizeResult r = run_optimize_job(request(), policy, verifier, nullptr,
                                      [&](const JobProgress& p) { seen.push_back(p); });
  CHECK(r.stop_reason == StopReason::PolicyExhausted);
  REQUIRE(r.tried.size() == 6);
  // Unique ids were assigned and the edits computed against the original.
  std::set<std::string> ids;
  for (const auto& t : r.tried) {
    ids.insert(t.candidate.id);
    CHECK_FALSE(t.candidate.edits.empty());
  }
  CHECK(ids.size() == 6);
  // 1.02x is level 1, 40x is implausible: neither is offered.
  REQUIRE(r.offers.size() == 2);
  CHECK(r.offers[0].speedup == doctest::Approx(3.0));
  CHECK(r.offers[1].speedup == doctest::Approx(1.5));
  CHECK(r.offers[0].title == "Apply verified rewrite: 3.00x faster (level 2, correct on 5 input sets)");
  CHECK(r.offers[0].base_text_hash == text_hash("int x;\n"));
  std::string applied = "int x;\n";
  REQUIRE(apply_edits(applied, r.offers[0].edits));
  CHECK(applied == "int y;\n");
  // The policy saw the verdicts of earlier rounds.
  CHECK(policy.rounds == std::vector<int>{0, 2, 4, 6});
  REQUIRE_FALSE(seen.empty());
  CHECK(seen.back().verified == 6);
  CHECK(seen.back().faster == 2);
  CHECK(seen.back().best_speedup == doctest::Approx(3.0));
  CHECK(r.summary.find("best verified: 3.00x") == 0);
  CHECK(r.gpu_seconds == doctest::Approx(6.0));
}

TEST_CASE("candidate and GPU-time budgets stop the job") {
  SUBCASE("candidates") {
    ScriptedPolicy policy({candidate("speedup=1.5"), candidate("speedup=1.6"), candidate("speedup=1.7")});
    ScriptedVerifier verifier;
    OptimizeRequest req = request();
    req.budget.max_candidates = 2;
    OptimizeResult r = run_optimize_job(req, policy, verifier, nullptr, {});
    CHECK(r.tried.size() == 2);
    CHECK(r.stop_reason == StopReason::CandidateBudget);
  }
  SUBCASE("gpu time") {
    ScriptedPolicy policy({candidate("speedup=1.5"), candidate("speedup=1.6"), candidate("speedup=1.7")});
    ScriptedVerifier verifier;
    verifier.gpu_seconds_each = 4;
    OptimizeRequest req = request();
    req.budget.gpu_seconds = 6;
    OptimizeResult r = run_optimize_job(req, policy, verifier, nullptr, {});
    CHECK(r.tried.size() == 2);
    CHECK(r.stop_reason == StopReason::GpuBudget);
  }
  SUBCASE("wall time") {
    ScriptedPolicy policy({candidate("speedup=1.5")});
    ScriptedVerifier verifier;
    OptimizeRequest req = request();
    req.budget.wall_seconds = 0;
    OptimizeResult r = run_optimize_job(req, policy, verifier, nullptr, {});
    CHECK(r.tried.empty());
    CHECK(r.stop_reason == StopReason::WallBudget);
    CHECK(r.summary.find("nothing beat the original") == 0);
  }
}

TEST_CASE("cancellation stops between candidates and nothing unverified is offered") {
  ScriptedPolicy policy({candidate("speedup=2"), candidate("speedup=3"), candidate("speedup=4")});
  ScriptedVerifier verifier;
  std::stop_source stop;
  verifier.cancel_after_first = &stop;
  OptimizeResult r = run_optimize_job(request(), policy, verifier, nullptr, {}, stop.get_token());
  CHECK(r.stop_reason == StopReason::Cancelled);
  CHECK(verifier.calls == 1);
  REQUIRE(r.tried.size() == 1);
  REQUIRE(r.offers.size() == 1);
  CHECK(r.offers[0].candidate_id == r.tried[0].candidate.id);
}

TEST_CASE("a verifier that cannot verify anything stops the job with an error") {
  class Broken final : public CandidateVerifier {
   public:
    std::string name() const override { return "broken"; }
    int calls = 0;
    CandidateVerdict verify(const Candidate&, std::stop_token) override {
      ++calls;
      CandidateVerdict v;
      v.reason = "no CUDA-capable device";
      v.verifier_failed = true;
      return v;
    }
  };
  ScriptedPolicy policy({candidate("speedup=2"), candidate("speedup=3")});
  Broken verifier;
  OptimizeResult r = run_optimize_job(request(), policy, verifier, nullptr, {});
  CHECK(verifier.calls == 1);
  CHECK(r.stop_reason == StopReason::Error);
  CHECK(r.error.find("no CUDA-capable device") != std::string::npos);
  CHECK(r.offers.empty());
}
