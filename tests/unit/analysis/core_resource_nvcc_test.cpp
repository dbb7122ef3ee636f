// Resource usage with the real nvcc: unsaved buffers with relative includes,
// compile-command flags, -maxrregcount spills, -rdc, build errors, the cache,
// cancellation, architecture substitution. The CUDA toolkit is on the CI
// machine; when this build found CUDA (WARPLENS_HAVE_CUDA_HEADERS), a
// missing nvcc is a failure, not a skip.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "analysis/nvcc_toolchain.h"
#include "analysis/occupancy_findings.h"
#include "analysis/resource_usage.h"
#include "occupancy_test_support.h"
#include "tests/support/analysis_requirements.h"

using warplens::test::needs;

using namespace warplens;
namespace fs = std::filesystem;

namespace {

// A scratch project: <dir>/src/k.cu including "local.h" and <dir>/inc/common.h.
struct Project {
  fs::path dir;
  Project() {
    char tmpl[] = "/tmp/wl-resource-test-XXXXXX";
    dir = ::mkdtemp(tmpl);
    fs::create_directories(dir / "src");
    fs::create_directories(dir / "inc");
    write("src/local.h", "#define LOCAL_SCALE 3\n");
    write("inc/common.h", "#define TILE 32\n");
  }
  ~Project() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  void write(const std::string& rel, const std::string& text) {
    std::ofstream(dir / rel) << text;
  }
  std::string path(const std::string& rel) const { return (dir / rel).string(); }
};

const char* kSource = R"(#include "local.h"
#include "common.h"
__global__ void transpose(const float* in, float* out, int n) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * n + x] * LOCAL_SCALE;
  __syncthreads();
  out[x * n + y] = tile[threadIdx.x][threadIdx.y];
}
__global__ void accumulate(const float4* __restrict__ in, float* out, int n) {
  float4 v[12];
#pragma unroll
  for (int k = 0; k < 12; ++k) v[k] = in[threadIdx.x + k * n];
  float s = 0;
#pragma unroll
  for (int a = 0; a < 12; ++a)
#pragma unroll
    for (int b = a; b < 12; ++b) s += v[a].x * v[b].y - v[a].z * v[b].w;
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
)";

const FunctionResources* find(const ResourceUsageResult& r, const std::string& demangled_prefix) {
  for (const auto& f : r.functions)
    if (f.demangled.rfind(demangled_prefix, 0) == 0) return &f;
  return nullptr;
}

ResourceUsageRequest request(const Project& p, std::string text = kSource) {
  ResourceUsageRequest req;
  req.path = p.path("src/k.cu");  // never written: the buffer is unsaved
  req.text = std::move(text);
  req.arch = "sm_90";
  req.compile_args = {"/usr/local/cuda/bin/nvcc", "-I" + p.path("inc"), "-O3", "-G", "-c", "k.cu", "-o", "k.o"};
  req.working_directory = p.path("src");
  return req;
}

}  // namespace

