// Newline-delimited JSON framing: one message per line, as the Model Context
// Protocol's stdio transport sends them (MCP 2025-06-18, "Transports":
// messages are delimited by newlines and MUST NOT contain embedded
// newlines). The LSP's Content-Length framing is framing.h; the messages
// themselves are JSON-RPC 2.0 either way (jsonrpc.h).
//
// LineReader is a push parser like FrameReader: feed it the bytes that
// arrived and it hands back complete lines and errors; it never blocks and
// never throws. A line longer than the cap is reported once and skipped up
// to its newline without being buffered, so an oversized message cannot
// exhaust memory. A trailing CR is dropped (CRLF from hand-written input),
// and blank lines are ignored.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/framing.h"

namespace warplens::protocol {

class LineReader {
 public:
  explicit LineReader(std::size_t max_message_bytes = kDefaultMaxMessageBytes);

  // Consumes `bytes`; appends every line (as a Frame) or error they complete.
  void feed(std::string_view bytes, std::vector<FrameEvent>& out);

  // Bytes of an unfinished line held back.
  std::size_t buffered() const { return line_.size(); }

 private:
  std::size_t max_message_bytes_;
  std::string line_;
  bool discarding_ = false;  // inside an oversized line, waiting for its newline
};

// One message for the wire: its compact JSON and a newline. dump() escapes
// control characters, so the text itself never holds a newline.
std::string line_json(const nlohmann::json& message);

}  // namespace warplens::protocol
