// textDocument/codeLens: a line above every kernel, built from the lens
// providers (ServerContext::code_lens_providers). The built-in provider
// summarises the kernel's launches; occupancy, registers and measured
// numbers are added by their own features as further providers. After each
// new analysis, clients that support it are asked to refresh their lenses.
#include <spdlog/spdlog.h>

#include "protocol/lsp_features.h"
#include "server/features.h"
#include "server/kernel_info.h"
#include "server/request_helpers.h"

namespace warplens::server {

namespace {

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
            for (const auto& provider : ctx.code_lens_providers)
              for (auto& lens : provider(CodeLensQuery{*record, *k, ctx})) {
                // A command with an empty id is shown as a plain label.
                protocol::Command command = lens.command.value_or(protocol::Command{lens.title, "", std::nullopt});
                if (command.title.empty()) command.title = lens.title;
                lenses.push_back(protocol::CodeLens{range, command, std::nullopt});
              }
          }
          return lenses;
        });
      });

  ctx.analysis_published.connect([&ctx](const RecordPtr&) {
    if (!ctx.client_capabilities.codeLensRefresh) return;
    ctx.client.request("workspace/codeLens/refresh", nullptr, [](const protocol::Response& r) {
      if (r.error) spdlog::debug("workspace/codeLens/refresh: {}", r.error->message);
    });
  });
}

}  // namespace warplens::server
