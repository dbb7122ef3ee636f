// Issue 13: the capture verifier replays every launch change the rewrite
// catalogue can declare, and fused launch sequences, end to end on the fake
// GPU (fake_cuda/, CPU stand-ins in fake_launch_kernels.cpp): the optimize
// job's adapter (agent::CaptureVerifier) -> verify() -> nvcc -> both replay
// children. Each case also runs the candidate WITHOUT its declared change:
// it must then be incorrect, which shows the reshape (not luck) made it pass.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "agent/capture_verifier.h"
#include "agent/verifier/verdict.h"
#include "profiler/capture_format.h"
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

fs::path case_capture(const std::string& key) {
  static verifier::test::TempDir dir;
  static std::map<std::string, fs::path> made;
  if (auto it = made.find(key); it != made.end()) return it->second;
  fs::path d = dir.path() / key;
  REQUIRE(verifier::test::write_launch_case_capture(key, d));
  return made[key] = d;
}

// The candidate as a policy hands it to the job: its id names the fake
// GPU's stand-in (the file the adapter writes is <id>.cu), its declarations
// come from the case file.
agent::Candidate candidate(const std::string& file, const std::string& kernel) {
  agent::Candidate c;
  c.id = fs::path(file).stem().string();
  c.kernel = c.result_kernel = kernel;
  c.policy = "test";
  c.source = read(kCases / "candidates" / file);
  c.launch_changes = agent::find_launch_declarations(c.source);
  c.fusion = agent::find_fusion_declaration(c.source);
  if (c.fusion) c.result_kernel = c.fusion->fused_kernel;
  return c;
}

struct Outcome {
  agent::CandidateVerdict verdict;
  verifier::Verdict evidence;
};

Outcome verify(const std::string& capture_key, const std::string& original, const agent::Candidate& c) {
  static verifier::test::TempDir work;
  agent::CaptureVerifierOptions o;
  o.capture_dir = case_capture(capture_key);
  o.original_source = kCases / original;
  o.timed_runs = 10;
  o.work_dir = work.path() / (capture_key + "-" + c.id + "-" + std::to_string(c.launch_changes.size()));
  agent::CaptureVerifier v(o);
  Outcome out;
  out.verdict = v.verify(c, {});
  MESSAGE(c.id << ": level " << agent::to_int(out.verdict.level) << " " << out.verdict.speedup << "x "
                << out.verdict.reason);
  if (!out.verdict.evidence.empty()) out.evidence = verifier::parse_verdict(out.verdict.evidence);
  return out;
}

verifier::Dim3 d3(std::uint32_t x, std::uint32_t y, std::uint32_t z) { return {x, y, z}; }

const verifier::BufferCheck* buffer(const verifier::InputSetEvidence& s, const std::string& name_part) {
  for (const auto& b : s.buffers)
    if (b.name.find(name_part) != std::string::npos) return &b;
  return nullptr;
}

}  // namespace

TEST_CASE("fake GPU: warp-per-row (32x the threads) is replayed with the grid it declares") {
  Outcome r = verify("matvec", "matvec.cu", candidate("warp_per_row_matvec.cu", "matvec_rows"));
  CHECK(r.verdict.correct);
  CHECK(agent::to_int(r.verdict.level) >= 2);  // the stand-ins' cost model: coalesced rows
  CHECK_FALSE(r.verdict.implausible);
  // 2 captured launches + 3 fresh sets + 2 shape variations of launch 0.
  REQUIRE(r.evidence.input_sets.size() == 7);
  for (std::size_t i = 5; i < 7; ++i) {
    CHECK(r.evidence.input_sets[i].origin.rfind("shape variation of launch 0", 0) == 0);
    CHECK(r.evidence.input_sets[i].passed);
  }
  // Launch 0: 8 blocks of 128 threads, one row each -> 32 threads per row.
  CHECK(r.evidence.candidate_launch.grid == d3(256, 1, 1));
  CHECK(r.evidence.candidate_launch.block == d3(128, 1, 1));
  const auto& s0 = r.evidence.input_sets[0];
  REQUIRE(s0.original_launches.size() == 1);
  CHECK(s0.original_launches[0].grid == d3(8, 1, 1));
  REQUIRE(s0.candidate_launches.size() == 1);
  CHECK(s0.candidate_launches[0].grid == d3(256, 1, 1));
  // Launch 1 (77 rows, blocks of 64): its own reshaped grid on its own set.
  const auto& s1 = r.evidence.input_sets[1];
  CHECK(s1.origin == "captured launch 1");
  REQUIRE(s1.candidate_launches.size() == 1);
  CHECK(s1.candidate_launches[0].grid == d3(64, 1, 1));  // the original's 2 blocks of 64, 32 threads each
  CHECK(s1.candidate_launches[0].block == d3(64, 1, 1));

  agent::Candidate same_grid = candidate("warp_per_row_matvec.cu", "matvec_rows");
  same_grid.launch_changes.clear();
  Outcome wrong = verify("matvec", "matvec.cu", same_grid);
  CHECK_FALSE(wrong.verdict.correct);
  CHECK(agent::to_int(wrong.verdict.level) == -1);
}

