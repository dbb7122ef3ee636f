#include "protocol/framing.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace warplens::protocol {

namespace {

constexpr std::string_view kContentLength = "content-length";

bool iequals_prefix(std::string_view text, std::string_view lower_prefix) {
  if (text.size() < lower_prefix.size()) return false;
  for (std::size_t i = 0; i < lower_prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(text[i])) != lower_prefix[i]) return false;
  return true;
}

constexpr std::string_view kHeader = "content-length:";

// Where "content-length:" (any case) starts in `text` at or after `from`.
std::size_t find_header(std::string_view text, std::size_t from) {
  if (from >= text.size()) return std::string_view::npos;
  auto it = std::search(text.begin() + static_cast<std::ptrdiff_t>(from), text.end(), kHeader.begin(), kHeader.end(),
                        [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
  return it == text.end() ? std::string_view::npos : static_cast<std::size_t>(it - text.begin());
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

FrameReader::FrameReader(std::size_t max_message_bytes) : max_message_bytes_(max_message_bytes) {}

void FrameReader::feed(std::string_view in, std::vector<FrameEvent>& out) {
  std::string leftover;  // bytes after a header block, handed to the body states
  while (true) {
    switch (state_) {
      case State::Body: {
        std::size_t n = std::min(remaining_, in.size());
        body_.append(in.substr(0, n));
        in.remove_prefix(n);
        remaining_ -= n;
        if (remaining_ > 0) return;
        out.push_back(Frame{std::move(body_)});
        body_ = std::string();
        state_ = State::Header;
        continue;
      }
      case State::Discard: {
        std::size_t n = std::min(remaining_, in.size());
        in.remove_prefix(n);
        remaining_ -= n;
        if (remaining_ > 0) return;
        state_ = State::Header;
        continue;
      }
      case State::Header:
      case State::Resync: {
        header_.append(in);
        in = {};
        // Every error consumes input, so this loop terminates.
        while (true) {
          if (state_ == State::Resync) {
            resync_scan();
            if (state_ == State::Resync) return;  // no header yet: wait for more
          }
          parse_header_block(out);
          if (state_ == State::Header) return;  // the block is incomplete
          if (state_ != State::Resync) break;   // Body or Discard
        }
        leftover = std::move(header_);
        header_ = std::string();
        in = leftover;
        continue;
      }
    }
  }
}

// Parses complete header lines from header_. On the blank line that ends the
// block, switches to Body or Discard and leaves the bytes after it in header_.
void FrameReader::parse_header_block(std::vector<FrameEvent>& out) {
  std::size_t pos = 0;
  std::optional<std::size_t> length;
  bool seen_line = false;
  while (true) {
    std::size_t nl = header_.find('\n', pos);
    if (nl == std::string::npos) {
      if (header_.size() > kMaxHeaderBytes) {
        // Resync drops everything up to the next Content-Length after the
        // first byte (one may be in what is buffered), or keeps the tail.
        header_.erase(0, 1);
        return start_resync(out, "header block longer than " + std::to_string(kMaxHeaderBytes) + " bytes");
      }
      return;  // wait for the rest of the block
    }
    // Junk without a newline glued to the next frame (`garbageContent-Length:
    // 2`): the frame starts inside this line. The junk (and any header lines
    // of this block before it) is one error; the frame is parsed from there.
    // Found before the length check, so a long junk line still yields the
    // frame behind it.
    if (std::size_t h = find_header(std::string_view(header_).substr(0, nl), pos + 1); h != std::string_view::npos) {
      header_.erase(0, h);
      return start_resync(out, "bytes that are not a header before a Content-Length header");
    }
    if (nl + 1 > kMaxHeaderBytes) {
      header_.erase(0, nl + 1);
      return start_resync(out, "header block longer than " + std::to_string(kMaxHeaderBytes) + " bytes");
    }
    std::string_view line(header_.data() + pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::size_t next = nl + 1;

    if (line.empty()) {
      if (!seen_line) {  // stray blank line between messages: skip it
        header_.erase(0, next);
        pos = 0;
        continue;
      }
      header_.erase(0, next);
      if (!length) return start_resync(out, "header block without a Content-Length header");
      if (*length > max_message_bytes_) {
        out.push_back(FramingError{FramingErrorKind::TooLarge,
                                   "message of " + std::to_string(*length) +
                                       " bytes exceeds the limit of " +
                                       std::to_string(max_message_bytes_) + " bytes"});
        state_ = State::Discard;
      } else {
        state_ = State::Body;
        body_.reserve(*length);
      }
      remaining_ = *length;
      return;
    }

    seen_line = true;
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      header_.erase(0, next);
      return start_resync(out, "malformed header line (expected `Name: value`)");
    }
    std::string_view name = trim(line.substr(0, colon));
    std::string_view value = trim(line.substr(colon + 1));
    if (name.size() == kContentLength.size() && iequals_prefix(name, kContentLength)) {
      std::size_t n = 0;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec != std::errc() || end != value.data() + value.size() || value.empty()) {
        header_.erase(0, next);
        return start_resync(out, "invalid Content-Length value `" + std::string(value.substr(0, 40)) + "`");
      }
      if (length && *length != n) {
        header_.erase(0, next);
        return start_resync(out, "conflicting Content-Length headers");
      }
      length = n;
    }
    // Other headers (Content-Type) carry nothing we need: the spec fixes UTF-8.
    pos = next;
  }
}

void FrameReader::start_resync(std::vector<FrameEvent>& out, std::string message) {
  out.push_back(FramingError{FramingErrorKind::BadHeader, std::move(message)});
  state_ = State::Resync;
}

// Discards header_ up to the next "Content-Length:" (any case, anywhere: a
// garbage body is usually followed directly by the next frame) and switches
// back to Header there. Otherwise stays in Resync, keeping only a tail that
// may be the start of that header, so memory stays bounded.
void FrameReader::resync_scan() {
  if (std::size_t h = find_header(header_, 0); h != std::string_view::npos) {
    header_.erase(0, h);
    state_ = State::Header;
    return;
  }
  if (header_.size() >= kHeader.size()) header_.erase(0, header_.size() - (kHeader.size() - 1));
}

std::string frame(std::string_view body) {
  std::string out = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  out.append(body);
  return out;
}

std::string frame_json(const nlohmann::json& message) {
  const std::string body = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return frame(std::string_view(body));
}

}  // namespace warplens::protocol
