#include "tests/gpu/verifier_gpu_support.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>

#include "agent/verifier/compile.h"
#include "agent/verifier/tool_process.h"
#include "bench/synthetic_captures.h"

namespace warplens::verifier::gpu {

namespace fs = std::filesystem;

Environment& env() {
  static Environment e;
  return e;
}

fs::path fixture_path(const std::string& sub) { return env().out_dir / "fixtures" / sub; }

fs::path program(const std::string& name) {
  static std::map<std::string, fs::path> built;
  auto it = built.find(name);
  if (it != built.end()) return it->second;
  fs::path src = env().cases_dir / (name + ".cu");
  fs::path exe = env().work_dir / "programs" / name;
  fs::create_directories(exe.parent_path());
  std::string nvcc = find_nvcc("");
  std::vector<std::string> argv = {nvcc, "-O3", "-lineinfo", "-arch=" + env().device.arch, "-o", exe.string(),
                                   src.string()};
  if (name == "driver_launch") {
    // The driver library is found at run time; the stub satisfies the linker
    // wherever the real one is not on the default path.
    fs::path cuda = fs::path(nvcc).parent_path().parent_path();
    argv.push_back("-L" + (cuda / "lib64" / "stubs").string());
    argv.push_back("-lcuda");
  }
  ToolSpec spec;
  spec.argv = argv;
  spec.timeout_s = 300;
  spec.log_stem = env().work_dir / "programs" / (name + ".nvcc");
  ToolRun r = run_tool(spec);
  if (!r.succeeded()) throw std::runtime_error("building " + name + " failed: " + r.description + "\n" + r.err);
  return built[name] = exe;
}

const CaptureRunResult& captured(const std::string& key, const std::string& program_name, const std::string& regex,
                                 int launches, std::uint64_t max_bytes, const std::vector<std::string>& args) {
  static std::map<std::string, CaptureRunResult> cache;
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  CaptureRequest req;
  req.program = {program(program_name).string()};
  req.program.insert(req.program.end(), args.begin(), args.end());
  req.kernel_regex = regex;
  req.max_launches = launches;
  req.max_bytes = max_bytes;
  req.out_dir = env().work_dir / "captures" / key;
  req.timeout_s = 300;
  CaptureRunResult r = capture_program(req);
  if (r.ok) {
    // The manifest (no blobs) is a fixture for the CI tests.
    fs::path fixture = fixture_path("captures") / (key + ".manifest.json");
    fs::create_directories(fixture.parent_path());
    std::error_code ec;
    fs::copy_file(req.out_dir / capture::kManifestFile, fixture, fs::copy_options::overwrite_existing, ec);
  }
  return cache[key] = std::move(r);
}

namespace {
std::map<std::string, fs::path>& capture_dirs() {
  static std::map<std::string, fs::path> dirs;
  return dirs;
}
}  // namespace

bool ensure_capture(const std::string& key, const std::string& program_name, const std::string& regex, int launches,
                    const std::vector<std::string>& args) {
  auto& dirs = capture_dirs();
  if (dirs.count(key)) return true;
  const CaptureRunResult& r = captured(key, program_name, regex, launches, capture::kDefaultMaxBytes, args);
  if (r.ok && r.manifest && !r.manifest->launches.empty()) {
    dirs[key] = env().work_dir / "captures" / key;
    return true;
  }
  fs::path synthetic = env().work_dir / "captures-synthetic" / key;
  if (!write_synthetic_capture(key, synthetic)) return false;
  record("capture-fallback-" + key, "capture", "injection capture (fell back to synthetic)", false,
         "capture through libwarplens_inject failed (" + (r.error.empty() ? std::string("no launch captured") : r.error.substr(0, 120)) +
             "); the verify cases use a synthetic capture");
  dirs[key] = synthetic;
  return true;
}

fs::path capture_dir(const std::string& key) {
  auto it = capture_dirs().find(key);
  return it != capture_dirs().end() ? it->second : env().work_dir / "captures" / key;
}

Verdict verify_case(const std::string& case_name, const std::string& capture_key, const std::string& original,
                    const std::string& candidate, const std::string& kernel,
                    const std::function<void(VerifyRequest&)>& tweak, bool keep_fixture) {
  VerifyRequest req;
  req.capture_dir = capture_dir(capture_key);
  req.original_source = env().cases_dir / (original + ".cu");
  req.candidate_source = env().cases_dir / "candidates" / (candidate + ".cu");
  req.kernel = kernel;
  req.timeout_s = 30;
  fs::path work = env().work_dir / "verify" / case_name;
  if (keep_fixture) {
    std::error_code ec;
    fs::remove_all(work, ec);
    req.work_dir = work;
  }
  if (tweak) tweak(req);
  Verdict v = verify(req);
  fs::path verdict_file = fixture_path("verdicts") / (case_name + ".json");
  fs::create_directories(verdict_file.parent_path());
  std::ofstream(verdict_file) << to_json_text(v);
  if (keep_fixture) {
    fs::path dst = fixture_path("replays") / case_name;
    fs::create_directories(dst);
    std::error_code ec;
    for (const char* f : {"plan.json", "candidate.json", "reference.json"})
      fs::copy_file(work / f, dst / f, fs::copy_options::overwrite_existing, ec);
    fs::copy_file(verdict_file, dst / "verdict.json", fs::copy_options::overwrite_existing, ec);
  }
  // Per-stage wall times for the benchmark (compile + 5 inputs + timing).
  static std::once_flag header;
  fs::path bench = env().out_dir / "bench.tsv";
  std::call_once(header, [&] {
    std::ofstream(bench) << "case\twall_ms\tcompile_original_ms\tcompile_candidate_ms\treference_ms\tcandidate_ms"
                            "\tdevice_probe_ms\n";
  });
  auto stage = [&](const char* k) {
    auto it = v.stage_ms.find(k);
    return it == v.stage_ms.end() ? 0.0 : it->second;
  };
  std::ofstream(bench, std::ios::app) << case_name << '\t' << v.wall_ms << '\t' << stage("compile_original") << '\t'
                                      << stage("compile_candidate") << '\t' << stage("reference") << '\t'
                                      << stage("candidate") << '\t' << stage("device_probe") << '\n';
  return v;
}

const InputSetEvidence* failed_set(const Verdict& v) {
  for (const auto& s : v.input_sets)
    if (s.checked && !s.passed) return &s;
  return nullptr;
}

bool failed_on_shape_variation(const Verdict& v) {
  const InputSetEvidence* s = failed_set(v);
  return s && !s->shape.variation.empty();
}

bool failed_with(const Verdict& v, Problem p) {
  for (const auto& s : v.input_sets)
    for (const auto& b : s.buffers)
      if (!b.comparison.ok && b.comparison.worst && b.comparison.worst->problem == p) return true;
  return false;
}

bool mentions(const Verdict& v, const std::string& text) {
  for (const auto& r : v.reasons)
    if (r.find(text) != std::string::npos) return true;
  return v.error.find(text) != std::string::npos;
}

std::string speed(const Verdict& v) {
  char buf[160];
  if (!v.timing) return gist(v);
  std::snprintf(buf, sizeof buf, "level %d, %.2fx (%.1f us -> %.1f us, spread %.0f%%/%.0f%%)", v.level, v.speedup,
                v.timing->original.median_us, v.timing->candidate.median_us, 100 * v.timing->original.spread(),
                100 * v.timing->candidate.spread());
  return buf;
}

std::string gist(const Verdict& v) {
  std::string s;
  if (v.status != VerdictStatus::Verified) s = std::string(to_string(v.status)) + ": " + v.error;
  else if (!v.reasons.empty()) s = v.reasons.back().find("demoted") == 0 ? v.reasons.back() : v.reasons.front();
  for (char& c : s)
    if (c == '\t' || c == '\n') c = ' ';
  return s.size() > 160 ? s.substr(0, 157) + "..." : s;
}

bool has_flag(const Verdict& v, const std::string& flag) {
  for (const auto& f : v.flags)
    if (f == flag) return true;
  return false;
}

bool has_finding(const Verdict& v, const std::string& rule, bool demotes) {
  for (const auto& f : v.source_findings)
    if (f.rule == rule && f.demotes == demotes) return true;
  return false;
}

void record(const std::string& case_name, const std::string& kind, const std::string& expected, bool as_expected,
            const std::string& detail, const Verdict* v) {
  static std::once_flag header;
  fs::path summary = env().out_dir / "summary.tsv";
  std::call_once(header, [&] {
    std::ofstream(summary) << "case\tkind\texpected\tresult\tlevel\tmeasured\tverify_s\tdetail\n";
  });
  char wall[32] = "-";
  if (v) std::snprintf(wall, sizeof wall, "%.2f", v->wall_ms / 1000.0);
  std::string d = detail;
  for (char& c : d)
    if (c == '\t' || c == '\n') c = ' ';
  std::ofstream(summary, std::ios::app) << case_name << '\t' << kind << '\t' << expected << '\t'
                                        << (as_expected ? "ok" : "WRONG") << '\t'
                                        << (v ? std::to_string(v->level) : "-") << '\t'
                                        << (v ? std::to_string(v->measured_level) : "-") << '\t' << wall << '\t'
                                        << d << '\n';
  std::fprintf(stderr, "[verifier-gpu] %-34s %-8s %s  %s\n", case_name.c_str(), kind.c_str(),
               as_expected ? "ok   " : "WRONG", d.c_str());
}

}  // namespace warplens::verifier::gpu
