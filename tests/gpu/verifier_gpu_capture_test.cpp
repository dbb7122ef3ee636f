// Capture through libwarplens_inject on real programs: runtime and driver
// launch paths, K launches, memory kinds, the size cap.
#include <doctest/doctest.h>

#include <cstring>

#include "agent/verifier/compile.h"

#include "tests/gpu/verifier_gpu_support.h"

namespace fs = std::filesystem;

using namespace warplens;
using namespace warplens::verifier;
using namespace warplens::verifier::gpu;

namespace {
std::string apis(const capture::CaptureManifest& m) {
  std::string s;
  for (const auto& l : m.launches) s += (s.empty() ? "" : ",") + l.api;
  return s;
}
// Records a failed capture as a summary row before the test stops.
bool usable(const CaptureRunResult& r, const std::string& name, const std::string& expected) {
  if (r.ok) return true;
  std::string detail = "capture failed: " + r.error.substr(0, r.error.find('\n'));
  std::string err = r.process.err;
  while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
  const std::size_t nl = err.rfind('\n');
  if (!err.empty()) detail += " | program stderr: " + err.substr(nl == std::string::npos ? 0 : nl + 1);
  record(name, "capture", expected, false, detail);
  return false;
}

// The program's exit status and its last stderr line, for a row that went
// wrong although a manifest was written.
std::string program_outcome(const CaptureRunResult& r) {
  std::string s = "program exit " + std::to_string(r.process.process.exit_code);
  std::string err = r.process.err;
  while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
  std::size_t nl = err.rfind('\n');
  std::string last = nl == std::string::npos ? err : err.substr(nl + 1);
  // The injection library logs to stderr too; the program's own line says more.
  for (std::size_t p = err.find("driver_launch:"); p != std::string::npos; p = err.find("driver_launch:", p + 1))
    last = err.substr(p, err.find('\n', p) - p);
  if (!last.empty()) s += " (" + last.substr(0, 160) + ")";
  return s;
}

template <class T>
T param_value(const capture::LaunchRecord& l, int index) {
  T v{};
  std::memcpy(&v, l.param_buffer.data() + l.params.at(static_cast<std::size_t>(index)).offset, sizeof v);
  return v;
}
}  // namespace

TEST_CASE("capture: a runtime launch (<<<>>>) reaches the driver callback and is captured whole") {
  const auto& r = captured("scale_add", "scale_add", "scale_add", 1);
  INFO(r.error);
  REQUIRE(usable(r, "capture-runtime-launch", "1 launch, 3 allocations, via the driver callback"));
  const auto& m = *r.manifest;
  bool ok = m.launches.size() == 1 && m.complete;
  std::string detail = "launches " + std::to_string(m.launches.size()) + ", api " + apis(m) + ", runtime→driver " +
                       std::to_string(m.counters.runtime_launches) + ", runtime without driver callback " +
                       std::to_string(m.counters.runtime_without_driver_callback);
  if (ok) {
    const auto& l = m.launches[0];
    ok = l.kernel == "_Z9scale_addPKfS0_Pffi" && l.params.size() == 5 && l.allocations.size() == 3 &&
         l.pointers.size() == 3 && l.grid[0] == 8192 && l.block[0] == 128 &&
         l.allocations[2].bytes == ((1u << 20) + 256) * 4 && l.allocations[2].modified &&
         !l.allocations[0].modified && param_value<float>(l, 3) == 2.5f && param_value<int>(l, 4) == (1 << 20) &&
         m.counters.runtime_launches >= 1 && m.counters.runtime_without_driver_callback == 0;
    detail += ", " + std::to_string(l.allocation_bytes()) + " bytes, capture " + std::to_string(l.capture_ms) + " ms";
  }
  record("capture-runtime-launch", "capture", "1 launch, 3 allocations, via the driver callback", ok, detail);
  CHECK(ok);
}

TEST_CASE("capture: the first K launches, with their own shapes") {
  const auto& r = captured("scale_add_x2", "scale_add", "scale_add", 2);
  INFO(r.error);
  REQUIRE(usable(r, "capture-k-launches", "2 launches, second n = 1048573"));
  const auto& m = *r.manifest;
  bool ok = m.launches.size() == 2 && param_value<int>(m.launches[1], 4) == (1 << 20) - 3 &&
            param_value<float>(m.launches[1], 3) == 0.5f && m.launches[1].sequence == 1;
  record("capture-k-launches", "capture", "2 launches, second n = 1048573", ok,
         "launches " + std::to_string(m.launches.size()));
  CHECK(ok);
}

namespace {
// The program's own line about the padded `extra` launch ("driver_launch:
// padded extra size 32 refused: CUDA_ERROR_..." or "... accepted"), "" if none.
std::string padded_outcome(const CaptureRunResult& r) {
  const std::string& err = r.process.err;
  std::size_t p = err.find("driver_launch: padded extra size");
  return p == std::string::npos ? "" : err.substr(p, err.find('\n', p) - p);
}
}  // namespace

