// Measured results in the editor (issue 6).
//
//   warplens.profile [{uri, position?, profileFile?}]
//       A cancellable job on the job runner (one GPU job at a time, with
//       progress): gets a profile (workflows/profile.h: a recorded file, the
//       workspace's buildCommand + profileCommand, or a single .cu file with
//       main) and attaches it to the document, tied to the version the
//       command ran on, and to the other open documents it has lines for.
//       Answers {summary, kernels, findings, version}. Without a GPU the
//       job fails with a message saying so (the request's error, which the
//       editor shows); nothing else changes.
//   warplens.clearProfile [{uri?}]
//       Forgets the measured results of one document, or of all.
//
// Measured results reach the editor through the extension points:
//   - diagnostics (source `warplens-profile`) on the exact lines, placed with
//     the document's static model, published with the static findings of
//     each version; after an edit they are marked stale (measured_results.h);
//   - a code lens per measured kernel: time per launch, effective bandwidth
//     against the GPU's peak, launches;
//   - hover: the static prediction beside the measurement, on a measured
//     line and on a kernel's name.
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <sstream>

#include <boost/asio/post.hpp>
#include <spdlog/spdlog.h>

#include "profiler/gpu_probe.h"
#include "server/features.h"
#include "server/kernel_info.h"
#include "server/measured_hover.h"
#include "server/measured_results.h"
#include "workflows/profile.h"
#include "server/request_helpers.h"

