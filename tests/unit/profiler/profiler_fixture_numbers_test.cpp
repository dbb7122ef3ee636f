// The profile fixtures hold the per-line numbers the H200 measured (second
// run, SASS metrics with the Activity API off), whichever file is read: the
// recording when installed (tests/gpu/install_profiler_fixtures.sh), else the
// provisional model, or fresh recordings through WARPLENS_PROFILE_FIXTURE_DIR
// (the H200 script runs this against what it just recorded). Everything else
// the CPU tests check stands on these numbers, so a recording that differs
// fails here first, with the line and the kind named.
#include <doctest/doctest.h>

#include "test_support.h"

using namespace warplens;
using namespace warplens::profile;

namespace {

// The record of `kind` on the line marked `// LINE <marker>` in
// tests/gpu/<program>.cu, in the kernel whose demangled name starts with
// `kernel`; nullptr when the profile has none.
const LineMetrics* record(const Profile& p, const std::string& program, const std::string& marker,
                          const std::string& kernel, LineKind kind) {
  const std::string text = test::read_file(test::source_dir() + "/tests/gpu/" + program + ".cu");
  const int line = test::line_of(text, "// LINE " + marker);
  for (const LineMetrics& l : p.lines) {
    const Kernel* k = p.find_kernel(l.kernel);
    if (l.line == line && l.kind == kind && k && k->name.rfind(kernel, 0) == 0) return &l;
  }
  return nullptr;
}

double per_request(const LineMetrics& l) {
  REQUIRE(l.executed > 0);
  return double(is_shared(l.kind) ? l.wavefronts : l.sectors) / double(l.executed);
}
double ideal_per_request(const LineMetrics& l) {
  REQUIRE(l.executed > 0);
  return double(is_shared(l.kind) ? l.wavefronts_ideal : l.sectors_ideal) / double(l.executed);
}
double ratio(const LineMetrics& l) {
  const std::uint64_t ideal = is_shared(l.kind) ? l.wavefronts_ideal : l.sectors_ideal;
  REQUIRE(ideal > 0);
  return double(is_shared(l.kind) ? l.wavefronts : l.sectors) / double(ideal);
}

}  // namespace

TEST_CASE("transpose fixture: naive store 32 sectors/request (ideal 4), load 4; tile read 32-way; padded 1") {
  const Profile p = test::load_fixture("transpose");
  const LineMetrics* store = record(p, "profiler_transpose", "naive", "transpose_naive", LineKind::GlobalStore);
  const LineMetrics* load = record(p, "profiler_transpose", "naive", "transpose_naive", LineKind::GlobalLoad);
  REQUIRE(store);
  REQUIRE(load);
  CHECK(per_request(*store) == doctest::Approx(32.0));
  CHECK(ideal_per_request(*store) == doctest::Approx(4.0));
  CHECK(per_request(*load) == doctest::Approx(4.0));
  CHECK(ideal_per_request(*load) == doctest::Approx(4.0));

  const LineMetrics* tiled = record(p, "profiler_transpose", "tiled-read", "transpose_tiled", LineKind::SharedLoad);
  REQUIRE(tiled);
  CHECK(ratio(*tiled) == doctest::Approx(32.0));

  const LineMetrics* padded = record(p, "profiler_transpose", "padded-read", "transpose_padded", LineKind::SharedLoad);
  REQUIRE(padded);
  CHECK(ratio(*padded) == doctest::Approx(1.0));
  // Nothing in the padded kernel is over its ideal.
  for (const LineMetrics& l : p.lines) {
    const Kernel* k = p.find_kernel(l.kernel);
    if (!k || k->name.rfind("transpose_padded", 0) != 0) continue;
    if (!(is_global(l.kind) || is_shared(l.kind)) || l.executed == 0) continue;
    CAPTURE(l.line);
    CHECK(ratio(l) == doctest::Approx(1.0));
  }
}

TEST_CASE("strided copy fixture: 4, 8 and 32 sectors per load request for strides 1, 2 and 8") {
  const Profile p = test::load_fixture("strided_copy");
  const std::pair<const char*, double> expected[] = {
      {"void copy_strided<1>", 4.0}, {"void copy_strided<2>", 8.0}, {"void copy_strided<8>", 32.0}};
  for (const auto& [kernel, sectors] : expected) {
    CAPTURE(kernel);
    const LineMetrics* load = record(p, "profiler_strided_copy", "strided-copy", kernel, LineKind::GlobalLoad);
    const LineMetrics* store = record(p, "profiler_strided_copy", "strided-copy", kernel, LineKind::GlobalStore);
    REQUIRE(load);
    REQUIRE(store);
    CHECK(per_request(*load) == doctest::Approx(sectors));
    CHECK(ideal_per_request(*load) == doctest::Approx(4.0));
    CHECK(per_request(*store) == doctest::Approx(4.0));
  }
}

TEST_CASE("reduction fixture: the interleaved reduction's shared load is 3.58-way, the others conflict-free") {
  const Profile p = test::load_fixture("bank_reduction");
  const LineMetrics* interleaved =
      record(p, "profiler_bank_reduction", "interleaved", "reduce_interleaved", LineKind::SharedLoad);
  REQUIRE(interleaved);
  CHECK(ratio(*interleaved) == doctest::Approx(3.583).epsilon(0.01));
  for (const auto& [marker, kernel] : {std::pair{"modulo", "reduce_modulo"}, std::pair{"sequential", "reduce_sequential"}}) {
    CAPTURE(kernel);
    const LineMetrics* load = record(p, "profiler_bank_reduction", marker, kernel, LineKind::SharedLoad);
    REQUIRE(load);
    CHECK(ratio(*load) == doctest::Approx(1.0));
  }
}
