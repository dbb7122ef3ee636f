// The per-unit comparison that warplens-replay runs on the GPU and the host
// (element_ops.h, compare_buffers): its agreement with the range-based
// compare_with_tolerance where both apply, the poison-aware rule that
// replaces the two-poison unwritten ranges, exact mode, fp64's own
// tolerance; the sanitizer log parser; the reference cache.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <limits>
#include <cstring>
#include <random>
#include <thread>

#include "agent/verifier/compare.h"
#include "agent/verifier/element_ops.h"
#include "agent/verifier/poison.h"
#include "agent/verifier/reference_cache.h"
#include "agent/verifier/sanitizer.h"
#include "tests/unit/agent/verifier_test_support.h"

using namespace warplens::verifier;

namespace {

std::vector<std::uint8_t> random_floats(std::size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> d(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return test::floats(v);
}

void check_same(const BufferComparison& a, const BufferComparison& b) {
  CHECK(a.ok == b.ok);
  CHECK(a.mismatches == b.mismatches);
  CHECK(a.stray_bytes == b.stray_bytes);
  CHECK(a.max_abs_error == b.max_abs_error);
  CHECK(a.max_rel_error == b.max_rel_error);
  REQUIRE(a.worst.has_value() == b.worst.has_value());
  if (a.worst) {
    CHECK(a.worst->index == b.worst->index);
    CHECK(a.worst->byte_offset == b.worst->byte_offset);
    CHECK(a.worst->problem == b.worst->problem);
    CHECK(a.worst->expected == b.worst->expected);
    CHECK(a.worst->got == b.worst->got);
  }
}

}  // namespace

TEST_CASE("compare_buffers agrees with compare_with_tolerance on random perturbations") {
  std::mt19937 rng(7);
  Tolerance tol;
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = 1 + rng() % 300;
    auto expected = random_floats(n, rng);
    auto got = expected;
    std::vector<float> g(n);
    std::memcpy(g.data(), got.data(), got.size());
    const int changes = static_cast<int>(rng() % 4);
    for (int c = 0; c < changes; ++c) {
      std::size_t i = rng() % n;
      switch (rng() % 4) {
        case 0: g[i] += 1e-6f; break;                        // within tolerance
        case 1: g[i] += 0.5f; break;                         // out of tolerance
        case 2: g[i] = std::numeric_limits<float>::quiet_NaN(); break;
        default: g[i] = -g[i]; break;
      }
    }
    std::memcpy(got.data(), g.data(), got.size());
    const BufferLayout layout{ElementType::F32, (trial % 3 == 0 && n > 2) ? 1u : 0u};
    INFO("trial " << trial);
    check_same(compare_buffers(expected.data(), got.data(), nullptr, expected.size(), layout, tol, {}),
               compare_with_tolerance(expected.data(), got.data(), expected.size(), layout, tol, {}, nullptr));
    CompareOptions exact;
    exact.exact = true;
    check_same(compare_buffers(expected.data(), got.data(), nullptr, expected.size(), layout, tol, exact),
               compare_exact(expected.data(), got.data(), expected.size(), layout));
  }
}

TEST_CASE("compare_buffers: what the reference left as poison must still be poison") {
  const BufferLayout layout{ElementType::F32, 0};
  Tolerance tol;
  // The reference wrote elements 0..5 of 8 and left 6, 7 as poison A.
  auto expected = make_poison(32, layout, Poison::A);
  for (int i = 0; i < 6; ++i) {
    float v = static_cast<float>(i) + 0.5f;
    std::memcpy(expected.data() + 4 * i, &v, 4);
  }
  CompareOptions o;
  o.pref_poison = 0;
  auto same = expected;
  auto r = compare_buffers(expected.data(), same.data(), expected.data(), 32, layout, tol, o);
  CHECK(r.ok);
  CHECK(r.elements == 6);  // the poison is not compared by value (it is NaN)
  auto stray = expected;
  float zero = 0.0f;
  std::memcpy(stray.data() + 28, &zero, 4);
  r = compare_buffers(expected.data(), stray.data(), expected.data(), 32, layout, tol, o);
  CHECK_FALSE(r.ok);
  CHECK(r.stray_bytes == 4);
  REQUIRE(r.worst);
  CHECK(r.worst->problem == Problem::StrayWrite);
  CHECK(r.worst->index == 7);
  CHECK(describe(*r.worst) ==
        "element 7 (byte 28): expected NaN (0xffffffff), got 0 (the original never writes this element)");
  // A written element left unwritten by the candidate is a NaN mismatch.
  auto unwritten = expected;
  std::memcpy(unwritten.data(), expected.data() + 28, 4);
  r = compare_buffers(expected.data(), unwritten.data(), expected.data(), 32, layout, tol, o);
  CHECK_FALSE(r.ok);
  CHECK(r.worst->problem == Problem::NaN);
  // Exact mode skips the reference-unwritten elements altogether.
  CompareOptions exact;
  exact.exact = true;
  exact.pref_poison = 0;
  r = compare_buffers(expected.data(), stray.data(), expected.data(), 32, layout, tol, exact);
  CHECK(r.ok);
  CHECK(r.elements == 6);
}

