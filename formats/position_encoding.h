// Position encodings (LSP 3.17 `PositionEncodingKind`): how a client counts
// the `character` of a position. The engine counts UTF-8 bytes; most clients
// count UTF-16 code units; some agree to UTF-8 or UTF-32.
//
// Text that is not valid UTF-8 (possible for files read from disk) is never
// an error: each byte of an ill-formed sequence counts as one code unit in
// every encoding, which is what an editor that decoded it to U+FFFD shows.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace warplens::formats {

enum class PositionEncoding { Utf8, Utf16, Utf32 };

std::optional<PositionEncoding> parse_position_encoding(std::string_view name);  // "utf-16" ...
const char* to_string(PositionEncoding e);

// Length in bytes of the well-formed UTF-8 sequence starting at text[i], or 0
// when the bytes there are not one (overlong forms, surrogates and code
// points above U+10FFFF are ill-formed, per Unicode table 3-7).
std::size_t utf8_sequence_length(std::string_view text, std::size_t i);

// Code units of `encoding` in `text`.
std::size_t count_units(std::string_view text, PositionEncoding encoding);

// Byte offset in `text` after `units` code units, clamped to text.size(). A
// count that ends inside a character (half a surrogate pair) rounds down to
// that character's start, so the result is always a character boundary.
std::size_t byte_offset_of_units(std::string_view text, std::size_t units, PositionEncoding encoding);

}  // namespace warplens::formats
