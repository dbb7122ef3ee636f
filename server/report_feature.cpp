// warplens.report [{uri, position?, kernel?}]: the kernel report of an open
// document as JSON, the same document `warplens report --format json`
// prints ({warplens, files: [one file]}), from the analysis of the version
// the editor has now and the resource usage computed for it (waited for when
// nvcc is still running). `diagnostics` holds every diagnostic of that
// version (front end, static analyses, resource usage, measured). Ranges use
// the session's position encoding. With a position or a kernel name that
// names a kernel, `kernel` is that kernel's key, so an editor can scroll to
// it.
#include "server/features.h"
#include "server/kernel_info.h"
#include "workflows/resources.h"
#include "formats/report_json.h"
#include "server/request_helpers.h"

namespace warplens::server {

using protocol::ErrorCode;

namespace {

// What warplens.report reads.
struct ReportServices {
  const Workspace& workspace;
  Analyses& analyses;
  const Client& client;
  OccupancyService* resources;  // null when resource usage is off
  std::string server_version;
};

std::string selected_kernel(const AnalysisRecord& record, const json& arg, formats::PositionEncoding encoding) {
  const KernelModel& model = record.result.model;
  if (auto it = arg.find("kernel"); it != arg.end() && it->is_string())
    for (const Function* k : model.kernels())
      if (k->name == it->get<std::string>() || k->key == it->get<std::string>()) return k->key;
  if (auto it = arg.find("position"); it != arg.end() && it->is_object()) {
    protocol::Position client;
    try {
      it->get_to(client);
    } catch (const std::exception&) {
      throw RequestError(ErrorCode::InvalidParams, "warplens.report: position must be {line, character}");
    }
    Position p = engine_position(record, client, encoding);
    if (const Function* k = kernel_at(model, p)) return k->key;
    for (const Function* k : model.kernels())  // the kernel whose definition holds the cursor
      if (k->range.contains(p)) return k->key;
  }
  return {};
}

json build_report(const ReportServices& svc, const RecordPtr& record, const OccupancyPtr& resources, const json& arg) {
  std::string skipped;
  if (!resources)
    skipped = !svc.resources ? "resource usage is off (--no-resource-usage)"
                             : workflows::resource_skip_reason(record->result).empty() ? "superseded by a newer version"
                                                                            : workflows::resource_skip_reason(record->result);
  std::vector<Finding> diagnostics = svc.analyses.findings_for(*record);
  formats::TextLookup texts = text_lookup(svc.workspace.documents);
  formats::Converter convert = svc.analyses.converter(texts, record->document);
  formats::FileReport report{record->document->path, &record->result, resources.get(), skipped, &diagnostics};
  json file = formats::file_report_json(report, convert);
  file["version"] = record->document->version;
  json out = {{"warplens", svc.server_version}, {"files", json::array({file})}};
  std::string kernel = selected_kernel(*record, arg, svc.client.encoding());
  out["kernel"] = kernel.empty() ? json() : json(kernel);
  return out;
}

void report_command(const std::shared_ptr<const ReportServices>& svc, const protocol::ExecuteCommandParams& p,
                    RequestContext& rc) {
  json arg = command_argument(p);
  DocumentPtr doc = command_document(arg, "warplens.report", svc->workspace);
  Reply reply = rc.reply;
  svc->analyses.when_ready(doc->uri, doc->version, [svc, reply, arg](RecordPtr record, std::optional<WaitError> error) {
    if (reply.done()) return;
    if (error) {
      if (*error == WaitError::ContentModified)
        return reply.error(ErrorCode::ContentModified, "the document changed; ask again");
      return reply.error(ErrorCode::RequestFailed,
                         std::string("warplens.report: no analysis of this version (") + to_string(*error) + ")");
    }
    auto answer = [svc, reply, record, arg](OccupancyPtr resources) {
      if (reply.done()) return;
      try {
        reply.result(build_report(*svc, record, resources, arg));
      } catch (const RequestError& e) {
        reply.error(e.code(), e.what());
      } catch (const std::exception& e) {
        reply.error(ErrorCode::InternalError, std::string("warplens.report: ") + e.what());
      }
    };
    if (svc->resources)
      svc->resources->when_ready(record, answer);
    else
      answer(nullptr);
  });
}

}  // namespace

void register_report(Registry& registry, const Workspace& workspace, Analyses& analyses, const Client& client,
                     OccupancyService* resources, std::string server_version) {
  auto svc = std::make_shared<const ReportServices>(
      ReportServices{workspace, analyses, client, resources, std::move(server_version)});
  registry.commands["warplens.report"] = [svc](const protocol::ExecuteCommandParams& p, RequestContext& rc) {
    report_command(svc, p, rc);
  };
}

}  // namespace warplens::server
