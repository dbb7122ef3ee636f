#include "analysis/analyzer.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "analysis/frontend.h"
#include "analysis/static_analyses.h"
#include "common/file_read.h"

namespace warplens {

namespace {

Finding limit_finding(const std::string& file, std::string message) {
  Finding f;
  f.code = codes::kAnalysisLimit;
  f.severity = Severity::Warning;
  f.source = "warplens";
  f.location = {file, {}};
  f.message = std::move(message);
  return f;
}

// A stop token that is requested when `outer` is, or when `limit` has
// passed: the time budget, for code that already honours cancellation.
class Deadline {
 public:
  Deadline(std::stop_token outer, std::chrono::milliseconds limit)
      : forward_(std::move(outer), Forward{&source_}),
        watchdog_([this, limit](std::stop_token done) {
          std::mutex mu;
          std::unique_lock lock(mu);
          std::condition_variable_any cv;
          if (!cv.wait_for(lock, done, limit, [] { return false; }) && !done.stop_requested()) {
            expired_ = true;
            source_.request_stop();
          }
        }) {}
  std::stop_token token() const { return source_.get_token(); }
  bool expired() const { return expired_; }

 private:
  struct Forward {
    std::stop_source* source;
    void operator()() const { source->request_stop(); }
  };
  std::stop_source source_;
  std::atomic<bool> expired_{false};
  std::stop_callback<Forward> forward_;
  std::jthread watchdog_;  // last: stopped and joined first
};

std::string seconds(std::chrono::milliseconds ms) {
  return std::to_string(ms.count() / 1000) + (ms.count() % 1000 ? "." + std::to_string(ms.count() % 1000 / 100) : "") +
         " s";
}

}  // namespace

AnalysisResult analyze(const SourceFile& file, const AnalysisOptions& options, std::stop_token stop) {
  AnalysisResult result;
  result.file = file.path;
  result.model.file = file.path;
  // What is not CUDA source, or too much of it, is refused before Clang sees
  // it: one line instead of a minute and a flood of diagnostics.
  if (std::string why = common::binary_content_reason(file.text); !why.empty()) {
    result.findings.push_back(limit_finding(file.path, "not analysed: a binary file (" + why + "), not CUDA source"));
    return result;
  }
  if (file.text.size() > options.limits.max_source_bytes) {
    result.findings.push_back(limit_finding(
        file.path, "too large to analyse: " + common::describe_size(file.text.size()) + " of source (the limit is " +
                       common::describe_size(options.limits.max_source_bytes) + ")"));
    return result;
  }

  Deadline deadline(stop, options.limits.max_time);
  auto out_of_time = [&] {
    result = AnalysisResult{};
    result.file = file.path;
    result.model.file = file.path;
    result.findings.push_back(limit_finding(
        file.path, "too large to analyse: the analysis took longer than " + seconds(options.limits.max_time) +
                       " (the limit)"));
    return result;
  };
  auto t0 = std::chrono::steady_clock::now();
  ParseResult parsed = parse_translation_unit(file, options, deadline.token());
  auto t1 = std::chrono::steady_clock::now();
  if (deadline.expired() && !stop.stop_requested()) return out_of_time();
  result.parse_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  result.model = std::move(parsed.model);
  result.findings = std::move(parsed.diagnostics);
  result.toolchain = std::move(parsed.toolchain);
  if (parsed.over_limit) {
    // The front end's findings up to the cut stay; nothing is built on a
    // partial parse.
    result.findings.push_back(std::move(*parsed.over_limit));
    return result;
  }
  result.parsed = parsed.parsed;
  result.cancelled = parsed.cancelled || stop.stop_requested();
  if (result.cancelled || !result.parsed || !options.run_static_analyses) return result;
  // Static analyses are added here as they land (coalescing, bank conflicts,
  // divergence, occupancy): each is a function KernelModel -> findings.
  for (auto& f : run_static_analyses(result.model, options, deadline.token())) result.findings.push_back(std::move(f));
  if (deadline.expired() && !stop.stop_requested()) return out_of_time();
  result.analysis_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();
  return result;
}

}  // namespace warplens
