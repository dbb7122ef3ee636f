#include "formats/uri.h"

#include <cctype>

namespace warplens::formats {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool unreserved(unsigned char c) {
  return std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

}  // namespace

std::optional<std::string> path_from_uri(std::string_view uri) {
  constexpr std::string_view kScheme = "file://";
  if (uri.size() < kScheme.size()) return std::nullopt;
  for (std::size_t i = 0; i < kScheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(uri[i])) != kScheme[i]) return std::nullopt;
  std::string_view rest = uri.substr(kScheme.size());
  // Authority: empty or "localhost" name this machine; others are remote.
  std::size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  std::string_view authority = rest.substr(0, slash);
  if (!authority.empty() && authority != "localhost") return std::nullopt;
  rest = rest.substr(slash);
  // Query and fragment are not part of a file path.
  if (auto q = rest.find_first_of("?#"); q != std::string_view::npos) rest = rest.substr(0, q);
  std::string path;
  path.reserve(rest.size());
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%') {
      if (i + 2 >= rest.size()) return std::nullopt;
      int hi = hex_value(rest[i + 1]), lo = hex_value(rest[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      path.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      path.push_back(rest[i]);
    }
  }
  return path;
}

std::string uri_from_path(std::string_view path) {
  static const char* kHex = "0123456789ABCDEF";
  std::string uri = "file://";
  for (char ch : path) {
    auto c = static_cast<unsigned char>(ch);
    if (unreserved(c) || c == '/') {
      uri.push_back(ch);
    } else {
      uri.push_back('%');
      uri.push_back(kHex[c >> 4]);
      uri.push_back(kHex[c & 15]);
    }
  }
  return uri;
}

}  // namespace warplens::formats
