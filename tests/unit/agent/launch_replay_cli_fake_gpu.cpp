// Issue 13, split machines: `warplens optimize --verify-dir DIR --capture
// CAPTURE` verifies a candidates directory (as --candidates-only writes it on
// a machine with Clang) against launches captured on the GPU machine, with
// the same reports and summary as the self-checking path; here on the fake
// GPU, with a reshaped (warp-per-row) and a fused candidate.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "agent/candidate_store.h"
#include "cli/optimize.h"
#include "tests/unit/agent/launch_case_captures.h"
#include "tests/unit/agent/verifier_test_support.h"

namespace fs = std::filesystem;
using namespace warplens;
using nlohmann::json;

namespace {

const fs::path kCases = fs::path(WARPLENS_SOURCE_DIR) / "tests" / "gpu" / "launch_cases";

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int run(std::vector<std::string> args) {
  args.insert(args.begin(), "optimize");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return cli::run_optimize_command(static_cast<int>(argv.size()), argv.data());
}

// A candidates directory as --candidates-only writes it: the original and
// the case's candidates (ids naming the fake GPU's stand-ins).
fs::path candidate_dir(const fs::path& root, const std::string& name, const std::string& original,
                       const std::string& kernel, const std::vector<std::pair<std::string, agent::RewritePlan>>& files) {
  agent::CandidateSet set;
  set.dir = root / name;
  set.name = name;
  set.kernel = kernel;
  set.source_path = (kCases / original).string();
  set.original_text = read(kCases / original);
  for (const auto& [file, plan] : files) {
    agent::Candidate c;
    c.id = fs::path(file).stem().string();
    c.kernel = c.result_kernel = kernel;
    c.policy = "builtin";
    c.plan = plan;
    c.source = read(kCases / "candidates" / file);
    c.launch_changes = agent::find_launch_declarations(c.source);
    c.fusion = agent::find_fusion_declaration(c.source);
    if (c.fusion) c.result_kernel = c.fusion->fused_kernel;
    set.candidates.push_back(c);
  }
  std::string error;
  REQUIRE_MESSAGE(agent::write_candidate_set(set, error), error);
  return set.dir;
}

}  // namespace

TEST_CASE("split machines: candidate directories verified against captures, with the usual summary and reports") {
  verifier::test::TempDir dir;
  const fs::path matvec = candidate_dir(dir.path(), "matvec", "matvec.cu", "matvec_rows",
                                        {{"warp_per_row_matvec.cu", {{"warp-per-row", {}}}}});
  const fs::path chain = candidate_dir(dir.path(), "chain", "elementwise_chain.cu", "bias_relu",
                                       {{"fused_mul_bias_relu.cu", {{"fuse-elementwise", {}}}},
                                        {"fused_forgets_relu.cu", {{"fuse-elementwise", {}}}}});
  REQUIRE(verifier::test::write_launch_case_capture("matvec", dir.path() / "matvec.capture"));
  REQUIRE(verifier::test::write_launch_case_capture("elementwise_chain", dir.path() / "chain.capture"));
  const fs::path report = dir.path() / "report";
  const int rc = run({"--verify-dir", matvec.string(), "--capture", (dir.path() / "matvec.capture").string(),
                      "--verify-dir", chain.string(), "--capture", (dir.path() / "chain.capture").string(),
                      "--runs", "10", "--report", report.string()});
  CHECK(rc == 0);  // a verified winner
  const json summary = json::parse(read(report / "summary.json"));
  CHECK(summary["format"] == "warplens-optimize-summary/1");
  REQUIRE(summary["programs"].size() == 2);
  const json& m = summary["programs"][0];
  INFO(summary.dump(2));
  CHECK(m["name"] == "matvec");
  CHECK(m["verifier"] == "capture/replay");
  CHECK(m["best_plan"] == "warp-per-row()");
  CHECK(m["best_level"] == 2);
  CHECK(m["best_speedup"].get<double>() > 5.0);  // the fake GPU's cost model: 7.5x
  CHECK(m["candidates"] == 1);
  CHECK(m["original_ms"].get<double>() > 0);
  CHECK(m["median_verify_seconds"].get<double>() > 0);
  CHECK(m["error"] == "");
  const json& c = summary["programs"][1];
  CHECK(c["name"] == "chain");
  CHECK(c["best_plan"] == "fuse-elementwise()");
  CHECK(c["candidates"] == 2);
  CHECK(c["verified_faster"] == 1);  // the one that drops the ReLU is not
  const std::string md = read(report / "summary.md");
  CHECK(md.find("| matvec | ") != std::string::npos);
  CHECK(md.find("geomean speedup over the originals: ") != std::string::npos);
  // The per-program report lists what was replayed.
  const json r = json::parse(read(report / "chain.json"));
  REQUIRE(r["candidates"].size() == 2);
  const auto& replayed = r["candidates"][0]["verdict"]["replayed"];
  REQUIRE_FALSE(replayed.empty());
  CHECK(replayed[0] == "set 0 (captured launches 0+1): grid (256,1,1) block (256,1,1) then grid (256,1,1) block "
                       "(256,1,1) -> grid (256,1,1) block (256,1,1)");
  CHECK(r["candidates"][1]["verdict"]["level"] == -1);
}