TEST_CASE("fake GPU: swapped thread mapping is replayed with swapped grid and block") {
  Outcome r = verify("matmul_rowx", "matmul_rowx.cu", candidate("swapped_matmul_rowx.cu", "matmul_naive_rowx"));
  CHECK(r.verdict.correct);
  CHECK(agent::to_int(r.verdict.level) >= 2);
  CHECK(r.evidence.original_launch.grid == d3(3, 5, 1));
  CHECK(r.evidence.candidate_launch.grid == d3(5, 3, 1));
  CHECK(r.evidence.candidate_launch.block == d3(16, 16, 1));

  agent::Candidate unswapped = candidate("swapped_matmul_rowx.cu", "matmul_naive_rowx");
  unswapped.launch_changes.clear();
  CHECK_FALSE(verify("matmul_rowx", "matmul_rowx.cu", unswapped).verdict.correct);
}

TEST_CASE("fake GPU: several changes in order: swap, then a new block") {
  agent::Candidate c = candidate("swapped_matmul_rowx.cu", "matmul_naive_rowx");
  agent::LaunchChange block;
  block.kernel = "matmul_naive_rowx";
  block.block = agent::Dim3{32, 8, 1};
  c.launch_changes.push_back(block);
  Outcome r = verify("matmul_rowx", "matmul_rowx.cu", c);
  CHECK(r.verdict.correct);
  // Swapped: grid (5,3) x block (16,16) = 80 x 48 threads; blocks of 32 x 8.
  CHECK(r.evidence.candidate_launch.grid == d3(3, 6, 1));
  CHECK(r.evidence.candidate_launch.block == d3(32, 8, 1));
}

TEST_CASE("fake GPU: a persistent grid-stride candidate runs on SMs x blocks-per-sm blocks, in place") {
  Outcome r = verify("saxpy", "saxpy.cu", candidate("persistent_saxpy.cu", "saxpy_inplace"));
  CHECK(r.verdict.correct);
  CHECK(agent::to_int(r.verdict.level) >= 1);
  // The fake GPU has 4 multiprocessors: min(256, 4 * 8) blocks.
  CHECK(r.evidence.candidate_launch.grid == d3(32, 1, 1));
  CHECK(r.evidence.candidate_launch.block == d3(256, 1, 1));
  const auto* y = buffer(r.evidence.input_sets.at(0), "y (param 2)");
  REQUIRE(y);
  CHECK(y->role == verifier::BufferRole::InOut);  // y = a * x + y: read and written
}

