// analysis/markdown_table.h: tables padded to one width, so they read as
// tables where the markdown source is shown (Neovim's hover float).
#include <doctest/doctest.h>

#include "analysis/markdown_table.h"

using namespace warplens;

TEST_CASE("columns are padded to their widest cell, counted in characters") {
  MarkdownTable t;
  t.headers = {"lane", "thread", "offset"};
  t.align = {Align::Right, Align::Left, Align::Right};
  t.rows = {{"0", "(0, 0, 0)", "unknown"}, {"31", "(31, 0, 0)", "lane 0 + 124 * n"}, {"1", "—", "4"}};
  CHECK(t.render() ==
        "| lane | thread     |           offset |\n"
        "|-----:|------------|-----------------:|\n"
        "|    0 | (0, 0, 0)  |          unknown |\n"
        "|   31 | (31, 0, 0) | lane 0 + 124 * n |\n"
        "|    1 | —          |                4 |\n");
  CHECK(display_width("—×≤") == 3);
}