TEST_CASE("capture: driver API launches (cuLaunchKernel with kernelParams and with extra, cuLaunchKernelEx)") {
  const char* expected = "3 launches: kernelParams, extra buffer, Ex; padded extra size: as the driver says";
  const auto& r = captured("driver_launch", "driver_launch", "saxpy_driver", 4);
  INFO(r.error);
  REQUIRE(usable(r, "capture-driver-api", expected));
  const auto& m = *r.manifest;
  auto is_ex = [](const std::string& api) { return api.rfind("cuLaunchKernelEx", 0) == 0; };
  bool three = m.launches.size() >= 3;
  if (three) {
    three = m.launches[0].api.rfind("cuLaunchKernel", 0) == 0 && !is_ex(m.launches[0].api) &&
            !is_ex(m.launches[1].api) && is_ex(m.launches[2].api) && param_value<float>(m.launches[0], 0) == 2.0f &&
            param_value<float>(m.launches[1], 0) == 3.0f && param_value<float>(m.launches[2], 0) == 4.0f &&
            m.launches[1].pointers.size() == 2 && m.launches[1].param_buffer.size() == 28;
  }
  // The fourth launch passed sizeof(Packed), 32 bytes, as the `extra` size
  // (H200 run 2's "launch failed"). Whatever the driver answered, capture
  // must agree with it: a refusal that names the driver's error, or a
  // fourth launch captured like the others.
  const std::string padded = padded_outcome(r);
  bool agrees = false;
  if (padded.find(" refused: ") != std::string::npos) {
    const std::string code = padded.substr(padded.find(" refused: ") + 10);
    agrees = m.launches.size() == 3 && m.refusals.size() == 1 && m.refusals[0].sequence == 3 &&
             m.refusals[0].reason.find("the launch call itself failed with " + code) != std::string::npos;
  } else if (padded.find(" accepted") != std::string::npos) {
    agrees = m.launches.size() == 4 && m.refusals.empty() && param_value<float>(m.launches[3], 0) == 5.0f;
  }
  std::string detail = "apis " + apis(m) + (m.refusals.empty() ? "" : "; refused: " + m.refusals[0].reason) +
                       "; " + (padded.empty() ? "the program said nothing about the padded launch" : padded);
  if (!three || r.process.process.exit_code != 0) detail += "; " + program_outcome(r);
  bool ok = three && agrees && r.process.process.exit_code == 0;  // the program checks y[0] == 10 itself
  record("capture-driver-api", "capture", expected, ok, detail);
  INFO(detail);
  CHECK(ok);
}

TEST_CASE("capture: managed memory captured, host memory refused with the reason, pointers inside structs") {
  const auto& r = captured("memory_kinds", "memory_kinds", ".*", 8);
  INFO(r.error);
  REQUIRE(usable(r, "capture-memory-kinds", "managed captured, host refused, struct pointer at byte 8"));
  const auto& m = *r.manifest;
  const capture::LaunchRecord* managed = nullptr;
  const capture::LaunchRecord* span = nullptr;
  for (const auto& l : m.launches) {
    if (l.kernel.find("add_one") != std::string::npos && !managed) managed = &l;
    if (l.kernel.find("scale_span") != std::string::npos) span = &l;
  }
  bool host_refused = false;
  for (const auto& f : m.refusals)
    if (f.kernel.find("add_one") != std::string::npos && f.reason.find("host memory") != std::string::npos)
      host_refused = true;
  bool ok = managed && managed->allocations.size() == 1 &&
            managed->allocations[0].memory == capture::MemoryKind::Managed && host_refused && span &&
            span->pointers.size() == 1 && span->pointers[0].buffer_offset == 8 && span->pointers[0].param == 0;
  record("capture-memory-kinds", "capture", "managed captured, host refused, struct pointer at byte 8", ok,
         std::to_string(m.launches.size()) + " captured, " + std::to_string(m.refusals.size()) + " refused" +
             (m.refusals.empty() ? "" : ": " + m.refusals[0].reason.substr(0, 80)));
  CHECK(ok);
}

TEST_CASE("capture: beyond the size cap a launch is refused clearly") {
  const auto& r = captured("scale_add_capped", "scale_add", "scale_add", 1, 1u << 20);
  INFO(r.error);
  REQUIRE(usable(r, "capture-size-cap", "refused: over the 1 MiB cap"));
  const auto& m = *r.manifest;
  bool ok = m.launches.empty() && !m.refusals.empty() &&
            m.refusals[0].reason.find("over the cap") != std::string::npos;
  record("capture-size-cap", "capture", "refused: over the 1 MiB cap", ok,
         m.refusals.empty() ? "no refusal" : m.refusals[0].reason.substr(0, 120));
  CHECK(ok);
}

