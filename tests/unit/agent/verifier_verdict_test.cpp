// Verdict assembly from (synthetic) child results, and the evidence JSON.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <sstream>

#include "agent/verifier/replay_protocol.h"
#include "agent/verifier/verdict_builder.h"

using namespace warplens::verifier;

namespace {

ReplayPlan plan_with_sets(int n) {
  ReplayPlan p;
  for (int i = 0; i < n; ++i) p.input_sets.push_back({i, 0, i > 0, static_cast<std::uint64_t>(i)});
  return p;
}

TimingSamples samples(double original, double candidate, double original_gap = 8, double candidate_gap = 8,
                      int runs = 30) {
  TimingSamples s;
  for (int i = 0; i < runs; ++i) {
    double jitter = 0.01 * (i % 3);
    s.original_us.push_back(original * (1 + jitter));
    s.candidate_us.push_back(candidate * (1 + jitter));
    s.original_device_us.push_back(original * (1 + jitter) + original_gap);
    s.candidate_device_us.push_back(candidate * (1 + jitter) + candidate_gap);
  }
  s.warmup = 3;
  s.l2_flush_bytes = 101 << 20;
  s.outputs_checked = runs;
  return s;
}

CandidateResult correct_result(int sets) {
  CandidateResult c;
  c.ok = true;
  c.correct = true;
  c.stage = "done";
  for (int i = 0; i < sets; ++i) {
    CandidateSet s;
    s.index = i;
    for (int run = 1; run <= 2; ++run) {
      RunCheck rc;
      rc.run = run;
      BufferCheck b;
      b.allocation = 2;
      b.name = "allocation 2 [out (param 2)]";
      b.role = BufferRole::Output;
      b.check = "value";
      b.comparison.elements = 64;
      b.comparison.max_abs_error = run * 1e-7;
      rc.buffers.push_back(b);
      s.runs.push_back(rc);
    }
    c.sets.push_back(s);
  }
  return c;
}

Verdict verdict_for(const CandidateResult& c, int sets) {
  Verdict v;
  v.status = VerdictStatus::Verified;
  record_candidate_checks(v, plan_with_sets(sets), c);
  if (c.timing && v.correct) v.timing = summarize_timing(*c.timing, nullptr);
  decide_level(v);
  return v;
}

}  // namespace

TEST_CASE("verdict: correct and 2x faster is level 2 with evidence per input set") {
  auto c = correct_result(5);
  c.timing = samples(100, 50);
  Verdict v = verdict_for(c, 5);
  CHECK(v.correct);
  CHECK(v.level == 2);
  CHECK(v.speedup == doctest::Approx(2.0));
  CHECK(v.offerable());
  REQUIRE(v.input_sets.size() == 5);
  CHECK(v.input_sets[3].origin == "fresh from launch 0 (seed 3)");
  REQUIRE(v.input_sets[0].buffers.size() == 1);  // the worse of the two runs
  CHECK(v.input_sets[0].buffers[0].comparison.max_abs_error == doctest::Approx(2e-7));
  CHECK(v.timing->basis == "launch-stream");
  CHECK(v.flags.empty());
}

TEST_CASE("verdict: an incorrect candidate is -1 with the failure as the reason") {
  auto c = correct_result(2);
  c.correct = false;
  c.sets[1].passed = false;
  c.sets[1].failure = "input set 1 (fresh from launch 0 (seed 1)), run 1: 32 element(s) of out differ";
  c.failure = c.sets[1].failure;
  Verdict v = verdict_for(c, 5);
  CHECK(v.level == -1);
  CHECK_FALSE(v.correct);
  REQUIRE_FALSE(v.reasons.empty());
  CHECK(v.reasons[0].find("incorrect: input set 1") == 0);
  CHECK(v.input_sets[1].checked);
  CHECK_FALSE(v.input_sets[1].passed);
  CHECK_FALSE(v.input_sets[2].checked);  // never reached
}

