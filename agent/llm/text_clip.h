// Cutting text that goes into prompts, errors and logs to a size.
// (Secrets are redacted by common/redaction.h, the project's one redactor.)
#pragma once

#include <string>
#include <string_view>

namespace warplens::agent::llm {

// At most `max_bytes` of `text` (cut at a UTF-8 boundary), with "..." when cut.
std::string clip(std::string_view text, std::size_t max_bytes);

}  // namespace warplens::agent::llm
