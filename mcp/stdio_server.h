// The stdio transport of MCP (2025-06-18, "Transports"): the client starts
// `warplens mcp` and writes newline-delimited JSON-RPC to its stdin; the
// server writes only MCP messages to stdout, one per line. Logs go to stderr
// (or --log-file), never stdout.
#pragma once

#include <cstddef>

#include "mcp/session.h"
#include "protocol/framing.h"

namespace warplens::mcp {

// A thread-safe line writer on `fd`: what Session::Writer needs. A write
// error (the client went away) is logged once and later writes dropped.
Session::Writer fd_line_writer(int fd);

// Reads `in_fd` until end of file, feeding each line to the session; then
// stops the calls still running and waits for them. Returns 0 (the client
// closed the stream, the normal end of an MCP stdio session).
int serve_stdio(Session& session, int in_fd, std::size_t max_message_bytes = protocol::kDefaultMaxMessageBytes);

}  // namespace warplens::mcp
