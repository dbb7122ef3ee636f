#include "server/jobs.h"

#include <utility>

#include <boost/asio/post.hpp>
#include <spdlog/spdlog.h>

#include "server/work_done_progress.h"

namespace warplens::server {

using protocol::ErrorCode;

std::uint64_t Jobs::start(RequestContext& request, const std::optional<protocol::ProgressToken>& client_token,
                          std::string title, JobFunction job) {
  std::shared_ptr<WorkDoneProgress> progress;
  if (client_token)
    progress = WorkDoneProgress::with_client_token(client_.connection(), *client_token);
  else if (client_.capabilities().workDoneProgress)
    progress = WorkDoneProgress::create(
        client_.connection(), protocol::ProgressToken{"warplens-job-" + std::to_string(++next_progress_token_)});
  std::optional<protocol::ProgressToken> token;
  if (progress) token = progress->token();

  // Shared with the completion callback, which may run on the job thread.
  struct Link {
    std::optional<std::stop_callback<std::function<void()>>> on_cancel;
  };
  auto link = std::make_shared<Link>();
  Reply reply = request.reply;
  auto& io = io_;
  auto done = [this, reply, token, link, &io](JobOutcome outcome) {
    if (token) boost::asio::post(io, [this, token] { progress_jobs_.erase(*token); });
    if (outcome.status == JobOutcome::Status::Succeeded && outcome.finish) {
      // The job's last step, on the io thread; it answers once, from there.
      boost::asio::post(io, [reply, finish = std::move(outcome.finish), stop = outcome.stop] {
        if (stop.stop_requested()) return reply.error(ErrorCode::RequestCancelled, "the job was cancelled");
        auto answered = std::make_shared<bool>(false);  // io thread only
        JobCompletion completion;
        completion.result = [reply, answered](nlohmann::json value) {
          if (std::exchange(*answered, true)) return;
          reply.result(std::move(value));
        };
        completion.fail = [reply, answered](std::exception_ptr e) {
          if (std::exchange(*answered, true)) return;
          std::string what = "unknown exception";
          try {
            std::rethrow_exception(e);
          } catch (const std::exception& x) {
            what = x.what();
          } catch (...) {
          }
          reply.error(ErrorCode::RequestFailed, what);
        };
        try {
          finish(completion);
        } catch (...) {
          completion.fail(std::current_exception());
        }
      });
      return;
    }
    switch (outcome.status) {
      case JobOutcome::Status::Succeeded: reply.result(std::move(outcome.result)); break;
      case JobOutcome::Status::Failed: reply.error(ErrorCode::RequestFailed, outcome.error); break;
      case JobOutcome::Status::Cancelled: reply.error(ErrorCode::RequestCancelled, "the job was cancelled"); break;
    }
  };
  std::uint64_t id = runner_.submit(std::move(title), std::move(job), progress, done);
  if (token) progress_jobs_[*token] = id;
  // $/cancelRequest: cancel the job. Posted, so the job (and this callback)
  // is never destroyed from inside the callback itself.
  link->on_cancel.emplace(request.stop, std::function<void()>([&io, &jobs = runner_, id] {
                            boost::asio::post(io, [&jobs, id] { jobs.cancel(id); });
                          }));
  return id;
}

void Jobs::cancel_token(const protocol::ProgressToken& token) {
  auto it = progress_jobs_.find(token);
  if (it == progress_jobs_.end()) return;
  spdlog::info("cancelling job {} (progress cancelled by the user)", it->second);
  runner_.cancel(it->second);
}

}  // namespace warplens::server
