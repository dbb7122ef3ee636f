#include "common/json_limits.h"

namespace warplens::common {

std::size_t json_nesting_depth(std::string_view text, std::size_t stop_at) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;  // the escaped character cannot end the string
      else if (c == '"') in_string = false;
      continue;
    }
    switch (c) {
      case '"': in_string = true; break;
      case '[':
      case '{':
        if (++depth > deepest) {
          deepest = depth;
          if (deepest > stop_at) return deepest;
        }
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default: break;
    }
  }
  return deepest;
}

std::string too_deep_message(std::size_t max_depth) {
  return "nested deeper than " + std::to_string(max_depth) + " levels (the limit)";
}

nlohmann::json parse_json_limited(std::string_view text, std::string* error, std::size_t max_depth) {
  if (json_nesting_depth(text, max_depth) > max_depth) {
    if (error) *error = "JSON " + too_deep_message(max_depth);
    return nlohmann::json(nlohmann::json::value_t::discarded);
  }
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    // Not e.what(): it quotes the text around the error ("last read: ..."),
    // and the text may be a file that was never meant to be shown.
    if (error) *error = "invalid JSON (syntax error at byte " + std::to_string(e.byte) + ")";
  } catch (const nlohmann::json::exception&) {
    if (error) *error = "invalid JSON";
  }
  return nlohmann::json(nlohmann::json::value_t::discarded);
}

}  // namespace warplens::common
