// Source positions as the engine sees them.
//
// The engine speaks UTF-8 bytes: lines are 0-based, columns are 0-based byte
// offsets within the line. Conversion to the client's encoding (UTF-16 for
// most LSP clients) happens at the edge, in server/, where the document text
// is known. Keeping bytes here means Clang's SourceManager offsets map 1:1.
#pragma once

#include <compare>
#include <cstdint>
#include <string>

namespace warplens {

struct Position {
  int line = 0;    // 0-based
  int column = 0;  // 0-based, UTF-8 bytes
  auto operator<=>(const Position&) const = default;
};

struct Range {
  Position start;
  Position end;  // exclusive
  bool operator==(const Range&) const = default;
  bool contains(Position p) const { return start <= p && p < end; }
  bool contains_inclusive(Position p) const { return start <= p && p <= end; }
  bool empty() const { return start == end; }
};

struct Location {
  std::string file;  // absolute path as given to the analyzer
  Range range;
  bool operator==(const Location&) const = default;
};

}  // namespace warplens
