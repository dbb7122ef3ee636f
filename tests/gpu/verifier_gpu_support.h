// Shared plumbing of the verifier GPU suite: builds the case programs with
// nvcc for this GPU, captures them through libwarplens_inject, runs verify()
// on candidates, and records every verdict (JSON) and a summary row under
// the output directory ($WARPLENS_VERIFIER_OUT, else a temporary one).
//
// The output directory holds only small files: summary.tsv, bench.tsv and
// fixtures/ (what tests/fixtures/verifier/h200/ holds: verdicts/,
// replays/<case>/, captures/<key>.manifest.json, capture_small/<key>/,
// timer_check.json). Programs, captures and work directories, hundreds of
// MB, go to the work directory ($WARPLENS_VERIFIER_WORK, else <out>/work).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "agent/verifier/capture_program.h"
#include "agent/verifier/verifier.h"

namespace warplens::verifier::gpu {

struct Environment {
  std::filesystem::path cases_dir;   // tests/gpu/verifier_cases
  std::filesystem::path out_dir;     // fixtures/, summary.tsv, bench.tsv (small files only)
  std::filesystem::path work_dir;    // programs, captures, verify work directories (large)
  std::string replay;                // warplens-replay
  DeviceSummary device;
};

// Set up once by main() (after the GPU probe).
Environment& env();

// Where the suite's fixtures go: <out>/fixtures/<sub>.
std::filesystem::path fixture_path(const std::string& sub);

// Compiles tests/gpu/verifier_cases/<name>.cu into an executable (once).
std::filesystem::path program(const std::string& name);

// Captures `program_name` run with `args` (cached by `key`); the
// CaptureRunResult's error and manifest tell what happened. The manifest
// (no blobs) becomes fixtures/captures/<key>.manifest.json.
const CaptureRunResult& captured(const std::string& key, const std::string& program_name, const std::string& regex,
                                 int launches, std::uint64_t max_bytes = capture::kDefaultMaxBytes,
                                 const std::vector<std::string>& args = {});

// A capture for `key` that the verify cases can use: the injection
// library's (captured() above) when it worked, else a synthetic one written
// with the capture_format API from the program's own data (scale_add,
// scale_add_x2, transpose, row_sum, memory_kinds), reported in the summary
// as a fallback.
bool ensure_capture(const std::string& key, const std::string& program_name, const std::string& regex, int launches,
                    const std::vector<std::string>& args = {});
std::filesystem::path capture_dir(const std::string& key);

// verify() for candidates/<candidate>.cu against the case program's source.
// The verdict is written to fixtures/verdicts/<case_name>.json;
// `keep_fixture` also copies the replay's plan and results to
// fixtures/replays/<case_name>/ for CI.
Verdict verify_case(const std::string& case_name, const std::string& capture_key, const std::string& original,
                    const std::string& candidate, const std::string& kernel,
                    const std::function<void(VerifyRequest&)>& tweak = {}, bool keep_fixture = false);

// The first input set that failed, and whether it was a shape variation.
const InputSetEvidence* failed_set(const Verdict& v);
bool failed_on_shape_variation(const Verdict& v);
bool failed_with(const Verdict& v, Problem p);
bool mentions(const Verdict& v, const std::string& text);
// "level 2, 1.85x (76.0 us -> 41.1 us, spread 1%/2%)"
std::string speed(const Verdict& v);

// One summary row: kind ("exploit", "honest", "capture", "timer"),
// what was expected, whether it happened, and the verdict's gist.
void record(const std::string& case_name, const std::string& kind, const std::string& expected, bool as_expected,
            const std::string& detail, const Verdict* verdict = nullptr);

// The first reason, error or failure of a verdict, for messages.
std::string gist(const Verdict& v);
bool has_flag(const Verdict& v, const std::string& flag);
bool has_finding(const Verdict& v, const std::string& rule, bool demotes);

}  // namespace warplens::verifier::gpu
