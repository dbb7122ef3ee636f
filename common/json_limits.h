// How deep JSON may nest before it is refused, for every JSON warplens
// parses from outside: LSP messages, compile_commands.json, profiles,
// captures, an LLM endpoint's answers.
//
// nlohmann::json parses iteratively, but copying, comparing, dumping and
// walking a value recurse once per level: a 100,000-deep array is valid
// JSON and a stack overflow in the first copy. Refusing it before it is
// parsed means nothing deep is ever built.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace warplens::common {

// Real documents nest a dozen levels; LSP messages fewer than 10.
inline constexpr std::size_t kMaxJsonDepth = 128;

// The deepest nesting of arrays and objects in `text`, counting brackets
// outside strings (escapes honoured). Stops counting at `stop_at` + 1.
// Linear, no recursion; does not validate the JSON.
std::size_t json_nesting_depth(std::string_view text, std::size_t stop_at = kMaxJsonDepth);

// Parses `text`, refusing nesting deeper than `max_depth`. Returns a
// discarded value (is_discarded()) with the reason in `error` when the text
// is too deep or not JSON. Never throws.
nlohmann::json parse_json_limited(std::string_view text, std::string* error = nullptr,
                                  std::size_t max_depth = kMaxJsonDepth);

// "nested deeper than 128 levels (the limit)"
std::string too_deep_message(std::size_t max_depth = kMaxJsonDepth);

}  // namespace warplens::common
