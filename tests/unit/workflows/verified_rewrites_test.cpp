// The winners of an optimize job as every door offers them, and applying
// one (workflows/verified_rewrites.h).
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "agent/text_diff.h"
#include "workflows/verified_rewrites.h"

namespace warplens {
namespace {

namespace fs = std::filesystem;

constexpr const char* kOriginal = "__global__ void k(float* x) {\n  x[0] = 1.0f;\n}\n";
constexpr const char* kRewritten = "__global__ void k(float* __restrict__ x) {\n  x[0] = 1.0f;\n}\n";

agent::TriedCandidate tried(const std::string& id, double speedup, agent::RewardLevel level, bool correct = true) {
  agent::TriedCandidate t;
  t.candidate.id = id;
  t.candidate.description = "restrict the pointer " + id + "\nmore words";
  t.verdict.candidate_id = id;
  t.verdict.compiled = true;
  t.verdict.correct = correct;
  t.verdict.level = level;
  t.verdict.speedup = speedup;
  t.verdict.input_sets = 5;
  t.verdict.original.median_ms = 2.0;
  t.verdict.candidate.median_ms = 2.0 / speedup;
  t.verdict.candidate.runs = 30;
  return t;
}

agent::Offer offer(const std::string& id, double speedup) {
  agent::Offer o;
  o.candidate_id = id;
  o.speedup = speedup;
  o.edits = agent::minimal_edits(kOriginal, kRewritten);
  o.base_text_hash = agent::text_hash(kOriginal);
  return o;
}

workflows::OptimizeOutcome outcome() {
  workflows::OptimizeOutcome out;
  out.gpu_name = "Fake GPU";
  out.result.tried = {tried("c1", 1.5, agent::RewardLevel::Faster), tried("c2", 3.0, agent::RewardLevel::Faster),
                      tried("c3", 4.0, agent::RewardLevel::Incorrect, /*correct=*/false)};
  // The job's offers, as a buggy policy might hand them over: one was never
  // verified faster and must not come back.
  out.result.offers = {offer("c1", 1.5), offer("c2", 3.0), offer("c3", 4.0)};
  return out;
}

}  // namespace

TEST_CASE("only verified winners come back, fastest first, with title and evidence") {
  auto rewrites = workflows::verified_rewrites(outcome());
  REQUIRE(rewrites.size() == 2);
  CHECK(rewrites[0].candidate_id == "c2");
  CHECK(rewrites[1].candidate_id == "c1");
  CHECK(rewrites[0].title ==
        "Apply verified rewrite: 3.0× faster (level 2, correct on 5 input sets on Fake GPU): restrict the pointer c2");
  CHECK(rewrites[0].summary.rfind("**3.0× faster** on Fake GPU: median 2 ms → 0.6667 ms (30 timed runs)", 0) == 0);
  CHECK(workflows::format_speedup(1.06) == "1.06×");
  CHECK(workflows::format_speedup(3.14) == "3.1×");
}

TEST_CASE("a verified rewrite applies only to the text it was verified for") {
  auto rewrites = workflows::verified_rewrites(outcome());
  std::string error;
  CHECK(workflows::apply_verified_rewrite(rewrites[0], kOriginal, error) == std::string(kRewritten));
  CHECK_FALSE(workflows::apply_verified_rewrite(rewrites[0], std::string(kOriginal) + "// edited\n", error));
  CHECK(error == "the text changed since the rewrite was verified; run optimize again");
}

TEST_CASE("applying to a file replaces it whole, and refuses a file edited since") {
  const fs::path dir = fs::temp_directory_path() / ("warplens-apply-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "k.cu";
  std::ofstream(file) << kOriginal;
  auto rewrites = workflows::verified_rewrites(outcome());
  std::string error;
  REQUIRE_MESSAGE(workflows::apply_verified_rewrite_to_file(rewrites[0], file.string(), error), error);
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == kRewritten);
  // Now the file is the rewritten text: the same rewrite does not fit it any more.
  CHECK_FALSE(workflows::apply_verified_rewrite_to_file(rewrites[0], file.string(), error));
  CHECK(error.find("the text changed since the rewrite was verified") != std::string::npos);
  CHECK_FALSE(workflows::apply_verified_rewrite_to_file(rewrites[0], (dir / "missing.cu").string(), error));
  CHECK(error == "cannot read " + (dir / "missing.cu").string() + ": no such file");
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
  CHECK(files == 1);  // no temporary file left behind
  fs::remove_all(dir);
}

// The path is the user's: a FIFO there was opened with an ifstream, which
// waits for a writer, so `--apply` hung. Refused at once now.
TEST_CASE("applying to a FIFO is refused at once, not a hang") {
  const fs::path dir = fs::temp_directory_path() / ("warplens-apply-fifo-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path fifo = dir / "k.cu";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto rewrites = workflows::verified_rewrites(outcome());
  std::string error;
  bool applied = true;
  std::atomic<bool> done{false};
  std::thread apply([&] {
    applied = workflows::apply_verified_rewrite_to_file(rewrites[0], fifo.string(), error);
    done = true;
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (!done && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const bool answered = done;
  if (!answered) {  // before the fix: blocked in open(); a writer ends it
    int w = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (w >= 0) ::close(w);
  }
  apply.join();
  CHECK_MESSAGE(answered, "apply_verified_rewrite_to_file blocked on a FIFO");
  CHECK_FALSE(applied);
  CHECK(error.find("not a regular file") != std::string::npos);
  fs::remove_all(dir);
}

}  // namespace warplens
