#include "formats/source_text.h"

#include <algorithm>

namespace warplens::formats {

SourceText::SourceText(std::string text) : text_(std::move(text)) {
  line_starts_.push_back(0);
  for (std::size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') {
      line_starts_.push_back(i + 1);
    } else if (text_[i] == '\r') {
      if (i + 1 < text_.size() && text_[i + 1] == '\n') ++i;
      line_starts_.push_back(i + 1);
    }
  }
}

std::string_view SourceText::line(int n) const {
  std::size_t start = line_start(n);
  std::size_t end = n + 1 < line_count() ? line_start(n + 1) : text_.size();
  std::string_view l(text_.data() + start, end - start);
  if (!l.empty() && l.back() == '\n') l.remove_suffix(1);
  if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  return l;
}

std::size_t SourceText::offset_of(Position engine) const {
  if (engine.line < 0) return 0;
  if (engine.line >= line_count()) return text_.size();
  std::size_t column = engine.column < 0 ? 0 : static_cast<std::size_t>(engine.column);
  return line_start(engine.line) + std::min(column, line(engine.line).size());
}

Position SourceText::position_at(std::size_t offset) const {
  offset = std::min(offset, text_.size());
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  int line = static_cast<int>(it - line_starts_.begin()) - 1;
  std::size_t column = std::min(offset - line_start(line), this->line(line).size());
  return {line, static_cast<int>(column)};
}

protocol::Position SourceText::to_client(Position engine, PositionEncoding encoding) const {
  Position p = position_at(offset_of(engine));
  std::string_view prefix = line(p.line).substr(0, static_cast<std::size_t>(p.column));
  return {p.line, static_cast<int>(count_units(prefix, encoding))};
}

protocol::Range SourceText::to_client(const Range& engine, PositionEncoding encoding) const {
  return {to_client(engine.start, encoding), to_client(engine.end, encoding)};
}

std::optional<Position> SourceText::from_client(const protocol::Position& client, PositionEncoding encoding) const {
  if (client.line < 0 || client.character < 0) return std::nullopt;
  if (client.line >= line_count()) {
    if (client.line == line_count() && client.character == 0) return position_at(text_.size());
    return std::nullopt;
  }
  std::string_view l = line(client.line);
  std::size_t column = byte_offset_of_units(l, static_cast<std::size_t>(client.character), encoding);
  return Position{client.line, static_cast<int>(column)};
}

std::optional<std::size_t> SourceText::offset_of(const protocol::Position& client, PositionEncoding encoding) const {
  auto p = from_client(client, encoding);
  if (!p) return std::nullopt;
  return offset_of(*p);
}

}  // namespace warplens::formats
