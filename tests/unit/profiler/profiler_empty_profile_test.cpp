// Valid profiles without per-line data must pass through every consumer
// without a crash or a made-up number: an empty profile, and the real
// recording of the first H200 run (SASS records came back, every value 0,
// so counters are all zero and `lines` is empty).
#include <doctest/doctest.h>

#include "profiler/kernel_summary.h"
#include "profiler/measured_findings.h"
#include "profiler/profile_merge.h"
#include "profiler/profile_tsv.h"
#include "test_support.h"

using namespace warplens;
using namespace warplens::profile;

namespace {

const std::string kHeader =
    "file\tline\tkernel\tkind\texecuted\tactual\tideal\tper_request\tideal_per_request\tratio\texcess\tshare\n";

Profile all_zero_recording() {
  std::string error;
  auto p = load_profile(test::source_dir() + "/tests/fixtures/profile/failures/transpose_all_zero.h200-run1.json", &error);
  REQUIRE_MESSAGE(p.has_value(), error);
  return *p;
}

}  // namespace

TEST_CASE("an empty profile: no findings, no summaries, a header-only TSV") {
  Profile p;
  CHECK(measured_findings(p, {}).empty());
  CHECK(kernel_summaries(p).empty());
  CHECK(to_tsv(p) == kHeader);
  std::string error;
  auto parsed = parse_profile(to_json(p), &error);
  REQUIRE_MESSAGE(parsed.has_value(), error);
  CHECK(*parsed == p);
  CHECK(merge_processes({p, p}).lines.empty());
}

TEST_CASE("the all-zero H200 recording: kernels and times, no per-line claims") {
  Profile p = all_zero_recording();
  REQUIRE(p.kernels.size() == 3);
  CHECK(p.lines.empty());
  CHECK(p.collector.sass_records == 180);
  CHECK(measured_findings(p, {}).empty());
  MeasuredFindingsRequest req;
  req.file = test::source_dir() + "/tests/gpu/profiler_transpose.cu";
  req.text = test::read_file(req.file);
  CHECK(measured_findings(p, req).empty());
  CHECK(to_tsv(p) == kHeader);
  auto summaries = kernel_summaries(p);
  REQUIRE(summaries.size() == 3);
  for (const KernelSummary& s : summaries) {
    CAPTURE(s.name);
    CHECK(s.mean_ns);                      // the uninstrumented launch was timed
    CHECK_FALSE(s.effective_bytes_per_launch);  // zero counters claim no bandwidth
    CHECK_FALSE(s.effective_gbs);
    CHECK(s.title.find("/launch · 2 launches") != std::string::npos);
  }
}
