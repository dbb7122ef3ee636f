#include "server/features.h"

namespace warplens::server {

// The one place that sees every service: each feature gets the ones its
// signature names, nothing else.
void register_features(ServerContext& ctx) {
  Registry& registry = ctx.registry;
  Events& events = ctx.events;
  Workspace& workspace = ctx.workspace;
  Analyses& analyses = ctx.analyses;
  Client& client = ctx.client;
  Jobs& jobs = ctx.jobs;
  const ServerOptions& options = ctx.options;
  register_text_sync(registry, workspace, analyses, events, client);
  register_configuration(registry, workspace, analyses, events, client);
  register_diagnostics(events, workspace, analyses, client);
  register_status(events, analyses, client, ctx.io, options.gpu_probe);
  register_hover(registry, workspace, analyses, client);
  register_code_actions(registry, workspace, analyses, client);
  register_code_lens(registry, workspace, analyses, events, client);
  register_commands(registry, workspace, analyses, jobs, options.test_commands);
  if (ctx.occupancy) register_occupancy(registry, events, workspace, *ctx.occupancy);
  register_profile(registry, events, workspace, analyses, client, jobs, ctx.occupancy.get(), options.gpu_probe);
  register_report(registry, workspace, analyses, client, ctx.occupancy.get(), options.version);
  register_kernel_view(registry, workspace, analyses, client, ctx.occupancy.get());
  register_optimize(registry, events, workspace, analyses, client, jobs, options.gpu_probe, options.optimize);
}

}  // namespace warplens::server
