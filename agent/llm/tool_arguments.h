// Reading a tool call's JSON arguments with errors the model can act on
// ("missing required argument 'path' (a string)"). Internal to agent/llm/.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace warplens::agent::llm {

// Thrown by the readers below; the tool box answers it to the model.
struct ArgumentError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline std::optional<std::string> optional_string(const nlohmann::json& args, const char* key) {
  if (!args.contains(key) || args[key].is_null()) return std::nullopt;
  if (!args[key].is_string()) throw ArgumentError(std::string("argument '") + key + "' must be a string");
  return args[key].get<std::string>();
}

inline std::string required_string(const nlohmann::json& args, const char* key) {
  auto v = optional_string(args, key);
  if (!v) throw ArgumentError(std::string("missing required argument '") + key + "' (a string)");
  return *v;
}

inline std::optional<std::int64_t> optional_integer(const nlohmann::json& args, const char* key) {
  if (!args.contains(key) || args[key].is_null()) return std::nullopt;
  const auto& v = args[key];
  if (v.is_number_integer()) return v.get<std::int64_t>();
  // Models sometimes send 12.0 or "12".
  if (v.is_number_float() && v.get<double>() == static_cast<double>(static_cast<std::int64_t>(v.get<double>())))
    return static_cast<std::int64_t>(v.get<double>());
  if (v.is_string()) {
    try {
      std::size_t used = 0;
      const std::string s = v.get<std::string>();
      long long n = std::stoll(s, &used);
      if (used == s.size()) return n;
    } catch (const std::exception&) {
    }
  }
  throw ArgumentError(std::string("argument '") + key + "' must be an integer");
}

}  // namespace warplens::agent::llm
