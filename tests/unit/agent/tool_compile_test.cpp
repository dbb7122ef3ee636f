#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "agent/verifier/compile.h"
#include "agent/verifier/replay_protocol.h"
#include "agent/verifier/tool_process.h"
#include "tests/unit/agent/verifier_test_support.h"

using namespace warplens::verifier;

namespace {
bool is_elf(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  return magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F';
}
}  // namespace

TEST_CASE("nvcc: a kernel with host code compiles to a cubin for the given arch") {
  test::TempDir dir;
  auto src = dir.path() / "k.cu";
  std::ofstream(src) << test::kScaleAddSource;
  CompileRequest req;
  req.source = src;
  req.output = dir.path() / "k.cubin";
  req.arch = "sm_90";
  auto r = compile_to_cubin(req);
  INFO(r.log);
  CHECK(r.ok);
  CHECK_FALSE(r.relocatable);
  CHECK(is_elf(req.output));
  CHECK(r.command.find("-cubin -arch=sm_90 -O3 -lineinfo") != std::string::npos);
}

TEST_CASE("nvcc: includes from the source's own directory resolve") {
  test::TempDir dir;
  std::ofstream(dir.path() / "scale.h") << "#define SCALE 2.0f\n";
  std::ofstream(dir.path() / "k.cu") << "#include \"scale.h\"\n__global__ void k(float* x) { x[0] *= SCALE; }\n";
  CompileRequest req;
  req.source = dir.path() / "k.cu";
  req.output = dir.path() / "k.cubin";
  req.arch = "sm_90";
  CHECK(compile_to_cubin(req).ok);
}

TEST_CASE("nvcc: a compile error is reported with nvcc's message") {
  test::TempDir dir;
  std::ofstream(dir.path() / "bad.cu") << "__global__ void k(float* x) { x[0] = undefined_thing; }\n";
  CompileRequest req;
  req.source = dir.path() / "bad.cu";
  req.output = dir.path() / "bad.cubin";
  req.arch = "sm_90";
  auto r = compile_to_cubin(req);
  CHECK_FALSE(r.ok);
  CHECK(r.log.find("undefined_thing") != std::string::npos);
}

TEST_CASE("nvcc: dynamic parallelism falls back to -rdc=true and a device link") {
  test::TempDir dir;
  std::ofstream(dir.path() / "cdp.cu") << R"(
__global__ void child(float* o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = 1.f; }
__global__ void parent(float* o, int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) child<<<(n + 255) / 256, 256, 0, cudaStreamFireAndForget>>>(o, n);
}
)";
  CompileRequest req;
  req.source = dir.path() / "cdp.cu";
  req.output = dir.path() / "cdp.cubin";
  req.arch = "sm_90";
  auto r = compile_to_cubin(req);
  INFO(r.log);
  CHECK(r.ok);
  CHECK(r.relocatable);
  CHECK(is_elf(req.output));
  CHECK(needs_relocatable_device_code("error: kernel launch from __device__ or __global__ functions requires "
                                      "separate compilation mode"));
}

namespace {

// nvcc's PTX for `source` with the verifier's own flags.
std::string ptx_of(const std::filesystem::path& source, const std::filesystem::path& dir) {
  ToolSpec spec;
  auto out = dir / (source.stem().string() + ".ptx");
  spec.argv = {find_nvcc(""), "-ptx", "-arch=sm_90", "-O3", "-lineinfo", "-o", out.string(), source.string()};
  spec.timeout_s = 300;
  spec.log_stem = dir / (source.stem().string() + ".nvcc");
  ToolRun r = run_tool(spec);
  INFO(r.description << r.err);
  REQUIRE(r.succeeded());
  return read_text_file(out);
}

// True when some loop (a label and a later branch back to it) loads
// volatile global memory on every trip: a spin nvcc and ptxas must keep.
bool spins_on_volatile_global(const std::string& ptx) {
  std::istringstream in(ptx);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::map<std::string, std::size_t> labels;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto& l = lines[i];
    if (!l.empty() && l[0] == '$' && l.back() == ':') labels[l.substr(0, l.size() - 1)] = i;
    auto bra = l.find("bra");
    if (bra == std::string::npos) continue;
    auto dollar = l.find('$', bra);
    if (dollar == std::string::npos) continue;
    std::string target = l.substr(dollar, l.find_first_of(";\t ", dollar) - dollar);
    auto it = labels.find(target);
    if (it == labels.end()) continue;  // a forward branch: not a loop
    for (std::size_t k = it->second; k < i; ++k)
      if (lines[k].find("ld.volatile.global") != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("nvcc: the hang exploits really spin (the loop survives optimisation)") {
  // On the H200 (run 2) the old exploit_hang.cu, `volatile int spin = 1;
  // while (spin) {}` on a local, came back "correct": nvcc dropped the
  // local's volatility and ptxas deleted the empty endless loop, so the
  // verifier's hang path was never exercised.
  test::TempDir dir;
  const auto candidates = std::filesystem::path(WARPLENS_SOURCE_DIR) / "tests" / "gpu" / "verifier_cases" / "candidates";
  for (const char* name : {"exploit_hang.cu", "exploit_hang_timed.cu"}) {
    INFO(name);
    CHECK(spins_on_volatile_global(ptx_of(candidates / name, dir.path())));
  }
  // The check itself tells the two apart.
  std::ofstream(dir.path() / "local_spin.cu")
      << "__global__ void k(float* o) { volatile int spin = 1; while (spin) {} o[0] = 1.f; }\n";
  CHECK_FALSE(spins_on_volatile_global(ptx_of(dir.path() / "local_spin.cu", dir.path())));
}
