// The language server's features, one file each. A feature registers its
// methods, capabilities, commands and providers on the Registry and
// connects to the Events it reacts to; its parameters are every service it
// uses (server/server_context.h lists them), so what a feature can touch is
// read off its signature. A `const` service is one it only reads.
//
// Adding a feature (profile, optimize, occupancy lens, ...): write
// server/<name>_feature.cpp with a register_<name>(...) taking the services
// it needs, declare it here, and add one line to register_features() in
// features.cpp.
#pragma once

#include <string>

#include <boost/asio/io_context.hpp>

#include "server/analyses.h"
#include "server/client.h"
#include "server/events.h"
#include "server/jobs.h"
#include "server/occupancy_service.h"
#include "server/registry.h"
#include "server/server_context.h"
#include "server/workspace.h"
#include "workflows/optimize.h"
#include "workflows/profile.h"

namespace warplens::server {

// didOpen / didChange / didClose
void register_text_sync(Registry& registry, Workspace& workspace, Analyses& analyses, Events& events, Client& client);
// settings from the client
void register_configuration(Registry& registry, Workspace& workspace, Analyses& analyses, Events& events,
                            Client& client);
// publishDiagnostics
void register_diagnostics(Events& events, const Workspace& workspace, Analyses& analyses, Client& client);
// warplens/status (`gpu_probe` empty: no probe)
void register_status(Events& events, const Analyses& analyses, Client& client, boost::asio::io_context& io,
                     workflows::GpuProbe gpu_probe);
// textDocument/hover
void register_hover(Registry& registry, const Workspace& workspace, Analyses& analyses, const Client& client);
// codeAction + codeAction/resolve
void register_code_actions(Registry& registry, const Workspace& workspace, Analyses& analyses, const Client& client);
// textDocument/codeLens
void register_code_lens(Registry& registry, const Workspace& workspace, Analyses& analyses, Events& events,
                        Client& client);
// executeCommand, jobs, progress cancel (`test_commands`: warplens.debug.*)
void register_commands(Registry& registry, const Workspace& workspace, Analyses& analyses, Jobs& jobs,
                       bool test_commands);
// resource usage and occupancy (background nvcc); only when resource usage is on
void register_occupancy(Registry& registry, Events& events, const Workspace& workspace, OccupancyService& occupancy);
// warplens.profile / clearProfile, measured results (`resources`: null when off)
void register_profile(Registry& registry, Events& events, const Workspace& workspace, Analyses& analyses,
                      Client& client, Jobs& jobs, const OccupancyService* resources, workflows::GpuProbe gpu_probe);
// warplens.report (`resources`: null when off)
void register_report(Registry& registry, const Workspace& workspace, Analyses& analyses, const Client& client,
                     OccupancyService* resources, std::string server_version);
// warplens.kernelView, the report view's data (`resources`: null when off)
void register_kernel_view(Registry& registry, const Workspace& workspace, Analyses& analyses, const Client& client,
                          OccupancyService* resources);
// warplens.optimize, verified rewrites as code actions
void register_optimize(Registry& registry, Events& events, const Workspace& workspace, Analyses& analyses,
                       const Client& client, Jobs& jobs, workflows::GpuProbe gpu_probe,
                       workflows::OptimizeBackend backend);

// Registers every feature above, in order, each with its services from `ctx`.
void register_features(ServerContext& ctx);

}  // namespace warplens::server
