#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "protocol/framing.h"

using namespace warplens::protocol;

namespace {

// Feeds `input` in pieces of `chunk` bytes and collects every event.
std::vector<FrameEvent> feed_in_chunks(FrameReader& reader, std::string_view input, std::size_t chunk) {
  std::vector<FrameEvent> events;
  for (std::size_t i = 0; i < input.size(); i += chunk) reader.feed(input.substr(i, chunk), events);
  return events;
}

std::vector<std::string> bodies(const std::vector<FrameEvent>& events) {
  std::vector<std::string> out;
  for (const auto& e : events)
    if (const auto* f = std::get_if<Frame>(&e)) out.push_back(f->body);
  return out;
}

std::vector<FramingError> errors(const std::vector<FrameEvent>& events) {
  std::vector<FramingError> out;
  for (const auto& e : events)
    if (const auto* f = std::get_if<FramingError>(&e)) out.push_back(*f);
  return out;
}

}  // namespace

TEST_CASE("frames survive every way of splitting the input") {
  const std::string input = frame(std::string_view(R"({"a":1})")) + frame(std::string_view(R"({"b":"two"})")) +
                            frame(std::string_view("{}"));
  for (std::size_t chunk : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{7}, std::size_t{16},
                            input.size()}) {
    CAPTURE(chunk);
    FrameReader reader;
    auto events = feed_in_chunks(reader, input, chunk);
    CHECK(errors(events).empty());
    CHECK(bodies(events) == std::vector<std::string>{R"({"a":1})", R"({"b":"two"})", "{}"});
    CHECK(reader.buffered() == 0);
  }
}

TEST_CASE("header names are case-insensitive, other headers are ignored, LF-only lines are accepted") {
  FrameReader reader;
  std::vector<FrameEvent> events;
  reader.feed("content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}", events);
  reader.feed("CONTENT-LENGTH:2\n\n[]", events);
  CHECK(errors(events).empty());
  CHECK(bodies(events) == std::vector<std::string>{"{}", "[]"});
}

TEST_CASE("a split header waits for its end") {
  FrameReader reader;
  std::vector<FrameEvent> events;
  reader.feed("Content-Len", events);
  reader.feed("gth: 5\r", events);
  CHECK(events.empty());
  reader.feed("\n\r\n12", events);
  CHECK(events.empty());
  CHECK(reader.buffered() == 2);
  reader.feed("345Content-Length: 1\r\n\r\nx", events);
  CHECK(bodies(events) == std::vector<std::string>{"12345", "x"});
}

TEST_CASE("a header block without Content-Length is one error, then the reader resynchronises") {
  FrameReader reader;
  std::vector<FrameEvent> events;
  reader.feed("Content-Type: foo\r\n\r\n{\"lost\":true}garbage\r\nmore garbage\r\n", events);
  reader.feed(frame(std::string_view("{}")), events);
  auto errs = errors(events);
  REQUIRE(errs.size() == 1);
  CHECK(errs[0].kind == FramingErrorKind::BadHeader);
  CHECK(errs[0].message.find("Content-Length") != std::string::npos);
  CHECK(bodies(events) == std::vector<std::string>{"{}"});
}

TEST_CASE("garbage lines before a frame cost one error") {
  FrameReader reader;
  auto events = feed_in_chunks(reader, "hello world\r\nthis is not LSP\r\n" + frame(std::string_view("{}")), 5);
  CHECK(errors(events).size() == 1);
  CHECK(bodies(events) == std::vector<std::string>{"{}"});
}

TEST_CASE("invalid and conflicting Content-Length values are errors") {
  for (std::string header : {"Content-Length: abc\r\n\r\n", "Content-Length: -3\r\n\r\n", "Content-Length: \r\n\r\n",
                             "Content-Length: 12x\r\n\r\n",
                             "Content-Length: 99999999999999999999999999\r\n\r\n",
                             "Content-Length: 2\r\nContent-Length: 3\r\n\r\n"}) {
    CAPTURE(header);
    FrameReader reader;
    std::vector<FrameEvent> events;
    reader.feed(header + "{}" + frame(std::string_view("[1]")), events);
    CHECK(errors(events).size() == 1);
    CHECK(bodies(events) == std::vector<std::string>{"[1]"});
  }
}

