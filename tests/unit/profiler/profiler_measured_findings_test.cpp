#include <doctest/doctest.h>

#include <algorithm>

#include "profiler/measured_findings.h"
#include "test_support.h"

using namespace warplens;
using namespace warplens::profile;

namespace {

const std::string kTranspose = test::source_dir() + "/tests/gpu/profiler_transpose.cu";

std::vector<const Finding*> with_code(const std::vector<Finding>& fs, const std::string& code) {
  std::vector<const Finding*> out;
  for (const Finding& f : fs)
    if (f.code == code) out.push_back(&f);
  return out;
}

// The one finding with `code`; fails the test (never crashes) when the
// profile has none, as a recording without per-line data would.
const Finding& only(const std::vector<Finding>& fs, const std::string& code) {
  std::vector<const Finding*> found = with_code(fs, code);
  CAPTURE(code);
  REQUIRE(found.size() == 1);
  return *found.front();
}

double number(const Finding& f, const std::string& key) {
  const EvidenceValue* v = f.data.get(key);
  REQUIRE(v);
  if (auto d = std::get_if<double>(v)) return *d;
  return double(std::get<std::int64_t>(*v));
}

// The static model of the transpose's kernels, as the front end would find
// them: ranges located in the real test program so they cannot drift.
KernelModel transpose_model(const std::string& text) {
  KernelModel m;
  m.file = kTranspose;
  auto access = [&](MemorySpace space, AccessKind kind, int line, const std::string& spelling) {
    MemoryAccess a;
    a.space = space;
    a.kind = kind;
    a.spelling = spelling;
    a.range = test::range_on_line(text, line, spelling);
    return a;
  };
  const int naive = test::line_of(text, "// LINE naive");
  const int tiled_read = test::line_of(text, "// LINE tiled-read");
  Function f;
  f.name = "transpose_naive";
  f.key = "transpose_naive(float *, const float *)";
  f.kind = FunctionKind::Kernel;
  f.accesses.push_back(access(MemorySpace::Global, AccessKind::Store, naive, "out[x * N + y]"));
  f.accesses.push_back(access(MemorySpace::Global, AccessKind::Load, naive, "in[y * N + x]"));
  m.functions.push_back(f);
  Function t;
  t.name = "transpose_tiled";
  t.key = "transpose_tiled(float *, const float *)";
  t.kind = FunctionKind::Kernel;
  t.accesses.push_back(access(MemorySpace::Global, AccessKind::Store, tiled_read, "out[y * N + x]"));
  t.accesses.push_back(
      access(MemorySpace::Shared, AccessKind::Load, tiled_read, "tile[threadIdx.x][threadIdx.y]"));
  m.functions.push_back(t);
  return m;
}

}  // namespace

TEST_CASE("transpose: exactly the naive store and the tiled column read are reported") {
  Profile p = test::load_fixture("transpose");
  const std::string text = test::read_file(kTranspose);
  MeasuredFindingsRequest req;
  req.file = kTranspose;  // the fixture was recorded in another checkout: matched by file name
  req.text = text;
  auto findings = measured_findings(p, req);
  REQUIRE(findings.size() == 2);

  auto uncoalesced = with_code(findings, "uncoalesced-global");
  REQUIRE(uncoalesced.size() == 1);
  const Finding& store = *uncoalesced[0];
  CHECK(store.source == "warplens-profile");
  CHECK(store.severity == Severity::Warning);
  CHECK(store.location.file == kTranspose);
  const int naive = test::line_of(text, "// LINE naive");
  CHECK(store.location.range.start.line == naive - 1);
  CHECK(store.kernel == "transpose_naive(float*, float const*)");
  CHECK(std::get<std::string>(*store.data.get("kind")) == "global_store");
  CHECK(number(store, "sectors_per_request") == doctest::Approx(32.0).epsilon(0.1));
  CHECK(number(store, "ideal_sectors_per_request") == doctest::Approx(4.0).epsilon(0.05));
  CHECK(number(store, "excess_ratio") == doctest::Approx(8.0).epsilon(0.1));
  CHECK(store.message.rfind("measured global store: 3", 0) == 0);
  CHECK(store.message.find(" sectors/request (ideal 4.0), ") != std::string::npos);
  CHECK(store.message.find("× excess — ") != std::string::npos);
  CHECK(store.message.find(" excess sectors per launch, ") != std::string::npos);
  CHECK(store.message.find("% of this kernel's global traffic") != std::string::npos);
  CHECK(store.explanation_markdown.find("NVIDIA H200") != std::string::npos);

  auto conflicts = with_code(findings, "shared-bank-conflict");
  REQUIRE(conflicts.size() == 1);
  const Finding& read = *conflicts[0];
  CHECK(read.location.range.start.line == test::line_of(text, "// LINE tiled-read") - 1);
  CHECK(std::get<std::string>(*read.data.get("kind")) == "shared_load");
  CHECK(number(read, "conflict_ways") == doctest::Approx(32.0).epsilon(0.1));
  CHECK(read.message.rfind("measured 32-way bank conflict on this shared load (wavefronts 32", 0) == 0);
  CHECK(read.message.find("extra wavefronts per launch") != std::string::npos);
}

