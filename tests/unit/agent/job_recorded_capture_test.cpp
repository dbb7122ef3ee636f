// The capture path's H200 run (tests/gpu/run_capture_h200.sh, installed as
// tests/fixtures/optimize/h200-capture/ by install_capture_fixtures.sh):
// every plain program captured and verified, the summaries consistent with
// their reports, reshaped and fused winners replayed with the shapes their
// launch changes give, and issue 13's goals (per program >= 0.9x the
// self-checking path's recorded speedup, geomean >= 3.5x). Skipped until a
// run is installed; the checks themselves are tested on doctored rows.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path kRecorded = fs::path(WARPLENS_SOURCE_DIR) / "tests" / "fixtures" / "optimize" / "h200-capture";
const char* const kPrograms[] = {"transpose_naive",   "strided_copy",      "bank_conflict_tile", "interleaved_reduction",
                                 "matmul_naive_rowx", "matmul_naive_colx", "elementwise_chain",  "aos_update",
                                 "register_heavy",    "matvec_row_per_thread"};

json read_json(const fs::path& p) {
  std::ifstream in(p);
  if (!in) return json();
  return json::parse(in, nullptr, false);
}

bool installed() {
  std::error_code ec;
  return fs::is_directory(kRecorded / "programs", ec);
}

std::map<std::string, double> self_check_speedups() {
  std::map<std::string, double> out;
  const json s = read_json(fs::path(WARPLENS_SOURCE_DIR) / "tests/fixtures/optimize/h200-run6/summary.json");
  for (const auto& p : s.at("programs")) out[p.at("name")] = p.at("best_speedup");
  return out;
}

// A row (run_capture_h200.sh's row.json) and its program's optimize report.
struct Recorded {
  json row, report;
};

// What is wrong with a recorded run, one line per problem.
std::vector<std::string> integrity_problems(const std::map<std::string, Recorded>& run) {
  std::vector<std::string> out;
  for (const char* name : kPrograms) {
    auto it = run.find(name);
    if (it == run.end()) {
      out.push_back(std::string(name) + ": not recorded");
      continue;
    }
    const json& r = it->second.row;
    const std::string n = name;
    if (r.value("error", std::string()) != "") out.push_back(n + ": " + r.value("error", std::string()));
    if (r.value("capture_exit", -1) != 0) out.push_back(n + ": the capture failed");
    // The fused pair needs both kernels captured (each its own first launches).
    if (n == "elementwise_chain") {
      bool mul = false, bias_relu = false;
      for (const auto& k : r.value("captured_launches", json::array())) {
        mul = mul || k.get<std::string>().find("3mul") != std::string::npos;
        bias_relu = bias_relu || k.get<std::string>().find("bias_relu") != std::string::npos;
      }
      if (!mul || !bias_relu) out.push_back(n + ": the capture lacks `mul` or `bias_relu` launches");
    }
    if (!r.contains("best_speedup")) {
      out.push_back(n + ": no optimize summary");
      continue;
    }
    if (r.value("candidates", 0) < 1) out.push_back(n + ": no candidate tried");
    // The summary's best is the report's first offer.
    const json& rep = it->second.report;
    const double best = r.at("best_speedup");
    if (best > 1.0) {
      if (!rep.contains("offers") || rep.at("offers").empty())
        out.push_back(n + ": a best speedup without an offer in the report");
      else if (std::fabs(rep.at("offers")[0].at("speedup").get<double>() - best) > 1e-6 * best)
        out.push_back(n + ": the summary's best speedup is not the report's first offer");
    }
    // Winners with launch changes were replayed with other shapes than the
    // original's, and say so per input set.
    if (rep.contains("offers") && !rep.at("offers").empty()) {
      const std::string winner = rep.at("offers")[0].at("candidate");
      for (const auto& c : rep.at("candidates")) {
        if (c.at("id") != winner) continue;
        const bool reshaped = !c.at("launch").empty() || c.contains("fusion");
        const auto& replayed = c.at("verdict").value("replayed", json::array());
        if (replayed.empty()) out.push_back(n + ": the winner's replayed launches are not recorded");
        for (const auto& line : replayed) {
          const std::string s = line;
          const auto arrow = s.find(" -> ");
          if (arrow == std::string::npos) {
            out.push_back(n + ": malformed replayed line: " + s);
            continue;
          }
          const std::string before = s.substr(s.find("): ") + 3, arrow - s.find("): ") - 3), after = s.substr(arrow + 4);
          if (reshaped && before == after && !c.contains("fusion"))
            out.push_back(n + ": the winner declares launch changes but was replayed with the original's shape: " + s);
          if (c.contains("fusion") && s.find(" then ") == std::string::npos)
            out.push_back(n + ": a fused winner replayed without the original's two launches: " + s);
        }
      }
    }
  }
  return out;
}

std::vector<std::string> goal_problems(const std::map<std::string, Recorded>& run,
                                       const std::map<std::string, double>& self_check) {
  std::vector<std::string> out;
  double log_sum = 0;
  int counted = 0;
  for (const char* name : kPrograms) {
    auto it = run.find(name);
    if (it == run.end() || !it->second.row.contains("best_speedup")) continue;
    const double got = it->second.row.at("best_speedup");
    log_sum += std::log(got);
    ++counted;
    auto sc = self_check.find(name);
    if (sc != self_check.end() && got < 0.9 * sc->second)
      out.push_back(std::string(name) + ": " + std::to_string(got) + "x, below 0.9 x the self-checking path's " +
                    std::to_string(sc->second) + "x");
  }
  const double geomean = counted ? std::exp(log_sum / counted) : 0;
  if (counted < 10 || geomean < 3.5) out.push_back("geomean " + std::to_string(geomean) + "x over " +
                                                   std::to_string(counted) + " program(s) (goal: 3.5x over 10)");
  return out;
}

