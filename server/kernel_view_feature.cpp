// warplens.kernelView [{uri, position? | kernel?}]: the numbers behind the
// editor's kernel report view (the pictures: occupancy over block sizes,
// the roofline, optimize results), as plain data the client draws. The
// server computes; the client only lays out.
//
// Answers, for the kernel at the position (its name, a launch of it, or
// anywhere in its definition) or the named one, from the analysis of the
// version the editor has now (resource usage awaited, as for
// warplens.report):
//   {uri, version, kernel: {name, key, signature, line},
//    gpu: {arch, name, source, dram_gbs, fp32_gflops},
//    work: {modelled, intensity, flops_per_thread, bytes_per_thread,
//           trips_known, unknown_loops, fp64, threads, flops_per_launch,
//           bytes_per_launch},
//    findings: [{code, severity, message, line}],
//    ...and what the kernel_view_providers add: `resources` and
//    `occupancy` (occupancy feature), `measured` (profile feature)}.
// docs/editors.md, "The kernel report view", describes every field.
#include "analysis/gpu_catalog.h"
#include "analysis/work_estimate.h"
#include "server/features.h"
#include "server/kernel_info.h"
#include "server/request_helpers.h"

namespace warplens::server {

using protocol::ErrorCode;

namespace {

constexpr const char* kCommand = "warplens.kernelView";

// What warplens.kernelView reads.
struct ViewServices {
  const Registry& registry;  // its kernel_view_providers
  const Workspace& workspace;
  Analyses& analyses;
  const Client& client;
  OccupancyService* resources;  // null when resource usage is off
};

const Function* selected_kernel(const AnalysisRecord& record, const json& arg, formats::PositionEncoding encoding) {
  const KernelModel& model = record.result.model;
  if (auto it = arg.find("kernel"); it != arg.end() && it->is_string()) {
    for (const Function* k : model.kernels())
      if (k->name == it->get<std::string>() || k->key == it->get<std::string>()) return k;
    throw RequestError(ErrorCode::InvalidParams, std::string(kCommand) + ": no kernel `" + it->get<std::string>() +
                                                     "` in this file");
  }
  if (auto it = arg.find("position"); it != arg.end() && it->is_object()) {
    protocol::Position client;
    try {
      it->get_to(client);
    } catch (const std::exception&) {
      throw RequestError(ErrorCode::InvalidParams, std::string(kCommand) + ": position must be {line, character}");
    }
    Position p = engine_position(record, client, encoding);
    if (const Function* k = kernel_at(model, p)) return k;
    for (const Function* k : model.kernels())
      if (k->range.contains_inclusive(p)) return k;
  }
  auto kernels = model.kernels();
  if (kernels.size() == 1) return kernels.front();
  throw RequestError(ErrorCode::InvalidParams, std::string(kCommand) + ": put the cursor in a kernel, or name one");
}

json work_json(const WorkEstimate& w) {
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(); };
  return {{"modelled", w.modelled},
          {"intensity", w.intensity},
          {"flops_per_thread", w.trips_known ? json(w.flops_per_thread) : json()},
          {"bytes_per_thread", w.trips_known ? json(w.bytes_per_thread) : json()},
          {"trips_known", w.trips_known},
          {"unknown_loops", w.unknown_loops},
          {"fp64", w.fp64},
          {"threads", opt(w.threads)},
          {"flops_per_launch", opt(w.flops_per_launch)},
          {"bytes_per_launch", opt(w.bytes_per_launch)}};
}

json build_view(const ViewServices& svc, const RecordPtr& record, const json& arg) {
  const Function& k = *selected_kernel(*record, arg, svc.client.encoding());
  const KernelModel& model = record->result.model;
  formats::TextLookup texts = text_lookup(svc.workspace.documents);
  formats::Converter convert = svc.analyses.converter(texts, record->document);
  json view = {{"uri", record->document->uri},
               {"version", record->document->version},
               {"kernel",
                {{"name", k.name},
                 {"key", k.key},
                 {"signature", k.signature},
                 {"line", convert.range(record->document->path, k.name_range).start.line}}}};
  auto launches = server::launches_of(model, k);
  view["work"] = work_json(estimate_work(model, k, launches.empty() ? nullptr : launches.front()));
  // The GPU the numbers are for; the occupancy feature replaces it with the
  // one resource usage was computed for (a local GPU's real limits).
  const Settings& settings = svc.workspace.settings();
  if (auto gpu = catalog_properties(settings.arch))
    view["gpu"] = {{"arch", gpu->arch}, {"name", gpu->name}, {"source", gpu->source},
                   {"dram_gbs", gpu->dram_bandwidth_gbs}, {"fp32_gflops", gpu->fp32_gflops}};
  else
    view["gpu"] = {{"arch", settings.arch}, {"name", ""}, {"source", "unknown architecture"},
                   {"dram_gbs", nullptr}, {"fp32_gflops", nullptr}};
  json findings = json::array();
  for (const auto& f : svc.analyses.findings_for(*record)) {
    if (f.kernel != k.key && !(f.location.range.start.line >= k.range.start.line &&
                               f.location.range.end.line <= k.range.end.line && convert.file_of(f.location) ==
                                                                                   record->document->path))
      continue;
    findings.push_back({{"code", f.code},
                        {"severity", static_cast<int>(f.severity)},
                        {"message", f.message},
                        {"line", convert.range(convert.file_of(f.location), f.location.range).start.line}});
  }
  view["findings"] = std::move(findings);
  for (const auto& provider : svc.registry.kernel_view_providers) provider(KernelViewQuery{*record, k}, view);
  return view;
}

void kernel_view(const std::shared_ptr<const ViewServices>& svc, const protocol::ExecuteCommandParams& p,
                 RequestContext& rc) {
  json arg = command_argument(p);
  DocumentPtr doc = command_document(arg, kCommand, svc->workspace);
  Reply reply = rc.reply;
  svc->analyses.when_ready(doc->uri, doc->version, [svc, reply, arg](RecordPtr record, std::optional<WaitError> error) {
    if (reply.done()) return;
    if (error) {
      if (*error == WaitError::ContentModified)
        return reply.error(ErrorCode::ContentModified, "the document changed; ask again");
      return reply.error(ErrorCode::RequestFailed,
                         std::string(kCommand) + ": no analysis of this version (" + to_string(*error) + ")");
    }
    auto answer = [svc, reply, record, arg](OccupancyPtr) {
      if (reply.done()) return;
      try {
        reply.result(build_view(*svc, record, arg));
      } catch (const RequestError& e) {
        reply.error(e.code(), e.what());
      } catch (const std::exception& e) {
        reply.error(ErrorCode::InternalError, std::string(kCommand) + ": " + e.what());
      }
    };
    if (svc->resources)
      svc->resources->when_ready(record, answer);
    else
      answer(nullptr);
  });
}

}  // namespace

void register_kernel_view(Registry& registry, const Workspace& workspace, Analyses& analyses, const Client& client,
                          OccupancyService* resources) {
  auto svc = std::make_shared<const ViewServices>(ViewServices{registry, workspace, analyses, client, resources});
  registry.commands[kCommand] = [svc](const protocol::ExecuteCommandParams& p, RequestContext& rc) {
    kernel_view(svc, p, rc);
  };
}

}  // namespace warplens::server
