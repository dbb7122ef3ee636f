#include "common/redaction.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <mutex>
#include <shared_mutex>
#include <unordered_set>
#include <utility>
#include <vector>

extern char** environ;

namespace warplens::common {

namespace {

constexpr std::size_t kMinSecret = 4;     // shorter "secrets" are left alone
constexpr std::size_t kMinFragment = 8;   // shortest piece of a key treated as the key

std::string normalize_key(std::string_view key) {
  // The last component of a dotted path names the value.
  while (!key.empty() && (key.back() == '"' || key.back() == '\'' || key.back() == ' ')) key.remove_suffix(1);
  if (auto dot = key.rfind('.'); dot != std::string_view::npos) key.remove_prefix(dot + 1);
  std::string k;
  for (char c : key) {
    if (c == '_' || c == '-' || c == ' ' || c == '"' || c == '\'') continue;
    k += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return k;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

struct Registered {
  std::string value;
  bool fragments;
};

std::shared_mutex& registry_mutex() {
  static std::shared_mutex m;
  return m;
}
std::vector<Registered>& registry() {
  static std::vector<Registered> r;
  return r;
}

// Rule 2: the userinfo of every URL.
std::string redact_urls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t sep = text.find("://", pos);
    if (sep == std::string_view::npos) break;
    std::size_t start = sep + 3;
    std::size_t end = start;
    while (end < text.size()) {
      char c = text[end];
      if (c == '/' || c == '?' || c == '#' || std::isspace(static_cast<unsigned char>(c)) || c == '"' ||
          c == '\'' || c == '<' || c == '>' || c == '`' || c == '\\')
        break;
      ++end;
    }
    std::string_view authority = text.substr(start, end - start);
    std::size_t at = authority.rfind('@');
    out.append(text.substr(pos, start - pos));
    if (at != std::string_view::npos && at > 0) {
      out.append(kRedacted);
      out.append(authority.substr(at));
    } else {
      out.append(authority);
    }
    pos = end;
  }
  out.append(text.substr(std::min(pos, text.size())));
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

// The end of an unquoted value: the next separator.
std::size_t bare_value_end(std::string_view text, std::size_t i) {
  while (i < text.size()) {
    char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c)) || c == ',' || c == ';' || c == '&' || c == '}' || c == ']' ||
        c == ')' || c == '"' || c == '\'' || c == '\\')
      break;
    ++i;
  }
  return i;
}

// The end of a quoted value that starts at `i` (just after its opening
// `quote`, which is `"`, `'` or the escaped `\"` of a JSON string in a
// JSON string): the position of the closing quote.
std::size_t quoted_value_end(std::string_view text, std::size_t i, std::string_view quote) {
  while (i < text.size()) {
    if (text.substr(i, quote.size()) == quote) return i;
    if (text[i] == '\\' && quote.size() == 1) {
      i += 2;
      continue;
    }
    ++i;
  }
  return text.size();
}

// Rule 1 in text: `"key": "value"`, `key=value`, `Key: value`, and a
// `Bearer <token>` anywhere.
std::string redact_pairs(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t copied = 0;
  auto replace = [&](std::size_t from, std::size_t to) {
    if (to <= from) return;
    if (text.substr(from, to - from) == kRedacted) return;
    out.append(text.substr(copied, from - copied));
    out.append(kRedacted);
    copied = to;
  };
  std::size_t i = 0;
  while (i < text.size()) {
    if (!is_identifier_char(text[i]) || (i > 0 && is_identifier_char(text[i - 1]))) {
      ++i;
      continue;
    }
    std::size_t key_start = i;
    while (i < text.size() && is_identifier_char(text[i])) ++i;
    std::string_view key = text.substr(key_start, i - key_start);
    std::size_t j = i;
    if (iequals(key, "bearer") && j < text.size() && text[j] == ' ') {
      std::size_t v = j + 1;
      std::size_t e = bare_value_end(text, v);
      if (e > v) replace(v, e);
      i = std::max(i, e);
      continue;
    }
    // A closing quote (plain or escaped), then spaces, then ':' or '='.
    if (j + 1 < text.size() && text[j] == '\\' && text[j + 1] == '"') j += 2;
    else if (j < text.size() && (text[j] == '"' || text[j] == '\'')) ++j;
    while (j < text.size() && text[j] == ' ') ++j;
    if (j >= text.size() || (text[j] != ':' && text[j] != '=')) continue;
    if (text.substr(j, 3) == "://") continue;  // a URL's scheme
    if (!is_secret_key(key)) continue;
    ++j;
    while (j < text.size() && text[j] == ' ') ++j;
    if (j >= text.size()) break;
    std::size_t v = j, e = j;
    if (text.substr(j, 2) == "\\\"") {
      v = j + 2;
      e = quoted_value_end(text, v, "\\\"");
    } else if (text[j] == '"' || text[j] == '\'') {
      v = j + 1;
      e = quoted_value_end(text, v, text.substr(j, 1));
    } else if (text[j] == '{' || text[j] == '[') {
      continue;  // a structured value: its own keys are looked at in turn
    } else {
      e = bare_value_end(text, v);
      std::string_view word = text.substr(v, e - v);
      if (word == "null" || word == "true" || word == "false") continue;
      // "Authorization: Bearer abc": the scheme and the credential.
      if ((iequals(word, "bearer") || iequals(word, "basic") || iequals(word, "token")) && e < text.size() &&
          text[e] == ' ')
        e = bare_value_end(text, e + 1);
    }
    replace(v, e);
    i = std::max(i, e);
  }
  out.append(text.substr(std::min(copied, text.size())));
  return out;
}

