// Long jobs (profiling, optimizing a kernel): one at a time, in submission
// order, on their own thread, so a GPU is never shared between two jobs and
// the analysis workers stay free for typing.
//
// A job is a plain function of a JobContext (stop_token + progress). The
// runner knows nothing of LSP: progress goes to a ProgressSink, which the
// server backs with window/workDoneProgress.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace warplens::server {

// Where a job's progress goes. Called from the job thread; begin() first,
// end() last, report() only in between.
class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  virtual void begin(const std::string& title, const std::string& message) = 0;
  virtual void report(const std::string& message, std::optional<int> percentage) = 0;
  virtual void end(const std::string& message) = 0;
};

struct JobContext {
  std::stop_token stop;
  // Thread-safe; `percentage` is 0..100.
  std::function<void(const std::string& message, std::optional<int> percentage)> report;
};

// How a job's last step, run by the server on its io thread, answers:
// `result` or `fail`, once (later calls are ignored), possibly after the
// step itself returned (e.g. once the document's analysis is ready).
struct JobCompletion {
  std::function<void(nlohmann::json)> result;
  std::function<void(std::exception_ptr)> fail;  // answered as a failed job: the exception's what()
};
using JobFinish = std::function<void(JobCompletion)>;

// What a job function returns: the executeCommand reply, or (`finish`
// set) a last step that needs the server's state (documents, analyses),
// which only the io thread may touch. The job thread does not wait for it:
// the server posts it to the io thread once, and it answers from there.
struct JobResult {
  JobResult(nlohmann::json v = nullptr) : value(std::move(v)) {}  // NOLINT: a plain reply converts
  JobResult(std::nullptr_t) {}                                     // NOLINT: `return nullptr;` (no reply value)
  static JobResult finish_on_io(JobFinish f) {
    JobResult r;
    r.finish = std::move(f);
    return r;
  }
  nlohmann::json value;
  JobFinish finish;
};

// Returns the job's result; throws on failure.
using JobFunction = std::function<JobResult(JobContext&)>;

struct JobOutcome {
  enum class Status { Succeeded, Failed, Cancelled } status = Status::Succeeded;
  nlohmann::json result;
  JobFinish finish;        // Succeeded with a last step for the io thread (JobResult::finish)
  std::stop_token stop;    // the job's: whether it was cancelled by the time `finish` runs
  std::string error;
};

struct JobInfo {
  std::uint64_t id = 0;
  std::string title;
  bool running = false;
};

class JobRunner {
 public:
  JobRunner();
  ~JobRunner();  // cancels everything and joins the job thread
  JobRunner(const JobRunner&) = delete;
  JobRunner& operator=(const JobRunner&) = delete;

  // Queues a job; `done` is called exactly once, on the job thread (or on
  // the caller's thread when the job is cancelled before it starts).
  std::uint64_t submit(std::string title, JobFunction fn, std::shared_ptr<ProgressSink> progress,
                       std::function<void(JobOutcome)> done);

  // Cancels a queued or running job. False when no such job exists.
  bool cancel(std::uint64_t id);
  // Cancels every job; returns their ids.
  std::vector<std::uint64_t> cancel_all();

  std::vector<JobInfo> jobs() const;  // the running one first, then the queue

  // Cancels everything and waits up to `timeout` for the running job to
  // return. False when it did not.
  bool shutdown(std::chrono::milliseconds timeout);

 private:
  struct Job {
    std::uint64_t id = 0;
    std::string title;
    JobFunction fn;
    std::shared_ptr<ProgressSink> progress;
    std::function<void(JobOutcome)> done;
    std::stop_source stop;
  };

  void run_jobs(std::stop_token thread_stop);

  mutable std::mutex mutex_;
  std::condition_variable_any cv_;
  std::deque<std::shared_ptr<Job>> queue_;
  std::shared_ptr<Job> running_;
  std::uint64_t next_id_ = 0;
  bool closed_ = false;
  std::jthread thread_;
};

}  // namespace warplens::server