TEST_CASE("compile-command flags: keep what changes device code") {
  auto f = nvcc_flags_from_command({"nvcc", "-I", "inc", "-Iinc2", "--include-path=inc3", "-isystem", "/sys",
                                    "-DA=1", "-D", "B", "-UC", "-std=c++17", "-O3", "-G", "-g", "-lineinfo",
                                    "-maxrregcount=64", "-Xptxas", "-dlcm=ca", "--use_fast_math",
                                    "--expt-relaxed-constexpr", "-arch=sm_80", "-gencode",
                                    "arch=compute_80,code=sm_80", "-c", "k.cu", "-o", "k.o", "-MD", "-MF",
                                    "k.d", "-Xcompiler", "-fopenmp", "-ccbin", "g++-12"});
  CHECK(f.args == std::vector<std::string>{"-I", "inc", "-Iinc2", "--include-path=inc3", "-isystem", "/sys",
                                           "-DA=1", "-D", "B", "-UC", "-std=c++17", "-maxrregcount=64",
                                           "-Xptxas", "-dlcm=ca", "--use_fast_math", "--expt-relaxed-constexpr",
                                           "-Xcompiler", "-fopenmp", "-ccbin", "g++-12"});
  CHECK_FALSE(f.relocatable);
  CHECK(std::find(f.dropped.begin(), f.dropped.end(), "-G") != f.dropped.end());
  CHECK(std::find(f.dropped.begin(), f.dropped.end(), "arch=compute_80,code=sm_80") != f.dropped.end());

  CHECK(nvcc_flags_from_command({"nvcc", "-rdc=true", "x.cu"}).relocatable);
  CHECK(nvcc_flags_from_command({"nvcc", "-dc", "x.cu"}).relocatable);
  CHECK(nvcc_flags_from_command({"nvcc", "--relocatable-device-code", "true"}).relocatable);
  CHECK_FALSE(nvcc_flags_from_command({"nvcc", "-rdc=false"}).relocatable);
  // clang: only the portable flags survive.
  auto c = nvcc_flags_from_command({"clang++", "-x", "cuda", "--cuda-gpu-arch=sm_80", "-Iinc", "-DX",
                                    "-nocudalib", "-Xclang", "-fno-foo", "-std=c++20", "k.cu"});
  CHECK(c.args == std::vector<std::string>{"-Iinc", "-DX", "-std=c++20"});
  // Extra flags without a compiler in front.
  CHECK(nvcc_flags_from_command({"-DY=2"}).args == std::vector<std::string>{"-DY=2"});
  CHECK(shell_join({"nvcc", "-DX=\"a b\"", "it's"}) == "nvcc '-DX=\"a b\"' 'it'\\''s'");
}

TEST_CASE("nvcc: an unsaved buffer with relative and -I includes" * needs("nvcc")) {
  Project p;
  ResourceCache cache("");  // memory only
  auto r = compute_resource_usage(request(p), {}, &cache);
  REQUIRE_MESSAGE(r.status == ResourceUsageStatus::Ok, r.message << "\n" << r.raw_output);
  CHECK_FALSE(fs::exists(p.path("src/k.cu")));  // the user's directory was not written
  CHECK(r.compiled_arch == "sm_90");
  CHECK_FALSE(r.from_cache);
  CHECK(r.command.find(p.path("src/k.cu")) != std::string::npos);
  // As a token: the temporary directory's random suffix may itself start with "G".
  CHECK((" " + r.command + " ").find(" -G ") == std::string::npos);
  const auto* t = find(r, "transpose(");
  REQUIRE(t);
  CHECK(t->registers.value_or(0) > 0);
  CHECK(t->shared_static_bytes == 32 * 33 * 4);
  CHECK(t->barriers == 1);
  const auto* a = find(r, "accumulate(");
  REQUIRE(a);
  CHECK(a->registers.value_or(0) > 32);
  CHECK(a->spill_store_bytes == 0);
  MESSAGE("nvcc wall time for the test kernels: " << r.wall_ms << " ms");
}

TEST_CASE("nvcc: -maxrregcount from the compile command makes it spill" * needs("nvcc")) {
  Project p;
  ResourceCache cache("");
  auto req = request(p);
  req.compile_args.push_back("-maxrregcount=32");
  auto r = compute_resource_usage(req, {}, &cache);
  REQUIRE_MESSAGE(r.status == ResourceUsageStatus::Ok, r.message);
  const auto* a = find(r, "accumulate(");
  REQUIRE(a);
  CHECK(a->registers == 32);
  CHECK(a->register_limit == 32);
  CHECK(a->spill_store_bytes > 0);
  CHECK(a->spill_load_bytes > 0);
}

TEST_CASE("nvcc: relocatable device code uses nvlink's numbers" * needs("nvcc")) {
  Project p;
  ResourceCache cache("");
  auto req = request(p);
  req.compile_args.push_back("-rdc=true");
  auto r = compute_resource_usage(req, {}, &cache);
  REQUIRE_MESSAGE(r.status == ResourceUsageStatus::Ok, r.message << "\n" << r.raw_output);
  CHECK(r.relocatable);
  CHECK(r.command.find("-dlink") != std::string::npos);
  const auto* t = find(r, "transpose(");
  REQUIRE(t);
  CHECK(t->origin == ResourceOrigin::Ptxas);
  CHECK(t->shared_static_bytes == 32 * 33 * 4);  // nvlink's 1 KB reservation removed
  CHECK(r.raw_output.find("nvlink info") != std::string::npos);
}