std::string redact_exact(std::string_view text, std::string_view secret) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (text.compare(i, secret.size(), secret) == 0) {
      out += kRedacted;
      i += secret.size();
    } else {
      out += text[i++];
    }
  }
  return out;
}

// The first `limit` bytes (cut at a UTF-8 boundary) and the size of the
// whole (`full` bytes), for text that is too long for a log.
std::string cut(std::string text, std::size_t limit, std::size_t full) {
  std::size_t n = std::min(limit, text.size());
  while (n > 0 && n < text.size() && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  text.resize(n);
  return text + "... (" + std::to_string(full) + " bytes)";
}

}  // namespace

bool is_secret_key(std::string_view key) {
  const std::string k = normalize_key(key);
  if (k.empty()) return false;
  // Names that count or describe tokens, or are LSP's progress tokens.
  if (k == "workdonetoken" || k == "partialresulttoken") return false;
  for (const char* word : {"apikey", "password", "passwd", "passphrase", "secret", "authorization", "credential",
                           "cookie", "privatekey", "accesskey", "bearer", "sessionkey", "signingkey"})
    if (k.find(word) != std::string::npos) return true;
  if (ends_with(k, "token") || ends_with(k, "auth")) return true;
  return k == "pwd" || k == "pw" || k == "pass";
}

std::string redact_secret(std::string_view text, std::string_view secret) {
  if (secret.size() < kMinSecret) return std::string(text);
  if (secret.size() < kMinFragment) return redact_exact(text, secret);
  // Any run of 8+ characters that also occurs in the key is part of the key
  // as far as anyone reading a log is concerned. Seed with the key's 8-grams,
  // then extend each hit as far as it stays a substring of the key.
  std::unordered_set<std::string_view> grams;
  for (std::size_t i = 0; i + kMinFragment <= secret.size(); ++i) grams.insert(secret.substr(i, kMinFragment));
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (i + kMinFragment <= text.size() && grams.count(text.substr(i, kMinFragment))) {
      std::size_t len = kMinFragment;
      while (i + len < text.size() && secret.find(text.substr(i, len + 1)) != std::string_view::npos) ++len;
      out += kRedacted;
      i += len;
    } else {
      out += text[i++];
    }
  }
  return out;
}

void register_secret(std::string_view value, bool fragments) {
  if (value.size() < kMinSecret || value == kRedacted) return;
  std::unique_lock lock(registry_mutex());
  for (auto& r : registry())
    if (r.value == value) {
      r.fragments = r.fragments || fragments;
      return;
    }
  registry().push_back({std::string(value), fragments});
}

void register_environment_secrets() {
  for (char** e = environ; e && *e; ++e) {
    std::string_view entry(*e);
    auto eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    if (is_secret_key(entry.substr(0, eq))) register_secret(entry.substr(eq + 1));
  }
}

std::string redact_text(std::string_view text) {
  std::string out = redact_pairs(redact_urls(text));
  std::shared_lock lock(registry_mutex());
  for (const auto& r : registry()) {
    if (r.fragments)
      out = redact_secret(out, r.value);
    else if (out.find(r.value) != std::string::npos)
      out = redact_exact(out, r.value);
  }
  return out;
}

nlohmann::json redact_json(const nlohmann::json& value, std::size_t max_depth) {
  using json = nlohmann::json;
  json root;
  struct Item {
    const json* from;
    json* to;
    std::size_t depth;
  };
  std::vector<Item> stack{{&value, &root, 0}};
  while (!stack.empty()) {
    Item item = stack.back();
    stack.pop_back();
    const json& from = *item.from;
    json& to = *item.to;
    if (item.depth > max_depth && (from.is_object() || from.is_array())) {
      to = "<nested too deeply>";
      continue;
    }
    if (from.is_object()) {
      to = json::object();
      for (auto it = from.begin(); it != from.end(); ++it) {
        json& slot = to[it.key()];  // std::map: references stay valid
        if (is_secret_key(it.key()) && !it.value().is_null())
          slot = kRedacted;
        else
          stack.push_back({&it.value(), &slot, item.depth + 1});
      }
    } else if (from.is_array()) {
      to = json::array();
      auto& elements = to.get_ref<json::array_t&>();
      elements.resize(from.size());  // sized first: no reallocation below
      for (std::size_t i = 0; i < from.size(); ++i) stack.push_back({&from[i], &elements[i], item.depth + 1});
    } else if (from.is_string()) {
      to = redact_text(from.get_ref<const std::string&>());
    } else {
      to = from;
    }
  }
  return root;
}

std::string loggable(const nlohmann::json& value, std::size_t limit) {
  std::string text = redact_json(value).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() <= limit) return text;
  std::size_t full = text.size();
  return cut(std::move(text), limit, full);
}

std::string loggable_text(std::string_view text, std::size_t limit) {
  // Cut after redacting, so that a cut cannot leave half a secret behind;
  // a first cut well past the limit keeps a huge body cheap.
  const bool partial = text.size() > limit + 4096;
  std::string redacted = redact_text(text.substr(0, limit + 4096));
  if (!partial && redacted.size() <= limit) return redacted;
  return cut(std::move(redacted), limit, text.size());
}

}  // namespace warplens::common
