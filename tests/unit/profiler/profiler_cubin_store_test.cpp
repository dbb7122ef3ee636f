// PC -> source line through the captured cubins, with CUPTI's cubin parser
// and a cubin that nvcc builds here (no GPU needed).
#include <doctest/doctest.h>

#include <cstdlib>
#include <set>

#include "profiler/inject/cubin_store.h"
#include "profiler/scratch_dir.h"
#include "common/subprocess.h"
#include "test_support.h"

using namespace warplens;
using namespace warplens::inject;

namespace {

std::string build_cubin(const profile::ScratchDir& dir, const std::string& name,
                        const std::string& source, bool lineinfo) {
  std::string cu = dir.file(name + ".cu");
  std::ofstream(cu) << source;
  ProcessSpec spec;
  spec.argv = {WARPLENS_TEST_NVCC, "-cubin", "-arch=sm_90", "-O3", "-o", dir.file(name + ".cubin"), cu};
  if (lineinfo) spec.argv.insert(spec.argv.begin() + 1, "-lineinfo");
  spec.stderr_path = dir.file(name + ".log");
  ProcessResult r = run_process(spec);
  REQUIRE_MESSAGE(r.exit_code == 0, test::tail_of_file_or_empty(spec.stderr_path));
  return test::read_file(dir.file(name + ".cubin"));
}

const char* kKernels =
    "__global__ void first(float* o, const float* i) {\n"   // line 1
    "  int x = threadIdx.x;\n"                              // line 2
    "  o[x * 32] = i[x];\n"                                 // line 3
    "}\n";
const char* kOther =
    "__global__ void second(int* o) {\n"
    "  o[threadIdx.x] = 7;\n"
    "}\n";

}  // namespace

TEST_CASE("PCs map to the lines of the cubin that holds the function") {
  profile::ScratchDir dir("warplens-cubin-test-");
  std::string other = build_cubin(dir, "other", kOther, true);
  std::string kernels = build_cubin(dir, "kernels", kKernels, true);
  CubinStore store;
  REQUIRE(store.add(1, other.data(), other.size()));  // tried first, does not know `first`
  REQUIRE(store.add(2, kernels.data(), kernels.size()));
  CHECK(store.count() == 2);

  std::set<int> lines;
  for (std::uint32_t pc = 0; pc < 0x100; pc += 0x10) {
    SourceLine where = store.resolve("_Z5firstPfPKf", pc);
    if (where.line == 0) continue;
    lines.insert(where.line);
    CHECK(where.file == dir.file("kernels.cu"));  // dirName/fileName joined
  }
  CHECK(lines.count(3) == 1);  // the load and the store
  CHECK(*lines.begin() >= 1);
  CHECK(*lines.rbegin() <= 4);
  // Cached: a second lookup answers the same.
  CHECK(store.resolve("_Z5firstPfPKf", 0x40).line == store.resolve("_Z5firstPfPKf", 0x40).line);
  CHECK(store.resolve("_Z6secondPi", 0x10).file == dir.file("other.cu"));
  // A function no cubin holds has no line.
  CHECK(store.resolve("_Z7missingv", 0x10).line == 0);
}

TEST_CASE("without -lineinfo there are no lines") {
  profile::ScratchDir dir("warplens-cubin-test-");
  std::string cubin = build_cubin(dir, "plain", kKernels, false);
  CubinStore store;
  store.add(1, cubin.data(), cubin.size());
  for (std::uint32_t pc = 0; pc < 0x80; pc += 0x10) CHECK(store.resolve("_Z5firstPfPKf", pc).line == 0);
}

TEST_CASE("the capture limit is enforced") {
  CubinStore store(/*max_bytes=*/10);
  std::string small(8, 'x'), big(8, 'y');
  CHECK(store.add(1, small.data(), small.size()));
  CHECK_FALSE(store.add(2, big.data(), big.size()));
  CHECK(store.capped());
  CHECK(store.count() == 1);
}
