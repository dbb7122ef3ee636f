#include "agent/llm/redaction.h"

#include <unordered_set>

namespace warplens::agent::llm {

namespace {

constexpr std::size_t kMinFragment = 8;   // shortest piece of the key treated as the key
constexpr std::size_t kMinSecret = 4;     // shorter "secrets" are left alone (would garble text)
constexpr std::string_view kMark = "[redacted]";

}  // namespace

std::string redact(std::string_view text, std::string_view secret) {
  if (secret.size() < kMinSecret) return std::string(text);
  std::string out;
  out.reserve(text.size());
  if (secret.size() < kMinFragment) {
    for (std::size_t i = 0; i < text.size();) {
      if (text.compare(i, secret.size(), secret) == 0) {
        out += kMark;
        i += secret.size();
      } else {
        out += text[i++];
      }
    }
    return out;
  }
  // Any run of 8+ characters that also occurs in the key is part of the key
  // as far as anyone reading a log is concerned. Seed with the key's 8-grams,
  // then extend each hit as far as it stays a substring of the key.
  std::unordered_set<std::string_view> grams;
  for (std::size_t i = 0; i + kMinFragment <= secret.size(); ++i) grams.insert(secret.substr(i, kMinFragment));
  for (std::size_t i = 0; i < text.size();) {
    if (i + kMinFragment <= text.size() && grams.count(text.substr(i, kMinFragment))) {
      std::size_t len = kMinFragment;
      while (i + len < text.size() && secret.find(text.substr(i, len + 1)) != std::string_view::npos) ++len;
      out += kMark;
      i += len;
    } else {
      out += text[i++];
    }
  }
  return out;
}

std::string clip(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  std::size_t cut = max_bytes;
  // Do not split a UTF-8 sequence: back up over continuation bytes.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "...";
}

}  // namespace warplens::agent::llm