TEST_CASE("without a model a finding covers its whole line, trimmed") {
  Profile p = test::load_fixture("transpose");
  const std::string text = test::read_file(kTranspose);
  MeasuredFindingsRequest req;
  req.file = kTranspose;
  req.text = text;
  auto findings = measured_findings(p, req);
  const int naive = test::line_of(text, "// LINE naive");
  const Finding& store = only(findings, "uncoalesced-global");
  Range expected = test::range_on_line(text, naive, "out[x * N + y] = in[y * N + x];  // LINE naive: coalesced load, strided store");
  CHECK(store.location.range == expected);

  // No text at all: the line up to the start of the next.
  req.text = {};
  auto bare = measured_findings(p, req);
  const Finding& bare_store = only(bare, "uncoalesced-global");
  CHECK(bare_store.location.range == Range{{naive - 1, 0}, {naive, 0}});
}

TEST_CASE("with a model the store's finding covers the store, not the load beside it") {
  Profile p = test::load_fixture("transpose");
  const std::string text = test::read_file(kTranspose);
  KernelModel model = transpose_model(text);
  MeasuredFindingsRequest req;
  req.file = kTranspose;
  req.text = text;
  req.model = &model;
  auto findings = measured_findings(p, req);
  const int naive = test::line_of(text, "// LINE naive");
  const Finding& store = only(findings, "uncoalesced-global");
  CHECK(store.location.range == test::range_on_line(text, naive, "out[x * N + y]"));
  CHECK(store.kernel == "transpose_naive(float *, const float *)");  // the model's key
  const Finding& read = only(findings, "shared-bank-conflict");
  CHECK(read.location.range ==
        test::range_on_line(text, test::line_of(text, "// LINE tiled-read"), "tile[threadIdx.x][threadIdx.y]"));
}

TEST_CASE("a load finding covers the load when the line's store is clean") {
  // The naive transpose with the roles swapped: the load is the strided one.
  Profile p = test::load_fixture("transpose");
  for (LineMetrics& l : p.lines) {
    if (l.kind == LineKind::GlobalLoad && l.kernel == "_Z15transpose_naivePfPKf") l.sectors = l.sectors_ideal * 8;
    if (l.kind == LineKind::GlobalStore && l.kernel == "_Z15transpose_naivePfPKf") l.sectors = l.sectors_ideal;
  }
  const std::string text = test::read_file(kTranspose);
  KernelModel model = transpose_model(text);
  MeasuredFindingsRequest req{kTranspose, text, &model};
  auto findings = measured_findings(p, req);
  auto uncoalesced = with_code(findings, "uncoalesced-global");
  REQUIRE(uncoalesced.size() == 1);
  CHECK(uncoalesced[0]->message.rfind("measured global load: ", 0) == 0);
  CHECK(uncoalesced[0]->location.range ==
        test::range_on_line(text, test::line_of(text, "// LINE naive"), "in[y * N + x]"));
}

TEST_CASE("another document gets no findings, an empty file filter gets all") {
  Profile p = test::load_fixture("transpose");
  MeasuredFindingsRequest other;
  other.file = "/somewhere/else/other.cu";
  CHECK(measured_findings(p, other).empty());
  MeasuredFindingsRequest all;
  auto findings = measured_findings(p, all);
  REQUIRE(findings.size() == 2);
  CHECK(findings[0].location.file == p.lines[0].file);  // the profile's own path
}

TEST_CASE("strided copy: the excess grows with the stride, the stride-1 copy stays quiet") {
  Profile p = test::load_fixture("strided_copy");
  MeasuredFindingsRequest req;
  auto findings = measured_findings(p, req);
  std::vector<double> ratios;
  for (const Finding& f : findings) {
    CHECK(f.code == "uncoalesced-global");
    CHECK(std::get<std::string>(*f.data.get("kind")) == "global_load");
    ratios.push_back(number(f, "excess_ratio"));
  }
  std::sort(ratios.begin(), ratios.end());
  REQUIRE(ratios.size() == 2);  // strides 2 and 8; stride 1 is coalesced
  CHECK(ratios[0] == doctest::Approx(2.0).epsilon(0.1));
  CHECK(ratios[1] == doctest::Approx(8.0).epsilon(0.1));
}

