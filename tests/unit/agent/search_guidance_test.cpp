// The built-in search: guidance from findings and the profile, plan order,
// budgets, and steering by verdicts.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "agent/search.h"
#include "tests/support/agent_requirements.h"

using warplens::test::needs;

using namespace warplens;
using namespace warplens::agent;

namespace {

RewriteOption option(const std::string& rewrite, std::vector<std::string> addresses) {
  RewriteOption o;
  o.step.rewrite = rewrite;
  o.addresses = std::move(addresses);
  return o;
}

Finding finding(const std::string& code, Severity s, const std::string& kernel) {
  Finding f;
  f.code = code;
  f.severity = s;
  f.kernel = kernel;
  return f;
}

const char* kMatvec = R"(#include <cuda_runtime.h>
__global__ void matvec(const float* A, const float* x, float* y, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float acc = 0.0f;
    for (int k = 0; k < N; ++k) acc += A[row * N + k] * x[k];
    y[row] = acc;
  }
}
void run(const float* A, const float* x, float* y, int M, int N) {
  matvec<<<(M + 255) / 256, 256>>>(A, x, y, M, N);
}
)";

std::string temp_file(const std::string& name, const std::string& text) {
  auto p = std::filesystem::temp_directory_path() / name;
  std::ofstream(p) << text;
  return p.string();
}

}  // namespace

TEST_CASE("findings of the kernel boost the rewrites that address them") {
  auto pad = option("pad-shared", {codes::kSharedBankConflict});
  CHECK(guidance_boost(pad, "k", {}, std::nullopt) == 1.0);
  CHECK(guidance_boost(pad, "k", {finding(codes::kSharedBankConflict, Severity::Warning, "k(float*)")}, std::nullopt) ==
        doctest::Approx(1.5));
  CHECK(guidance_boost(pad, "k", {finding(codes::kSharedBankConflict, Severity::Hint, "k")}, std::nullopt) ==
        doctest::Approx(1.2));
  // Another kernel's finding, or another code, does not count.
  CHECK(guidance_boost(pad, "k", {finding(codes::kSharedBankConflict, Severity::Warning, "other(float*)")},
                       std::nullopt) == 1.0);
  CHECK(guidance_boost(pad, "k", {finding(codes::kSharedBankConflict, Severity::Warning, "kk(float*)")},
                       std::nullopt) == 1.0);
  CHECK(guidance_boost(pad, "k", {finding(codes::kUncoalescedGlobal, Severity::Warning, "k")}, std::nullopt) == 1.0);
}

TEST_CASE("the profile boosts rewrites for what it measured") {
  ProfileHints occ;
  occ.achieved_occupancy_pct = 20;
  auto lb = option("launch-bounds", {codes::kLowOccupancy, codes::kRegisterSpill});
  CHECK(guidance_boost(lb, "k", {}, occ) == doctest::Approx(1.3));
  ProfileHints sectors;
  sectors.sectors_per_request = 16;
  CHECK(guidance_boost(option("warp-per-row", {codes::kUncoalescedGlobal}), "k", {}, sectors) == doctest::Approx(1.3));
  CHECK(guidance_boost(lb, "k", {}, sectors) == 1.0);
}

TEST_CASE("offline search: best plans first, canonical order, distinct plans, bounded" * needs("rewrite-engine")) {
  const std::string path = temp_file("warplens_search_matvec.cu", kMatvec);
  SearchOptions opts;
  opts.max_candidates = 6;
  opts.max_expansions = 6;
  OfflineSearch s = generate_candidates({path, kMatvec}, "matvec", {}, std::nullopt, opts);
  REQUIRE(s.error.empty());
  REQUIRE(s.candidates.size() == 6);
  CHECK(s.candidates.front().plan.front().rewrite == "warp-per-row");
  std::set<std::string> plans;
  for (const auto& c : s.candidates) {
    CHECK(plans.insert(to_string(c.plan)).second);
    CHECK(c.source != kMatvec);
    CHECK_FALSE(c.edits.empty());
    // Stages never go backwards along a plan.
    int stage = -1;
    for (const auto& step : c.plan) {
      const int st = static_cast<int>(find_rewrite(step.rewrite)->stage);
      CHECK(st >= stage);
      stage = st;
    }
  }
  // The best predicted first; after it, spread over ideas (restructurings).
  for (std::size_t i = 1; i < s.candidates.size(); ++i)
    CHECK(s.candidates.front().predicted_gain >= s.candidates[i].predicted_gain);
  // Rewrites that do not apply say why.
  bool pad_refused = false;
  for (const auto& r : s.refused) pad_refused |= r.rewrite == "pad-shared" && !r.reason.empty();
  CHECK(pad_refused);
}

TEST_CASE("online search: nothing is built on an incorrect plan" * needs("rewrite-engine")) {
  const std::string path = temp_file("warplens_search_matvec2.cu", kMatvec);
  SearchOptions opts;
  opts.max_expansions = 8;
  RewriteSearch search(opts);
  std::vector<TriedCandidate> history;
  SourceFile file{path, kMatvec};
  std::vector<Finding> none;
  std::optional<ProfileHints> no_profile;
  PolicyContext ctx{file, "matvec", none, no_profile, history, {}, nullptr};
  auto first = search.propose(ctx, 1, {});
  REQUIRE(first.size() == 1);
  REQUIRE(first[0].plan.size() == 1);
  CHECK(first[0].plan[0].rewrite == "warp-per-row");
  TriedCandidate wrong;
  wrong.candidate = first[0];
  wrong.verdict.level = RewardLevel::Incorrect;
  history.push_back(wrong);
  PolicyContext ctx2{file, "matvec", none, no_profile, history, {}, nullptr};
  auto next = search.propose(ctx2, 5, {});
  REQUIRE_FALSE(next.empty());
  // Nothing extends the incorrect plan (other variants of the rewrite, with
  // other parameters, are other plans).
  for (const auto& c : next) CHECK_FALSE(c.plan.front() == first[0].plan[0]);
}
