// Helpers for the verifier tests: a synthetic capture written through the
// real capture_format API, temporary directories.
#pragma once

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "profiler/capture_format.h"

namespace warplens::verifier::test {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "warplens-test-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::vector<std::uint8_t> floats(const std::vector<float>& v) {
  std::vector<std::uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

template <class T>
void put(std::vector<std::uint8_t>& buf, std::size_t offset, T v) {
  if (buf.size() < offset + sizeof v) buf.resize(offset + sizeof v);
  std::memcpy(buf.data() + offset, &v, sizeof v);
}

// One launch of scale_add(const float* x, const float* y, float* out,
// float alpha, int n) with n = 64 elements; `out` has 16 floats of slack
// past n, untouched by the kernel.
inline capture::CaptureManifest write_scale_add_capture(const std::filesystem::path& dir, int n = 64,
                                                        float alpha = 2.5f) {
  using namespace capture;
  CaptureManifest m;
  m.producer = "warplens tests";
  m.program = {"./scale_add"};
  m.device = {0, "Test GPU", 9, 0, 50u << 20, 13000};
  m.kernel_regex = "scale_add";
  m.max_launches = 1;
  m.max_bytes = 1 << 20;
  LaunchRecord l;
  l.index = 0;
  l.kernel = "_Z9scale_addPKfS0_Pffi";
  l.api = "cuLaunchKernel";
  l.grid = {static_cast<std::uint32_t>((n + 31) / 32), 1, 1};
  l.block = {32, 1, 1};
  l.params = {{0, 0, 8}, {1, 8, 8}, {2, 16, 8}, {3, 24, 4}, {4, 28, 4}};
  l.param_buffer.assign(32, 0);
  const std::uint64_t base[3] = {0x7f0000000000ULL, 0x7f0000100000ULL, 0x7f0000200000ULL};
  for (int p = 0; p < 3; ++p) put<std::uint64_t>(l.param_buffer, static_cast<std::size_t>(8 * p), base[p]);
  put<float>(l.param_buffer, 24, alpha);
  put<int>(l.param_buffer, 28, n);
  std::vector<float> x(n), y(n), out_before(n + 16, 0.f), out_after(n + 16, 0.f);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.25f * static_cast<float>(i % 7) - 0.5f;
    y[i] = 1.0f + 0.125f * static_cast<float>(i % 5);
    out_after[i] = alpha * x[i] + y[i];
  }
  std::vector<std::vector<std::uint8_t>> before = {floats(x), floats(y), floats(out_before)};
  std::vector<std::vector<std::uint8_t>> after = {floats(x), floats(y), floats(out_after)};
  for (int a = 0; a < 3; ++a) {
    AllocationRecord rec;
    rec.address = base[a];
    rec.bytes = before[a].size();
    rec.before_blob = blob_name(0, a, false);
    rec.after_blob = blob_name(0, a, true);
    write_blob(dir, rec.before_blob, before[a].data(), before[a].size());
    write_blob(dir, rec.after_blob, after[a].data(), after[a].size());
    rec.before_hash = content_hash(before[a].data(), before[a].size());
    rec.after_hash = content_hash(after[a].data(), after[a].size());
    rec.modified = before[a] != after[a];
    l.allocations.push_back(rec);
    l.pointers.push_back({a, static_cast<std::uint64_t>(8 * a), a, 0});
  }
  m.launches.push_back(l);
  m.total_bytes = 2 * (before[0].size() + before[1].size() + before[2].size());
  m.counters = {3, 1, 1, 0};
  m.complete = true;
  save_manifest(dir, m);
  return m;
}

// What tests/gpu/run_verifier_h200.sh recorded on the H200
// (tests/fixtures/verifier/h200/, installed from its tarball by
// tests/gpu/install_verifier_fixtures.sh), or $WARPLENS_VERIFIER_FIXTURES:
// the script points the CI tests at a run's own fixtures before they are
// committed.
inline std::filesystem::path recorded_fixtures_dir() {
  if (const char* dir = std::getenv("WARPLENS_VERIFIER_FIXTURES"); dir && *dir) return dir;
  return std::filesystem::path(WARPLENS_SOURCE_DIR) / "tests" / "fixtures" / "verifier" / "h200";
}
inline bool have_recorded_fixtures() {
  std::error_code ec;
  return std::filesystem::is_directory(recorded_fixtures_dir(), ec);
}

inline const char* kScaleAddSource = R"(
#include <cstdio>
// The original: out[i] = alpha * x[i] + y[i]
__global__ void scale_add(const float* x, const float* y, float* out, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = alpha * x[i] + y[i];
}
int main() { return 0; }
)";

}  // namespace warplens::verifier::test
