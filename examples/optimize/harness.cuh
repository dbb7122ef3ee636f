// The self-checking harness shared by the examples in examples/optimize/.
//
// Each example is a complete program: it runs its naive kernel(s) on
// realistic sizes, checks the result against a CPU reference and exits
// non-zero on a mismatch. warplens rewrites only the kernels and their launch
// statements, so the same checking code judges every candidate built from an
// example (see docs/optimize.md, "Self-checking programs").
//
// Command line understood by every example:
//   --sets N     correctness input sets (default 5; 0 = timing only): set 0 at the full size,
//                the others at odd, non-multiple-of-tile sizes with fresh seeds
//   --seed S     base seed (default 1); set k uses seed S + k
//   --time R     after checking, time the full-size run R times (default 0)
//   --max-time-s T  stop timing after T seconds once 10 runs are done (default 3)
// The last line on stdout is machine-readable:
//   WARPLENS_EXAMPLE {"name":...,"ok":...,"sets":...,"max_error":...,
//                     "worst":"...","time_ms":{...},"bytes":...,"flops":...}
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#define WL_CHECK(call)                                                                  \
  do {                                                                                  \
    cudaError_t wl_err_ = (call);                                                       \
    if (wl_err_ != cudaSuccess) {                                                       \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,         \
                   cudaGetErrorString(wl_err_));                                        \
      std::exit(3);                                                                     \
    }                                                                                   \
  } while (0)

namespace example {

// ---- deterministic inputs: the same values on host and device ---------------

__host__ __device__ inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in [lo, hi), from (seed, index) only.
__host__ __device__ inline float uniform(std::uint64_t seed, std::uint64_t i, float lo, float hi) {
  const std::uint32_t bits = static_cast<std::uint32_t>(mix64(seed * 0x100000001B3ull ^ i) >> 40);
  return lo + (hi - lo) * (static_cast<float>(bits) * (1.0f / 16777216.0f));
}

__global__ void fill_uniform_kernel(float* p, std::size_t n, std::uint64_t seed, float lo, float hi) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    p[i] = uniform(seed, i, lo, hi);
}