namespace warplens::server {

namespace fs = std::filesystem;
using protocol::ErrorCode;

namespace {

struct ProfileState {
  std::map<std::string, MeasuredDocument> measured;  // by uri
};
using StatePtr = std::shared_ptr<ProfileState>;

// What the profile feature works on; shared by its commands, its jobs'
// last steps and its providers.
struct ProfileServices {
  Events& events;
  const Workspace& workspace;
  Analyses& analyses;
  Client& client;
  Jobs& jobs;
  const OccupancyService* resources;  // null when resource usage is off
  workflows::GpuProbe gpu_probe;      // the server's, or profile::probe_gpus
};
using ServicesPtr = std::shared_ptr<const ProfileServices>;

std::string file_name(const std::string& path) { return fs::path(path).filename().string(); }

// "measured · profiled `./app` on NVIDIA H200" or "stale: measured on version 3 · ..."
std::string heading(const MeasuredDocument& m, const Document& doc) {
  return (measured_current(m, doc) ? std::string("measured") : "stale: measured on version " + std::to_string(m.version)) +
         " · " + m.origin;
}

// Replaces the previous profile with `result`, placed on `document` (the
// command's, at the version it ran on; `record` is its analysis when one
// exists) and on the other open documents the profile has lines for.
json attach(const ProfileServices& svc, ProfileState& state, const workflows::ProfileJobResult& result, const DocumentPtr& document,
            const RecordPtr& record) {
  std::vector<std::string> changed;
  for (const auto& [uri, m] : state.measured) changed.push_back(uri);
  state.measured.clear();

  std::size_t findings = 0, elsewhere = 0;
  if (svc.workspace.documents.get(document->uri)) {
    const KernelModel* model =
        record && record->document->text.text() == document->text.text() ? &record->result.model : nullptr;
    auto& m = state.measured[document->uri] = measure_document(result.profile, result.origin, *document, model);
    findings = m.findings.size();
    changed.push_back(document->uri);
  }
  for (const auto& doc : svc.workspace.documents.all()) {
    if (doc->uri == document->uri || doc->path.empty() || !profile_covers(*result.profile, doc->path)) continue;
    if (!matches_disk(*doc)) {
      spdlog::info("profile: {} has unsaved changes; its measured lines are not shown", doc->path);
      continue;
    }
    auto current = svc.analyses.current(doc->uri);
    auto& m = state.measured[doc->uri] =
        measure_document(result.profile, result.origin, *doc, current ? &current->result.model : nullptr);
    elsewhere += m.findings.size();
    changed.push_back(doc->uri);
  }
  for (const auto& uri : changed) svc.events.diagnostics_changed.emit(uri);
  svc.client.refresh_code_lenses();

  const auto& p = *result.profile;
  std::string summary = result.origin + ": " + std::to_string(p.kernels.size()) + " kernel" +
                        (p.kernels.size() == 1 ? "" : "s") + ", " + std::to_string(findings) + " measured finding" +
                        (findings == 1 ? "" : "s") + " in " + file_name(document->path);
  if (elsewhere) summary += " and " + std::to_string(elsewhere) + " in other open files";
  for (const auto& w : p.warnings) summary += "; " + w.message;
  return json{{"summary", summary},
              {"kernels", p.kernels.size()},
              {"findings", findings},
              {"version", document->version},
              {"warnings", p.warnings.size()}};
}

// On the io thread: waits for the analysis of the version the command ran
// on (its model places load and store findings precisely), then attaches.
void attach_when_ready(const ServicesPtr& svc, const std::weak_ptr<ProfileState>& weak, workflows::ProfileJobResult result,
                       DocumentPtr document, JobCompletion done) {
  auto finish = [svc, weak, result, document, done](RecordPtr record) {
    auto state = weak.lock();
    if (!state) return done.result(nullptr);
    // On the io thread (a scheduler reader): a failure answers the request,
    // as optimize's finish does.
    try {
      done.result(attach(*svc, *state, result, document, record));
    } catch (...) {
      done.fail(std::current_exception());
    }
  };
  auto current = svc->workspace.documents.get(document->uri);
  if (current && current->version == document->version) {
    svc->analyses.when_ready(document->uri, document->version,
                             [finish](RecordPtr record, std::optional<WaitError>) { finish(std::move(record)); });
  } else {
    finish(svc->analyses.latest(document->uri));
  }
}

void profile_command(const ServicesPtr& svc, const StatePtr& state, const protocol::ExecuteCommandParams& p,
                     RequestContext& rc) {
  json arg = command_argument(p);
  DocumentPtr doc = command_document(arg, "warplens.profile", svc->workspace);
  workflows::ProfileJobRequest req;
  req.document_path = doc->path;
  req.document_text = doc->text.text();
  if (auto it = arg.find("profileFile"); it != arg.end() && !it->is_null()) {
    if (!it->is_string() || it->get<std::string>().empty())
      throw RequestError(ErrorCode::InvalidParams, "warplens.profile: profileFile must be a file path");
    req.profile_file = it->get<std::string>();
  }
  req.profile_command = svc->workspace.settings().profile_command;
  req.build_command = svc->workspace.settings().build_command;
  req.working_directory = svc->workspace.folder_for(doc->path);
  workflows::GpuProbe probe = svc->gpu_probe;
  std::weak_ptr<ProfileState> weak = state;
  svc->jobs.start(rc, p.workDoneToken, "warplens: profiling " + file_name(doc->path),
            [svc, weak, req, doc, probe](JobContext& job) -> JobResult {
              // A ProfileJobError (no GPU, a failed build) fails the request
              // with its message, which the editor shows (once: not also as
              // window/showMessage).
              workflows::ProfileJobResult result = workflows::run_profile_job(
                  req, job.stop, [&job](workflows::ProfileStage, const std::string& m, int pct) { job.report(m, pct); }, probe);
              if (!result.profile) return nullptr;  // cancelled
              job.report("placing the results", 99);
              // Measured results attach to the document's analysis, which
              // is the io thread's; the reply comes when they are attached.
              return JobResult::finish_on_io([svc, weak, result, doc](JobCompletion done) {
                attach_when_ready(svc, weak, result, doc, std::move(done));
              });
            });
}

void clear_profile(const ProfileServices& svc, ProfileState& state, const protocol::ExecuteCommandParams& p,
                   RequestContext& rc) {
  json arg = command_argument(p);
  std::vector<std::string> cleared;
  if (auto it = arg.find("uri"); it != arg.end() && !it->is_null()) {
    if (!it->is_string()) throw RequestError(ErrorCode::InvalidParams, "warplens.clearProfile: uri must be a string");
    if (state.measured.erase(it->get<std::string>())) cleared.push_back(it->get<std::string>());
  } else {
    for (const auto& [uri, m] : state.measured) cleared.push_back(uri);
    state.measured.clear();
  }
  for (const auto& uri : cleared) svc.events.diagnostics_changed.emit(uri);
  if (!cleared.empty()) svc.client.refresh_code_lenses();
  rc.reply.result(json{{"cleared", cleared}});
}

const MeasuredDocument* measured_for(const ProfileState& state, const AnalysisRecord& record) {
  auto it = state.measured.find(record.document->uri);
  return it == state.measured.end() ? nullptr : &it->second;
}

std::optional<HoverSection> measured_hover(const OccupancyService* resources_service, const ProfileState& state,
                                          const HoverQuery& q) {
  const MeasuredDocument* m = measured_for(state, q.record);
  if (!m) return std::nullopt;
  const Document& doc = *q.record.document;
  std::string head = heading(*m, doc);

  Range where;
  if (const Function* kernel = kernel_at(q.record.result.model, q.position, &where)) {
    const profile::KernelSummary* s = measured_kernel(*m, q.record.result.model, *kernel);
    if (!s) return std::nullopt;
    const KernelResourceReport* predicted = nullptr;
    OccupancyPtr resources = resources_service ? resources_service->result(q.record) : nullptr;
    if (resources)
      for (const auto& r : resources->kernels)
        if (r.kernel == kernel->key) predicted = &r;
    return HoverSection{kernel_prediction_vs_measurement(kernel->name, predicted, *s,
                                                         m->profile->find_kernel(s->mangled), head),
                        where, HoverOrder::kMeasured};
  }

  std::string markdown;
  std::optional<Range> first;
  for (const auto& f : measured_findings_for(*m, doc)) {
    const Range& r = f.location.range;
    if (!(r.empty() ? r.start == q.position : r.contains(q.position))) continue;
    std::vector<const Finding*> predicted;
    for (const auto& s : q.record.result.findings)
      if (s.code == f.code && s.source != "warplens-profile" && s.location.range.start.line <= r.start.line &&
          r.start.line <= s.location.range.end.line)
        predicted.push_back(&s);
    if (!markdown.empty()) markdown += "\n\n";
    markdown += prediction_vs_measurement(predicted, f, head);
    if (!first) first = r;
  }
  if (markdown.empty()) return std::nullopt;
  return HoverSection{markdown, first, HoverOrder::kMeasured};
}

}  // namespace

void register_profile(Registry& registry, Events& events, const Workspace& workspace, Analyses& analyses,
                      Client& client, Jobs& jobs, const OccupancyService* resources, workflows::GpuProbe gpu_probe) {
  auto state = std::make_shared<ProfileState>();
  if (!gpu_probe) gpu_probe = [](std::stop_token s) { return profile::probe_gpus(s); };
  auto svc = std::make_shared<const ProfileServices>(
      ProfileServices{events, workspace, analyses, client, jobs, resources, std::move(gpu_probe)});
  registry.commands["warplens.profile"] = [svc, state](const protocol::ExecuteCommandParams& p, RequestContext& rc) {
    profile_command(svc, state, p, rc);
  };
  registry.commands["warplens.clearProfile"] = [svc, state](const protocol::ExecuteCommandParams& p,
                                                            RequestContext& rc) { clear_profile(*svc, *state, p, rc); };

  registry.findings_providers.push_back([state](const AnalysisRecord& record) -> std::vector<Finding> {
    const MeasuredDocument* m = measured_for(*state, record);
    return m ? measured_findings_for(*m, *record.document) : std::vector<Finding>{};
  });

  registry.code_lens_providers.push_back([state](const CodeLensQuery& q) -> std::vector<KernelLens> {
    const MeasuredDocument* m = measured_for(*state, q.record);
    if (!m) return {};
    const profile::KernelSummary* s = measured_kernel(*m, q.record.result.model, q.kernel);
    if (!s) return {};
    std::string prefix = measured_current(*m, *q.record.document)
                             ? "measured: "
                             : "measured on version " + std::to_string(m->version) + " (stale): ";
    return {KernelLens{prefix + s->title, std::nullopt}};
  });

  registry.hover_providers.push_back(
      [resources, state](const HoverQuery& q) { return measured_hover(resources, *state, q); });

  // The kernel report view's measured point (the roofline's "measured").
  registry.kernel_view_providers.push_back([state](const KernelViewQuery& q, json& view) {
    const MeasuredDocument* m = measured_for(*state, q.record);
    const profile::KernelSummary* s = m ? measured_kernel(*m, q.record.result.model, q.kernel) : nullptr;
    if (!s) {
      view["measured"] = nullptr;
      return;
    }
    auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(); };
    view["measured"] = {{"origin", m->origin},
                        {"version", m->version},
                        {"stale", !measured_current(*m, *q.record.document)},
                        {"launches", s->launches},
                        {"time_ns", opt(s->mean_ns)},
                        {"effective_gbs", opt(s->effective_gbs)},
                        {"requested_gbs", opt(s->requested_gbs)},
                        {"effective_bytes_per_launch", opt(s->effective_bytes_per_launch)},
                        {"requested_bytes_per_launch", opt(s->requested_bytes_per_launch)},
                        {"peak_gbs", s->peak_gbs > 0 ? json(s->peak_gbs) : json()},
                        {"title", s->title}};
  });

  events.document_closed.connect([state](const std::string& uri) { state->measured.erase(uri); });
}

}  // namespace warplens::server
