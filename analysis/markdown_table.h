// Markdown tables that read well whether or not the editor renders them.
//
// VS Code renders a hover's GitHub-style table; Neovim's hover float shows
// the markdown source. A table whose columns are padded to one width, with
// no inline markup in its cells (Neovim conceals `**` and backticks, which
// would break the alignment), is a table in the one and an aligned grid of
// text in the other.
#pragma once

#include <string>
#include <vector>

namespace warplens {

enum class Align : char { Left, Right };

struct MarkdownTable {
  std::vector<std::string> headers;
  std::vector<Align> align;                 // per column; missing: Left
  std::vector<std::vector<std::string>> rows;

  // The table, each line ending in '\n'. Widths count code points, so
  // "×", "—" and "≤" take one column.
  std::string render() const;
};

// Display width of UTF-8 text (code points; no wide characters expected).
std::size_t display_width(const std::string& s);

}  // namespace warplens