TEST_CASE("an endless header is cut off at the header limit") {
  FrameReader reader;
  std::vector<FrameEvent> events;
  std::string endless(kMaxHeaderBytes * 4, 'x');
  for (std::size_t i = 0; i < endless.size(); i += 1000) reader.feed(std::string_view(endless).substr(i, 1000), events);
  CHECK(errors(events).size() == 1);
  CHECK(reader.buffered() <= kMaxHeaderBytes + 1000);
  reader.feed("\r\n" + frame(std::string_view("{}")), events);
  CHECK(bodies(events) == std::vector<std::string>{"{}"});
}

TEST_CASE("a Content-Length header followed by endless header lines is an error, not a loop") {
  FrameReader reader;
  std::vector<FrameEvent> events;
  std::string input = "Content-Length: 2\r\n";
  while (input.size() < kMaxHeaderBytes * 2) input += "X-Padding: yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\r\n";
  input += "\r\n{}";
  reader.feed(input + frame(std::string_view("[2]")), events);
  CHECK(errors(events).size() == 1);
  CHECK(bodies(events) == std::vector<std::string>{"[2]"});
}

TEST_CASE("oversized bodies are reported and skipped without buffering") {
  FrameReader reader(100);
  std::vector<FrameEvent> events;
  std::string big(1000, 'z');
  reader.feed("Content-Length: 1000\r\n\r\n", events);
  REQUIRE(errors(events).size() == 1);
  CHECK(errors(events)[0].kind == FramingErrorKind::TooLarge);
  CHECK(errors(events)[0].message.find("1000") != std::string::npos);
  for (std::size_t i = 0; i < big.size(); i += 64) {
    reader.feed(std::string_view(big).substr(i, 64), events);
    CHECK(reader.buffered() == 0);
  }
  reader.feed(frame(std::string_view("{}")), events);
  CHECK(bodies(events) == std::vector<std::string>{"{}"});
  CHECK(reader.max_message_bytes() == 100);
}

TEST_CASE("a body exactly at the limit is accepted") {
  FrameReader reader(4);
  std::vector<FrameEvent> events;
  reader.feed(frame(std::string_view("[12]")), events);
  CHECK(errors(events).empty());
  CHECK(bodies(events) == std::vector<std::string>{"[12]"});
}

TEST_CASE("stray blank lines between frames are skipped") {
  FrameReader reader;
  std::vector<FrameEvent> events;
  reader.feed("\r\n\r\n" + frame(std::string_view("{}")) + "\r\n" + frame(std::string_view("[]")), events);
  CHECK(errors(events).empty());
  CHECK(bodies(events) == std::vector<std::string>{"{}", "[]"});
}

TEST_CASE("frame() writes the byte length, not the character count") {
  std::string body = "{\"s\":\"\xC3\xA9\xF0\x9F\x98\x80\"}";  // é and an emoji
  CHECK(frame(std::string_view(body)) == "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
}

// Junk without a newline glued to a frame used to read as one header line
// (`garbageContent-Length: 2` is not a Content-Length header), so the block
// had no length and the frame behind the junk was lost with it.
TEST_CASE("junk without a newline before a frame costs one error and the frame is read") {
  const std::vector<std::string> junk = {"garbage", "{\"jsonrpc\":\"2.0\",\"id\":1}", "Content-Type: x",
                                         "Content-Length: 2\r\nX-Junk: 1", std::string(kMaxHeaderBytes + 100, 'j'),
                                         "\x01\x02\xff:"};
  for (const auto& j : junk) {
    for (std::size_t chunk : {std::size_t{1}, std::size_t{3}, std::size_t{7}, std::size_t{1000}, std::size_t{1} << 20}) {
      CAPTURE(j.substr(0, 40));
      CAPTURE(chunk);
      FrameReader reader;
      auto events = feed_in_chunks(reader, j + frame(std::string_view("{}")) + frame(std::string_view("[1]")), chunk);
      auto errs = errors(events);
      REQUIRE(errs.size() == 1);
      CHECK(errs[0].kind == FramingErrorKind::BadHeader);
      CHECK(bodies(events) == std::vector<std::string>{"{}", "[1]"});
      CHECK(reader.buffered() == 0);
    }
  }
}

TEST_CASE("junk glued to a frame after a body: the frame after it is still read") {
  FrameReader reader;
  std::vector<FrameEvent> events;
  reader.feed(frame(std::string_view("{}")) + "garbage" + frame(std::string_view("[2]")), events);
  CHECK(errors(events).size() == 1);
  CHECK(bodies(events) == std::vector<std::string>{"{}", "[2]"});
}
