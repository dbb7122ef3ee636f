// Helpers for the LSP struct <-> JSON mappings: optional members are omitted
// when absent and tolerated when missing or null; required members throw
// nlohmann::json::exception when missing, which the server answers with
// InvalidParams (-32602).
#pragma once

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
