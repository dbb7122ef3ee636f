#include "server/redact.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace warplens::server {

bool is_secret_key(std::string_view key) {
  std::string k(key);
  std::transform(k.begin(), k.end(), k.begin(), [](unsigned char c) { return std::tolower(c); });
  k.erase(std::remove_if(k.begin(), k.end(), [](char c) { return c == '_' || c == '-'; }), k.end());
  // Progress and request tokens are not secrets; credentials are.
  for (const char* secret : {"apikey", "password", "secret", "authorization", "accesstoken", "bearer"})
    if (k.find(secret) != std::string::npos) return true;
  return false;
}

nlohmann::json redact_secrets(const nlohmann::json& value) {
  if (value.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto it = value.begin(); it != value.end(); ++it)
      out[it.key()] = is_secret_key(it.key()) ? nlohmann::json("<redacted>") : redact_secrets(it.value());
    return out;
  }
  if (value.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& v : value) out.push_back(redact_secrets(v));
    return out;
  }
  return value;
}

std::string loggable(const nlohmann::json& message, std::size_t limit) {
  std::string text = redact_secrets(message).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > limit) text = text.substr(0, limit) + "... (" + std::to_string(text.size()) + " bytes)";
  return text;
}

}  // namespace warplens::server
