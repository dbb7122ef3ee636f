// Verifying candidate directories written elsewhere
// (workflows/candidate_sets.h): what is refused before anything runs, and
// how a set whose verifier cannot start is reported (no GPU needed).
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "agent/candidate_store.h"
#include "workflows/candidate_sets.h"

namespace warplens {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("warplens-candidate-sets-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

agent::CandidateSet small_set(const fs::path& dir, int candidates) {
  agent::CandidateSet set;
  set.dir = dir;
  set.name = "scale";
  set.kernel = "scale";
  set.source_path = "scale.cu";
  set.original_text = "__global__ void scale(float* x, int n) {\n  int i = threadIdx.x;\n  if (i < n) x[i] *= 2.0f;\n}\n";
  for (int k = 1; k <= candidates; ++k) {
    agent::Candidate c;
    c.id = "c0" + std::to_string(k);
    c.description = "candidate " + std::to_string(k);
    c.source = set.original_text;
    c.predicted_gain = 1.0 + 0.1 * k;
    set.candidates.push_back(c);
  }
  return set;
}

auto quiet = [](const std::string&) {};

TEST_CASE("candidate sets: a directory that cannot be read is refused with its reason") {
  workflows::CandidateSetsRequest request;
  request.dirs = {"/nonexistent/warplens-candidates"};
  CHECK_THROWS_AS(workflows::verify_candidate_sets(request, {}, quiet), workflows::CandidateSetsError);
}

TEST_CASE("candidate sets: captures pair up with directories, one each") {
  workflows::CandidateSetsRequest request;
  request.dirs = {"a", "b"};
  request.captures = {"c"};
  try {
    (void)workflows::verify_candidate_sets(request, {}, quiet);
    FAIL("expected a refusal");
  } catch (const workflows::CandidateSetsError& e) {
    CHECK(std::string(e.what()).find("2 directories and 1 captures") != std::string::npos);
  }
}

TEST_CASE("candidate sets: a capture that is not there is an error for its set, nothing offered, no geomean") {
  TempDir tmp;
  const fs::path dir = tmp.path / "scale";
  std::string error;
  REQUIRE(agent::write_candidate_set(small_set(dir, 3), error));
  workflows::CandidateSetsRequest request;
  request.dirs = {dir.string()};
  request.captures = {(tmp.path / "no-capture").string()};
  request.max_candidates = 2;  // the first two of three
  const workflows::CandidateSetsOutcome out = workflows::verify_candidate_sets(request, {}, quiet);
  REQUIRE(out.sets.size() == 1);
  const workflows::VerifiedCandidateSet& s = out.sets[0];
  CHECK(s.set.candidates.size() == 2);
  CHECK(out.any_error);
  CHECK_FALSE(out.any_winner);
  CHECK(s.result.stop_reason == agent::StopReason::Error);
  CHECK_FALSE(s.result.error.empty());
  CHECK(s.result.offers.empty());
  CHECK(s.baseline_ms == 0);
  CHECK(s.best_speedup == 1.0);
  CHECK(out.counted == 0);
  CHECK(out.geomean_speedup == 0);
}

}  // namespace
}  // namespace warplens
