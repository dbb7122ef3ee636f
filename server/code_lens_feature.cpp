// textDocument/codeLens: a line above every kernel, built from the lens
// providers (ServerContext::code_lens_providers). The built-in provider
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

void register_code_lens(ServerContext& ctx) {
  ctx.capabilities.codeLensProvider = protocol::CodeLensOptions{false};
  ctx.code_lens_providers.push_back(launch_lens);

  ctx.methods.on_request<protocol::CodeLensParams>(
      "textDocument/codeLens", [&ctx](const protocol::CodeLensParams& p, RequestContext& rc) {
        answer_from_current_record(ctx, rc, p.textDocument.uri, json::array(), [&ctx](const RecordPtr& record) {
          json lenses = json::array();
          for (const Function* k : record->result.model.kernels()) {
            protocol::Range range = record->document->text.to_client(k->name_range, ctx.encoding);
            json report_args = json::array({{{"uri", record->document->uri}, {"kernel", k->name}}});
            for (const auto& provider : ctx.code_lens_providers)
              for (auto& lens : provider(CodeLensQuery{*record, *k, ctx})) {
                protocol::Command command =
                    lens.command.value_or(protocol::Command{lens.title, kShowKernelReport, report_args});
                if (command.title.empty()) command.title = lens.title;
                lenses.push_back(protocol::CodeLens{range, command, std::nullopt});
              }
          }
          return lenses;
        });
      });

  ctx.analysis_published.connect([&ctx](const RecordPtr&) { ctx.refresh_code_lenses(); });
}

}  // namespace warplens::server