TEST_CASE("nvcc: -rdc with an external device function keeps ptxas' numbers and warns" * needs("nvcc")) {
  Project p;
  ResourceCache cache("");
  auto req = request(p, "__device__ float ext(float);\n"
                        "__global__ void k(float* o) { o[threadIdx.x] = ext(o[threadIdx.x]); }\n");
  req.compile_args.push_back("-rdc=true");
  auto r = compute_resource_usage(req, {}, &cache);
  REQUIRE_MESSAGE(r.status == ResourceUsageStatus::Ok, r.message << "\n" << r.raw_output);
  REQUIRE(find(r, "k(") != nullptr);
  bool warned = false;
  for (const auto& d : r.diagnostics)
    warned |= d.tool == "nvlink" && d.level == ToolDiagnostic::Level::Warning &&
              d.message.find("Undefined reference") != std::string::npos;
  CHECK(warned);
}

TEST_CASE("nvcc: a build error names the original file and line" * needs("nvcc")) {
  Project p;
  ResourceCache cache("");
  auto r = compute_resource_usage(request(p, "#include \"local.h\"\n\n__global__ void k(int* p) { p[0] = nope; }\n"),
                                  {}, &cache);
  CHECK(r.status == ResourceUsageStatus::BuildFailed);
  REQUIRE_FALSE(r.diagnostics.empty());
  CHECK(r.diagnostics[0].file == p.path("src/k.cu"));
  CHECK(r.diagnostics[0].line == 3);
  CHECK(r.message.find("identifier \"nope\" is undefined") != std::string::npos);
  CHECK(r.raw_output.find("warplens-nvcc-") == std::string::npos);  // no temporary paths leak
}

TEST_CASE("nvcc: cache hits, and a changed header invalidates" * needs("nvcc")) {
  Project p;
  fs::path cache_dir = p.dir / "cache";
  ResourceCache cache(cache_dir.string());
  auto first = compute_resource_usage(request(p), {}, &cache);
  REQUIRE(first.status == ResourceUsageStatus::Ok);
  auto second = compute_resource_usage(request(p), {}, &cache);
  CHECK(second.from_cache);
  CHECK(second.functions.size() == first.functions.size());
  CHECK(second.wall_ms < first.wall_ms);
  MESSAGE("miss " << first.wall_ms << " ms, memory hit " << second.wall_ms << " ms");

  // A fresh cache object on the same directory: a disk hit.
  ResourceCache cold(cache_dir.string());
  auto third = compute_resource_usage(request(p), {}, &cold);
  CHECK(third.from_cache);
  const auto* t1 = find(first, "transpose(");
  const auto* t3 = find(third, "transpose(");
  REQUIRE(t1);
  REQUIRE(t3);
  CHECK(t1->registers == t3->registers);

  // Different text: a miss.
  auto other = compute_resource_usage(request(p, std::string(kSource) + "\n// edit\n"), {}, &cache);
  CHECK_FALSE(other.from_cache);

  // The header the kernel includes changes: the entry is stale.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  p.write("inc/common.h", "#define TILE 16\n");
  auto after = compute_resource_usage(request(p), {}, &cache);
  CHECK_FALSE(after.from_cache);
  const auto* t = find(after, "transpose(");
  REQUIRE(t);
  CHECK(t->shared_static_bytes == 16 * 17 * 4);
}

TEST_CASE("nvcc: cancelling kills the compile promptly" * needs("nvcc")) {
  Project p;
  ResourceCache cache("");
  // cub makes nvcc take a few seconds.
  auto req = request(p, "#include <cub/cub.cuh>\n" + std::string(kSource));
  std::stop_source stop;
  std::jthread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop.request_stop();
  });
  auto t0 = std::chrono::steady_clock::now();
  auto r = compute_resource_usage(req, stop.get_token(), &cache);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  CHECK(r.status == ResourceUsageStatus::Cancelled);
  CHECK(ms < 2500);
  // Nothing was cached for a cancelled run.
  CHECK_FALSE(cache.lookup("anything", req.text).has_value());
}