TEST_CASE("reductions: bank conflicts in the interleaved one, divergence where branches split") {
  Profile p = test::load_fixture("bank_reduction");
  auto findings = measured_findings(p, {});
  auto conflicts = with_code(findings, "shared-bank-conflict");
  REQUIRE_FALSE(conflicts.empty());
  for (const Finding* f : conflicts) CHECK(f->kernel == "reduce_interleaved(int const*, int*)");
  CHECK(number(*conflicts[0], "conflict_ways") > 2.0);

  // Every branch record that splits often enough has its finding, on its
  // line (whether the compiler branched or predicated is the recording's business).
  auto divergence = with_code(findings, "warp-divergence");
  std::size_t expected = 0;
  for (const LineMetrics& l : p.lines) {
    if (l.kind != LineKind::Branch || l.divergent + l.uniform == 0) continue;
    if (double(l.divergent) / double(l.divergent + l.uniform) < 0.1) continue;
    ++expected;
    bool found = std::any_of(divergence.begin(), divergence.end(), [&](const Finding* f) {
      return f->location.range.start.line == l.line - 1 &&
             std::get<std::string>(*f->data.get("kernel_mangled")) == l.kernel;
    });
    CAPTURE(l.line);
    CHECK(found);
  }
  CHECK(divergence.size() == expected);
  for (const Finding* f : divergence) {
    CHECK(f->severity == Severity::Information);
    CHECK(f->message.find("of this branch's warp executions diverge") != std::string::npos);
  }
  // The H200 compiled the reductions' conditions without a branch (no
  // branch record on the modulo line in the second run), so the fixture
  // shows none: the next test puts one there.
  if (p.has_warning("provisional-fixture")) CHECK(expected == 0);
}

TEST_CASE("a branch whose warps split often is reported as divergence, on its line") {
  Profile p = test::load_fixture("bank_reduction");
  const Kernel* modulo = nullptr;
  for (const Kernel& k : p.kernels)
    if (k.name.rfind("reduce_modulo", 0) == 0) modulo = &k;
  REQUIRE(modulo);
  const std::string source = test::source_dir() + "/tests/gpu/profiler_bank_reduction.cu";
  const int line = test::line_of(test::read_file(source), "// LINE modulo");
  LineMetrics branch;
  branch.file = p.lines.front().file;
  branch.line = line;
  branch.kernel = modulo->mangled;
  branch.kind = LineKind::Branch;
  branch.executed = 262144;
  branch.divergent = 192512;  // 73% of the branch's executions split
  branch.uniform = 262144 - 192512;
  p.lines.push_back(branch);
  LineMetrics rare = branch;  // 5%: below the threshold
  rare.line = line + 1;
  rare.divergent = 13107;
  rare.uniform = 262144 - 13107;
  p.lines.push_back(rare);
  const std::vector<Finding> findings = measured_findings(p, {});  // with_code points into it
  auto divergence = with_code(findings, "warp-divergence");
  REQUIRE(divergence.size() == 1);
  const Finding& f = *divergence[0];
  CHECK(f.location.range.start.line == line - 1);
  CHECK(f.severity == Severity::Information);
  CHECK(f.kernel == "reduce_modulo(int const*, int*)");
  CHECK(f.message.rfind("measured: 73% of this branch's warp executions diverge (192.5 k of 262.1 k per launch)", 0) == 0);
  CHECK(number(f, "divergent_fraction") == doctest::Approx(0.734).epsilon(0.01));
}

TEST_CASE("thresholds decide what is worth a finding") {
  Profile p = test::load_fixture("transpose");
  MeasuredFindingsOptions strict;
  strict.min_sector_excess = 10;   // 8x is below
  strict.min_conflict_ways = 40;   // 32-way is below
  CHECK(measured_findings(p, {}, strict).empty());
  MeasuredFindingsOptions share;
  share.min_share = 0.95;          // the naive store is ~89% of its kernel's sectors
  auto findings = measured_findings(p, {}, share);
  CHECK(with_code(findings, "uncoalesced-global").empty());
}

TEST_CASE("local memory traffic is reported as spills") {
  Profile p = test::load_fixture("transpose");
  REQUIRE_FALSE(p.lines.empty());
  LineMetrics spill;
  spill.file = p.lines.front().file;
  spill.line = 24;
  spill.kernel = "_Z15transpose_naivePfPKf";
  spill.kind = LineKind::LocalStore;
  spill.executed = 131072;
  spill.sectors = 1048576;
  p.lines.push_back(spill);
  auto findings = measured_findings(p, {});
  auto spills = with_code(findings, "register-spill");
  REQUIRE(spills.size() == 1);
  CHECK(spills[0]->location.range.start.line == 23);
  CHECK(spills[0]->message.rfind("measured local store: 1.0 M local-memory sectors per launch", 0) == 0);
}

TEST_CASE("file matching: exact, canonical, then unambiguous file name") {
  Profile p = test::load_fixture("transpose");
  REQUIRE_FALSE(p.lines.empty());
  const std::string recorded = p.lines.front().file;
  CHECK(same_source_file(p, recorded, recorded));
  CHECK(same_source_file(p, recorded, "/my/checkout/tests/gpu/profiler_transpose.cu"));
  CHECK_FALSE(same_source_file(p, recorded, "/my/checkout/tests/gpu/profiler_strided_copy.cu"));
  LineMetrics twin = p.lines.front();
  twin.file = "/other/dir/profiler_transpose.cu";
  p.lines.push_back(twin);
  CHECK_FALSE(same_source_file(p, recorded, "/my/checkout/tests/gpu/profiler_transpose.cu"));
}
