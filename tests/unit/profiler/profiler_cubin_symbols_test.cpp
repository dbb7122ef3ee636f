// The kernels and module variables of a cubin nvcc builds here (no GPU
// needed), and malformed images refused without reading out of bounds.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <string>

#include "common/subprocess.h"
#include "profiler/build_single_file.h"
#include "profiler/cubin_symbols.h"
#include "profiler/scratch_dir.h"
#include "test_support.h"
#include "tests/support/requirements.h"

using namespace warplens;
using warplens::test::needs;

namespace {

std::string symbols_nvcc() {
  std::string n = WARPLENS_TEST_NVCC;
  return n.empty() ? profile::locate_nvcc() : n;
}
WARPLENS_REQUIREMENT("cubin-symbols-nvcc", [] {
  return symbols_nvcc().empty() ? warplens::test::missing("nvcc not found (the build found none, and none is on PATH)")
                                : warplens::test::met();
});

std::string build_cubin(const profile::ScratchDir& dir, const std::string& source, const std::string& extra = "") {
  const std::string cu = dir.file("m.cu");
  std::ofstream(cu) << source;
  ProcessSpec spec;
  spec.argv = {symbols_nvcc(), "-cubin", "-arch=sm_90", "-O3", "-o", dir.file("m.cubin"), cu};
  if (!extra.empty()) spec.argv.insert(spec.argv.begin() + 1, extra);
  spec.stderr_path = dir.file("m.log");
  ProcessResult r = run_process(spec);
  REQUIRE_MESSAGE(r.exit_code == 0, test::tail_of_file_or_empty(spec.stderr_path));
  return test::read_file(dir.file("m.cubin"));
}

const capture::ModuleVariable* variable(const capture::CubinSymbols& s, const std::string& name) {
  for (const auto& v : s.variables)
    if (v.name == name) return &v;
  return nullptr;
}

const char* kModule =
    "__constant__ float w[5];\n"
    "__device__ int counter;\n"
    "__device__ float table[4] = {1, 2, 3, 4};\n"
    "namespace ns { __constant__ double scale; }\n"
    "static __constant__ float sw[3];\n"
    "__global__ void k(float* y, const float* x, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) {\n"
    "    float s = 0;\n"
    "    for (int j = 0; j < 5; ++j) s += w[j] * x[i + j];\n"
    "    y[i] = s * ns::scale + table[i & 3] + sw[i % 3];\n"
    "    atomicAdd(&counter, 1);\n"
    "  }\n"
    "}\n"
    "__global__ void plain(float* y) { y[threadIdx.x] = 1.f; }\n";

}  // namespace

TEST_CASE("cubin symbols: kernels and every kind of module variable, with sizes" * needs("cubin-symbols-nvcc")) {
  profile::ScratchDir dir("warplens-cubin-symbols-");
  const std::string image = build_cubin(dir, kModule);
  capture::CubinSymbols s = capture::read_cubin_symbols(image.data(), image.size());
  REQUIRE_MESSAGE(s.error.empty(), s.error);
  CHECK(std::count(s.functions.begin(), s.functions.end(), "_Z1kPfPKfi") == 1);
  CHECK(std::count(s.functions.begin(), s.functions.end(), "_Z5plainPf") == 1);
  REQUIRE(variable(s, "w"));
  CHECK(variable(s, "w")->bytes == 20);
  CHECK(variable(s, "w")->constant());
  REQUIRE(variable(s, "counter"));
  CHECK(variable(s, "counter")->bytes == 4);
  CHECK_FALSE(variable(s, "counter")->constant());
  REQUIRE(variable(s, "table"));
  CHECK(variable(s, "table")->bytes == 16);
  CHECK(variable(s, "table")->section == ".nv.global.init");
  REQUIRE(variable(s, "_ZN2ns5scaleE"));  // C++ scopes keep their mangled names
  CHECK(variable(s, "_ZN2ns5scaleE")->bytes == 8);
  REQUIRE(variable(s, "sw"));
  CHECK(variable(s, "sw")->bytes == 12);
  // Nothing of the compiler's own (parameter banks, reserved shared memory).
  CHECK(s.variables.size() == 5);
}

TEST_CASE("cubin symbols: a module without variables has none, relocatable code too" * needs("cubin-symbols-nvcc")) {
  profile::ScratchDir dir("warplens-cubin-symbols-");
  const std::string plain = build_cubin(dir, "__global__ void only(int* o) { o[threadIdx.x] = 7; }\n");
  capture::CubinSymbols s = capture::read_cubin_symbols(plain.data(), plain.size());
  CHECK(s.error.empty());
  CHECK(s.variables.empty());
  CHECK(std::count(s.functions.begin(), s.functions.end(), "_Z4onlyPi") == 1);
  const std::string rdc = build_cubin(dir, kModule, "-rdc=true");
  capture::CubinSymbols r = capture::read_cubin_symbols(rdc.data(), rdc.size());
  CHECK(r.error.empty());
  // Relocatable objects type their variables as CUDA objects (13) and give
  // file-static ones a unique name.
  CHECK(variable(r, "w"));
  CHECK(variable(r, "_ZN2ns5scaleE"));
  CHECK(r.variables.size() == 5);
}

TEST_CASE("cubin symbols: images that are not ELF, or are damaged, are refused without reading past them" *
          needs("cubin-symbols-nvcc")) {
  CHECK(capture::read_cubin_symbols(nullptr, 0).error == "not an ELF image");
  const std::string ptx = ".version 8.0\n.target sm_90\n";
  CHECK(capture::read_cubin_symbols(ptx.data(), ptx.size()).error == "not an ELF image");

  profile::ScratchDir dir("warplens-cubin-symbols-");
  const std::string image = build_cubin(dir, kModule);
  // Every truncation: an error or a subset, never a crash (run under ASan in
  // the sanitizer build).
  for (std::size_t n = 0; n < image.size(); n += std::max<std::size_t>(1, image.size() / 97)) {
    std::string cut = image.substr(0, n);
    capture::CubinSymbols s = capture::read_cubin_symbols(cut.data(), cut.size());
    CHECK(s.variables.size() <= 5);
  }
  // Random damage to the headers and tables.
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    std::string bad = image;
    for (int k = 0; k < 8; ++k) bad[rng() % std::min<std::size_t>(bad.size(), 4096)] = static_cast<char>(rng());
    capture::CubinSymbols s = capture::read_cubin_symbols(bad.data(), bad.size());
    CHECK(s.variables.size() <= 64);
  }
  // Section header table pointing past the end.
  std::string far = image;
  const std::uint64_t huge = ~0ull - 16;
  far.replace(0x28, 8, reinterpret_cast<const char*>(&huge), 8);
  CHECK(capture::read_cubin_symbols(far.data(), far.size()).error == "malformed ELF section header table");
}
