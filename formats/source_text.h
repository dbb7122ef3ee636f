// A text with its line table, converting between the engine's positions
// (0-based line, UTF-8 byte column) and the client's (0-based line,
// `character` in the negotiated encoding).
//
// Lines end at "\n", "\r\n" or a lone "\r", as in LSP 3.17 and in Clang's
// line table, so both sides count lines alike.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/source_range.h"
#include "formats/position_encoding.h"
#include "protocol/lsp_basic.h"

namespace warplens::formats {

class SourceText {
 public:
  SourceText() : SourceText(std::string()) {}
  explicit SourceText(std::string text);

  const std::string& text() const { return text_; }
  std::string take_text() && { return std::move(text_); }
  int line_count() const { return static_cast<int>(line_starts_.size()); }
  std::size_t line_start(int line) const { return line_starts_[static_cast<std::size_t>(line)]; }
  // The line's text without its terminator.
  std::string_view line(int line) const;

  // Engine position -> byte offset, clamped into the text (a finding at an
  // out-of-range position still lands somewhere visible).
  std::size_t offset_of(Position engine) const;
  // Byte offset -> engine position.
  Position position_at(std::size_t offset) const;

  // Engine -> client. Out-of-range positions are clamped.
  protocol::Position to_client(Position engine, PositionEncoding encoding) const;
  protocol::Range to_client(const Range& engine, PositionEncoding encoding) const;

  // Client -> engine. A character beyond the line's end means the end of the
  // line (LSP 3.17). A line past the last one is an error (nullopt), except
  // {line_count, 0}, which clients use for "the end of the text".
  std::optional<Position> from_client(const protocol::Position& client, PositionEncoding encoding) const;
  std::optional<std::size_t> offset_of(const protocol::Position& client, PositionEncoding encoding) const;

 private:
  std::string text_;
  std::vector<std::size_t> line_starts_;  // byte offset of each line's first byte
};

}  // namespace warplens::formats
