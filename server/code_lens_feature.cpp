// textDocument/codeLens: a line above every kernel, built from the lens
// providers (Registry::code_lens_providers). The built-in provider
// summarises the kernel's launches; occupancy, registers and measured
// numbers are added by their own features as further providers. After each
// new analysis, clients that support it are asked to refresh their lenses.
//
// A lens without its own command opens the kernel's report view: the
// client-side command warplens.showKernelReport [{uri, kernel}] (both
// editors implement it; like warplens.previewRewrite it is never listed in
// executeCommandProvider, which would route it to the server).
#include "protocol/lsp_features.h"
#include "server/features.h"
#include "server/kernel_info.h"
#include "server/request_helpers.h"

namespace warplens::server {

namespace {

constexpr const char* kShowKernelReport = "warplens.showKernelReport";  // the client's, never ours

std::vector<KernelLens> launch_lens(const CodeLensQuery& q) {
  return {KernelLens{launch_summary(q.record.result.model, q.kernel), std::nullopt}};
}

}  // namespace

void register_code_lens(Registry& registry, const Workspace& workspace, Analyses& analyses, Events& events,
                        Client& client) {
  registry.capabilities.codeLensProvider = protocol::CodeLensOptions{false};
  registry.code_lens_providers.push_back(launch_lens);

  registry.methods.on_request<protocol::CodeLensParams>(
      "textDocument/codeLens",
      [&registry, &workspace, &analyses, &client](const protocol::CodeLensParams& p, RequestContext& rc) {
        answer_from_current_record(workspace, analyses, rc, p.textDocument.uri, json::array(),
                                   [&registry, &client](const RecordPtr& record) {
          json lenses = json::array();
          for (const Function* k : record->result.model.kernels()) {
            protocol::Range range = record->document->text.to_client(k->name_range, client.encoding());
            json report_args = json::array({{{"uri", record->document->uri}, {"kernel", k->name}}});
            for (const auto& provider : registry.code_lens_providers)
              for (auto& lens : provider(CodeLensQuery{*record, *k})) {
                protocol::Command command =
                    lens.command.value_or(protocol::Command{lens.title, kShowKernelReport, report_args});
                if (command.title.empty()) command.title = lens.title;
                lenses.push_back(protocol::CodeLens{range, command, std::nullopt});
              }
          }
          return lenses;
        });
      });

  events.analysis_published.connect([&client](const RecordPtr&) { client.refresh_code_lenses(); });
}

}  // namespace warplens::server
