#include "server/server_context.h"

namespace warplens::server {

namespace {

std::unique_ptr<OccupancyService> make_occupancy(ServerContext& ctx) {
  if (!ctx.options.occupancy) return nullptr;
  OccupancyService::Hooks hooks;
  // Only the document's current record may publish its resource usage.
  hooks.is_current = [&analyses = ctx.analyses](const RecordPtr& record) {
    auto current = analyses.current(record->document->uri);
    return current && current->generation == record->generation;
  };
  hooks.ready = [&events = ctx.events, &client = ctx.client](const RecordPtr& record) {
    events.diagnostics_changed.emit(record->document->uri);
    client.refresh_code_lenses();
  };
  return std::make_unique<OccupancyService>(ctx.io, ctx.options.occupancy, std::move(hooks));
}

}  // namespace

ServerContext::ServerContext(boost::asio::io_context& io, Outbox& out, AnalyzeFn analyze, ServerOptions opts)
    : io(io),
      options(std::move(opts)),
      client(out),
      workspace(options),
      analyses(io, std::move(analyze), options.workers, events, workspace, client, registry, options.docs_dir),
      jobs(io, client),
      occupancy(make_occupancy(*this)) {}

}  // namespace warplens::server
