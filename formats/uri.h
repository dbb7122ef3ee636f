// file:// URIs <-> absolute paths (RFC 8089 as editors use it: percent-
// encoding, `file:///` with an empty authority).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace warplens::formats {

// The absolute path of a file:// URI, or nullopt for other schemes
// (untitled:, git:, ...) and malformed URIs.
std::optional<std::string> path_from_uri(std::string_view uri);

// file:// URI of an absolute path; characters outside RFC 3986's unreserved
// set and '/' are percent-encoded.
std::string uri_from_path(std::string_view path);

}  // namespace warplens::formats
