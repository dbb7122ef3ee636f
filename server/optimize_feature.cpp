// "Optimize this kernel" in the editor (issue 8).
//
//   warplens.optimize [{uri, position | range | kernel, budget?}]
//       A cancellable job on the job runner (one GPU job at a time, with
//       window/workDoneProgress): the kernel at the position (its name, a
//       launch of it, or anywhere in its definition) or the named kernel is
//       optimised by the backend (workflows/optimize.h: the built-in
//       rewrite search or the configured LLM, every candidate checked and
//       timed on the local GPU, against the kernel's launches captured from
//       profileCommand or the file's own checking main()).
//       `budget` is the job's wall time in seconds (default 600).
//       Answers {summary, rewrites: [{title, edit, summary}], kernel, version,
//       gpu, candidates: [{id, title, before_ms, after_ms, speedup, correct,
//       compiled, level, verdict, reason}] (every candidate verified: the
//       editor draws before/after bars from them), report}: `report` is the
//       full markdown report's path (every
//       candidate and verdict, workflows/optimize_report_file.h), also named at
//       the end of the summary;
//       only rewrites the verifier passed at reward level >= 2, fastest
//       first, each a WorkspaceEdit versioned to the text the job started
//       from. When that document changed (or closed) while the job ran, no
//       rewrite is returned and the summary says so. Cancel with
//       $/cancelRequest, window/workDoneProgress/cancel or warplens.cancelJob
//       (the request then fails with RequestCancelled). When nothing can be
//       verified (no GPU, unsaved file with profileCommand, no profileCommand
//       and no main(), a failed build or capture, a misconfigured LLM) the
//       job fails with a message saying so and nothing is offered.
//
// Every kernel the range touches gets a code action "Optimize kernel `name`"
// (kind refactor), carrying the warplens diagnostics of the request, so it is
// offered from a kernel's findings too. It runs the client-side command
// warplens.optimizeKernel {uri, kernel}: the editors run warplens.optimize
// through their job UI (progress, Cancel, preview), which a code action's
// plain executeCommand would bypass.
//
// The winners of the last job on a kernel are also code actions on that
// kernel (kind refactor.rewrite), until the document changes. They carry the
// client-side command warplens.previewRewrite with the same {title, edit,
// summary}: the editor shows a diff and applies only on the user's say. The
// server never lists warplens.previewRewrite in executeCommandProvider.
#include <chrono>
#include <future>
#include <map>

#include <boost/asio/post.hpp>
#include <spdlog/spdlog.h>

#include "server/features.h"
#include "server/kernel_info.h"
#include "server/optimize_rewrites.h"
#include "server/request_helpers.h"
#include "workflows/optimize_report_file.h"
#include "workflows/verified_rewrites.h"

