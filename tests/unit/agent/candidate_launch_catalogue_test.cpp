// Every launch change the rewrite catalogue can declare is one the capture
// verifier replays (issue 13): the catalogue walk fails for a rewrite that
// states no launch declaration, or one whose declared changes the verifier
// cannot express or reshapes differently from the candidates' own host code
// (agent::reshape_launch). And the declarations are what the engine really
// writes: every committed candidate's plan, step by step, declares exactly
// the launch lines and fusion its manifest recorded.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

#include "agent/candidate_store.h"
#include "agent/capture_verifier.h"
#include "agent/rewrite_engine.h"

using namespace warplens::agent;
namespace verifier = warplens::verifier;
namespace fs = std::filesystem;

namespace {

// Captured launches of the shapes the examples and programs use: 1-D,
// 2-D with square and flat blocks, a grid that does not divide evenly.
const LaunchShape kLaunches[] = {{{65536, 1, 1}, {256, 1, 1}}, {{4097, 1, 1}, {128, 1, 1}},
                                 {{128, 128, 1}, {16, 16, 1}}, {{64, 64, 1}, {32, 32, 1}},
                                 {{256, 4, 1}, {32, 8, 1}}};

verifier::LaunchGeometry geometry(const LaunchShape& s) {
  auto u = [](std::int64_t v) { return static_cast<std::uint32_t>(v); };
  return {{u(s.grid.x), u(s.grid.y), u(s.grid.z)}, {u(s.block.x), u(s.block.y), u(s.block.z)}, 0};
}

std::vector<fs::path> candidate_dirs() {
  std::vector<fs::path> out;
  for (const char* root : {"tests/gpu/optimize_candidates", "tests/gpu/capture_candidates"}) {
    const fs::path r = fs::path(WARPLENS_SOURCE_DIR) / root;
    std::error_code ec;
    if (!fs::is_directory(r, ec)) continue;
    for (const auto& e : fs::directory_iterator(r))
      if (fs::exists(e.path() / "manifest.json")) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("the catalogue states the launch changes of every rewrite, and the capture verifier replays them all") {
  const int sms = 132;
  int declared_changes = 0, fusions = 0;
  for (const RewriteInfo& info : rewrite_catalogue()) {
    for (const RewriteStep& step : catalogue_variants(info)) {
      INFO(step.to_string());
      auto d = declared_launch(step);
      REQUIRE_MESSAGE(d, "no launch declaration for this rewrite in agent/rewrite_catalogue.cpp (declared_launch)");
      if (d->fuses) {
        ++fusions;
        // What fuse-elementwise declares for two kernels of 4 and 4 parameters
        // (the consumer's parameter 0 is the temporary).
        FusionDeclaration f;
        f.fused_kernel = "ab_fused";
        f.first = "a";
        f.second = "b";
        for (int i = 0; i < 4; ++i) f.params.push_back({0, i});
        for (int i = 1; i < 4; ++i) f.params.push_back({1, i});
        f.elided = 2;
        const verifier::FusionSpec spec = to_fusion_spec(f);
        CHECK(spec.consumer_temporary() == 0);
        CHECK(spec.params.size() == 7);
      }
      std::string why;
      auto o = launch_override(d->changes, why);
      REQUIRE_MESSAGE(o, why);
      CHECK(o->reshapes.size() == d->changes.size());
      declared_changes += static_cast<int>(d->changes.size());
      for (const LaunchShape& start : kLaunches) {
        LaunchShape want = start;
        for (const auto& c : d->changes) want = reshape_launch(c, want, sms);
        const auto w = geometry(want);
        std::string error;
        auto got = verifier::candidate_geometry(geometry(start), *o, sms, &error);
        // A shape no GPU launches (e.g. a 1-D grid of 65536 blocks swapped
        // into y): refused with the reason, as the candidate's launch would be.
        if (std::uint64_t{w.block[0]} * w.block[1] * w.block[2] > 1024 || want.grid.y > 65535 || want.grid.z > 65535) {
          CHECK_FALSE(got);
          CHECK((error.find("(1..1024 allowed)") != std::string::npos || error.find("(out of range)") != std::string::npos));
          continue;
        }
        REQUIRE_MESSAGE(got, error);
        CHECK(got->grid == w.grid);
        CHECK(got->block == w.block);
      }
    }
  }
  // The walk saw the kinds issue 13 is about (not an empty catalogue).
  CHECK(declared_changes >= 10);
  CHECK(fusions == 1);
}

TEST_CASE("committed candidates declare exactly what their plans' rewrites declare") {
  const auto dirs = candidate_dirs();
  REQUIRE_FALSE(dirs.empty());
  int checked = 0;
  bool saw_swap = false, saw_more_threads = false, saw_persistent = false, saw_fusion = false;
  for (const auto& dir : dirs) {
    std::string error;
    auto set = read_candidate_set(dir, error);
    REQUIRE_MESSAGE(set, error);
    for (const Candidate& c : set->candidates) {
      INFO(dir.filename().string() << "/" << c.id << ": " << to_string(c.plan));
      // Every launch-line sequence the plan may declare: a step whose changes
      // depend on the kernel contributes its changes or none.
      std::vector<std::vector<std::string>> wants{{}};
      bool fuses = false;
      for (const auto& step : c.plan) {
        auto d = declared_launch(step);
        REQUIRE(d);
        fuses = fuses || d->fuses;
        std::vector<std::vector<std::string>> next;
        for (const auto& w : wants) {
          auto with = w;
          for (const auto& change : d->changes) with.push_back(format_launch_declaration(change));
          next.push_back(std::move(with));
          if (d->changes_depend_on_kernel && !d->changes.empty()) next.push_back(w);
        }
        wants = std::move(next);
      }
      std::vector<std::string> got;
      for (LaunchChange change : c.launch_changes) {
        change.kernel.clear();  // the kernel is the rewritten one's (renamed after a fusion)
        // A grid sized from the arguments names the kernel's own parameters:
        // compared by shape (declared_launch cannot know which).
        if (change.cover) change.cover = declared_launch({"unflatten-index", {}})->changes.front().cover;
        got.push_back(format_launch_declaration(change));
        saw_swap = saw_swap || change.swap_xy;
        saw_more_threads = saw_more_threads || change.thread_scale[0].num > 1;
        saw_persistent = saw_persistent || change.persistent_blocks_per_sm > 0;
      }
      const bool declared = std::find(wants.begin(), wants.end(), got) != wants.end();
      if (!declared) {
        std::string lines;
        for (const auto& g : got) lines += "\n  " + g;
        FAIL_CHECK("the candidate's launch lines are none of its plan's declarations:" << lines);
      }
      CHECK(c.fusion.has_value() == fuses);
      saw_fusion = saw_fusion || fuses;
      ++checked;
    }
  }
  CHECK(checked >= 100);
  CHECK(saw_swap);
  CHECK(saw_more_threads);
  CHECK(saw_persistent);
  CHECK(saw_fusion);
}