std::map<std::string, Recorded> load_recorded() {
  std::map<std::string, Recorded> run;
  for (const auto& e : fs::directory_iterator(kRecorded / "programs")) {
    const std::string name = e.path().filename().string();
    run[name] = {read_json(e.path() / "row.json"), read_json(e.path() / "report" / (name + ".json"))};
  }
  return run;
}

// A consistent run where every program reaches exactly the self-checking figure.
std::map<std::string, Recorded> doctored_good(const std::map<std::string, double>& self_check) {
  std::map<std::string, Recorded> run;
  for (const char* name : kPrograms) {
    const double s = self_check.at(name);
    json cand = {{"id", "c01"}, {"launch", json::array({"warplens-launch: kernel=k block=same swap-xy=0 scale=32/1,1/1,1/1 persistent=0"})},
                 {"verdict", {{"replayed", {"set 0 (captured launch 0): grid (8,1,1) block (128,1,1) -> grid (256,1,1) block (128,1,1)"}}}}};
    json launches = std::string(name) == "elementwise_chain" ? json::array({"_Z3mulPKfS0_Pfi", "_Z9bias_reluPKffPfi"})
                                                             : json::array({"_Z1kv"});
    run[name] = {json{{"name", name}, {"capture_exit", 0}, {"best_speedup", s}, {"candidates", 6},
                      {"captured_launches", launches}},
                 json{{"offers", json::array({{{"candidate", "c01"}, {"speedup", s}}})}, {"candidates", json::array({cand})}}};
  }
  return run;
}

}  // namespace

TEST_CASE("capture-run checks: a consistent run passes, and each kind of problem is caught") {
  const auto self_check = self_check_speedups();
  auto good = doctored_good(self_check);
  CHECK(integrity_problems(good).empty());
  CHECK(goal_problems(good, self_check).empty());

  auto slow = good;
  slow["matvec_row_per_thread"].row["best_speedup"] = 2.0;
  slow["matvec_row_per_thread"].report["offers"][0]["speedup"] = 2.0;
  auto g = goal_problems(slow, self_check);
  REQUIRE(g.size() == 1);  // the program; the geomean stays above 3.5x
  CHECK(g[0].find("matvec_row_per_thread: 2.0") == 0);

  auto all_slow = good;  // every program at 2x: each misses 0.9x its self-check, and the geomean misses 3.5x
  for (auto& [name, r] : all_slow) {
    r.row["best_speedup"] = 2.0;
    r.report["offers"][0]["speedup"] = 2.0;
  }
  g = goal_problems(all_slow, self_check);
  REQUIRE_FALSE(g.empty());
  CHECK(g.back().find("geomean 2.0") == 0);

  auto unreshaped = good;
  unreshaped["transpose_naive"].report["candidates"][0]["verdict"]["replayed"] =
      json::array({"set 0 (captured launch 0): grid (8,1,1) block (128,1,1) -> grid (8,1,1) block (128,1,1)"});
  CHECK(integrity_problems(unreshaped).size() == 1);

  auto missing = good;
  missing.erase("aos_update");
  CHECK(integrity_problems(missing) == std::vector<std::string>{"aos_update: not recorded"});
  CHECK(goal_problems(missing, self_check).size() == 1);  // 9 programs: no geomean over 10

  auto consumer_only = good;
  consumer_only["elementwise_chain"].row["captured_launches"] = json::array({"_Z9bias_reluPKffPfi"});
  CHECK(integrity_problems(consumer_only) ==
        std::vector<std::string>{"elementwise_chain: the capture lacks `mul` or `bias_relu` launches"});

  auto mismatch = good;
  mismatch["register_heavy"].report["offers"][0]["speedup"] = 1.0;
  CHECK(integrity_problems(mismatch).size() == 1);
}

TEST_CASE("recorded H200 capture run: every program captured, verified and consistent" * doctest::skip(!installed())) {
  const auto run = load_recorded();
  const auto problems = integrity_problems(run);
  for (const auto& p : problems) MESSAGE(p);
  CHECK(problems.empty());
}

// The goals as the recorded run measured them: the programs below 0.9x the
// self-checking path, and whether the geomean missed 3.5x. A new recording
// that misses more fails; one that misses less must update this list (and
// docs/benchmarks.md) — the goal is stated, never silently assumed met.
const std::vector<std::string> kRecordedGoalMisses = {};

TEST_CASE("recorded H200 capture run: issue 13's goals (>= 0.9x the self-checking path, geomean >= 3.5x), as measured" *
          doctest::skip(!installed())) {
  const auto problems = goal_problems(load_recorded(), self_check_speedups());
  std::vector<std::string> misses;
  for (const auto& p : problems) {
    MESSAGE(p);
    misses.push_back(p.substr(0, p.find_first_of(": ")));
  }
  CHECK(misses == kRecordedGoalMisses);
}
