// Long jobs for workspace/executeCommand requests, as features see them: a
// job is queued on the job runner (one at a time, server/job_runner.h),
// reports window/workDoneProgress (under the request's workDoneToken, or a
// token the server asks the client to create), and answers the request
// when it ends. Every way to cancel it is wired here: $/cancelRequest on
// the request, window/workDoneProgress/cancel on the token (cancel_token),
// and warplens.cancelJob (cancel, cancel_all).
//
// A job whose last step touches documents or analyses returns
// JobResult::finish_on_io(step): the step is posted to the io thread once,
// when the job returns (no thread waits or polls for it), and answers the
// request from there.
//
// start, cancel_token and the progress bookkeeping are used on the io
// thread; the runner itself is thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "protocol/lsp_window.h"
#include "server/client.h"
#include "server/job_runner.h"
#include "server/method_table.h"

namespace warplens::server {

class Jobs {
 public:
  Jobs(boost::asio::io_context& io, Client& client) : io_(io), client_(client) {}
  Jobs(const Jobs&) = delete;
  Jobs& operator=(const Jobs&) = delete;

  // Queues `job` for `request`; returns the job id.
  std::uint64_t start(RequestContext& request, const std::optional<protocol::ProgressToken>& client_token,
                      std::string title, JobFunction job);

  bool cancel(std::uint64_t id) { return runner_.cancel(id); }
  std::vector<std::uint64_t> cancel_all() { return runner_.cancel_all(); }
  // window/workDoneProgress/cancel: the job reporting under `token`, if any.
  void cancel_token(const protocol::ProgressToken& token);
  std::vector<JobInfo> list() const { return runner_.jobs(); }

  // For the lifecycle only: cancels everything and waits (server/job_runner.h).
  bool shutdown(std::chrono::milliseconds timeout) { return runner_.shutdown(timeout); }

 private:
  boost::asio::io_context& io_;
  Client& client_;
  // Jobs by the progress token they report under (io thread).
  std::map<protocol::ProgressToken, std::uint64_t> progress_jobs_;
  std::uint64_t next_progress_token_ = 0;
  JobRunner runner_;  // last: destroyed (its thread joined) before what its callbacks use
};

}  // namespace warplens::server
