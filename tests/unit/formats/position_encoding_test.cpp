#include <doctest/doctest.h>

#include "formats/position_encoding.h"
#include "formats/source_text.h"

using namespace warplens;
using namespace warplens::formats;

namespace {
// "aé😀b": a (1 byte), é (2 bytes, 1 UTF-16 unit), 😀 (4 bytes, a surrogate pair), b.
const std::string kMixed = "a\xC3\xA9\xF0\x9F\x98\x80" "b";
}  // namespace

TEST_CASE("code units per encoding") {
  CHECK(count_units(kMixed, PositionEncoding::Utf8) == 8);
  CHECK(count_units(kMixed, PositionEncoding::Utf16) == 5);
  CHECK(count_units(kMixed, PositionEncoding::Utf32) == 4);
}

TEST_CASE("units to byte offsets, including positions inside a surrogate pair") {
  CHECK(byte_offset_of_units(kMixed, 0, PositionEncoding::Utf16) == 0);
  CHECK(byte_offset_of_units(kMixed, 1, PositionEncoding::Utf16) == 1);
  CHECK(byte_offset_of_units(kMixed, 2, PositionEncoding::Utf16) == 3);
  CHECK(byte_offset_of_units(kMixed, 3, PositionEncoding::Utf16) == 3);  // inside the pair: rounds down
  CHECK(byte_offset_of_units(kMixed, 4, PositionEncoding::Utf16) == 7);
  CHECK(byte_offset_of_units(kMixed, 5, PositionEncoding::Utf16) == 8);
  CHECK(byte_offset_of_units(kMixed, 99, PositionEncoding::Utf16) == 8);  // clamped
  CHECK(byte_offset_of_units(kMixed, 3, PositionEncoding::Utf32) == 7);
  CHECK(byte_offset_of_units(kMixed, 2, PositionEncoding::Utf8) == 1);   // inside é: rounds down
  CHECK(byte_offset_of_units(kMixed, 5, PositionEncoding::Utf8) == 3);   // inside 😀
  CHECK(byte_offset_of_units(kMixed, 7, PositionEncoding::Utf8) == 7);
}

TEST_CASE("ill-formed UTF-8 counts one unit per byte and never crashes") {
  // A lone continuation byte, a truncated 3-byte sequence, an overlong '/',
  // an encoded surrogate, and a byte that never occurs in UTF-8.
  const std::string bad = "\x80" "x\xE2\x82" "y\xC0\xAF\xED\xA0\x80\xFF";
  CHECK(count_units(bad, PositionEncoding::Utf16) == bad.size());
  CHECK(count_units(bad, PositionEncoding::Utf32) == bad.size());
  for (std::size_t u = 0; u <= bad.size() + 2; ++u) {
    CAPTURE(u);
    CHECK(byte_offset_of_units(bad, u, PositionEncoding::Utf16) == std::min(u, bad.size()));
    CHECK(byte_offset_of_units(bad, u, PositionEncoding::Utf8) == std::min(u, bad.size()));
  }
  CHECK(utf8_sequence_length("\xF4\x90\x80\x80", 0) == 0);  // above U+10FFFF
  CHECK(utf8_sequence_length("\xF4\x8F\xBF\xBF", 0) == 4);  // U+10FFFF
}

TEST_CASE("encoding names") {
  CHECK(parse_position_encoding("utf-16") == PositionEncoding::Utf16);
  CHECK(parse_position_encoding("utf-8") == PositionEncoding::Utf8);
  CHECK(parse_position_encoding("utf-32") == PositionEncoding::Utf32);
  CHECK_FALSE(parse_position_encoding("latin1"));
  CHECK(std::string(to_string(PositionEncoding::Utf8)) == "utf-8");
}

TEST_CASE("line table handles LF, CRLF and lone CR") {
  SourceText t("one\ntwo\r\nthree\rfour");
  REQUIRE(t.line_count() == 4);
  CHECK(t.line(0) == "one");
  CHECK(t.line(1) == "two");
  CHECK(t.line(2) == "three");
  CHECK(t.line(3) == "four");
  SourceText trailing("x\n");
  CHECK(trailing.line_count() == 2);
  CHECK(trailing.line(1).empty());
  CHECK(SourceText("").line_count() == 1);
}

TEST_CASE("engine byte columns convert to UTF-16 columns on non-ASCII lines") {
  SourceText t("int x;\n" + kMixed + " = y;\n");
  // The engine points at "b" (byte 7) and at " = y" (byte 8).
  CHECK(t.to_client(Position{1, 7}, PositionEncoding::Utf16) == protocol::Position{1, 4});
  CHECK(t.to_client(Position{1, 8}, PositionEncoding::Utf16) == protocol::Position{1, 5});
  CHECK(t.to_client(Position{1, 8}, PositionEncoding::Utf8) == protocol::Position{1, 8});
  CHECK(t.to_client(Position{1, 8}, PositionEncoding::Utf32) == protocol::Position{1, 4});
  // Back again.
  CHECK(t.from_client({1, 4}, PositionEncoding::Utf16) == Position{1, 7});
  CHECK(t.from_client({1, 5}, PositionEncoding::Utf16) == Position{1, 8});
}

TEST_CASE("out-of-range positions") {
  SourceText t("ab\ncd");
  CHECK(t.to_client(Position{0, 99}, PositionEncoding::Utf16) == protocol::Position{0, 2});  // clamped
  CHECK(t.to_client(Position{9, 0}, PositionEncoding::Utf16) == protocol::Position{1, 2});   // clamped to end
  CHECK(t.from_client({0, 99}, PositionEncoding::Utf16) == Position{0, 2});  // end of line, per LSP
  CHECK(t.from_client({2, 0}, PositionEncoding::Utf16) == Position{1, 2});   // "end of text"
  CHECK_FALSE(t.from_client({2, 1}, PositionEncoding::Utf16));
  CHECK_FALSE(t.from_client({5, 0}, PositionEncoding::Utf16));
  CHECK_FALSE(t.from_client({-1, 0}, PositionEncoding::Utf16));
  CHECK(t.position_at(3) == Position{1, 0});
  CHECK(t.offset_of(Position{1, 1}) == 4);
}