TEST_CASE("verdict: work outside the launch stream switches to device-idle timing and is flagged") {
  auto c = correct_result(5);
  // The candidate's kernel "finishes" in 5 us but the device stays busy for 95 us more.
  c.timing = samples(100, 5, 8, 103);
  Verdict v = verdict_for(c, 5);
  REQUIRE(v.timing);
  CHECK(v.timing->basis == "device-idle");
  CHECK(v.timing->candidate.median_us == doctest::Approx(108 * 1.01).epsilon(0.02));
  CHECK(v.level == 1);  // 108 us vs 108 us: not faster
  CHECK(std::find(v.flags.begin(), v.flags.end(), "work-outside-launch-stream") != v.flags.end());
}

TEST_CASE("verdict: a small gap difference (host jitter) keeps launch-stream timing") {
  auto c = correct_result(5);
  c.timing = samples(100, 50, 8, 15);
  Verdict v = verdict_for(c, 5);
  CHECK(v.timing->basis == "launch-stream");
}

// A 20x winner with everything the large-speedup rule asks for: a clean
// memcheck run, fresh timed inputs on a reloaded module, a shape variation.
Verdict large_winner() {
  auto c = correct_result(6);
  c.timing = samples(1000, 50);
  c.timing->fresh_sets = 3;
  c.timing->module_reloaded = true;
  ReplayPlan plan = plan_with_sets(6);
  plan.input_sets[5].variation = "n 1048576 -> 1000003";
  Verdict v;
  v.status = VerdictStatus::Verified;
  record_candidate_checks(v, plan, c);
  v.timing = summarize_timing(*c.timing, nullptr);
  decide_level(v);
  SanitizerEvidence z;
  z.ran = z.clean = true;
  z.runs = 2;
  apply_sanitizer(v, z);
  return v;
}

bool has_flag(const Verdict& v, const char* f) { return std::find(v.flags.begin(), v.flags.end(), f) != v.flags.end(); }

std::string notes_of(const Verdict& v) {
  std::string s;
  for (const auto& n : v.notes) s += n + "\n";
  return s;
}

TEST_CASE("verdict: a large speedup with complete evidence is offered") {
  Verdict v = large_winner();
  CHECK(v.level == 2);
  CHECK(v.speedup == doctest::Approx(20.0));
  CHECK(has_flag(v, "large-speedup"));
  CHECK(missing_large_speedup_evidence(v).empty());
  require_complete_evidence(v);
  CHECK_FALSE(v.needs_review);
  CHECK(v.offerable());
  CHECK(notes_of(v).find("the 20.0x speedup has complete evidence: offered") != std::string::npos);
}

TEST_CASE("verdict: a large speedup missing any piece of evidence is held for review, saying which") {
  struct Case {
    const char* name;
    std::function<void(Verdict&)> spoil;
    const char* missing;
  };
  const Case cases[] = {
      {"no memcheck run", [](Verdict& v) { v.sanitizer.reset(); }, "compute-sanitizer memcheck did not run"},
      {"no fresh timed inputs", [](Verdict& v) { v.timing->fresh_sets = 0; }, "did not use fresh input sets"},
      {"module kept", [](Verdict& v) { v.timing->module_reloaded = false; }, "module was not reloaded"},
      {"noisy", [](Verdict& v) { v.flags.push_back("noisy-timing"); }, "the timing is noisy"},
      {"one size only",
       [](Verdict& v) {
         v.input_sets.pop_back();
         v.shapes_note = "grid dimension(s) x derive from no size argument";
       },
       "no other size was checked (grid dimension(s) x derive from no size argument)"},
      {"two sets",
       [](Verdict& v) {
         v.input_sets.erase(v.input_sets.begin() + 1, v.input_sets.begin() + 5);
       },
       "only 2 input set(s) were checked (3 needed)"},
  };
  for (const auto& k : cases) {
    INFO(k.name);
    Verdict v = large_winner();
    k.spoil(v);
    require_complete_evidence(v);
    CHECK(v.needs_review);
    CHECK_FALSE(v.offerable());
    CHECK(has_flag(v, "incomplete-evidence"));
    CHECK(notes_of(v).find(std::string("a 20.0x speedup is held for review: ")) != std::string::npos);
    CHECK(notes_of(v).find(k.missing) != std::string::npos);
  }
}