TEST_CASE("nvcc: architectures the toolkit dropped are substituted, with a note" * needs("nvcc")) {
  auto tc = *find_nvcc("").toolchain;
  std::string note;
  CHECK(choose_compile_arch(tc, "sm_90", &note) == "sm_90");
  CHECK(note.empty());
  CHECK(choose_compile_arch(tc, "sm_90a", &note) == "sm_90a");
  CHECK(choose_compile_arch(tc, "banana", &note).empty());
  if (std::find(tc.supported_archs.begin(), tc.supported_archs.end(), "sm_70") == tc.supported_archs.end() &&
      !tc.supported_archs.empty()) {
    note.clear();
    CHECK(choose_compile_arch(tc, "sm_70", &note) == "sm_75");
    CHECK(note.find("cannot compile for sm_70") != std::string::npos);
    Project p;
    ResourceCache cache("");
    auto req = request(p);
    req.arch = "sm_70";
    auto r = compute_resource_usage(req, {}, &cache);
    CHECK(r.status == ResourceUsageStatus::Ok);
    CHECK(r.compiled_arch == "sm_75");
    CHECK_FALSE(r.arch_note.empty());
  }
}

TEST_CASE("nvcc: a wrong cudaPath setting is reported, not replaced") {
  ResourceUsageRequest req;
  req.path = "/nonexistent/k.cu";
  req.text = "__global__ void k() {}\n";
  req.cuda_path = "/nonexistent/cuda";
  ResourceCache cache("");
  auto r = compute_resource_usage(req, {}, &cache);
  CHECK(r.status == ResourceUsageStatus::NvccNotFound);
  CHECK(r.message.find("/nonexistent/cuda") != std::string::npos);
}

TEST_CASE("run_occupancy_analysis end to end: nvcc, matching, occupancy, findings" * needs("nvcc", "occupancy-calculator")) {
  Project p;
  // accumulate under -maxrregcount=32 spills; a launch gives its block size.
  KernelModel model;
  Function acc = test::make_kernel("accumulate", {"const float4 *__restrict__", "float *", "int"});
  acc.name_range = {{9, 16}, {9, 26}};
  model.functions.push_back(acc);
  Function tr = test::make_kernel("transpose", {"const float *", "float *", "int"});
  tr.name_range = {{2, 16}, {2, 25}};
  model.functions.push_back(tr);
  model.launches.push_back(test::make_launch(acc, std::array<std::int64_t, 3>{1024, 1, 1}, "1024", 30));

  OccupancyRequest req;
  req.file = {p.path("src/k.cu"), kSource};
  req.compile_args = {"nvcc", "-I" + p.path("inc"), "-maxrregcount=32"};
  req.working_directory = p.path("src");
  req.probe_local_gpu = false;
  ResourceCache cache("");
  req.cache = &cache;
  AnalysisOptions options;
  options.arch = "sm_90";
  auto a = run_occupancy_analysis(req, model, options);
  REQUIRE_MESSAGE(a.resources.status == ResourceUsageStatus::Ok, a.resources.message);
  REQUIRE(a.kernels.size() == 2);
  const auto& r = a.kernels[0];
  CHECK(r.registers == 32);
  CHECK(r.block_source == BlockShapeSource::LaunchSite);
  CHECK(r.occupancy == doctest::Approx(1.0));  // 32 registers x 1024 threads: 2 blocks, 64 warps
  CHECK(r.code_lens.find("32 regs · 100% occupancy") == 0);
  bool spill = false;
  for (const auto& f : a.findings) spill |= f.code == codes::kRegisterSpill && f.location.range == acc.name_range;
  CHECK(spill);
  CHECK(a.kernels[1].shared_static_bytes == 32 * 33 * 4);
}