TEST_CASE("fake GPU: a fused pair is replayed as one unit against the captured producer and consumer") {
  Outcome r = verify("elementwise_chain", "elementwise_chain.cu", candidate("fused_mul_bias_relu.cu", "bias_relu"));
  CHECK(r.verdict.correct);
  CHECK(agent::to_int(r.verdict.level) >= 2);  // one pass instead of two
  REQUIRE(r.evidence.input_sets.size() == 5);
  CHECK(r.evidence.input_sets[0].origin == "captured launches 0+1");
  CHECK(r.evidence.input_sets[1].origin == "captured launches 2+3");
  CHECK(r.evidence.input_sets[2].origin == "fresh from launches 0+1 (seed 3)");
  const auto& s0 = r.evidence.input_sets[0];
  REQUIRE(s0.original_launches.size() == 2);  // mul, then bias_relu
  REQUIRE(s0.candidate_launches.size() == 1);  // the fused kernel once
  CHECK(s0.candidate_launches[0].grid == d3(256, 1, 1));
  // Every output of the pair is compared but the temporary.
  const auto* out = buffer(s0, "bias_relu.out");
  REQUIRE(out);
  CHECK(out->check == "value");
  CHECK(out->comparison.elements == 65536);
  const auto* tmp = buffer(s0, "mul.tmp");
  REQUIRE(tmp);
  CHECK(tmp->check == "elided");
  const auto* x = buffer(s0, "mul.x");
  REQUIRE(x);
  CHECK(x->check == "unchanged");
  CHECK(r.evidence.symbol == "_Z3mulPKfS0_Pfi + _Z9bias_reluPKffPfi");
  bool ignored = false;
  for (const auto& f : r.evidence.source_findings) ignored = ignored || f.demotes;
  CHECK_FALSE(ignored);  // the unread `mul.n` is bias_relu's `n`, equal in every pair

  Outcome wrong =
      verify("elementwise_chain", "elementwise_chain.cu", candidate("fused_forgets_relu.cu", "bias_relu"));
  CHECK_FALSE(wrong.verdict.correct);
  CHECK(wrong.verdict.worst.find("bias_relu.out") != std::string::npos);
}

TEST_CASE("fake GPU: fused pairs the capture cannot replay are refused with the reason") {
  SUBCASE("the temporary changed between the two launches") {
    Outcome r = verify("elementwise_chain_tampered", "elementwise_chain.cu",
                       candidate("fused_mul_bias_relu.cu", "bias_relu"));
    CHECK_FALSE(r.verdict.verifier_failed);  // the candidate's own problem: the job goes on with the others
    CHECK(agent::to_int(r.verdict.level) == -1);
    CHECK(r.verdict.reason.find("not verifiable: launches 0 and 1: allocation ") == 0);
    CHECK(r.verdict.reason.find("changed between launch 0 and launch 1") != std::string::npos);
  }
  SUBCASE("a capture of the consumer alone") {
    agent::Candidate c = candidate("fused_mul_bias_relu.cu", "bias_relu");
    Outcome r = verify("matvec", "elementwise_chain.cu", c);
    CHECK_FALSE(r.verdict.verifier_failed);
    CHECK(r.verdict.reason.find("not verifiable: the capture holds no launch of `mul` followed by one of "
                                "`bias_relu`: capture both") == 0);
  }
  SUBCASE("the capture refused the producer: its reason is in the message") {
    // As on the H200 (held-out set 4, scale_bias_tanh_three): a byte cap
    // refused the producer's launch, and the fix is in that reason.
    static verifier::test::TempDir work;
    const fs::path dir = work.path() / "refused";
    fs::copy(case_capture("matvec"), dir, fs::copy_options::recursive);
    capture::CaptureManifest m = capture::load_capture(dir);
    m.refusals.push_back({"_Z3mulPKfS0_Pfi", 0,
                          "needs 1073774592 bytes (each allocation before and after), over the cap of 2147483648 bytes "
                          "with 1073741824 already captured; raise WARPLENS_CAPTURE_MAX_BYTES to capture it"});
    capture::save_manifest(dir, m);
    agent::CaptureVerifierOptions o;
    o.capture_dir = dir;
    o.original_source = kCases / "elementwise_chain.cu";
    o.work_dir = work.path() / "work";
    agent::CaptureVerifier v(o);
    const auto verdict = v.verify(candidate("fused_mul_bias_relu.cu", "bias_relu"), {});
    CHECK(agent::to_int(verdict.level) == -1);
    CHECK(verdict.reason.find("no launch of `mul` followed by one of `bias_relu` (the capture refused `mul`: "
                              "needs 1073774592 bytes") != std::string::npos);
    CHECK(verdict.reason.find("raise WARPLENS_CAPTURE_MAX_BYTES") != std::string::npos);
  }
}

