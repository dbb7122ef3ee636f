// Helpers shared by the profiler's unit tests.
#pragma once

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "analysis/source_range.h"
#include "profiler/profile_data.h"

namespace warplens::test {

inline std::string source_dir() { return WARPLENS_SOURCE_DIR; }

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string tail_of_file_or_empty(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A profile fixture by name ("transpose"): the H200 recording when the lead
// has committed one, else the provisional, hand-modelled file.
// WARPLENS_PROFILE_FIXTURE_DIR points at fresh recordings instead (the H200
// script checks what it just recorded against these tests).
inline std::string fixture_path(const std::string& name) {
  if (const char* fresh = std::getenv("WARPLENS_PROFILE_FIXTURE_DIR"); fresh && *fresh)
    return std::string(fresh) + "/" + name + ".json";
  std::string dir = source_dir() + "/tests/fixtures/profile/";
  std::ifstream recorded(dir + name + ".json");
  return recorded ? dir + name + ".json" : dir + name + ".provisional.json";
}

inline profile::Profile load_fixture(const std::string& name) {
  std::string error;
  auto p = profile::load_profile(fixture_path(name), &error);
  if (!p) throw std::runtime_error(error);
  return *p;
}

// The 0-based range of the `occurrence`-th `needle` on 1-based `line` of `text`.
inline Range range_on_line(const std::string& text, int line, const std::string& needle,
                           int occurrence = 0) {
  std::size_t pos = 0;
  for (int i = 1; i < line; ++i) pos = text.find('\n', pos) + 1;
  std::size_t end = text.find('\n', pos);
  std::string content = text.substr(pos, end - pos);
  std::size_t at = content.find(needle);
  for (int i = 0; i < occurrence && at != std::string::npos; ++i) at = content.find(needle, at + 1);
  if (at == std::string::npos) throw std::runtime_error("\"" + needle + "\" not on line " + std::to_string(line));
  return {{line - 1, int(at)}, {line - 1, int(at + needle.size())}};
}

// 1-based number of the line of `text` that contains `needle`.
inline int line_of(const std::string& text, const std::string& needle) {
  std::size_t at = text.find(needle);
  if (at == std::string::npos) throw std::runtime_error("\"" + needle + "\" not found");
  int line = 1;
  for (std::size_t i = 0; i < at; ++i) line += text[i] == '\n';
  return line;
}

}  // namespace warplens::test
