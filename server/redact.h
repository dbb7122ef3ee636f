// Secrets never reach a log: a copy of a JSON value with the values of
// secret-looking keys (apiKey, token-like credentials, passwords) replaced.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace warplens::server {

bool is_secret_key(std::string_view key);
nlohmann::json redact_secrets(const nlohmann::json& value);

// A message as it may appear in a log: secrets redacted, cut to `limit` bytes.
std::string loggable(const nlohmann::json& message, std::size_t limit = 4096);

}  // namespace warplens::server
