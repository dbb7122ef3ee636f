// Verification wall time per candidate against capture size (issue 13, item
// 2): the in-place y = a * x + y, captured at several sizes (synthetic
// captures of tests/gpu/verifier_cases/axpy_inplace.cu's launch), verified
// with the default settings (5 input sets plus shape variations, 3 warm-up
// and 30 timed runs per side) for a few candidates in one process, on two
// paths in the same run:
//
//   device  the buffer work as GPU kernels, the original's compile and
//           reference computed once and reused for every candidate (now)
//   host    the buffer work as host loops over downloaded buffers and the
//           reference recomputed for every candidate: the pre-change method
//           (it does not write the reference's outputs to files as the
//           pre-change binary did, so it understates that binary's cost)
//
// usage: bench_verify_seconds [--sizes-mb 32,128,512] [--candidates N] [--paths device,host]
//                             [--runs N] [--guard-bytes N] [--out FILE.tsv] [--work DIR]
// (--guard-bytes 0 measures what the guard bands cost.)
// Prints one TSV row per (size, path): capture MB, path, candidates, median,
// min, max seconds per candidate, the first candidate's (which computes the
// reference), the original's compile and reference as the first candidate
// paid them, the median candidate compile and candidate child, the median
// compute-sanitizer run of the winners (0: no winner), and the levels;
// appends them to --out. On a machine without a GPU it runs against
// the fake driver (LD_LIBRARY_PATH=<build>/fake_cuda) as a smoke test only:
// those seconds are the CPU's, not a GPU's.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "agent/verifier/reference_cache.h"
#include "agent/verifier/verifier.h"
#include "bench/synthetic_captures.h"

namespace fs = std::filesystem;
using namespace warplens::verifier;

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, ',');)
    if (!part.empty()) out.push_back(part);
  return out;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

double stage_s(const Verdict& v, const char* k) {
  auto it = v.stage_ms.find(k);
  return it == v.stage_ms.end() ? 0 : it->second / 1000;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> sizes = {"32", "128", "512"}, paths = {"device", "host"};
  int candidates = 4, runs = 30;
  long long guard = -1;
  fs::path out, work = fs::temp_directory_path() / "warplens-bench-verify";
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--sizes-mb") sizes = split(v);
    else if (k == "--candidates") candidates = std::max(1, std::atoi(v.c_str()));
    else if (k == "--paths") paths = split(v);
    else if (k == "--runs") runs = std::max(1, std::atoi(v.c_str()));
    else if (k == "--guard-bytes") guard = std::atoll(v.c_str());
    else if (k == "--out") out = v;
    else if (k == "--work") work = v;
    else {
      std::fprintf(stderr, "bench_verify_seconds: unknown option %s\n", k.c_str());
      return 64;
    }
  }
  const fs::path cases = fs::path(WARPLENS_SOURCE_DIR) / "tests" / "gpu" / "verifier_cases";
  // Mostly correct candidates (they take the whole path), one rejected.
  const std::vector<fs::path> pool = {cases / "axpy_inplace.cu", cases / "candidates" / "honest_axpy_vec4.cu",
                                      cases / "candidates" / "honest_axpy_restrict.cu",
                                      cases / "candidates" / "exploit_write_past_allocation.cu"};
  fs::create_directories(work);
  const char* header =
      "capture_mb\tpath\tcandidates\tmedian_s\tmin_s\tmax_s\tfirst_s\tfirst_reference_s\tcompile_s\t"
      "candidate_child_s\tsanitizer_s\tlevels\n";
  std::printf("%s", header);
  bool write_header = !out.empty() && !fs::exists(out);
  std::ofstream tsv;
  if (!out.empty()) {
    tsv.open(out, std::ios::app);
    if (write_header) tsv << header;
  }
  int failures = 0;
  for (const auto& size : sizes) {
    const double mb = std::atof(size.c_str());
    // The capture holds x and y before and after: 16 bytes per element.
    warplens::verifier::gpu::SyntheticSizes s;
    s.axpy_n = std::max(1024, static_cast<int>(mb * 1024 * 1024 / 16));
    const fs::path capture = work / ("axpy-" + size + "mb");
    if (!fs::exists(capture / "manifest.json") &&
        !warplens::verifier::gpu::write_synthetic_capture("axpy_inplace", capture, s)) {
      std::fprintf(stderr, "bench_verify_seconds: cannot write the capture\n");
      return 1;
    }
    for (const auto& path : paths) {
      ReferenceCache::instance().clear();
      std::vector<double> seconds, reference, compile, child, sanitizer;
      std::string levels;
      for (int c = 0; c < candidates; ++c) {
        VerifyRequest r;
        r.capture_dir = capture;
        r.original_source = cases / "axpy_inplace.cu";
        r.candidate_source = pool[static_cast<std::size_t>(c) % pool.size()];
        r.kernel = "axpy";
        r.timed_runs = runs;
        r.pipeline = path;
        r.reuse_reference = path == "device";
        if (guard >= 0) r.guard_bytes = static_cast<std::uint64_t>(guard);
        const auto t0 = std::chrono::steady_clock::now();
        Verdict v = verify(r);
        seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        reference.push_back(stage_s(v, "reference") + stage_s(v, "compile_original"));
        compile.push_back(stage_s(v, "compile_candidate"));
        child.push_back(stage_s(v, "candidate"));
        if (v.stage_ms.count("sanitizer")) sanitizer.push_back(stage_s(v, "sanitizer"));
        levels += (levels.empty() ? "" : ",") + std::to_string(v.status == VerdictStatus::Verified ? v.level : -9);
        if (v.status != VerdictStatus::Verified) {
          ++failures;
          std::fprintf(stderr, "bench_verify_seconds: %s: %s\n", r.candidate_source.filename().c_str(), v.error.c_str());
        }
      }
      char row[512];
      std::snprintf(row, sizeof row, "%s\t%s\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%s\n",
                    size.c_str(), path.c_str(), candidates, median(seconds),
                    *std::min_element(seconds.begin(), seconds.end()),
                    *std::max_element(seconds.begin(), seconds.end()), seconds.front(), reference.front(),
                    median(compile), median(child), median(sanitizer), levels.c_str());
      std::printf("%s", row);
      std::fflush(stdout);
      if (tsv) tsv << row;
    }
  }
  return failures ? 1 : 0;
}
