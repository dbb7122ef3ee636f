#include "protocol/line_framing.h"

#include "protocol/jsonrpc.h"

namespace warplens::protocol {

LineReader::LineReader(std::size_t max_message_bytes) : max_message_bytes_(max_message_bytes) {}

void LineReader::feed(std::string_view bytes, std::vector<FrameEvent>& out) {
  while (!bytes.empty()) {
    std::size_t nl = bytes.find('\n');
    std::string_view chunk = bytes.substr(0, nl);
    bytes = nl == std::string_view::npos ? std::string_view() : bytes.substr(nl + 1);
    if (!discarding_) {
      if (line_.size() + chunk.size() > max_message_bytes_ + 1) {  // +1: a CR before the newline
        out.push_back(FramingError{FramingErrorKind::TooLarge,
                                   "message longer than " + std::to_string(max_message_bytes_) + " bytes"});
        line_.clear();
        discarding_ = true;
      } else {
        line_.append(chunk);
      }
    }
    if (nl == std::string_view::npos) return;  // the line continues in a later feed
    if (discarding_) {
      discarding_ = false;
      continue;
    }
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    if (line_.size() > max_message_bytes_)
      out.push_back(FramingError{FramingErrorKind::TooLarge,
                                 "message longer than " + std::to_string(max_message_bytes_) + " bytes"});
    else if (line_.find_first_not_of(" \t") != std::string::npos)
      out.push_back(Frame{std::move(line_)});
    line_.clear();
  }
}

std::string line_json(const nlohmann::json& message) { return dump(message) + "\n"; }

}  // namespace warplens::protocol