TEST_CASE("capture: a small capture, blobs and all, kept as the CI fixture") {
  // scale_add with 2048 elements: both launches (the constant one and the
  // odd-sized one) in about 100 KB. The CI tests replay it on the fake
  // driver (tests/unit/agent/fake_gpu_verify_test.cpp).
  const char* expected = "2 launches (n 2048, 2045), copied with its blobs";
  const auto& r = captured("scale_add_small", "scale_add", "scale_add", 2, capture::kDefaultMaxBytes, {"2048"});
  INFO(r.error);
  REQUIRE(usable(r, "capture-small-fixture", expected));
  const auto& m = *r.manifest;
  bool ok = m.complete && m.launches.size() == 2 && param_value<int>(m.launches[0], 4) == 2048 &&
            param_value<int>(m.launches[1], 4) == 2045 && m.launches[0].allocations.size() == 3 &&
            m.launches[0].allocations[2].bytes >= (2048 + 256) * 4;
  std::uint64_t bytes = 0;
  if (ok) {
    // The manifest and the blobs it names; not the program's logs.
    namespace fs = std::filesystem;
    const fs::path src = env().work_dir / "captures" / "scale_add_small";
    const fs::path dst = fixture_path("capture_small") / "scale_add";
    std::error_code ec;
    fs::remove_all(dst, ec);
    fs::create_directories(dst);
    fs::copy_file(src / capture::kManifestFile, dst / capture::kManifestFile);
    for (const auto& l : m.launches)
      for (const auto& a : l.allocations)
        for (const auto& blob : {a.before_blob, a.after_blob}) {
          fs::create_directories((dst / blob).parent_path());
          fs::copy_file(src / blob, dst / blob, fs::copy_options::overwrite_existing);
          bytes += fs::file_size(dst / blob);
        }
  }
  record("capture-small-fixture", "capture", expected, ok,
         "launches " + std::to_string(m.launches.size()) + ", " + std::to_string(bytes) + " bytes of blobs kept");
  CHECK(ok);
}

TEST_CASE("capture: a kernel's __constant__ filter is captured and replayed into both modules") {
  // tests/gpu/launch_cases/conv_constant.cu sets its filter with
  // cudaMemcpyToSymbol: the capture must hold it (globals), the original must
  // then reproduce on replay, a candidate reading the same variable verifies,
  // and one with another filter is incorrect.
  const char* expected = "c_filter (20 bytes) captured; restrict candidate correct, box-filter candidate incorrect";
  const fs::path cases = fs::path(WARPLENS_SOURCE_DIR) / "tests" / "gpu" / "launch_cases";
  const fs::path exe = env().work_dir / "programs" / "conv_constant";
  fs::create_directories(exe.parent_path());
  ToolSpec build;
  build.argv = {find_nvcc(""), "-O3", "-lineinfo", "-arch=" + env().device.arch, "-o", exe.string(),
                (cases / "conv_constant.cu").string()};
  build.timeout_s = 300;
  build.log_stem = env().work_dir / "programs" / "conv_constant.nvcc";
  REQUIRE(run_tool(build).succeeded());
  CaptureRequest req;
  req.program = {exe.string()};
  req.kernel_regex = "conv5";
  req.out_dir = env().work_dir / "captures" / "conv_constant";
  req.timeout_s = 300;
  CaptureRunResult r = capture_program(req);
  INFO(r.error);
  REQUIRE(usable(r, "capture-module-variable", expected));
  const auto& m = *r.manifest;
  std::string detail = "launches " + std::to_string(m.launches.size());
  bool ok = m.launches.size() == 1 && m.launches[0].globals_recorded && m.launches[0].globals.size() == 1 &&
            m.launches[0].globals[0].name == "c_filter" && m.launches[0].globals[0].bytes == 20 &&
            !m.launches[0].globals[0].modified;
  if (!m.launches.empty()) detail += ", globals " + std::to_string(m.launches[0].globals.size());
  fs::create_directories(fixture_path("captures"));
  std::error_code ec;
  fs::copy_file(req.out_dir / capture::kManifestFile, fixture_path("captures") / "conv_constant.manifest.json",
                fs::copy_options::overwrite_existing, ec);
  auto verdict_of = [&](const std::string& candidate) {
    VerifyRequest v;
    v.capture_dir = req.out_dir;
    v.original_source = cases / "conv_constant.cu";
    v.candidate_source = cases / "candidates" / (candidate + ".cu");
    v.kernel = "conv5";
    v.timeout_s = 60;
    return verify(v);
  };
  const Verdict good = verdict_of("conv_constant_restrict");
  const Verdict bad = verdict_of("conv_constant_ignores_filter");
  detail += "; restrict: " + gist(good) + "; box filter: " + gist(bad);
  ok = ok && good.status == VerdictStatus::Verified && good.correct && bad.status == VerdictStatus::Verified &&
       !bad.correct;
  record("capture-module-variable", "capture", expected, ok, detail.substr(0, 400));
  CHECK(ok);
}