namespace warplens::server {

using protocol::ErrorCode;

namespace {

constexpr const char* kCommand = "warplens.optimize";
constexpr const char* kPreviewCommand = "warplens.previewRewrite";  // the client's, never ours
constexpr const char* kOptimizeKernelCommand = "warplens.optimizeKernel";  // the client's, never ours
constexpr const char* kProvider = "optimize";
constexpr double kDefaultBudgetSeconds = 600;

struct KernelWinners {
  std::int64_t version = 0;  // the document version they were verified for
  std::vector<RewriteOffer> rewrites;
};

struct OptimizeState {
  std::map<std::string, std::map<std::string, KernelWinners>> winners;  // by uri, then kernel name
};
using StatePtr = std::shared_ptr<OptimizeState>;

// What the optimize feature works on; shared by its command, its job's last
// step and its code actions.
struct OptimizeServices {
  const Workspace& workspace;
  Analyses& analyses;
  const Client& client;
  Jobs& jobs;
  workflows::GpuProbe gpu_probe;       // the server's (empty: the workflow's default)
  workflows::OptimizeBackend backend;  // empty: gpu_optimize_backend with gpu_probe
};
using ServicesPtr = std::shared_ptr<const OptimizeServices>;

struct Target {
  DocumentPtr document;
  std::optional<protocol::Position> position;
  std::string kernel;
  double budget_seconds = kDefaultBudgetSeconds;
};

Target parse_target(const protocol::ExecuteCommandParams& p, const Workspace& workspace) {
  json arg = command_argument(p);
  Target t;
  t.document = command_document(arg, kCommand, workspace);
  try {
    if (auto it = arg.find("position"); it != arg.end() && !it->is_null())
      t.position = it->get<protocol::Position>();
    else if (auto r = arg.find("range"); r != arg.end() && !r->is_null())
      t.position = r->get<protocol::Range>().start;
  } catch (const json::exception&) {
    throw RequestError(ErrorCode::InvalidParams, std::string(kCommand) + ": position/range must be an LSP Position/Range");
  }
  if (auto it = arg.find("kernel"); it != arg.end() && !it->is_null()) {
    if (!it->is_string() || it->get<std::string>().empty())
      throw RequestError(ErrorCode::InvalidParams, std::string(kCommand) + ": kernel must be a kernel name");
    t.kernel = it->get<std::string>();
  }
  if (!t.position && t.kernel.empty())
    throw RequestError(ErrorCode::InvalidParams,
                       std::string(kCommand) + " needs a position or range inside a kernel, or a kernel name");
  if (auto it = arg.find("budget"); it != arg.end() && !it->is_null()) {
    if (!it->is_number() || it->get<double>() <= 0)
      throw RequestError(ErrorCode::InvalidParams, std::string(kCommand) + ": budget must be a number of seconds > 0");
    t.budget_seconds = it->get<double>();
  }
  return t;
}

const Function* kernel_named(const KernelModel& model, const std::string& name) {
  for (const auto& f : model.functions)
    if (f.kind == FunctionKind::Kernel && f.name == name) return &f;
  return nullptr;
}

// The kernel whose name or launch is at `p`, else the kernel defined around it.
const Function* kernel_around(const KernelModel& model, Position p) {
  if (const Function* f = kernel_at(model, p); f && f->kind == FunctionKind::Kernel) return f;
  for (const auto& f : model.functions)
    if (f.kind == FunctionKind::Kernel && f.range.contains_inclusive(p)) return &f;
  return nullptr;
}

std::string job_summary(const workflows::OptimizeOutcome& outcome, const std::vector<RewriteOffer>& rewrites) {
  const auto& r = outcome.result;
  if (rewrites.empty()) return "`" + r.kernel + "`: " + r.summary;
  return "`" + r.kernel + "`: " + std::to_string(rewrites.size()) + " verified rewrite" +
         (rewrites.size() == 1 ? "" : "s") + ", best " + workflows::format_speedup(rewrites.front().speedup) +
         " faster on " +
         outcome.gpu_name + " (" + std::to_string(r.tried.size()) + " candidate" + (r.tried.size() == 1 ? "" : "s") +
         " tried)";
}

// Every candidate the job verified, as plain data for the editor's
// before/after bars: the original's and the candidate's median times on the
// GPU (0 when not timed), and how the verifier judged it.
json candidates_json(const workflows::OptimizeOutcome& outcome) {
  json out = json::array();
  for (const auto& t : outcome.result.tried) {
    const auto& v = t.verdict;
    out.push_back({{"id", t.candidate.id},
                   {"title", t.candidate.description},
                   {"before_ms", v.original.median_ms},
                   {"after_ms", v.candidate.median_ms},
                   {"speedup", v.speedup},
                   {"correct", v.correct},
                   {"compiled", v.compiled},
                   {"level", agent::to_int(v.level)},
                   {"verdict", agent::describe(v.level)},
                   {"reason", v.reason}});
  }
  return out;
}

// On the io thread, after the job: the answer, and the code actions, for the
// document version the job started from, unless the user has edited since.
json finish(const OptimizeServices& svc, OptimizeState& state, const workflows::OptimizeOutcome& outcome, const DocumentPtr& started,
           const std::string& report_path) {
  formats::TextLookup texts = text_lookup(svc.workspace.documents);
  formats::Converter convert = svc.analyses.converter(texts, started);
  std::vector<RewriteOffer> rewrites = rewrite_offers(workflows::verified_rewrites(outcome), *started, convert);
  const std::string& kernel = outcome.result.kernel;
  json answer = {{"kernel", kernel},
                 {"version", started->version},
                 {"rewrites", json::array()},
                 {"gpu", outcome.gpu_name},
                 {"candidates", candidates_json(outcome)}};
  const std::string report_note = report_path.empty() ? "" : " Full report: " + report_path;
  if (!report_path.empty()) answer["report"] = report_path;

  auto current = svc.workspace.documents.get(started->uri);
  if (!current || current->version != started->version) {
    state.winners[started->uri].erase(kernel);
    std::string what = current ? "the document changed while the job ran (version " +
                                     std::to_string(started->version) + " → " + std::to_string(current->version) + ")"
                               : "the document was closed while the job ran";
    answer["summary"] = "`" + kernel + "`: " + what + "; the " + std::to_string(rewrites.size()) +
                        " verified rewrite(s) apply to the old text and are not offered. Run Optimize again." +
                        report_note;
    return answer;
  }
  answer["summary"] = job_summary(outcome, rewrites) + report_note;
  for (const auto& r : rewrites) answer["rewrites"].push_back(to_json(r));
  if (rewrites.empty())
    state.winners[started->uri].erase(kernel);
  else
    state.winners[started->uri][kernel] = KernelWinners{started->version, std::move(rewrites)};
  return answer;
}

// The editor's settings as the optimize workflow takes them: the LLM policy
// when warplens.llm.endpoint or warplens.llm.model is set, verified against
// the workspace's program (profileCommand) or the file's own main().
workflows::OptimizeContext optimize_context(const Workspace& workspace, const Document& doc) {
  const Settings& s = workspace.settings();
  workflows::OptimizeContext c;
  c.names = workflows::SettingNames::editor();
  c.policy.llm = !s.llm.endpoint.empty() || !s.llm.model.empty();
  c.policy.llm_settings = s.llm;
  c.verify.against = workflows::VerifyChoice::Against::Workspace;
  c.verify.profile_command = s.profile_command;
  c.verify.build_command = s.build_command;
  c.verify.working_directory = workspace.folder_for(doc.path);
  c.verify.document_saved = matches_disk(doc);
  c.analysis = workspace.analysis_options();
  // The built-in search parses with the settings the diagnostics used
  // (compile_commands.json, CUDA path, arch): one front end, one view of the file.
  c.policy.engine.analysis = c.analysis;
  return c;
}

void launch(const ServicesPtr& svc, const std::weak_ptr<OptimizeState>& weak, RequestContext& request,
            const std::optional<protocol::ProgressToken>& token, DocumentPtr doc, const RecordPtr& record,
            const std::string& kernel, double budget_seconds) {
  agent::OptimizeRequest req;
  req.file = SourceFile{doc->path, doc->text.text()};
  req.kernel = kernel;
  req.budget.wall_seconds = budget_seconds;
  req.budget.gpu_seconds = std::min(budget_seconds, req.budget.gpu_seconds);
  if (record && record->document->version == doc->version) req.findings = svc->analyses.findings_for(*record);
  workflows::OptimizeContext context = optimize_context(svc->workspace, *doc);
  workflows::GpuBackendOptions gpu;  // the defaults, with the server's probe
  gpu.probe = svc->gpu_probe;
  workflows::OptimizeBackend backend = svc->backend ? svc->backend : workflows::gpu_optimize_backend(gpu);

  svc->jobs.start(request, token, "warplens: optimizing " + kernel,
            [svc, weak, req, context, doc, backend](JobContext& job) -> JobResult {
              const double budget = req.budget.wall_seconds;
              auto progress = [&job, budget](const agent::JobProgress& p) {
                int pct = static_cast<int>(std::min(99.0, 100.0 * p.elapsed_seconds / budget));
                std::string m = std::to_string(p.verified) + " verified, " + std::to_string(p.faster) + " faster";
                if (p.best_speedup > 0) m += ", best " + workflows::format_speedup(p.best_speedup);
                if (!p.message.empty()) m += ": " + p.message;
                job.report(m, pct);
              };
              // OptimizeUnavailable (no GPU, nothing to verify against, a
              // misconfigured LLM) fails the request with its message; the
              // editor shows that error, so it is not also sent as a
              // window/showMessage (the user would read it twice).
              workflows::OptimizeOutcome outcome = backend(req, context, progress, job.stop);
              if (job.stop.stop_requested()) return nullptr;  // the runner answers RequestCancelled
              if (outcome.result.stop_reason == agent::StopReason::Error)
                throw std::runtime_error("optimizing `" + req.kernel + "` failed: " + outcome.result.error);
              job.report("preparing the verified rewrites", 99);
              const std::string report_path = workflows::save_optimize_report(outcome.result, req.file.text);
              // The code actions and the document state are the io thread's.
              return JobResult::finish_on_io(
                  [svc, weak, outcome = std::move(outcome), doc, report_path](JobCompletion done) {
                    auto state = weak.lock();
                    done.result(state ? finish(*svc, *state, outcome, doc, report_path) : json(nullptr));
                  });
            });
}

void optimize_command(const ServicesPtr& svc, const StatePtr& state, const protocol::ExecuteCommandParams& p,
                      RequestContext& rc) {
  Target target = parse_target(p, svc->workspace);
  std::weak_ptr<OptimizeState> weak = state;
  auto token = p.workDoneToken;
  // The kernel is found in the analysis of the version the command names.
  svc->analyses.when_ready(
      target.document->uri, target.document->version,
      [svc, weak, request = rc, token, target](RecordPtr record, std::optional<WaitError> error) mutable {
        if (request.stop.stop_requested() || request.reply.done()) return;  // cancelled: already answered
        try {
          if (error == WaitError::ContentModified)
            throw RequestError(ErrorCode::ContentModified, "the document changed before the job started; run Optimize again");
          if (error == WaitError::Closed) throw RequestError(ErrorCode::InvalidParams, "the document was closed");
          if (error == WaitError::ShuttingDown) throw RequestError(ErrorCode::RequestFailed, "the server is shutting down");
          std::string kernel = target.kernel;
          if (record && !error) {
            // A file warplens would not fully read (an #include of a device,
            // a FIFO, a binary) or that was too large to analyse is not
            // handed to the rewrite engine's and nvcc's own parses either.
            for (const auto& f : record->result.findings)
              if (f.code == codes::kAnalysisLimit)
                throw RequestError(ErrorCode::RequestFailed, "warplens.optimize: not optimised: " + f.message);
            const KernelModel& model = record->result.model;
            if (kernel.empty()) {
              const Function* f = kernel_around(model, engine_position(*record, *target.position, svc->client.encoding()));
              if (!f)
                throw RequestError(ErrorCode::InvalidParams,
                                   "no kernel at line " + std::to_string(target.position->line + 1) +
                                       ": put the cursor on a __global__ function or one of its launches");
              kernel = f->name;
            } else if (record->result.parsed && !kernel_named(model, kernel)) {
              throw RequestError(ErrorCode::InvalidParams, "no kernel named `" + kernel + "` in this file");
            }
          } else if (kernel.empty()) {
            throw RequestError(ErrorCode::RequestFailed,
                               "the file could not be analysed, so the kernel at the cursor is unknown; name it "
                               "with `kernel`");
          }
          launch(svc, weak, request, token, target.document, record, kernel, target.budget_seconds);
        } catch (const RequestError& e) {
          request.reply.error(e.code(), e.what());
        } catch (const std::exception& e) {
          // This runs on the io thread after the analysis, outside the
          // dispatch that answers a throwing handler: answered here.
          spdlog::error("warplens.optimize failed: {}", e.what());
          request.reply.error(ErrorCode::InternalError, std::string("internal error in warplens.optimize: ") + e.what());
        }
      });
}

// Code actions: the last job's winners on the kernel the range touches,
// while the document is still at the version they were verified for.
std::vector<protocol::CodeAction> winner_actions(OptimizeState& state, const CodeActionQuery& q) {
  std::vector<protocol::CodeAction> actions;
  auto it = state.winners.find(q.record.document->uri);
  if (it == state.winners.end()) return actions;
  for (auto w = it->second.begin(); w != it->second.end();) {
    if (w->second.version != q.record.document->version) {  // edited since: never offered again
      w = it->second.erase(w);
      continue;
    }
    const Function* f = kernel_named(q.record.result.model, w->first);
    if (f && touches(f->range, q.range)) {
      for (const auto& r : w->second.rewrites) {
        protocol::CodeAction a;
        a.title = r.title;
        a.kind = protocol::code_action_kind::kRefactorRewrite;
        a.command = protocol::Command{r.title, kPreviewCommand, json::array({to_json(r)})};
        actions.push_back(std::move(a));
      }
    }
    ++w;
  }
  for (const auto& f : q.record.result.model.functions) {
    if (f.kind != FunctionKind::Kernel || !touches(f.range, q.range)) continue;
    protocol::CodeAction a;
    a.title = "Optimize kernel `" + f.name + "` (rewrites verified on the GPU)";
    a.kind = protocol::code_action_kind::kRefactor;
    for (const auto& d : q.params.context.diagnostics)
      if (d.source && d.source->rfind("warplens", 0) == 0) a.diagnostics.push_back(d);
    a.command = protocol::Command{a.title, kOptimizeKernelCommand,
                                  json::array({json{{"uri", q.record.document->uri}, {"kernel", f.name}}})};
    actions.push_back(std::move(a));
  }
  return actions;
}

}  // namespace

void register_optimize(Registry& registry, Events& events, const Workspace& workspace, Analyses& analyses,
                       const Client& client, Jobs& jobs, workflows::GpuProbe gpu_probe,
                       workflows::OptimizeBackend backend) {
  auto state = std::make_shared<OptimizeState>();
  auto svc = std::make_shared<const OptimizeServices>(
      OptimizeServices{workspace, analyses, client, jobs, std::move(gpu_probe), std::move(backend)});
  registry.commands[kCommand] = [svc, state](const protocol::ExecuteCommandParams& p, RequestContext& rc) {
    optimize_command(svc, state, p, rc);
  };
  if (registry.capabilities.codeActionProvider) {
    registry.capabilities.codeActionProvider->codeActionKinds.push_back(protocol::code_action_kind::kRefactor);
    registry.capabilities.codeActionProvider->codeActionKinds.push_back(protocol::code_action_kind::kRefactorRewrite);
  }
  registry.code_action_providers.push_back(
      {kProvider, [state](const CodeActionQuery& q) { return winner_actions(*state, q); },
       // The actions carry a command, not an edit: nothing to resolve.
       [](protocol::CodeAction&, const AnalysisRecord&) {}});
  events.document_closed.connect([state](const std::string& uri) { state->winners.erase(uri); });
}

}  // namespace warplens::server
