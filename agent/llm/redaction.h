// Keeping the API key out of everything a person or a log file can see.
//
// The key is only ever placed in the Authorization header of a request. Any
// text that came back from the endpoint (error bodies sometimes echo what was
// sent) goes through redact() before it is logged or put into an error.
#pragma once

#include <string>
#include <string_view>

namespace warplens::agent::llm {

// `text` with every occurrence of `secret` (and of its longer prefixes and
// suffixes of 8+ characters, which servers print as "sk-abc...xyz") replaced
// by "[redacted]". An empty or very short secret (< 4 characters) only has its
// exact occurrences replaced.
std::string redact(std::string_view text, std::string_view secret);

// At most `max_bytes` of `text` (cut at a UTF-8 boundary), with "..." when cut.
std::string clip(std::string_view text, std::size_t max_bytes);

}  // namespace warplens::agent::llm
