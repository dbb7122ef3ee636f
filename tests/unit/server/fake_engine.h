// Test doubles for the analysis engine and helpers to drive an io_context
// from a test. FakeEngine stands in for warplens::analyze: it returns the
// findings a test scripted for a given text, can block until released (to
// test cancellation and staleness), can throw, and records what it saw.
#pragma once

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include "analysis/analyzer.h"

namespace warplens::testing {

class FakeEngine {
 public:
  // Findings to return when the analysed text contains `marker`.
  void script(std::string marker, std::vector<Finding> findings) {
    std::lock_guard lock(mutex_);
    scripts_[std::move(marker)] = std::move(findings);
  }
  void set_model(KernelModel model) {
    std::lock_guard lock(mutex_);
    model_ = std::move(model);
  }
  // While held, analyses block until release() or until their stop is requested.
  void hold() {
    std::lock_guard lock(mutex_);
    held_ = true;
  }
  void release() {
    {
      std::lock_guard lock(mutex_);
      held_ = false;
    }
    cv_.notify_all();
  }
  // Analyses that block ignore their stop_token (an engine stuck in Clang).
  void ignore_stop(bool ignore) { ignore_stop_ = ignore; }
  void throw_on(std::string marker) {
    std::lock_guard lock(mutex_);
    throw_marker_ = std::move(marker);
  }

  AnalysisResult operator()(const SourceFile& file, const AnalysisOptions& options, std::stop_token stop) {
    int now = ++running_;
    int prev = max_running_.load();
    while (now > prev && !max_running_.compare_exchange_weak(prev, now)) {
    }
    {
      std::lock_guard lock(mutex_);
      texts_.push_back(file.text);
      options_.push_back(options);
    }
    ++calls_;
    std::unique_lock lock(mutex_);
    std::stop_callback wake(stop, [this] { cv_.notify_all(); });
    cv_.wait(lock, [&] { return !held_ || (!ignore_stop_ && stop.stop_requested()); });
    --running_;
    if (!throw_marker_.empty() && file.text.find(throw_marker_) != std::string::npos)
      throw std::runtime_error("fake engine failure");
    AnalysisResult r;
    r.file = file.path;
    r.parsed = true;
    r.model = model_;
    r.model.file = file.path;
    for (const auto& [marker, findings] : scripts_)
      if (file.text.find(marker) != std::string::npos)
        for (auto f : findings) {
          if (f.location.file.empty()) f.location.file = file.path;
          r.findings.push_back(std::move(f));
        }
    r.cancelled = !ignore_stop_ && stop.stop_requested();
    r.toolchain.cuda_found = true;
    r.toolchain.cuda_version = "13.0";
    r.toolchain.cuda_path = "/usr/local/cuda";
    return r;
  }

  int calls() const { return calls_; }
  int max_concurrent() const { return max_running_; }
  std::vector<std::string> texts() const {
    std::lock_guard lock(mutex_);
    return texts_;
  }
  std::vector<AnalysisOptions> options() const {
    std::lock_guard lock(mutex_);
    return options_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::map<std::string, std::vector<Finding>> scripts_;
  KernelModel model_;
  bool held_ = false;
  std::atomic<bool> ignore_stop_{false};
  std::string throw_marker_;
  std::vector<std::string> texts_;
  std::vector<AnalysisOptions> options_;
  std::atomic<int> calls_{0};
  std::atomic<int> running_{0};
  std::atomic<int> max_running_{0};
};

// Runs `io` until `done()` holds; fails the test with `what` after `timeout`.
inline bool run_until(boost::asio::io_context& io, const std::function<bool()>& done, const char* what,
                      std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  auto guard = boost::asio::make_work_guard(io);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) {
      FAIL_CHECK("timed out waiting for: " << what);
      return false;
    }
    io.restart();
    io.run_for(std::chrono::milliseconds(5));
  }
  return true;
}

// Runs `io` for `duration` (to check that something does NOT happen).
inline void run_for(boost::asio::io_context& io, std::chrono::milliseconds duration) {
  auto guard = boost::asio::make_work_guard(io);
  io.restart();
  io.run_for(duration);
}

inline Finding make_finding(std::string code, Range range, std::string message) {
  Finding f;
  f.code = std::move(code);
  f.location.range = range;
  f.message = std::move(message);
  return f;
}

}  // namespace warplens::testing
