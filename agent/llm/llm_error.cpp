#include "agent/llm/llm_error.h"

namespace warplens::agent::llm {

const char* to_string(LlmErrorKind kind) {
  switch (kind) {
    case LlmErrorKind::Configuration: return "configuration";
    case LlmErrorKind::Connection: return "connection";
    case LlmErrorKind::Tls: return "tls";
    case LlmErrorKind::Timeout: return "timeout";
    case LlmErrorKind::Cancelled: return "cancelled";
    case LlmErrorKind::Authentication: return "authentication";
    case LlmErrorKind::NotFound: return "not-found";
    case LlmErrorKind::NoToolSupport: return "no-tool-support";
    case LlmErrorKind::RateLimited: return "rate-limited";
    case LlmErrorKind::ServerError: return "server-error";
    case LlmErrorKind::Rejected: return "rejected";
    case LlmErrorKind::InvalidResponse: return "invalid-response";
  }
  return "?";
}

}  // namespace warplens::agent::llm
