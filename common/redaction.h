// The one redactor: what keeps secrets out of every log line, error message
// and report warplens writes. Used by the logger itself (every line, every
// level, see cli/logging.cpp), by the trace of LSP messages, and by the
// LLM client for text that came back from an endpoint.
//
// Three rules, each applied everywhere:
// 1. By key name. The value of a key that names a credential is replaced:
//    apiKey, api_key, password, passwd, secret, token (and *Token, *_token),
//    authorization, auth, bearer, credential(s), cookie, privateKey,
//    accessKey. Keys that only count or describe tokens are kept: maxTokens,
//    tokenTypes, workDoneToken, partialResultToken. In JSON values by
//    structure; in text by the `"key": "value"`, `key=value` and
//    `Key: value` spellings (a malformed message logged raw, a header).
// 2. By URL userinfo. `scheme://user:password@host` becomes
//    `scheme://<redacted>@host` wherever a URL appears.
// 3. By value. Secrets the process knows (the LLM API key, every
//    environment variable whose name is a secret key by rule 1) are
//    replaced wherever they appear, and so are fragments of 8 or more of
//    their characters (servers echo keys as "sk-abc...xyz").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace warplens::common {

inline constexpr std::string_view kRedacted = "<redacted>";

// Rule 1, on one key ("apiKey", "warplens.llm.apiKey", "X-Api-Token").
bool is_secret_key(std::string_view key);

// All three rules on free text.
std::string redact_text(std::string_view text);

// A copy of `value` with rule 1 applied by structure and rules 2-3 to
// every string. Iterative: any depth is safe; levels below `max_depth`
// are replaced by "<nested too deeply>" so that dumping the copy is too.
nlohmann::json redact_json(const nlohmann::json& value, std::size_t max_depth = 64);

// A JSON value as it may appear in a log: redacted, dumped, cut to `limit`
// bytes (at a UTF-8 boundary) with the full size noted.
std::string loggable(const nlohmann::json& value, std::size_t limit = 4096);
// Free text (a message body that is not JSON) for a log: redacted and cut.
std::string loggable_text(std::string_view text, std::size_t limit = 4096);

// Rule 3: registers a secret value for the rest of the process. Values
// shorter than 4 characters are ignored (they would garble ordinary text).
// With `fragments`, runs of 8+ of its characters are replaced too (for
// keys, which servers echo in part; not for values that may be paths).
void register_secret(std::string_view value, bool fragments = false);
// Registers the value of every environment variable whose name is a
// secret key (WARPLENS_LLM_API_KEY, OPENAI_API_KEY, HF_TOKEN, ...).
void register_environment_secrets();

// Rule 3 for one given secret only (the LLM client, which holds its key):
// `text` with `secret` and its 8+ character fragments replaced.
std::string redact_secret(std::string_view text, std::string_view secret);

}  // namespace warplens::common
