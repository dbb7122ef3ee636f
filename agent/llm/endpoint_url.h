// The base URL of an OpenAI-compatible API, taken apart: scheme, host, port,
// path prefix. "http://localhost:8000/v1" -> plain TCP to localhost:8000,
// requests to "/v1/chat/completions".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace warplens::agent::llm {

struct EndpointUrl {
  bool tls = false;            // https
  std::string host;            // name or address; IPv6 without brackets
  std::uint16_t port = 80;
  std::string path_prefix;     // "" or "/v1" (no trailing slash)

  // "/v1/chat/completions" for path "/chat/completions".
  std::string target(std::string_view path) const;
  // The Host header value: the host, plus the port when it is not the default.
  std::string host_header() const;
  // "https://host:port/v1"
  std::string to_string() const;
};

// Accepts http:// and https:// URLs with an optional port and path prefix.
// A URL that already ends in "/chat/completions" is taken as its prefix.
// Refuses user:password@ (the key belongs in WARPLENS_LLM_API_KEY), queries,
// fragments and other schemes, with the reason in `error`.
std::optional<EndpointUrl> parse_endpoint_url(std::string_view url, std::string* error = nullptr);

}  // namespace warplens::agent::llm
