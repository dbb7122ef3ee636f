// Helpers for the LSP struct <-> JSON mappings: optional members are omitted
// when absent and tolerated when missing or null; required members throw
// nlohmann::json::exception when missing, which the server answers with
// InvalidParams (-32602).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace warplens::protocol {

using json = nlohmann::json;

template <class T>
void read_optional(const json& j, const char* key, std::optional<T>& out) {
  auto it = j.find(key);
  if (it != j.end() && !it->is_null()) out = it->template get<T>();
}

// An integer member, range-checked: 1.5, "1", 2^32 for an `int` and -1 for
// a uinteger throw json::exception (answered with InvalidParams) instead
// of being truncated or wrapped into a different, valid-looking number.
template <class T>
T checked_integer(const json& v, const char* key, std::int64_t lo = std::numeric_limits<T>::min(),
                  std::int64_t hi = std::numeric_limits<T>::max()) {
  if (!v.is_number_integer())
    throw json::type_error::create(302, std::string("`") + key + "` must be an integer", &v);
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi))
    throw json::out_of_range::create(406, std::string("`") + key + "` is out of range", &v);
  const std::int64_t n = v.get<std::int64_t>();
  if (n < lo || n > hi) throw json::out_of_range::create(406, std::string("`") + key + "` is out of range", &v);
  return static_cast<T>(n);
}

// LSP's uinteger: 0 to 2^31 - 1.
inline int read_uinteger(const json& j, const char* key) {
  return checked_integer<int>(j.at(key), key, 0, std::numeric_limits<std::int32_t>::max());
}

template <class T>
void write_optional(json& j, const char* key, const std::optional<T>& value) {
  if (value) j[key] = *value;
}

// Vectors that LSP marks optional: omitted when empty, empty when missing.
template <class T>
void read_list(const json& j, const char* key, std::vector<T>& out) {
  auto it = j.find(key);
  if (it != j.end() && !it->is_null()) out = it->template get<std::vector<T>>();
}

template <class T>
void write_list(json& j, const char* key, const std::vector<T>& value) {
  if (!value.empty()) j[key] = value;
}

// A nested member by path ({"textDocument", "hover", "contentFormat"}), or
// null when any step is missing: capabilities are deeply nested and sparse.
inline const json& at_path(const json& j, std::initializer_list<const char*> path) {
  static const json kNull;
  const json* cur = &j;
  for (const char* key : path) {
    if (!cur->is_object()) return kNull;
    auto it = cur->find(key);
    if (it == cur->end()) return kNull;
    cur = &*it;
  }
  return *cur;
}

}  // namespace warplens::protocol
