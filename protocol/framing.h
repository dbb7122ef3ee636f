// LSP base-protocol framing: `Content-Length: N\r\n\r\n` + N bytes of JSON.
//
// FrameReader is a push parser: feed it whatever bytes arrived (partial
// headers, several frames at once, half a body) and it hands back complete
// bodies and framing errors. It never blocks and never throws.
//
// Error policy (documented in docs/server.md):
// - A header block without a usable Content-Length, or one longer than
//   kMaxHeaderBytes, is reported once; the reader then discards input up to
//   the next `Content-Length:` (resynchronisation), so garbage between frames
//   costs one error, not one per byte.
// - A body longer than the configured cap is reported and skipped without
//   being buffered, so an oversized message cannot exhaust memory.
// Header lines may end in CRLF (the spec) or a bare LF (hand-written input).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace warplens::protocol {

// Default cap on one message body: 64 MiB. A CUDA source file of that size is
// far beyond anything real (generated sources with large tables run to a few
// MiB), and parsing a body needs several times its size in memory.
inline constexpr std::size_t kDefaultMaxMessageBytes = 64u << 20;
// Cap on one header block. Real headers are ~60 bytes.
inline constexpr std::size_t kMaxHeaderBytes = 8u << 10;

struct Frame {
  std::string body;
};

enum class FramingErrorKind {
  BadHeader,   // no Content-Length, unparsable value, garbage: answer ParseError
  TooLarge,    // Content-Length above the cap: answer InvalidRequest
};

struct FramingError {
  FramingErrorKind kind = FramingErrorKind::BadHeader;
  std::string message;
};

using FrameEvent = std::variant<Frame, FramingError>;

class FrameReader {
 public:
  explicit FrameReader(std::size_t max_message_bytes = kDefaultMaxMessageBytes);

  // Consumes `bytes`; appends every frame or error they complete to `out`.
  void feed(std::string_view bytes, std::vector<FrameEvent>& out);

  std::size_t max_message_bytes() const { return max_message_bytes_; }
  // Bytes of a partial frame held back, waiting for more input.
  std::size_t buffered() const { return header_.size() + body_.size(); }

 private:
  enum class State { Header, Body, Discard, Resync };

  void parse_header_block(std::vector<FrameEvent>& out);
  void start_resync(std::vector<FrameEvent>& out, std::string message);
  // Scans header_ (the resync buffer) for the next Content-Length header.
  void resync_scan();

  std::size_t max_message_bytes_;
  State state_ = State::Header;
  std::string header_;      // the header block read so far (or resync window)
  std::string body_;        // the body read so far
  std::size_t remaining_ = 0;  // body bytes still expected (Body, Discard)
};

// Frames one message for the wire.
std::string frame(std::string_view body);
std::string frame_json(const nlohmann::json& message);

}  // namespace warplens::protocol
