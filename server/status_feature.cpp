// warplens/status: a notification editors show as a status item. Sent when
// the state changes: "starting" (initialized, toolchain not yet known),
// "parsing" (analyses pending or running), "ready" (idle), with what the
// last analysis found about the CUDA toolchain.
#include "protocol/lsp_warplens.h"
#include "server/features.h"

namespace warplens::server {

namespace {

struct StatusState {
  protocol::StatusParams current;
  std::optional<protocol::StatusParams> sent;
  bool initialized = false;
};

void send_if_changed(ServerContext& ctx, StatusState& s) {
  if (!s.initialized || (s.sent && *s.sent == s.current)) return;
  s.sent = s.current;
  ctx.client.notify(protocol::kStatusNotification, s.current);
}

}  // namespace

void register_status(ServerContext& ctx) {
  auto state = std::make_shared<StatusState>();
  state->current.frontend = frontend_available();

  ctx.initialized.connect([&ctx, state] {
    state->initialized = true;
    state->current.state = ctx.scheduler.busy() ? "parsing" : "starting";
    send_if_changed(ctx, *state);
  });

  ctx.analysis_published.connect([state](const RecordPtr& record) {
    const auto& tc = record->result.toolchain;
    state->current.cudaFound = tc.cuda_found;
    state->current.cudaPath = tc.cuda_path;
    state->current.cudaVersion = tc.cuda_version;
    state->current.degraded = tc.degraded;
  });

  ctx.analysis_activity.connect([&ctx, state](std::size_t busy) {
    state->current.state = busy ? "parsing" : "ready";
    send_if_changed(ctx, *state);
  });
}

}  // namespace warplens::server