TEST_CASE("verdict: a kernel without size arguments needs no shape variation for a large speedup") {
  Verdict v = large_winner();
  v.input_sets.pop_back();
  v.shapes_note = "no integer scalar argument of at least 64 to vary";
  require_complete_evidence(v);
  CHECK(v.offerable());
}

TEST_CASE("verdict: speedups above 1000x are implausible and never offered") {
  auto c = correct_result(5);
  c.timing = samples(100000, 50);
  Verdict v = verdict_for(c, 5);
  CHECK(v.level == 2);
  CHECK(v.needs_review);
  CHECK_FALSE(v.offerable());
  CHECK(has_flag(v, "implausible-speedup"));
  CHECK_FALSE(wants_sanitizer(v));
}

TEST_CASE("verdict: a modest speedup is untouched by the large-speedup rule") {
  auto c = correct_result(5);
  c.timing = samples(100, 50);
  Verdict v = verdict_for(c, 5);
  require_complete_evidence(v);
  CHECK(v.offerable());
  CHECK_FALSE(has_flag(v, "large-speedup"));
}

TEST_CASE("verdict: a demoting source finding makes it -1, keeping the measured level") {
  auto c = correct_result(5);
  c.timing = samples(100, 50);
  Verdict v;
  v.status = VerdictStatus::Verified;
  v.source_findings.push_back({"hard-coded-argument", true, "the candidate hard-codes 1048576 ...", 4, 3});
  v.source_findings.push_back({"half-precision", false, "note", -1, 0});
  record_candidate_checks(v, plan_with_sets(5), c);
  v.timing = summarize_timing(*c.timing, nullptr);
  decide_level(v);
  CHECK(v.measured_level == 2);
  CHECK(v.level == -1);
  CHECK(v.reasons.back().find("demoted by source comparison: the candidate hard-codes") == 0);
  CHECK_FALSE(v.offerable());
}

TEST_CASE("verdict: noisy timing is flagged") {
  auto c = correct_result(5);
  TimingSamples s = samples(100, 50);
  for (std::size_t i = 0; i < s.candidate_us.size(); i += 2) s.candidate_us[i] *= 2;
  c.timing = s;
  Verdict v = verdict_for(c, 5);
  CHECK(std::find(v.flags.begin(), v.flags.end(), "noisy-timing") != v.flags.end());
}

TEST_CASE("verdict: PyTorch timings on the same basis give level 3") {
  auto c = correct_result(5);
  c.timing = samples(100, 20);
  Verdict v;
  v.status = VerdictStatus::Verified;
  record_candidate_checks(v, plan_with_sets(5), c);
  v.timing = summarize_timing(*c.timing, nullptr);
  PytorchTiming p;
  p.ok = true;
  p.compiled_ok = true;
  p.torch_version = "2.9.0";
  p.eager_us.assign(30, 40.0);
  p.eager_device_us.assign(30, 50.0);
  p.compiled_us.assign(30, 30.0);
  p.compiled_device_us.assign(30, 40.0);
  add_pytorch_timing(*v.timing, p);
  decide_level(v);
  CHECK(v.level == 3);
  CHECK(v.timing->eager->median_us == 40.0);  // launch-stream basis
}

