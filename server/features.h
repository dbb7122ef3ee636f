// The language server's features, one file each. A feature registers its
// methods, capabilities and extension-point entries on the ServerContext.
//
// Adding a feature (profile, optimize, occupancy lens, ...): write
// server/<name>_feature.cpp with a register_<name>(ServerContext&), declare
// it here, and add one line to register_features() in features.cpp.
#pragma once

#include "server/server_context.h"

namespace warplens::server {

void register_text_sync(ServerContext& ctx);      // didOpen / didChange / didClose
void register_configuration(ServerContext& ctx);  // settings from the client
void register_diagnostics(ServerContext& ctx);    // publishDiagnostics
void register_status(ServerContext& ctx);         // warplens/status
void register_hover(ServerContext& ctx);          // textDocument/hover
void register_code_actions(ServerContext& ctx);   // codeAction + codeAction/resolve
void register_code_lens(ServerContext& ctx);      // textDocument/codeLens
void register_commands(ServerContext& ctx);       // executeCommand, jobs, progress cancel
void register_occupancy(ServerContext& ctx);      // resource usage and occupancy (background nvcc)
void register_profile(ServerContext& ctx);        // warplens.profile / clearProfile, measured results
void register_report(ServerContext& ctx);         // warplens.report
void register_kernel_view(ServerContext& ctx);    // warplens.kernelView (the report view's data)
void register_optimize(ServerContext& ctx);       // warplens.optimize, verified rewrites as code actions

// Registers every feature above, in order.
void register_features(ServerContext& ctx);

}  // namespace warplens::server
