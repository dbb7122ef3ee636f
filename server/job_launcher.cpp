#include "server/job_launcher.h"

#include <boost/asio/post.hpp>

#include "server/work_done_progress.h"

namespace warplens::server {

using protocol::ErrorCode;

std::uint64_t start_job(ServerContext& ctx, RequestContext& request,
                        const std::optional<protocol::ProgressToken>& client_token, std::string title,
                        JobFunction job) {
  std::shared_ptr<WorkDoneProgress> progress;
  if (client_token)
    progress = WorkDoneProgress::with_client_token(ctx.client, *client_token);
  else if (ctx.client_capabilities.workDoneProgress)
    progress = WorkDoneProgress::create(
        ctx.client, protocol::ProgressToken{"warplens-job-" + std::to_string(++ctx.next_progress_token)});
  std::optional<protocol::ProgressToken> token;
  if (progress) token = progress->token();

  // Shared with the completion callback, which may run on the job thread.
  struct Link {
    std::optional<std::stop_callback<std::function<void()>>> on_cancel;
  };
  auto link = std::make_shared<Link>();
  Reply reply = request.reply;
  auto& io = ctx.io;
  auto done = [reply, token, link, &io, &ctx](JobOutcome outcome) {
    switch (outcome.status) {
      case JobOutcome::Status::Succeeded: reply.result(std::move(outcome.result)); break;
      case JobOutcome::Status::Failed: reply.error(ErrorCode::RequestFailed, outcome.error); break;
      case JobOutcome::Status::Cancelled: reply.error(ErrorCode::RequestCancelled, "the job was cancelled"); break;
    }
    if (token) boost::asio::post(io, [&ctx, token] { ctx.progress_jobs.erase(*token); });
  };
  std::uint64_t id = ctx.jobs.submit(std::move(title), std::move(job), progress, done);
  if (token) ctx.progress_jobs[*token] = id;
  // $/cancelRequest: cancel the job. Posted, so the job (and this callback)
  // is never destroyed from inside the callback itself.
  link->on_cancel.emplace(request.stop, std::function<void()>([&io, &jobs = ctx.jobs, id] {
                            boost::asio::post(io, [&jobs, id] { jobs.cancel(id); });
                          }));
  return id;
}

}  // namespace warplens::server
