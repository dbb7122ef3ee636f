// Real-world-style CUDA programs (tests/fixtures/realworld/, examples/) must
// parse with zero errors against the installed CUDA toolkit and give the
// model the analyses expect.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/unit/analysis/frontend_snippets.h"
#include "tests/support/analysis_requirements.h"

using warplens::test::needs;

using namespace warplens;
using namespace warplens::testing;
namespace fs = std::filesystem;

namespace {

AnalysisResult analyze_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  AnalysisOptions o;
  o.run_static_analyses = false;
  return analyze({path.string(), ss.str()}, o);
}

std::string errors_of(const AnalysisResult& r) {
  std::string s;
  for (const auto& f : r.findings)
    if (f.severity == Severity::Error || f.severity == Severity::Warning)
      s += std::to_string(f.location.range.start.line + 1) + ": " + f.message + " [" + f.code + "]\n";
  return s;
}

const Function& function(const AnalysisResult& r, const std::string& name) {
  for (const auto& f : r.model.functions)
    if (f.name == name || f.key == name) return f;
  throw std::invalid_argument("no function " + name);
}

const fs::path kFixtures = fs::path(WARPLENS_SOURCE_DIR) / "tests" / "fixtures" / "realworld";
const fs::path kExamples = fs::path(WARPLENS_SOURCE_DIR) / "examples";

}  // namespace

TEST_CASE("every real-world fixture and example parses cleanly with the toolkit" * needs("cuda-toolkit")) {
  std::vector<fs::path> files;
  for (const auto& dir : {kFixtures, kExamples})
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".cu") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 12);
  for (const auto& path : files) {
    CAPTURE(path.string());
    auto r = analyze_file(path);
    CHECK(r.parsed);
    CHECK_MESSAGE(errors_of(r).empty(), errors_of(r));
    CHECK_FALSE(r.model.kernels().empty());
    // (the cooperative kernel is launched with cudaLaunchCooperativeKernel)
    if (path.filename() != "cooperative_groups_reduce.cu") CHECK_FALSE(r.model.launches.empty());
    for (const auto& l : r.model.launches) CHECK_MESSAGE(!l.kernel_key.empty(), l.kernel);
  }
}

TEST_CASE("cub: library internals stay out of the model" * needs("cuda-toolkit")) {
  auto r = analyze_file(kFixtures / "cub_block_reduce.cu");
  REQUIRE(errors_of(r).empty());
  CHECK(r.model.functions.size() == 2);  // the two kernels, no cub device functions
  const auto& block = function(r, "BlockSumKernel");
  CHECK(block.template_args == "<128, 4>");
  REQUIRE(block.shared_arrays.size() == 1);
  CHECK(block.shared_arrays[0].address_escapes);  // TempStorage handed to cub
  // Only the kernel's own memory operation: the atomic on d_out.
  REQUIRE(block.accesses.size() == 1);
  CHECK(block.accesses[0].kind == AccessKind::Atomic);
  REQUIRE(r.model.launches.size() == 2);
  CHECK(r.model.launches[0].block.value == std::array<std::int64_t, 3>{128, 1, 1});
  CHECK(r.model.launches[0].grid.value == std::array<std::int64_t, 3>{2048, 1, 1});
}

TEST_CASE("cooperative groups: ranks become index expressions, group syncs are barriers" * needs("cuda-toolkit")) {
  auto r = analyze_file(kFixtures / "cooperative_groups_reduce.cu");
  REQUIRE(errors_of(r).empty());
  const auto& k = function(r, "reduce_multi_block");
  REQUIRE(k.barriers.size() == 1);
  CHECK(k.barriers[0].kind == BarrierKind::CooperativeGroup);  // grid.sync()
  const auto& helper = function(r, "block_sum");
  REQUIRE(helper.barriers.size() == 1);
  CHECK(helper.barriers[0].spelling == "block.sync()");
  bool grid_stride = false;
  for (const auto& l : k.loops)
    if (l.induction_variable == "i" && l.step && to_string(l.step).find("gridDim") != std::string::npos) grid_stride = true;
  CHECK(grid_stride);
  REQUIRE(k.calls.size() == 2);
  REQUIRE(k.calls[0].pointer_args.size() == 3);
  REQUIRE(k.calls[0].pointer_args[1]);
  CHECK(k.calls[0].pointer_args[1]->shared_array == "scratch");
}

TEST_CASE("fp16: half2 views keep their real width" * needs("cuda-toolkit")) {
  auto r = analyze_file(kFixtures / "fp16_gemv.cu");
  REQUIRE(errors_of(r).empty());
  const auto& k = function(r, "gemv_half2");
  int half2_loads = 0;
  for (const auto& a : k.accesses)
    if (a.element_type == "__half2") {
      ++half2_loads;
      CHECK(a.element_bytes == 4);
      CHECK(a.reinterpreted);
      CHECK(a.byte_offset);
    }
  CHECK(half2_loads == 2);
  // The constexpr kWarp is folded, not a memory access.
  for (const auto& a : k.accesses) CHECK(a.base != "kWarp");
}

TEST_CASE("histogram: bins indexed by loaded data are indirect" * needs("cuda-toolkit")) {
  auto r = analyze_file(kFixtures / "stencil_histogram.cu");
  REQUIRE(errors_of(r).empty());
  const auto& h = function(r, "histogram256");
  int indirect = 0;
  for (const auto& a : h.accesses)
    if (a.kind == AccessKind::Atomic && a.space == MemorySpace::Shared) {
      CHECK(is_indirect(a.index));
      ++indirect;
    }
  CHECK(indirect == 4);
  const auto& st = function(r, "stencil5");
  REQUIRE(st.shared_arrays.size() == 1);
  CHECK(st.shared_arrays[0].dims == std::vector<std::int64_t>{10, 34});
  CHECK(st.shared_arrays[0].innermost_dim_spelling == "BX + 2 * R");
}
