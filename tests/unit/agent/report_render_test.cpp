// Markdown and JSON reports of an optimize result.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "agent/report.h"
#include "agent/text_diff.h"

using namespace warplens;
using namespace warplens::agent;

namespace {

OptimizeResult sample(const std::string& original) {
  OptimizeResult r;
  r.file = "/src/k.cu";
  r.kernel = "k";
  r.policy = "builtin";
  r.verifier = "self-checking program";
  TriedCandidate good;
  good.candidate.id = "c01";
  good.candidate.plan = {{"swap-thread-mapping", {}}, {"unroll", {{"factor", 4}}}};
  good.candidate.source = "line one\nline TWO\nline three\n";
  good.candidate.edits = minimal_edits(original, good.candidate.source);
  LaunchChange l;
  l.kernel = "k";
  l.swap_xy = true;
  good.candidate.launch_changes = {l};
  good.candidate.notes = {"swap-thread-mapping: relabelling"};
  good.verdict.compiled = true;
  good.verdict.correct = true;
  good.verdict.input_sets = 5;
  good.verdict.original.median_ms = 2.0;
  good.verdict.candidate.median_ms = 0.5;
  good.verdict.speedup = 4.0;
  good.verdict.level = RewardLevel::Faster;
  TriedCandidate bad;
  bad.candidate.id = "c02";
  bad.candidate.plan = {{"vectorize", {{"width", 4}}}};
  bad.candidate.source = original;
  bad.verdict.compiled = false;
  bad.verdict.compile_log = "error: identifier \"wl_x\" is undefined";
  bad.verdict.reason = "does not compile";
  r.tried = {good, bad};
  finalize_result(r, original);
  return r;
}

}  // namespace

TEST_CASE("markdown report lists every candidate with its verdict and edit") {
  const std::string original = "line one\nline two\nline three\n";
  OptimizeResult r = sample(original);
  const std::string md = render_markdown(r, original);
  CHECK(md.find("# Optimize `k`") != std::string::npos);
  CHECK(md.find("| c01 | swap-thread-mapping() + unroll(factor=4) | yes | 2 | 2.0000 ms | 0.5000 ms | 4.00x |") !=
        std::string::npos);
  CHECK(md.find("| c02 | vectorize(width=4) | no | -1 |") != std::string::npos);
  // The edit as a unified diff git apply takes; /src/k.cu lies outside the working directory.
  CHECK(md.find("```diff\n--- a/k.cu\n+++ b/k.cu\n@@ -1,3 +1,3 @@\n line one\n-line two\n+line TWO\n line three\n```") !=
        std::string::npos);
  CHECK(md.find("warplens-launch: kernel=k block=same swap-xy=1") != std::string::npos);
  CHECK(md.find("identifier \"wl_x\" is undefined") != std::string::npos);
  CHECK(md.find("## Verified winners") != std::string::npos);
}

TEST_CASE("JSON report carries verdicts, levels and offers") {
  const std::string original = "line one\nline two\nline three\n";
  auto j = nlohmann::json::parse(render_json(sample(original)));
  CHECK(j["format"] == "warplens-optimize-report/1");
  REQUIRE(j["candidates"].size() == 2);
  CHECK(j["candidates"][0]["verdict"]["level"] == 2);
  CHECK(j["candidates"][0]["verdict"]["speedup"] == 4.0);
  CHECK(j["candidates"][1]["verdict"]["compiled"] == false);
  REQUIRE(j["offers"].size() == 1);
  CHECK(j["offers"][0]["candidate"] == "c01");
  CHECK(j["offers"][0]["edits"][0]["range"]["start"]["line"] == 1);
}

TEST_CASE("a result without winners says so") {
  const std::string original = "x\n";
  OptimizeResult r;
  r.kernel = "k";
  finalize_result(r, original);
  CHECK(render_markdown(r, original).find("Nothing beat the original") != std::string::npos);
}
