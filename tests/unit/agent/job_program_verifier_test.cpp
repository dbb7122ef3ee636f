// The self-checking-program verifier: its report parsing (from recorded
// output) and, without a GPU, a clear error instead of a verdict.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "agent/program_verifier.h"
#include "tests/support/analysis_requirements.h"

using warplens::test::needs;

namespace fs = std::filesystem;
using namespace warplens;
using namespace warplens::agent;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool have_gpu() { return std::system("nvidia-smi -L > /dev/null 2>&1") == 0; }
WARPLENS_REQUIREMENT("no-gpu", [] {
  return have_gpu() ? warplens::test::missing("this machine has a GPU; the case is about the no-GPU path")
                    : warplens::test::met();
});

}  // namespace

TEST_CASE("the WARPLENS_EXAMPLE report is parsed from a program's output") {
  const fs::path fixtures = fs::path(WARPLENS_SOURCE_DIR) / "tests" / "fixtures" / "optimize";
  auto ok = parse_program_report(read(fixtures / "example_output.txt"));
  REQUIRE(ok);
  CHECK(ok->name == "strided_copy");
  CHECK(ok->ok);
  CHECK(ok->sets == 5);
  CHECK(ok->time.runs == 30);
  CHECK(ok->time.median_ms == doctest::Approx(0.1712));
  CHECK(ok->bytes == doctest::Approx(536870912.0));
  auto bad = parse_program_report(read(fixtures / "example_failure.txt"));
  REQUIRE(bad);
  CHECK_FALSE(bad->ok);
  CHECK(bad->worst.find("got nan") != std::string::npos);
  CHECK_FALSE(parse_program_report("no report here\n"));
  CHECK_FALSE(parse_program_report("WARPLENS_EXAMPLE {not json\n"));
}

TEST_CASE("without a GPU the program verifier says so and offers nothing" * needs("nvcc", "no-gpu")) {
  const fs::path example = fs::path(WARPLENS_SOURCE_DIR) / "examples" / "optimize" / "strided_copy.cu";
  ProgramVerifierOptions o;
  o.arch = "sm_90";
  o.timeout_s = 120;
  ProgramVerifier v({example.string(), read(example)}, o);
  Candidate c;
  c.id = "c01";
  c.source = read(example);
  CandidateVerdict verdict = v.verify(c, {});
  CHECK(verdict.level == RewardLevel::Incorrect);
  CHECK_FALSE(verdict.correct);
  CHECK(v.original_error().find("original program") != std::string::npos);
  CHECK(verdict.reason == v.original_error());
  CHECK(verdict.verifier_failed);
}