TEST_CASE("fake GPU: without a pair in the capture, the verifier asks for one once and replays on it") {
  static verifier::test::TempDir work;
  int asked = 0;
  agent::CaptureVerifierOptions o;
  o.capture_dir = case_capture("matvec");  // the kernel's own capture: no `mul` before its launches
  o.original_source = kCases / "elementwise_chain.cu";
  o.timed_runs = 10;
  o.work_dir = work.path() / "pair";
  o.capture_pair = [&](const std::string& first, const std::string& second, std::string&) {
    ++asked;
    CHECK(first == "mul");
    CHECK(second == "bias_relu");
    return std::optional<fs::path>(case_capture("elementwise_chain"));
  };
  agent::CaptureVerifier v(o);
  agent::CandidateVerdict good = v.verify(candidate("fused_mul_bias_relu.cu", "bias_relu"), {});
  CHECK(good.correct);
  agent::CandidateVerdict bad = v.verify(candidate("fused_forgets_relu.cu", "bias_relu"), {});
  CHECK_FALSE(bad.correct);
  CHECK(asked == 1);
  // A capture that cannot be made: not verifiable, with the reason, once.
  agent::CaptureVerifierOptions none = o;
  none.work_dir = work.path() / "none";
  none.capture_pair = [&](const std::string&, const std::string&, std::string& error) {
    ++asked;
    error = "the build command failed";
    return std::optional<fs::path>();
  };
  agent::CaptureVerifier w(none);
  CHECK(w.verify(candidate("fused_mul_bias_relu.cu", "bias_relu"), {}).reason ==
        "not verifiable: the build command failed");
  CHECK(w.verify(candidate("fused_mul_bias_relu.cu", "bias_relu"), {}).reason ==
        "not verifiable: the build command failed");
  CHECK(asked == 2);
}

TEST_CASE("fake GPU: a kernel reading a __constant__ filter replays with the filter the capture recorded") {
  // The program set the filter with cudaMemcpyToSymbol; the replay writes it
  // into both modules before every run, so the original reproduces and a
  // candidate reading the same variable is verified.
  Outcome r = verify("conv_constant", "conv_constant.cu", candidate("conv_constant_restrict.cu", "conv5"));
  CHECK(r.verdict.correct);
  CHECK(agent::to_int(r.verdict.level) >= 1);
  bool noted = false;
  for (const auto& n : r.evidence.notes)
    noted = noted || n.find("module variables restored from the capture before every run (20 bytes): c_filter") !=
                         std::string::npos;
  CHECK(noted);

  // A candidate with another filter computes other values: incorrect.
  Outcome wrong = verify("conv_constant", "conv_constant.cu", candidate("conv_constant_ignores_filter.cu", "conv5"));
  CHECK_FALSE(wrong.verdict.correct);
  CHECK(agent::to_int(wrong.verdict.level) == -1);
}

TEST_CASE("fake GPU: module variables the capture lacks or the launch wrote stop verification with the reason") {
  // A capture that did not record module variables: the original replays on
  // a zeroed filter, does not reproduce, and nothing is offered.
  Outcome old = verify("conv_constant_unrecorded", "conv_constant.cu", candidate("conv_constant_restrict.cu", "conv5"));
  CHECK_FALSE(old.verdict.correct);
  CHECK(old.verdict.reason.find("does not reproduce the captured outputs") != std::string::npos);

  // The launch changed a module variable: allocations alone cannot judge it.
  Outcome wrote =
      verify("conv_constant_writes_filter", "conv_constant.cu", candidate("conv_constant_restrict.cu", "conv5"));
  CHECK_FALSE(wrote.verdict.correct);
  CHECK(wrote.verdict.reason.find("writes the module variable `c_filter` (20 bytes)") != std::string::npos);
}
