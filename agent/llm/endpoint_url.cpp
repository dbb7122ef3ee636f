#include "agent/llm/endpoint_url.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "common/redaction.h"

namespace warplens::agent::llm {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool fail(std::string* error, std::string message) {
  if (error) *error = std::move(message);
  return false;
}

// The URL as an error message may quote it: without user:password@ (the
// project's one redactor, common/redaction.h).
std::string shown(std::string_view url) { return common::redact_text(url); }

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

std::string EndpointUrl::target(std::string_view path) const { return path_prefix + std::string(path); }

std::string EndpointUrl::host_header() const {
  const bool ipv6 = host.find(':') != std::string::npos;
  std::string h = ipv6 ? "[" + host + "]" : host;
  if (port != (tls ? 443 : 80)) {
    h += ':';
    h += std::to_string(port);
  }
  return h;
}

std::string EndpointUrl::to_string() const {
  const bool ipv6 = host.find(':') != std::string::npos;
  return std::string(tls ? "https://" : "http://") + (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port) +
         path_prefix;
}

std::optional<EndpointUrl> parse_endpoint_url(std::string_view url, std::string* error) {
  while (!url.empty() && std::isspace(static_cast<unsigned char>(url.back()))) url.remove_suffix(1);
  while (!url.empty() && std::isspace(static_cast<unsigned char>(url.front()))) url.remove_prefix(1);
  if (url.empty()) {
    fail(error, "no base URL set (e.g. http://localhost:8000/v1)");
    return std::nullopt;
  }
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) {
    fail(error, "base URL '" + shown(url) + "' has no scheme: write http://... or https://...");
    return std::nullopt;
  }
  EndpointUrl out;
  const std::string scheme = lower(url.substr(0, scheme_end));
  if (scheme == "https") {
    out.tls = true;
    out.port = 443;
  } else if (scheme != "http") {
    fail(error, "base URL scheme '" + scheme + "' is not supported: use http or https");
    return std::nullopt;
  }
  std::string_view rest = url.substr(scheme_end + 3);
  if (rest.find_first_of("?#") != std::string_view::npos) {
    fail(error, "base URL must not contain a query or fragment: '" + shown(url) + "'");
    return std::nullopt;
  }
  const auto slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash);
  if (authority.find('@') != std::string_view::npos) {
    // Never echo the URL here: the part before '@' may be a password.
    fail(error, "base URL must not contain user:password@; put the key in the WARPLENS_LLM_API_KEY environment variable");
    return std::nullopt;
  }
  std::string_view port_text;
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) {
      fail(error, "base URL has an unterminated IPv6 address: '" + shown(url) + "'");
      return std::nullopt;
    }
    out.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') {
        fail(error, "base URL has junk after the IPv6 address: '" + shown(url) + "'");
        return std::nullopt;
      }
      port_text = after.substr(1);
    }
  } else {
    const auto colon = authority.find(':');
    out.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (out.host.empty()) {
    fail(error, "base URL has no host: '" + shown(url) + "'");
    return std::nullopt;
  }
  if (!port_text.empty()) {
    unsigned value = 0;
    auto [p, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), value);
    if (ec != std::errc{} || p != port_text.data() + port_text.size() || value == 0 || value > 65535) {
      fail(error, "base URL port '" + std::string(port_text) + "' is not a port number (1-65535)");
      return std::nullopt;
    }
    out.port = static_cast<std::uint16_t>(value);
  }
  std::string prefix(path);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  // People paste the full endpoint; the API root is what we need.
  if (ends_with(prefix, "/chat/completions")) prefix.resize(prefix.size() - std::string_view("/chat/completions").size());
  out.path_prefix = prefix;
  return out;
}

}  // namespace warplens::agent::llm
