#include "mcp/stdio_server.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>

#include <spdlog/spdlog.h>

#include "protocol/line_framing.h"

namespace warplens::mcp {

Session::Writer fd_line_writer(int fd) {
  struct State {
    std::mutex mutex;
    bool broken = false;
  };
  auto state = std::make_shared<State>();
  return [fd, state](const json& message) {
    std::string line = protocol::line_json(message);
    std::lock_guard lock(state->mutex);
    if (state->broken) return;
    std::size_t done = 0;
    while (done < line.size()) {
      ssize_t n = ::write(fd, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        spdlog::warn("mcp: cannot write to the client ({}); dropping further output", std::strerror(errno));
        state->broken = true;
        return;
      }
      done += static_cast<std::size_t>(n);
    }
  };
}

int serve_stdio(Session& session, int in_fd, std::size_t max_message_bytes) {
  protocol::LineReader reader(max_message_bytes);
  std::vector<protocol::FrameEvent> events;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(in_fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    events.clear();
    reader.feed(std::string_view(buf, static_cast<std::size_t>(n)), events);
    for (auto& e : events) {
      // Session::handle isolates every handler; this is the last net, so a
      // fault around them (a writer, parsing) costs one message, not the
      // session.
      try {
        if (auto* f = std::get_if<protocol::Frame>(&e)) session.handle(f->body);
        else session.handle_framing_error(std::get<protocol::FramingError>(e));
      } catch (const std::exception& ex) {
        spdlog::error("mcp: internal error while handling a message: {}", ex.what());
      } catch (...) {
        spdlog::error("mcp: internal error while handling a message (unknown exception)");
      }
    }
  }
  if (reader.buffered() > 0) spdlog::warn("mcp: the client closed stdin inside a message ({} bytes)", reader.buffered());
  spdlog::info("mcp: the client closed stdin; stopping");
  session.shutdown();
  return 0;
}

}  // namespace warplens::mcp
