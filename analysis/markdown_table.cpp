#include "analysis/markdown_table.h"

#include <algorithm>

namespace warplens {

std::size_t display_width(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;  // count lead bytes only
  return n;
}

std::string MarkdownTable::render() const {
  const std::size_t columns = headers.size();
  std::vector<std::size_t> width(columns, 3);  // "---" at least
  auto cell = [](const std::vector<std::string>& row, std::size_t i) -> std::string {
    return i < row.size() ? row[i] : std::string();
  };
  for (std::size_t i = 0; i < columns; ++i) {
    width[i] = std::max(width[i], display_width(headers[i]));
    for (const auto& row : rows) width[i] = std::max(width[i], display_width(cell(row, i)));
  }
  auto right = [&](std::size_t i) { return i < align.size() && align[i] == Align::Right; };
  auto line = [&](const std::vector<std::string>& row) {
    std::string out = "|";
    for (std::size_t i = 0; i < columns; ++i) {
      std::string text = cell(row, i);
      std::string pad(width[i] - display_width(text), ' ');
      out += " " + (right(i) ? pad + text : text + pad) + " |";
    }
    return out + "\n";
  };
  std::string out = line(headers);
  out += "|";
  for (std::size_t i = 0; i < columns; ++i)
    out += right(i) ? std::string(width[i] + 1, '-') + ":|" : std::string(width[i] + 2, '-') + "|";
  out += "\n";
  for (const auto& row : rows) out += line(row);
  return out;
}

}  // namespace warplens
