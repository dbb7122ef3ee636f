// MCP's stdio framing: one JSON-RPC message per line.
#include <doctest/doctest.h>

#include "protocol/line_framing.h"

using namespace warplens::protocol;

namespace {

std::vector<std::string> bodies(const std::vector<FrameEvent>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) {
    if (auto* f = std::get_if<Frame>(&e)) out.push_back(f->body);
    else out.push_back("ERROR " + std::get<FramingError>(e).message);
  }
  return out;
}

}  // namespace

TEST_CASE("line framing: lines split anywhere, CRLF and blank lines") {
  LineReader r;
  std::vector<FrameEvent> ev;
  r.feed("{\"a\":1}\n{\"b\"", ev);
  CHECK(r.buffered() == 4);
  r.feed(":2}\r\n\n  \n{\"c\":3}\n", ev);
  CHECK(bodies(ev) == std::vector<std::string>{"{\"a\":1}", "{\"b\":2}", "{\"c\":3}"});
  CHECK(r.buffered() == 0);
}

TEST_CASE("line framing: an oversized line is reported once and skipped, the next one is read") {
  LineReader r(16);
  std::vector<FrameEvent> ev;
  r.feed(std::string(10, 'x'), ev);
  r.feed(std::string(10, 'y'), ev);  // now over the cap: reported, dropped
  r.feed(std::string(100, 'z'), ev);
  CHECK(r.buffered() == 0);          // nothing of it is held
  r.feed("\n{\"ok\":1}\n", ev);
  CHECK(bodies(ev) == std::vector<std::string>{"ERROR message longer than 16 bytes", "{\"ok\":1}"});
}

TEST_CASE("line framing: a message goes out as one line, newlines in strings escaped") {
  std::string line = line_json({{"text", "a\nb"}});
  CHECK(line == "{\"text\":\"a\\nb\"}\n");
}
