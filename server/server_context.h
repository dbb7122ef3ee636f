// What the language server owns, in one place (the composition root, as
// clangd's ClangdLSPServer owns its ClangdServer): the services features
// are given at registration, each a narrow interface on one concern.
//
//   Client     the connection and what initialize negotiated (server/client.h)
//   Registry   methods, capabilities, commands, providers (server/registry.h)
//   Events     the signals between features (server/events.h)
//   Workspace  open documents, settings, folders (server/workspace.h)
//   Analyses   the scheduler's records and their findings (server/analyses.h)
//   Jobs       long jobs with progress and cancellation (server/jobs.h)
//   occupancy  background resource usage, when options.occupancy is set
//
// No feature takes the whole context: register_features()
// (server/features.cpp) hands each one only the services its signature
// names, so a feature's signature is its whole dependency list. Only the
// lifecycle (server/language_server.cpp) uses the context as a whole.
//
// Everything here is used on the io_context's thread, except the client
// connection and the job runner, which are thread-safe.
#pragma once

#include <memory>

#include <boost/asio/io_context.hpp>

#include "server/analyses.h"
#include "server/client.h"
#include "server/events.h"
#include "server/jobs.h"
#include "server/occupancy_service.h"
#include "server/registry.h"
#include "server/server_options.h"
#include "server/workspace.h"

namespace warplens::server {

class ServerContext {
 public:
  ServerContext(boost::asio::io_context& io, Outbox& out, AnalyzeFn analyze, ServerOptions options);
  ServerContext(const ServerContext&) = delete;
  ServerContext& operator=(const ServerContext&) = delete;

  // Declared in construction order: each service is built from those above.
  boost::asio::io_context& io;
  const ServerOptions options;
  Client client;
  Registry registry;
  Events events;
  Workspace workspace;
  Analyses analyses;
  Jobs jobs;
  // Null when options.occupancy is empty (no resource usage).
  std::unique_ptr<OccupancyService> occupancy;
};

}  // namespace warplens::server
