#include "formats/position_encoding.h"

namespace warplens::formats {

std::optional<PositionEncoding> parse_position_encoding(std::string_view name) {
  if (name == "utf-8") return PositionEncoding::Utf8;
  if (name == "utf-16") return PositionEncoding::Utf16;
  if (name == "utf-32") return PositionEncoding::Utf32;
  return std::nullopt;
}

const char* to_string(PositionEncoding e) {
  switch (e) {
    case PositionEncoding::Utf8: return "utf-8";
    case PositionEncoding::Utf16: return "utf-16";
    case PositionEncoding::Utf32: return "utf-32";
  }
  return "utf-16";
}

std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  auto byte = [&](std::size_t k) -> unsigned { return static_cast<unsigned char>(text[k]); };
  unsigned b0 = byte(i);
  if (b0 < 0x80) return 1;
  std::size_t len;
  unsigned lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    if (b0 == 0xE0) lo = 0xA0;  // no overlong forms
    if (b0 == 0xED) hi = 0x9F;  // no surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    if (b0 == 0xF0) lo = 0x90;  // no overlong forms
    if (b0 == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (i + len > text.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < len; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return len;
}

namespace {

// Code units of one character of `bytes` UTF-8 bytes (0 = an invalid byte).
std::size_t units_of(std::size_t bytes, PositionEncoding encoding) {
  switch (encoding) {
    case PositionEncoding::Utf8: return bytes == 0 ? 1 : bytes;
    case PositionEncoding::Utf16: return bytes == 4 ? 2 : 1;
    case PositionEncoding::Utf32: return 1;
  }
  return 1;
}

}  // namespace

std::size_t count_units(std::string_view text, PositionEncoding encoding) {
  if (encoding == PositionEncoding::Utf8) return text.size();
  std::size_t units = 0;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t len = utf8_sequence_length(text, i);
    units += units_of(len, encoding);
    i += len == 0 ? 1 : len;
  }
  return units;
}

std::size_t byte_offset_of_units(std::string_view text, std::size_t units, PositionEncoding encoding) {
  if (encoding == PositionEncoding::Utf8) {
    if (units >= text.size()) return text.size();
    // Round down to the start of a character that `units` falls inside.
    auto continuation = [&](std::size_t k) { return (static_cast<unsigned char>(text[k]) & 0xC0) == 0x80; };
    std::size_t start = units;
    while (start > 0 && units - start < 3 && continuation(start)) --start;
    std::size_t len = utf8_sequence_length(text, start);
    if (len != 0 && start < units && start + len > units) return start;
    return units;
  }
  std::size_t seen = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t len = utf8_sequence_length(text, i);
    std::size_t u = units_of(len, encoding);
    if (seen + u > units) return i;  // `units` ends inside this character
    seen += u;
    i += len == 0 ? 1 : len;
  }
  return text.size();
}

}  // namespace warplens::formats