TEST_CASE("tolerance: fp64 at its own 1e-10, fp32 at 1e-4") {
  Tolerance tol;
  CHECK(tol.rtol(ElementType::F64) == 1e-10);
  CHECK(tol.atol(ElementType::F64) == 1e-10);
  CHECK(tol.rtol(ElementType::F32) == 1e-4);
  const double e = 1.0 / 3.0;
  const double as_float = static_cast<float>(e);  // an fp64 -> fp32 downgrade
  std::uint8_t eb[8], gb[8];
  std::memcpy(eb, &e, 8);
  std::memcpy(gb, &as_float, 8);
  auto r = compare_buffers(eb, gb, nullptr, 8, {ElementType::F64, 0}, tol, {});
  CHECK_FALSE(r.ok);
  REQUIRE(r.worst);
  CHECK(r.worst->problem == Problem::OutOfTolerance);
  const double close = e * (1 + 1e-13);
  std::memcpy(gb, &close, 8);
  CHECK(compare_buffers(eb, gb, nullptr, 8, {ElementType::F64, 0}, tol, {}).ok);
}

TEST_CASE("element ops: the re-draw and the poison are what the host functions make") {
  std::mt19937 rng(3);
  auto captured = random_floats(1000, rng);
  std::vector<std::uint8_t> a(captured.size()), b(captured.size());
  redraw_floats(captured.data(), a.data(), a.size(), {ElementType::F32, 0}, 99);
  for (std::uint64_t i = 0; i < 1000; ++i)
    ops::redraw_element(ops::kF32, captured.data(), b.data(), 1000, 99, i);
  CHECK(a == b);
  CHECK(a != captured);
  for (auto type : {ElementType::F32, ElementType::F64, ElementType::F16, ElementType::I32}) {
    const BufferLayout layout{type, 2};
    auto p = make_poison(37, layout, Poison::B);
    for (std::uint64_t k = 0; k < 37; ++k)
      CHECK(p[k] == ops::poison_byte(1, static_cast<std::uint8_t>(type), 2, 37, k));
  }
}

TEST_CASE("sanitizer log: error count and the first report") {
  const std::string clean =
      "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n";
  std::string first;
  CHECK(sanitizer_error_count(clean, &first) == 0);
  CHECK(first.empty());
  const std::string bad =
      "========= COMPUTE-SANITIZER\n"
      "========= Invalid __global__ read of size 4 bytes\n"
      "=========     at transpose_naive(const float *, float *, int, int)+0x1b0\n"
      "=========     by thread (3,0,0) in block (0,0,0)\n"
      "=========     Address 0x7f0000400000 is out of bounds\n"
      "=========\n"
      "========= Invalid __global__ read of size 4 bytes\n"
      "=========\n"
      "========= ERROR SUMMARY: 2 errors\n";
  CHECK(sanitizer_error_count(bad, &first) == 2);
  CHECK(first ==
        "Invalid __global__ read of size 4 bytes | at transpose_naive(const float *, float *, int, int)+0x1b0 | by "
        "thread (3,0,0) in block (0,0,0) | Address 0x7f0000400000 is out of bounds");
  CHECK(sanitizer_error_count("no summary here", nullptr) == -1);
}

TEST_CASE("reference cache: computed once per key, concurrent callers wait, failures are not kept") {
  ReferenceCache::instance().clear();
  std::atomic<int> computed{0};
  auto compute = [&](const std::filesystem::path& dir) {
    ++computed;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    CachedReference c;
    c.ok = true;
    c.reference.ok = true;
    c.reference.max_run_ms = 1.5;
    c.cubin = dir / "original.cubin";
    return c;
  };
  std::vector<std::thread> threads;
  std::atomic<int> reused{0};
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&] {
      auto e = ReferenceCache::instance().get("key-a", {}, compute);
      if (e->reused) ++reused;
      CHECK(e->reference.max_run_ms == 1.5);
    });
  for (auto& t : threads) t.join();
  CHECK(computed == 1);
  CHECK(reused == 3);
  auto failing = [&](const std::filesystem::path&) {
    ++computed;
    CachedReference c;
    c.error = "the original does not compile";
    return c;
  };
  CHECK_FALSE(ReferenceCache::instance().get("key-b", {}, failing)->ok);
  CHECK_FALSE(ReferenceCache::instance().get("key-b", {}, failing)->ok);
  CHECK(computed == 3);  // asked again after a failure
  CHECK(reference_cache_key({"a", "bc"}) != reference_cache_key({"ab", "c"}));
  CHECK(reference_cache_key({"a", "bc"}).size() == 32);
}

TEST_CASE("reference cache: a directory keeps entries across processes") {
  test::TempDir dir;
  ReferenceCache::instance().clear();
  auto compute = [](const std::filesystem::path& d) {
    CachedReference c;
    c.ok = true;
    c.reference.ok = true;
    c.reference.max_run_ms = 2.5;
    c.cubin = d / "original.cubin";
    c.reference_path = d / "reference.json";
    std::ofstream(c.cubin) << "cubin";
    write_text_file(c.reference_path, to_json_text(c.reference));
    c.input_sets.push_back(InputSetSpec(0, 3, false, 0));
    return c;
  };
  auto first = ReferenceCache::instance().get("k", dir.path(), compute);
  CHECK_FALSE(first->reused);
  ReferenceCache::instance().clear();  // as a new process would start
  int calls = 0;
  auto second = ReferenceCache::instance().get("k", dir.path(), [&](const std::filesystem::path& d) {
    ++calls;
    return compute(d);
  });
  CHECK(calls == 0);
  CHECK(second->reused);
  CHECK(second->reference.max_run_ms == 2.5);
  REQUIRE(second->input_sets.size() == 1);
  CHECK(second->input_sets[0].launch == 3);
  CHECK(std::filesystem::exists(second->cubin));
}
