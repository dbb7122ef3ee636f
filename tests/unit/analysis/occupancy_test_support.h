// Helpers for the resource-usage, occupancy and block-shape tests: fixture
// files, hand-built kernel models (the Clang front end is tested on its
// own), and a small clangd-style annotation reader for source snippets:
// `$name[[text]]` marks a named range, `$name^` a named point.
#pragma once

#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/findings.h"
#include "analysis/kernel_model.h"

namespace warplens::test {

inline std::string read_fixture(const std::string& relative) {
  std::string path = std::string(WARPLENS_SOURCE_DIR) + "/tests/fixtures/" + relative;
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "missing fixture " << path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Byte offset -> Position (0-based line, 0-based byte column).
inline Position position_at(const std::string& text, std::size_t offset) {
  Position p;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++p.line;
      p.column = 0;
    } else {
      ++p.column;
    }
  }
  return p;
}

inline std::size_t offset_of(const std::string& text, Position p) {
  std::size_t off = 0;
  for (int line = 0; line < p.line; ++line) {
    off = text.find('\n', off);
    REQUIRE(off != std::string::npos);
    ++off;
  }
  return off + static_cast<std::size_t>(p.column);
}

struct Annotated {
  std::string code;
  std::map<std::string, Range> ranges;
  std::map<std::string, Position> points;
};

inline Annotated annotate(const std::string& marked) {
  Annotated a;
  std::vector<std::pair<std::string, std::size_t>> open;
  for (std::size_t i = 0; i < marked.size();) {
    if (marked[i] == '$') {
      std::size_t j = i + 1;
      while (j < marked.size() && (std::isalnum(static_cast<unsigned char>(marked[j])) || marked[j] == '_')) ++j;
      std::string name = marked.substr(i + 1, j - i - 1);
      if (marked.compare(j, 2, "[[") == 0) {
        open.emplace_back(name, a.code.size());
        i = j + 2;
        continue;
      }
      if (j < marked.size() && marked[j] == '^') {
        a.points[name] = position_at(a.code, a.code.size());
        i = j + 1;
        continue;
      }
    }
    if (marked.compare(i, 2, "]]") == 0 && !open.empty()) {
      auto [name, start] = open.back();
      open.pop_back();
      a.ranges[name] = {position_at(a.code, start), position_at(a.code, a.code.size())};
      i += 2;
      continue;
    }
    a.code += marked[i++];
  }
  return a;
}

// Applies a fix's edits (non-overlapping, any order) to `text`.
inline std::string apply_fix(std::string text, const Fix& fix) {
  std::vector<TextEdit> edits = fix.edits;
  std::sort(edits.begin(), edits.end(),
            [](const TextEdit& a, const TextEdit& b) { return b.range.start < a.range.start; });
  for (const auto& e : edits) {
    std::size_t s = offset_of(text, e.range.start), t = offset_of(text, e.range.end);
    text.replace(s, t - s, e.new_text);
  }
  return text;
}

inline Function make_kernel(std::string name, std::vector<std::string> param_types = {}) {
  Function f;
  f.name = name;
  f.kind = FunctionKind::Kernel;
  std::string sig = "void " + name + "(";
  for (std::size_t i = 0; i < param_types.size(); ++i) {
    Parameter p;
    p.name = "p";
    p.name += std::to_string(i);
    p.type = param_types[i];
    f.params.push_back(p);
    sig += (i ? ", " : "") + param_types[i];
  }
  f.signature = sig + ")";
  f.key = name;
  f.key += sig.substr(sig.find('('));
  return f;
}

inline LaunchSite make_launch(const Function& k, std::optional<std::array<std::int64_t, 3>> block,
                              std::string block_spelling, int line = 10) {
  LaunchSite l;
  l.kernel = k.name;
  l.kernel_key = k.key;
  l.caller = "host";
  l.range = {{line, 2}, {line, 40}};
  l.grid = {"grid", std::nullopt, {}};
  l.block = {std::move(block_spelling), block, {}};
  return l;
}

}  // namespace warplens::test
