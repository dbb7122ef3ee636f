#include "server/job_runner.h"

#include <spdlog/spdlog.h>

namespace warplens::server {

namespace {

JobOutcome cancelled_outcome() {
  JobOutcome o;
  o.status = JobOutcome::Status::Cancelled;
  o.error = "cancelled";
  return o;
}

}  // namespace

JobRunner::JobRunner() : thread_([this](std::stop_token st) { run_jobs(st); }) {}

JobRunner::~JobRunner() {
  shutdown(std::chrono::milliseconds(0));
  thread_.request_stop();
  cv_.notify_all();
  // jthread joins here.
}

std::uint64_t JobRunner::submit(std::string title, JobFunction fn, std::shared_ptr<ProgressSink> progress,
                                std::function<void(JobOutcome)> done) {
  auto job = std::make_shared<Job>();
  job->title = std::move(title);
  job->fn = std::move(fn);
  job->progress = std::move(progress);
  job->done = std::move(done);
  std::size_t ahead;
  bool closed;
  {
    std::lock_guard lock(mutex_);
    job->id = ++next_id_;
    closed = closed_;
    ahead = queue_.size() + (running_ ? 1 : 0);
  }
  if (closed) {
    if (job->done) job->done(cancelled_outcome());
    return job->id;
  }
  // begin() before the job is visible to the job thread, so no report()
  // can precede it.
  if (job->progress)
    job->progress->begin(job->title, ahead == 0 ? "starting" : "queued behind " + std::to_string(ahead) + " job(s)");
  {
    std::lock_guard lock(mutex_);
    closed = closed_;
    if (!closed) queue_.push_back(job);
  }
  if (closed) {  // shut down in the meantime
    if (job->progress) job->progress->end("cancelled");
    if (job->done) job->done(cancelled_outcome());
    return job->id;
  }
  cv_.notify_all();
  return job->id;
}

bool JobRunner::cancel(std::uint64_t id) {
  std::shared_ptr<Job> dequeued;
  {
    std::lock_guard lock(mutex_);
    if (running_ && running_->id == id) {
      running_->stop.request_stop();
      return true;
    }
    for (auto it = queue_.begin(); it != queue_.end(); ++it)
      if ((*it)->id == id) {
        dequeued = *it;
        queue_.erase(it);
        break;
      }
  }
  if (!dequeued) return false;
  if (dequeued->progress) dequeued->progress->end("cancelled");
  if (dequeued->done) dequeued->done(cancelled_outcome());
  return true;
}

std::vector<std::uint64_t> JobRunner::cancel_all() {
  std::vector<std::uint64_t> ids;
  for (const auto& j : jobs()) ids.push_back(j.id);
  for (auto id : ids) cancel(id);
  return ids;
}

std::vector<JobInfo> JobRunner::jobs() const {
  std::lock_guard lock(mutex_);
  std::vector<JobInfo> out;
  if (running_) out.push_back({running_->id, running_->title, true});
  for (const auto& j : queue_) out.push_back({j->id, j->title, false});
  return out;
}

bool JobRunner::shutdown(std::chrono::milliseconds timeout) {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  cancel_all();
  std::unique_lock lock(mutex_);
  return cv_.wait_for(lock, timeout, [&] { return !running_; });
}

void JobRunner::run_jobs(std::stop_token thread_stop) {
  while (true) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock lock(mutex_);
      cv_.wait(lock, thread_stop, [&] { return !queue_.empty(); });
      if (thread_stop.stop_requested()) return;
      job = queue_.front();
      queue_.pop_front();
      running_ = job;
    }
    JobOutcome outcome;
    auto progress = job->progress;
    JobContext ctx;
    ctx.stop = job->stop.get_token();
    ctx.report = [progress](const std::string& message, std::optional<int> percentage) {
      if (progress) progress->report(message, percentage);
    };
    try {
      JobResult r = job->fn(ctx);
      outcome.result = std::move(r.value);
      outcome.finish = std::move(r.finish);
      outcome.stop = ctx.stop;
    } catch (const std::exception& e) {
      outcome.status = JobOutcome::Status::Failed;
      outcome.error = e.what();
    } catch (...) {
      outcome.status = JobOutcome::Status::Failed;
      outcome.error = "unknown exception";
    }
    if (ctx.stop.stop_requested()) outcome = cancelled_outcome();
    if (outcome.status == JobOutcome::Status::Failed)
      spdlog::error("job {} ({}) failed: {}", job->id, job->title, outcome.error);
    if (progress)
      progress->end(outcome.status == JobOutcome::Status::Succeeded ? "done"
                    : outcome.status == JobOutcome::Status::Cancelled ? "cancelled"
                                                                      : "failed: " + outcome.error);
    if (job->done) job->done(std::move(outcome));
    {
      std::lock_guard lock(mutex_);
      running_.reset();
    }
    cv_.notify_all();
  }
}

}  // namespace warplens::server