// Fills a device array of floats with uniform values (on the GPU: fast at
// realistic sizes) and returns the same values on the host for the reference.
inline std::vector<float> fill_uniform(float* dev, std::size_t n, std::uint64_t seed, float lo = -1.f,
                                       float hi = 1.f) {
  fill_uniform_kernel<<<1024, 256>>>(dev, n, seed, lo, hi);
  WL_CHECK(cudaGetLastError());
  std::vector<float> host(n);
  WL_CHECK(cudaMemcpy(host.data(), dev, n * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

template <typename T>
std::vector<T> to_host(const T* dev, std::size_t n) {
  std::vector<T> host(n);
  WL_CHECK(cudaMemcpy(host.data(), dev, n * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

// 0xFF bytes: NaN for every float, so an unwritten output element never matches.
inline void poison(void* dev, std::size_t bytes) { WL_CHECK(cudaMemset(dev, 0xFF, bytes)); }

template <typename T>
T* device_alloc(std::size_t n) {
  T* p = nullptr;
  WL_CHECK(cudaMalloc(&p, n * sizeof(T)));
  return p;
}

// ---- comparison ---------------------------------------------------------------

struct Comparison {
  bool ok = true;
  std::size_t checked = 0;
  std::size_t bad = 0;
  double max_error = 0;   // max |got - expected| / (atol + rtol * |expected|); <= 1 passes
  std::string worst;      // "index 17: expected 1.5, got nan"
};

// Element i passes when |got - expected| <= atol + rtol * |expected|; NaN never passes.
inline void compare_one(Comparison& c, std::size_t i, double expected, double got, double rtol,
                        double atol) {
  ++c.checked;
  // Exact equality always passes (with rtol = atol = 0 the ratio below is 0/0,
  // which is NaN and would fail every element of a bit-exact comparison).
  const double err = std::fabs(got - expected);
  const double tolerance = atol + rtol * std::fabs(expected);
  const double scaled = !std::isfinite(got) ? INFINITY : err == 0 ? 0.0 : tolerance > 0 ? err / tolerance : INFINITY;
  if (!(scaled <= 1.0)) {
    ++c.bad;
    c.ok = false;
  }
  if (!(scaled <= c.max_error)) {  // also takes NaN/inf
    c.max_error = std::isnan(scaled) ? INFINITY : scaled;
    char buf[160];
    std::snprintf(buf, sizeof buf, "index %zu: expected %.9g, got %.9g", i, expected, got);
    c.worst = buf;
  }
}

template <typename Got, typename Expected>
Comparison compare(const std::vector<Got>& got, const std::vector<Expected>& expected, double rtol,
                   double atol) {
  Comparison c;
  if (got.size() != expected.size()) {
    c.ok = false;
    c.worst = "size mismatch";
    return c;
  }
  for (std::size_t i = 0; i < got.size(); ++i)
    compare_one(c, i, static_cast<double>(expected[i]), static_cast<double>(got[i]), rtol, atol);
  return c;
}

// ---- timing -------------------------------------------------------------------

inline double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct TimeStats {
  int runs = 0;
  double median_ms = 0, p10_ms = 0, p90_ms = 0, min_ms = 0;
};

// Cold-cache timing: before every run, write a buffer twice the size of the L2
// so no input is served from it; device-wide synchronisation around each run
// so work on any stream counts.
template <typename F>
TimeStats time_runs(int runs, double max_seconds, F&& body) {
  TimeStats s;
  if (runs <= 0) return s;
  int dev = 0, l2 = 0;
  WL_CHECK(cudaGetDevice(&dev));
  WL_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  const std::size_t flush_bytes = std::max<std::size_t>(2 * static_cast<std::size_t>(l2), 64u << 20);
  void* flush = nullptr;
  WL_CHECK(cudaMalloc(&flush, flush_bytes));
  cudaEvent_t start, stop;
  WL_CHECK(cudaEventCreate(&start));
  WL_CHECK(cudaEventCreate(&stop));
  for (int w = 0; w < 3; ++w) body();  // warm-up: module load, first-touch
  WL_CHECK(cudaDeviceSynchronize());
  std::vector<double> ms;
  const auto wall_start = wall_seconds();
  for (int r = 0; r < runs; ++r) {
    WL_CHECK(cudaMemsetAsync(flush, r & 0xFF, flush_bytes));
    WL_CHECK(cudaDeviceSynchronize());
    WL_CHECK(cudaEventRecord(start));
    body();
    WL_CHECK(cudaEventRecord(stop));
    WL_CHECK(cudaDeviceSynchronize());
    WL_CHECK(cudaGetLastError());
    float t = 0;
    WL_CHECK(cudaEventElapsedTime(&t, start, stop));
    ms.push_back(t);
    if (r + 1 >= 10 && wall_seconds() - wall_start > max_seconds) break;
  }
  WL_CHECK(cudaEventDestroy(start));
  WL_CHECK(cudaEventDestroy(stop));
  WL_CHECK(cudaFree(flush));
  std::sort(ms.begin(), ms.end());
  auto at = [&](double q) { return ms[static_cast<std::size_t>(q * (ms.size() - 1) + 0.5)]; };
  s.runs = static_cast<int>(ms.size());
  s.median_ms = at(0.5);
  s.p10_ms = at(0.1);
  s.p90_ms = at(0.9);
  s.min_ms = ms.front();
  return s;
}

// ---- the run: options, checks, final report -------------------------------------

class Run {
 public:
  Run(int argc, char** argv, const char* name) : name_(name) {
    for (int i = 1; i < argc; ++i) {
      auto next = [&](const char* flag) -> const char* {
        if (i + 1 >= argc) {
          std::fprintf(stderr, "%s: %s needs a value\n", name_, flag);
          std::exit(2);
        }
        return argv[++i];
      };
      if (!std::strcmp(argv[i], "--sets")) sets_ = std::atoi(next("--sets"));
      else if (!std::strcmp(argv[i], "--seed")) seed_ = std::strtoull(next("--seed"), nullptr, 10);
      else if (!std::strcmp(argv[i], "--time")) timed_runs_ = std::atoi(next("--time"));
      else if (!std::strcmp(argv[i], "--max-time-s")) max_time_s_ = std::atof(next("--max-time-s"));
      else {
        std::fprintf(stderr, "%s: unknown argument %s (expected --sets N, --seed S, --time R, --max-time-s T)\n",
                     name_, argv[i]);
        std::exit(2);
      }
    }
    if (sets_ < 0) sets_ = 0;  // 0: timing only (the same binary was checked before)
  }

  int sets() const { return sets_; }
  std::uint64_t seed(int set) const { return seed_ + static_cast<std::uint64_t>(set); }
  bool timing() const { return timed_runs_ > 0; }

  // Records one input set's comparison; prints the failure.
  void check(int set, const char* what, const Comparison& c) {
    checked_sets_.insert(set);
    if (c.max_error > max_error_ || std::isnan(c.max_error)) {
      max_error_ = c.max_error;
      worst_ = std::string(what) + " set " + std::to_string(set) + ": " + c.worst;
    }
    if (!c.ok) {
      ok_ = false;
      std::fprintf(stderr, "%s: MISMATCH in %s (set %d): %zu of %zu elements wrong; worst %s\n", name_, what,
                   set, c.bad, c.checked, c.worst.c_str());
    }
  }

  // Launches must leave no error behind (bad configurations, faults).
  void sync(const char* where) {
    cudaError_t launch = cudaGetLastError();
    cudaError_t done = cudaDeviceSynchronize();
    if (launch != cudaSuccess || done != cudaSuccess) {
      std::fprintf(stderr, "%s: %s: %s\n", name_, where,
                   cudaGetErrorString(launch != cudaSuccess ? launch : done));
      std::exit(4);
    }
  }

  template <typename F>
  void time(F&& body) {
    if (timing()) stats_ = time_runs(timed_runs_, max_time_s_, body);
  }

  // bytes: the fewest bytes the computation must move (each input read once,
  // each output written once); flops: its arithmetic. Returns the exit code.
  int finish(double bytes, double flops) {
    const int sets = static_cast<int>(checked_sets_.size());
    std::printf("%s: %s on %d input set(s), max error %.3g of tolerance\n", name_, ok_ ? "correct" : "WRONG", sets,
                max_error_);
    if (stats_.runs)
      std::printf("%s: median %.4f ms over %d runs (p10 %.4f, p90 %.4f), %.1f GB/s\n", name_, stats_.median_ms,
                  stats_.runs, stats_.p10_ms, stats_.p90_ms, bytes / (stats_.median_ms * 1e6));
    std::string worst;
    for (char ch : worst_) worst += (ch == '"' || ch == '\\') ? '\'' : ch;
    std::printf(
        "WARPLENS_EXAMPLE {\"name\":\"%s\",\"ok\":%s,\"sets\":%d,\"max_error\":%.6g,\"worst\":\"%s\","
        "\"time_ms\":{\"runs\":%d,\"median\":%.6f,\"p10\":%.6f,\"p90\":%.6f,\"min\":%.6f},"
        "\"bytes\":%.0f,\"flops\":%.0f}\n",
        name_, ok_ ? "true" : "false", sets, std::isfinite(max_error_) ? max_error_ : 1e300,
        worst.c_str(), stats_.runs, stats_.median_ms, stats_.p10_ms, stats_.p90_ms, stats_.min_ms, bytes, flops);
    std::fflush(stdout);
    return ok_ ? 0 : 1;
  }

 private:
  const char* name_;
  int sets_ = 5;
  std::uint64_t seed_ = 1;
  int timed_runs_ = 0;
  double max_time_s_ = 3;
  bool ok_ = true;
  std::set<int> checked_sets_;  // input sets with at least one comparison
  double max_error_ = 0;
  std::string worst_;
  TimeStats stats_;
};

}  // namespace example
