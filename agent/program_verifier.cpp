#include "agent/program_verifier.h"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <random>
#include <thread>

#include "agent/verifier/compile.h"
#include "agent/verifier/reward.h"
#include "agent/verifier/sanitizer.h"
#include "agent/verifier/tool_process.h"

namespace warplens::agent {

namespace fs = std::filesystem;

std::optional<ProgramReport> parse_program_report(std::string_view output) {
  const std::string_view tag = "WARPLENS_EXAMPLE ";
  const auto pos = output.rfind(tag);
  if (pos == std::string_view::npos) return std::nullopt;
  std::string_view line = output.substr(pos + tag.size());
  line = line.substr(0, line.find('\n'));
  try {
    auto j = nlohmann::json::parse(line);
    ProgramReport r;
    r.name = j.value("name", "");
    r.ok = j.value("ok", false);
    r.sets = j.value("sets", 0);
    r.max_error = j.value("max_error", 0.0);
    r.worst = j.value("worst", "");
    if (j.contains("time_ms")) {
      const auto& t = j["time_ms"];
      r.time.runs = t.value("runs", 0);
      r.time.median_ms = t.value("median", 0.0);
      r.time.p10_ms = t.value("p10", 0.0);
      r.time.p90_ms = t.value("p90", 0.0);
    }
    r.bytes = j.value("bytes", 0.0);
    r.flops = j.value("flops", 0.0);
    return r;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

namespace {

std::string tail(const std::string& s, std::size_t n = 4000) { return s.size() <= n ? s : "..." + s.substr(s.size() - n); }

fs::path fresh_work_dir() {
  std::random_device rd;
  fs::path p = fs::temp_directory_path() / ("warplens-optimize-" + std::to_string(rd()));
  fs::create_directories(p);
  return p;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

}  // namespace

ProgramVerifier::ProgramVerifier(SourceFile original, ProgramVerifierOptions options)
    : original_file_(std::move(original)), options_(std::move(options)) {
  work_ = options_.work_dir.empty() ? fresh_work_dir() : options_.work_dir;
  fs::create_directories(work_);
  if (options_.compile_jobs <= 0) options_.compile_jobs = std::max(1u, std::thread::hardware_concurrency());
}

double ProgramVerifier::baseline_ms() const { return median(original_ms_); }

ProgramVerifier::Built ProgramVerifier::build(const std::string& id, const std::string& source,
                                              std::stop_token stop) const {
  Built b;
  const fs::path src = work_ / (id + ".cu");
  {
    std::ofstream out(src);
    out << source;
  }
  b.binary = work_ / id;
  const std::string nvcc = verifier::find_nvcc(options_.nvcc);
  if (nvcc.empty()) {
    b.log = "nvcc not found (set CUDA_PATH or pass --nvcc)";
    return b;
  }
  verifier::ToolSpec spec;
  spec.argv = {nvcc};
  for (const auto& f : options_.nvcc_flags) spec.argv.push_back(f);
  spec.argv.push_back("-arch=" + options_.arch);
  const fs::path original_dir = fs::path(original_file_.path).parent_path();
  if (!original_dir.empty()) spec.argv.push_back("-I" + original_dir.string());
  for (const auto& d : options_.include_dirs) spec.argv.push_back("-I" + d);
  spec.argv.push_back("-o");
  spec.argv.push_back(b.binary.string());
  spec.argv.push_back(src.string());
  spec.timeout_s = options_.timeout_s;
  spec.log_stem = b.binary.string() + ".nvcc";
  verifier::ToolRun r = verifier::run_tool(spec, stop);
  b.seconds = r.process.wall_ms / 1000.0;
  b.ok = r.succeeded();
  if (!b.ok) b.log = tail(r.description + "\n" + r.err + r.out);
  return b;
}

void ProgramVerifier::build_original(std::stop_token stop) {
  if (!original_build_) original_build_ = build("original", original_file_.text, stop);
}

bool ProgramVerifier::prepare_original(std::stop_token stop) {
  if (original_ready_) return original_.has_value() && original_->ok && original_error_.empty();
  original_ready_ = true;
  build_original(stop);
  const Built& b = *original_build_;
  if (!b.ok) {
    original_error_ = "the original program does not build: " + b.log;
    return false;
  }
  original_binary_ = b.binary;
  verifier::ToolSpec spec;
  spec.argv = {b.binary.string(), "--sets", std::to_string(options_.input_sets), "--time",
               std::to_string(options_.timed_runs), "--max-time-s", std::to_string(options_.max_timing_seconds)};
  spec.timeout_s = options_.timeout_s;
  spec.log_stem = b.binary.string() + ".first-run";
  verifier::ToolRun r = verifier::run_tool(spec, stop);
  original_ = parse_program_report(r.out);
  if (!original_) {
    original_error_ = "the original program printed no WARPLENS_EXAMPLE report (" + r.description + "): " + tail(r.err);
    return false;
  }
  if (!original_->ok || !r.succeeded()) {
    original_error_ = "the original program fails its own checks: " + original_->worst;
    return false;
  }
  if (original_->time.median_ms > 0) original_ms_.push_back(original_->time.median_ms);
  return true;
}

void ProgramVerifier::time_original(std::stop_token stop) {
  if (original_binary_.empty()) return;
  verifier::ToolSpec spec;
  spec.argv = {original_binary_.string(), "--sets", "0", "--time", std::to_string(options_.timed_runs), "--max-time-s",
               std::to_string(options_.max_timing_seconds)};
  spec.timeout_s = options_.timeout_s;
  spec.log_stem = original_binary_.string() + ".retime";
  verifier::ToolRun r = verifier::run_tool(spec, stop);
  if (auto rep = parse_program_report(r.out); rep && rep->ok && rep->time.median_ms > 0)
    original_ms_.push_back(rep->time.median_ms);
}

void ProgramVerifier::check(const Built& built, CandidateVerdict& v, std::stop_token stop) const {
  v.compiled = built.ok;
  v.verify_seconds += built.seconds;
  if (!built.ok) {
    v.compile_log = built.log;
    v.reason = "does not compile";
    return;
  }
  verifier::ToolSpec spec;
  spec.argv = {built.binary.string(), "--sets", std::to_string(options_.input_sets), "--time", "0"};
  spec.timeout_s = options_.timeout_s;
  spec.log_stem = built.binary.string() + ".check";
  verifier::ToolRun r = verifier::run_tool(spec, stop);
  v.verify_seconds += r.process.wall_ms / 1000.0;
  v.gpu_seconds += r.process.wall_ms / 1000.0;
  auto rep = parse_program_report(r.out);
  if (!rep) {
    v.reason = "no report from the candidate program (" + r.description + "): " + tail(r.err, 1500);
    return;
  }
  v.input_sets = rep->sets;
  v.max_error = rep->max_error;
  v.worst = rep->worst;
  v.correct = rep->ok && r.succeeded() && rep->sets >= options_.input_sets;
  if (!v.correct)
    v.reason = !r.succeeded() && rep->ok ? "the candidate program failed (" + r.description + ")"
                                         : "wrong result: " + rep->worst;
}

void ProgramVerifier::time(const Built& built, CandidateVerdict& v, std::stop_token stop) const {
  if (!v.correct) return;
  verifier::ToolSpec spec;
  spec.argv = {built.binary.string(), "--sets", "0", "--time", std::to_string(options_.timed_runs), "--max-time-s",
               std::to_string(options_.max_timing_seconds)};
  spec.timeout_s = options_.timeout_s;
  spec.log_stem = built.binary.string() + ".time";
  verifier::ToolRun r = verifier::run_tool(spec, stop);
  v.gpu_seconds += r.process.wall_ms / 1000.0;
  v.verify_seconds += r.process.wall_ms / 1000.0;
  auto rep = parse_program_report(r.out);
  if (!rep || !rep->ok || !r.succeeded() || rep->time.median_ms <= 0) {
    v.correct = false;
    v.reason = "the timing run failed (" + r.description + ")" + (rep ? ": " + rep->worst : "");
    return;
  }
  v.candidate = rep->time;
}

void ProgramVerifier::sanitize(const Built& built, CandidateVerdict& v, std::stop_token stop) const {
  const std::string sanitizer = verifier::find_compute_sanitizer(options_.sanitizer, verifier::find_nvcc(options_.nvcc));
  if (sanitizer.empty()) {
    v.memcheck_note = "compute-sanitizer not found (set WARPLENS_COMPUTE_SANITIZER)";
    return;
  }
  verifier::ToolSpec spec;
  spec.argv = {sanitizer, "--tool", "memcheck", "--error-exitcode", "86", built.binary.string(), "--sets", "1",
               "--time", "0"};
  spec.timeout_s = options_.timeout_s;
  spec.log_stem = built.binary.string() + ".memcheck";
  verifier::ToolRun r = verifier::run_tool(spec, stop);
  v.verify_seconds += r.process.wall_ms / 1000.0;
  v.gpu_seconds += r.process.wall_ms / 1000.0;
  std::string first;
  const int errors = verifier::sanitizer_error_count(r.out + "\n" + r.err, &first);
  auto rep = parse_program_report(r.out);
  if (errors > 0 || (rep && !rep->ok)) {
    v.correct = false;
    v.reason = "demoted by compute-sanitizer memcheck (" + std::to_string(errors) + " error(s)): " + first;
    return;
  }
  if (errors < 0 || !r.succeeded() || !rep) {
    v.memcheck_note = "compute-sanitizer memcheck did not finish (" + r.description + ")";
    return;
  }
  v.memcheck_clean = true;
  v.memcheck_note = "compute-sanitizer memcheck: no errors (" +
                    std::to_string(r.process.wall_ms / 1000.0).substr(0, 4) + " s)";
}

void ProgramVerifier::finish(CandidateVerdict& v) const {
  const double base = baseline_ms();
  v.original.median_ms = base;
  v.original.runs = static_cast<int>(original_ms_.size());
  if (!original_ms_.empty()) {
    v.original.p10_ms = *std::min_element(original_ms_.begin(), original_ms_.end());
    v.original.p90_ms = *std::max_element(original_ms_.begin(), original_ms_.end());
  }
  v.eager_ms = options_.eager_ms;
  v.compiled_ms = options_.compiled_ms;
  if (!original_error_.empty()) {
    v.correct = false;
    v.reason = original_error_;
    v.verifier_failed = true;
  }
  if (v.correct && v.candidate.median_ms > 0 && base > 0) v.speedup = base / v.candidate.median_ms;
  v.level = reward_level(v.correct && v.candidate.median_ms > 0, base, v.candidate.median_ms, v.eager_ms, v.compiled_ms);
  if (v.speedup > verifier::kImplausibleSpeedup) {
    v.implausible = true;
    v.reason = "more than 1000x faster than the original: reported for review, not offered";
  } else if (v.speedup > verifier::kLargeSpeedup && to_int(v.level) >= to_int(RewardLevel::Faster)) {
    // Offered only when the program also ran clean under memcheck (sanitize()).
    if (!v.memcheck_clean) {
      v.implausible = true;
      v.reason = "more than 10x faster than the original, held for review: " +
                 (v.memcheck_note.empty() ? std::string("compute-sanitizer memcheck did not run") : v.memcheck_note);
    }
  }
  if (v.level == RewardLevel::Correct && v.reason.empty()) v.reason = "not more than 5% faster";
  nlohmann::json e = {{"verifier", "self-checking program"},
                      {"input_sets", v.input_sets},
                      {"original_timings_ms", original_ms_},
                      {"candidate_ms", v.candidate.median_ms},
                      {"timed_runs", v.candidate.runs}};
  if (!v.memcheck_note.empty()) e["memcheck"] = v.memcheck_note;
  v.evidence = e.dump();
}

std::vector<CandidateVerdict> ProgramVerifier::verify_all(const std::vector<Candidate>& candidates,
                                                          std::stop_token stop) {
  std::vector<ProgramBatchItem> items(1);
  items[0].verifier = this;
  items[0].candidates = candidates;
  verify_programs(items, options_.compile_jobs, options_.check_jobs, stop);
  return items[0].verdicts;
}

CandidateVerdict ProgramVerifier::verify(const Candidate& candidate, std::stop_token stop) {
  return verify_all({candidate}, stop).front();
}

void verify_programs(std::vector<ProgramBatchItem>& items, int compile_jobs, int check_jobs, std::stop_token stop,
                     const std::function<void(const std::string&)>& log) {
  using Clock = std::chrono::steady_clock;
  auto say = [&](const std::string& s) {
    if (log) log(s);
  };
  struct Job {
    std::size_t item, index;
  };
  constexpr std::size_t kOriginal = static_cast<std::size_t>(-1);
  std::vector<Job> jobs;
  for (std::size_t i = 0; i < items.size(); ++i) jobs.push_back({i, kOriginal});
  for (std::size_t i = 0; i < items.size(); ++i) {
    items[i].verdicts.assign(items[i].candidates.size(), {});
    for (std::size_t k = 0; k < items[i].candidates.size(); ++k) {
      items[i].verdicts[k].candidate_id = items[i].candidates[k].id;
      jobs.push_back({i, k});
    }
  }
  std::vector<std::vector<ProgramVerifier::Built>> built(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) built[i].resize(items[i].candidates.size());
  // Phase 1: every build at once (the originals are built, checked and timed
  // one program at a time first: they must pass before anything counts).
  const auto t0 = Clock::now();
  say("building " + std::to_string(jobs.size()) + " programs (originals and candidates)");
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> pool;
  const int cj = std::max(1, compile_jobs);
  for (int w = 0; w < cj; ++w)
    pool.emplace_back([&] {
      for (std::size_t j = next++; j < jobs.size(); j = next++) {
        if (stop.stop_requested()) return;
        const Job& job = jobs[j];
        if (job.index == kOriginal) {
          items[job.item].verifier->build_original(stop);
          continue;
        }
        const Candidate& c = items[job.item].candidates[job.index];
        built[job.item][job.index] = items[job.item].verifier->build(c.id, c.source, stop);
      }
    });
  for (auto& t : pool) t.join();
  pool.clear();
  say("built in " + std::to_string(std::chrono::duration<double>(Clock::now() - t0).count()).substr(0, 5) + " s");
  // Originals: build, check, first timing (serial: these timings count).
  for (auto& item : items) {
    if (stop.stop_requested()) break;
    item.verifier->prepare_original(stop);
    if (!item.verifier->original_error().empty()) say("original failed: " + item.verifier->original_error());
  }
  // Phase 2: correctness, a few programs at a time.
  const auto t1 = Clock::now();
  next = 0;
  const int kj = std::max(1, check_jobs);
  for (int w = 0; w < kj; ++w)
    pool.emplace_back([&] {
      for (std::size_t j = next++; j < jobs.size(); j = next++) {
        if (stop.stop_requested()) return;
        const Job& job = jobs[j];
        if (job.index == kOriginal) continue;
        // Nothing counts when the original itself fails: finish() says why.
        if (!items[job.item].verifier->original_error().empty()) {
          items[job.item].verdicts[job.index].compiled = built[job.item][job.index].ok;
          continue;
        }
        items[job.item].verifier->check(built[job.item][job.index], items[job.item].verdicts[job.index], stop);
      }
    });
  for (auto& t : pool) t.join();
  say("checked in " + std::to_string(std::chrono::duration<double>(Clock::now() - t1).count()).substr(0, 5) + " s");
  // Phase 3: timing, one program at a time, originals re-timed around their candidates.
  const auto t2 = Clock::now();
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto ti = Clock::now();
    ProgramVerifier& v = *items[i].verifier;
    int since = 0;
    for (std::size_t k = 0; k < items[i].candidates.size() && !stop.stop_requested(); ++k) {
      if (!items[i].verdicts[k].correct) continue;
      if (since >= 6) {
        v.time_original(stop);
        since = 0;
      }
      v.time(built[i][k], items[i].verdicts[k], stop);
      ++since;
    }
    if (!stop.stop_requested()) v.time_original(stop);
    // A winner above 10x is offered only after a clean memcheck run.
    const double base = v.baseline_ms();
    for (std::size_t k = 0; k < items[i].candidates.size() && !stop.stop_requested(); ++k) {
      auto& verdict = items[i].verdicts[k];
      if (verdict.correct && base > 0 && verdict.candidate.median_ms > 0 &&
          base / verdict.candidate.median_ms > verifier::kLargeSpeedup &&
          base / verdict.candidate.median_ms <= verifier::kImplausibleSpeedup)
        v.sanitize(built[i][k], verdict, stop);
    }
    for (auto& verdict : items[i].verdicts) v.finish(verdict);
    items[i].wall_seconds += std::chrono::duration<double>(Clock::now() - ti).count();
  }
  say("timed in " + std::to_string(std::chrono::duration<double>(Clock::now() - t2).count()).substr(0, 5) + " s");
}

}  // namespace warplens::agent
