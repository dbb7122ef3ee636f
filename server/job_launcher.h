// Runs a long job for a workspace/executeCommand request: queues it on the
// job runner, reports window/workDoneProgress (under the request's
// workDoneToken, or a token the server asks the client to create), answers
// the request when the job ends, and wires every way to cancel it:
// $/cancelRequest on the request, window/workDoneProgress/cancel on the
// token, and the warplens.cancelJob command.
#pragma once

#include <optional>
#include <string>

#include "server/server_context.h"

namespace warplens::server {

// Returns the job id.
std::uint64_t start_job(ServerContext& ctx, RequestContext& request,
                        const std::optional<protocol::ProgressToken>& client_token, std::string title,
                        JobFunction job);

}  // namespace warplens::server
