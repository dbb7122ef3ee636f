#include "agent/verifier/sanitizer.h"

#include <chrono>
#include <cstdlib>
#include <sstream>

#include "agent/verifier/tool_process.h"

namespace warplens::verifier {

namespace fs = std::filesystem;

std::string find_compute_sanitizer(const std::string& configured, const std::string& nvcc) {
  if (!configured.empty()) return find_on_path(configured);
  if (const char* env = std::getenv("WARPLENS_COMPUTE_SANITIZER"); env && *env) return find_on_path(env);
  if (!nvcc.empty()) {
    const fs::path bin = fs::path(nvcc).parent_path();
    for (const fs::path& p : {bin / "compute-sanitizer", bin.parent_path() / "compute-sanitizer" / "compute-sanitizer"}) {
      std::string found = find_on_path(p.string());
      if (!found.empty()) return found;
    }
  }
  return find_on_path("compute-sanitizer");
}

int sanitizer_error_count(const std::string& log, std::string* first_error) {
  std::istringstream in(log);
  int count = -1;
  std::string line, report;
  int report_lines = 0;
  bool in_report = false;
  while (std::getline(in, line)) {
    if (line.rfind("=========", 0) != 0) continue;
    std::string body = line.substr(9);
    std::size_t k = body.find_first_not_of(' ');
    body = k == std::string::npos ? "" : body.substr(k);
    if (body.rfind("ERROR SUMMARY:", 0) == 0) {
      count = std::atoi(body.c_str() + 14);
      in_report = false;
      continue;
    }
    const bool starts = body.rfind("Invalid ", 0) == 0 || body.rfind("Program hit", 0) == 0 ||
                        body.rfind("Misaligned", 0) == 0 || body.rfind("Out-of-range", 0) == 0 ||
                        body.rfind("Cuda", 0) == 0 || body.find("error") != std::string::npos;
    if (report.empty() && starts && body.rfind("COMPUTE-SANITIZER", 0) != 0) in_report = true;
    if (in_report && report_lines < 6 && !body.empty()) {
      report += (report.empty() ? "" : " | ") + body;
      ++report_lines;
    } else if (in_report && body.empty()) {
      in_report = false;
    }
  }
  if (first_error) *first_error = report;
  return count;
}

SanitizerRun run_compute_sanitizer(const std::string& sanitizer, const std::string& replay_binary,
                                   const fs::path& plan, const fs::path& reference, const fs::path& work_dir,
                                   double timeout_s, std::stop_token stop) {
  SanitizerRun run;
  const auto t0 = std::chrono::steady_clock::now();
  const fs::path out = work_dir / "sanitize.json";
  std::error_code ec;
  fs::remove(out, ec);
  ToolSpec spec;
  spec.argv = {sanitizer, "--tool", "memcheck", "--error-exitcode", "86", "--report-api-errors", "no",
               "--print-limit", "10", replay_binary, "sanitize", "--plan", plan.string(), "--reference",
               reference.string(), "--out", out.string()};
  spec.timeout_s = timeout_s;
  spec.log_stem = work_dir / "sanitizer";
  for (const auto& a : spec.argv) run.command += (run.command.empty() ? "" : " ") + a;
  ToolRun r = run_tool(spec, stop);
  run.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const std::string log = r.out + "\n" + r.err;
  run.errors = sanitizer_error_count(log, &run.report);
  if (fs::exists(out, ec)) {
    try {
      run.replay = parse_sanitize_result(read_text_file(out));
    } catch (const std::exception& e) {
      run.problem = e.what();
    }
  }
  if (!r.process.started) {
    run.problem = "compute-sanitizer did not start: " + r.process.start_error;
    return run;
  }
  if (r.process.timed_out) {
    run.problem = "compute-sanitizer did not finish within " + std::to_string(static_cast<int>(timeout_s)) + " s";
    return run;
  }
  if (!run.replay.ok && run.errors <= 0) {
    run.problem = "the replay under compute-sanitizer " + r.description +
                  (run.replay.error.empty() ? "" : ": " + run.replay.error) +
                  (r.err.empty() ? "" : " (" + r.err.substr(0, 400) + ")");
    return run;
  }
  run.started = true;
  if (run.errors < 0 && r.process.exit_code == 86) run.errors = 1;  // the exit code says so; no summary seen
  run.clean = run.errors <= 0 && run.replay.fault.empty() && run.replay.failure.empty();
  if (!run.clean && run.report.empty()) run.report = !run.replay.failure.empty() ? run.replay.failure : log.substr(0, 400);
  return run;
}

}  // namespace warplens::verifier
