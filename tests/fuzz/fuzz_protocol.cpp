// libFuzzer target: the LSP base protocol and JSON-RPC layer.
//
// The input is a byte stream as a client might send it. It is fed to the
// frame reader in pieces (the first byte picks the piece size, so partial
// headers and bodies are exercised), every frame goes through
// parse_message, and every message through what the server does with any
// message before a handler sees it: copy it, log it (redacted), dump it,
// convert its params to the LSP types, answer it. None of it may crash,
// throw, or take stack proportional to the input.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/redaction.h"
#include "protocol/framing.h"
#include "protocol/jsonrpc.h"
#include "protocol/lsp_basic.h"
#include "protocol/lsp_diagnostics.h"
#include "protocol/lsp_document_sync.h"
#include "protocol/lsp_features.h"
#include "protocol/lsp_lifecycle.h"
#include "protocol/lsp_warplens.h"
#include "protocol/lsp_window.h"
#include "tests/fuzz/fuzz_logging.h"

using namespace warplens::protocol;

namespace {

template <class T>
void try_convert(const json& params) {
  try {
    T value = params.get<T>();
    json back = value;  // and back to the wire
    (void)dump(back);
  } catch (const json::exception&) {
    // InvalidParams: the server answers it; not a crash.
  }
}

void exercise(const Message& message) {
  Message copy = message;  // handlers copy params; a deep value would overflow here
  (void)copy;
  if (const auto* r = std::get_if<Request>(&message)) {
    (void)warplens::common::loggable(r->params);
    try_convert<InitializeParams>(r->params);
    try_convert<TextDocumentPositionParams>(r->params);
    try_convert<CodeActionParams>(r->params);
    try_convert<CodeAction>(r->params);
    try_convert<CodeLensParams>(r->params);
    try_convert<ExecuteCommandParams>(r->params);
    (void)dump(make_result(r->id, r->params));
    (void)dump(make_error(r->id, {ErrorCode::InvalidParams, r->method, r->params}));
  } else if (const auto* n = std::get_if<Notification>(&message)) {
    (void)warplens::common::loggable(n->params);
    try_convert<DidOpenTextDocumentParams>(n->params);
    try_convert<DidChangeTextDocumentParams>(n->params);
    try_convert<DidCloseTextDocumentParams>(n->params);
    try_convert<DidChangeConfigurationParams>(n->params);
    try_convert<CancelParams>(n->params);
    try_convert<ProgressParams>(n->params);
  } else if (const auto* resp = std::get_if<Response>(&message)) {
    (void)warplens::common::loggable(resp->result);
    if (resp->error) {
      json e = *resp->error;
      (void)dump(e);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  warplens::fuzz::configure_logging();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t piece = 1 + data[0] % 64 * (data[0] & 0x80 ? 1024 : 1);
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  FrameReader reader(1u << 20);
  std::vector<FrameEvent> events;
  while (!in.empty()) {
    std::size_t n = std::min(piece, in.size());
    reader.feed(in.substr(0, n), events);
    in.remove_prefix(n);
  }
  for (const auto& event : events) {
    const auto* frame = std::get_if<Frame>(&event);
    if (!frame) continue;
    // What the server logs of a body it could not use.
    (void)warplens::common::loggable_text(frame->body, 200);
    auto parsed = parse_message(frame->body);
    if (const auto* invalid = std::get_if<InvalidMessage>(&parsed)) {
      (void)dump(make_error(invalid->id, invalid->error));
      continue;
    }
    exercise(std::get<Message>(parsed));
  }
  return 0;
}
