// Annotated source snippets for tests, in the style of clangd's Annotations:
// expected ranges and points are marked inline and removed from the code.
//
//   [[...]]        an unnamed range          $name[[...]]   a named range
//   ^              an unnamed point          $name^         a named point
//
//   Annotations a(R"cu(
//     __global__ void k(float* out) {
//       $store[[out[threadIdx.x]]] = 1.0f;   // range "store" = out[threadIdx.x]
//     }
//   )cu");
//   a.code();          // the text without markers, given to the analyzer
//   a.range("store");  // 0-based line, 0-based UTF-8 byte columns (source_range.h)
//
// CUDA code is full of brackets, so `]]` closes a range only when the
// brackets opened inside that range are balanced: `[[in[idx[i]]]]` marks
// `in[idx[i]]`. Three opening brackets `[[[` are a literal `[` followed by a
// range, so `a[[[i]]]` marks the index `i` of `a[i]`. Other rules:
//   - a literal caret (XOR) is written `^^`: `[[tile[ty][tx ^^ ty]]]`;
//   - C++ attributes `[[likely]]` cannot be written (they read as ranges);
//   - ranges may nest; names are [A-Za-z0-9_]+.
// Malformed input (unclosed or stray markers, unknown names, a point asked
// for that is not unique) throws std::invalid_argument with the reason, so a
// typo in a test fails loudly instead of testing nothing.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/source_range.h"

namespace warplens::testing {

class Annotations {
 public:
  explicit Annotations(std::string_view annotated);

  const std::string& code() const { return code_; }

  Position point(std::string_view name = "") const;  // exactly one point of that name
  std::vector<Position> points(std::string_view name = "") const;
  Range range(std::string_view name = "") const;     // exactly one range of that name
  std::vector<Range> ranges(std::string_view name = "") const;  // in source order

  size_t point_offset(std::string_view name = "") const;  // byte offset into code()
  std::vector<std::string> range_names() const;           // named ranges, sorted, unique
  bool has_range(std::string_view name) const;

 private:
  struct Mark {
    size_t begin = 0, end = 0;  // offsets into code_
    Range range;
  };
  const std::vector<Mark>& find(const std::map<std::string, std::vector<Mark>, std::less<>>& table,
                                std::string_view name, const char* what) const;

  std::string code_;
  std::map<std::string, std::vector<Mark>, std::less<>> points_;
  std::map<std::string, std::vector<Mark>, std::less<>> ranges_;
};

}  // namespace warplens::testing