TEST_CASE("evidence JSON: a verdict survives a round trip") {
  auto c = correct_result(5);
  c.timing = samples(100, 50);
  Verdict v = verdict_for(c, 5);
  v.kernel = "scale_add";
  v.reproduce = "warplens verify --capture /c --original /o.cu --candidate /c.cu --kernel scale_add --json";
  v.source_findings.push_back({"device-side-launch", false, "note", -1, 0});
  v.stage_ms["compile_candidate"] = 812.5;
  std::string text = to_json_text(v);
  Verdict back = parse_verdict(text);
  CHECK(to_json_text(back) == text);
  CHECK(back.level == 2);
  CHECK(back.input_sets.size() == 5);
  CHECK(back.timing->candidate.median_us == doctest::Approx(v.timing->candidate.median_us));
  CHECK(text.find("\"offerable\": true") != std::string::npos);
  CHECK_THROWS(parse_verdict("{\"format\": \"other\"}"));
  std::string summary = summary_text(v);
  CHECK(summary.find("level 2") == 0);
  CHECK(summary.find("5/5 input sets passed") != std::string::npos);
  CHECK(summary.find("reproduce: warplens verify") != std::string::npos);
}

TEST_CASE("replay protocol: plan, reference and candidate results round trip") {
  ReplayPlan p = plan_with_sets(3);
  p.capture_dir = "/c";
  p.work_dir = "/w";
  p.original = {"/w/original.cubin", "_Z1kPf", "k"};
  p.candidate_launch.block = Dim3{128, 1, 1};
  LaunchLayout l;
  l.allocations = {{ElementType::F32, 0}, {ElementType::Bytes, 0}};
  l.allocation_names = {"x (param 0)", ""};
  l.scalars = {{2, 16, ElementType::I32}};
  p.layouts.push_back(l);
  auto p2 = parse_replay_plan(to_json_text(p));
  CHECK(to_json_text(p2) == to_json_text(p));
  CHECK(p2.candidate_launch.block == Dim3{128, 1, 1});
  CHECK_FALSE(p2.candidate_launch.dynamic_shared_bytes);

  ReferenceResult r;
  r.ok = true;
  r.roles = {{BufferRole::Input, BufferRole::Output}};
  ReferenceSet s;
  s.buffers.push_back({BufferRole::Output, "ref/set0/alloc1.bin", 42, {{8, 16}}});
  r.sets.push_back(s);
  auto r2 = parse_reference_result(to_json_text(r));
  CHECK(to_json_text(r2) == to_json_text(r));
  CHECK(r2.sets[0].buffers[0].unwritten == ByteRanges{{8, 16}});

  auto c = correct_result(2);
  c.timing = samples(10, 5);
  c.sets[0].determinism = c.sets[0].runs[0].buffers[0];
  c.sets[0].runs[0].buffers[0].comparison.worst = ElementReport{3, 12, "1", "NaN (0xffffffff)", 0, 0, Problem::NaN};
  auto c2 = parse_candidate_result(to_json_text(c));
  CHECK(to_json_text(c2) == to_json_text(c));
  CHECK(c2.sets[0].runs[0].buffers[0].comparison.worst->problem == Problem::NaN);

  CHECK_THROWS_WITH(parse_replay_plan("{\"version\": 99, \"capture_dir\": \"\", \"work_dir\": \"\", \"original\": {}, "
                                      "\"layouts\": [], \"input_sets\": []}"),
                    doctest::Contains("does not match"));
}

TEST_CASE("PyTorch script output: the last line is the JSON document") {
  auto t = parse_pytorch_output("model says hi\n{\"ok\": true, \"torch_version\": \"2.9\", \"eager_us\": [1, 2], "
                                "\"compiled_ok\": false, \"compile_error\": \"no triton\"}\n");
  CHECK(t.ok);
  CHECK(t.eager_us.size() == 2);
  CHECK_FALSE(t.compiled_ok);
  CHECK(t.compile_error == "no triton");
  CHECK_FALSE(parse_pytorch_output("").ok);
  CHECK_FALSE(parse_pytorch_output("Traceback...\n").ok);
}
