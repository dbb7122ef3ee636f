// workspace/executeCommand and the job commands.
//
// Commands live in Registry::commands (all named warplens.*); the
// list announced at initialize is whatever is registered by then.
// Built in here:
//   warplens.cancelJob [{id}]   cancel a job (all jobs without an id), for
//                               clients without a progress cancel button
//   warplens.listJobs           the running and queued jobs
//   warplens.reanalyze [{uri}]  analyse a document (or all) again now, e.g.
//                               after compile_commands.json changed
//   warplens.debug.sleep        a cancellable job with progress, only with
//                               --test-commands (end-to-end tests)
// Plus window/workDoneProgress/cancel, which cancels the job behind a token.
#include <chrono>
#include <cstdint>
#include <thread>

#include <spdlog/spdlog.h>

#include "protocol/lsp_window.h"
#include "server/features.h"
#include "server/request_helpers.h"

namespace warplens::server {

using protocol::ErrorCode;

namespace {

// What the built-in commands work on.
struct CommandServices {
  const Workspace& workspace;
  Analyses& analyses;
  Jobs& jobs;
};

void cancel_job(const CommandServices& s, const protocol::ExecuteCommandParams& p, RequestContext& rc) {
  json arg = command_argument(p);
  json cancelled = json::array();
  if (arg.contains("id")) {
    if (!arg["id"].is_number_unsigned())
      throw RequestError(ErrorCode::InvalidParams, "warplens.cancelJob: id must be a job number");
    auto id = arg["id"].get<std::uint64_t>();
    if (!s.jobs.cancel(id)) throw RequestError(ErrorCode::RequestFailed, "no job " + std::to_string(id));
    cancelled.push_back(id);
  } else {
    for (auto id : s.jobs.cancel_all()) cancelled.push_back(id);
  }
  rc.reply.result(json{{"cancelled", cancelled}});
}

void list_jobs(const CommandServices& s, const protocol::ExecuteCommandParams&, RequestContext& rc) {
  json jobs = json::array();
  for (const auto& j : s.jobs.list()) jobs.push_back({{"id", j.id}, {"title", j.title}, {"running", j.running}});
  rc.reply.result(jobs);
}

void reanalyze(const CommandServices& s, const protocol::ExecuteCommandParams& p, RequestContext& rc) {
  json arg = command_argument(p);
  if (auto uri = arg.find("uri"); uri != arg.end() && !uri->is_null()) {
    // Checked: json::value() on a uri of another type threw a type_error,
    // which was answered as an internal error instead of invalid params.
    if (!uri->is_string()) throw RequestError(ErrorCode::InvalidParams, "warplens.reanalyze: `uri` must be a string");
    auto doc = s.workspace.documents.get(uri->get<std::string>());
    if (!doc) throw RequestError(ErrorCode::InvalidParams, "warplens.reanalyze: the document is not open");
    s.analyses.analyze(doc, true);
  } else {
    for (const auto& doc : s.workspace.documents.all()) s.analyses.analyze(doc, true);
  }
  rc.reply.result(nullptr);
}

// A job that only sleeps, in steps, reporting progress: lets end-to-end
// tests exercise jobs, progress and every way of cancelling.
void debug_sleep(const CommandServices& s, const protocol::ExecuteCommandParams& p, RequestContext& rc) {
  json arg = command_argument(p);
  // Checked like any client input (json::value() throws on another type).
  auto integer = [&](const char* key, int fallback) {
    auto it = arg.find(key);
    if (it == arg.end() || it->is_null()) return fallback;
    if (!it->is_number_integer() || it->get<std::int64_t>() < 0 || it->get<std::int64_t>() > 3'600'000)
      throw RequestError(ErrorCode::InvalidParams,
                         std::string("warplens.debug.sleep: `") + key + "` must be an integer from 0 to 3600000");
    return static_cast<int>(it->get<std::int64_t>());
  };
  int ms = integer("ms", 1000);
  int steps = std::max(1, integer("steps", 10));
  s.jobs.start(rc, p.workDoneToken, "warplens.debug.sleep", [ms, steps](JobContext& job) -> json {
    for (int i = 0; i < steps; ++i) {
      if (job.stop.stop_requested()) return nullptr;
      job.report("step " + std::to_string(i + 1) + " of " + std::to_string(steps), 100 * i / steps);
      std::this_thread::sleep_for(std::chrono::milliseconds(ms / steps));
    }
    return json{{"slept_ms", ms}};
  });
}

}  // namespace

void register_commands(Registry& registry, const Workspace& workspace, Analyses& analyses, Jobs& jobs,
                       bool test_commands) {
  CommandServices services{workspace, analyses, jobs};
  auto add = [&registry, services](const std::string& name,
                                   void (*fn)(const CommandServices&, const protocol::ExecuteCommandParams&,
                                              RequestContext&)) {
    registry.commands[name] = [services, fn](const protocol::ExecuteCommandParams& p, RequestContext& rc) {
      fn(services, p, rc);
    };
  };
  add("warplens.cancelJob", cancel_job);
  add("warplens.listJobs", list_jobs);
  add("warplens.reanalyze", reanalyze);
  if (test_commands) add("warplens.debug.sleep", debug_sleep);

  registry.methods.on_request<protocol::ExecuteCommandParams>(
      "workspace/executeCommand", [&registry](const protocol::ExecuteCommandParams& p, RequestContext& rc) {
        auto it = registry.commands.find(p.command);
        if (it == registry.commands.end())
          throw RequestError(ErrorCode::InvalidParams, "unknown command: " + p.command);
        it->second(p, rc);
      });

  registry.methods.on_notification<protocol::WorkDoneProgressCancelParams>(
      "window/workDoneProgress/cancel",
      [&jobs](const protocol::WorkDoneProgressCancelParams& p) { jobs.cancel_token(p.token); });
}

}  // namespace warplens::server
