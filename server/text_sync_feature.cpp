// Text synchronisation: the document store follows the editor's buffers
// (full and incremental changes, in the negotiated position encoding) and
// every new version is handed to the scheduler.
#include <spdlog/spdlog.h>

#include "protocol/lsp_document_sync.h"
#include "server/features.h"

namespace warplens::server {

void register_text_sync(ServerContext& ctx) {
  ctx.capabilities.textDocumentSync = {true, protocol::TextDocumentSyncKind::Incremental};

  ctx.methods.on_notification<protocol::DidOpenTextDocumentParams>(
      "textDocument/didOpen", [&ctx](const protocol::DidOpenTextDocumentParams& p) {
        const auto& item = p.textDocument;
        auto doc = ctx.documents.open(item.uri, item.languageId, item.version, item.text);
        if (doc->path.empty()) {
          spdlog::info("not analysing {}: only file:// documents are analysed", item.uri);
          return;
        }
        spdlog::debug("opened {} version {} ({} bytes)", item.uri, item.version, item.text.size());
        ctx.analyze(doc);
      });

  ctx.methods.on_notification<protocol::DidChangeTextDocumentParams>(
      "textDocument/didChange", [&ctx](const protocol::DidChangeTextDocumentParams& p) {
        const auto& id = p.textDocument;
        auto before = ctx.documents.get(id.uri);
        if (!before) {
          spdlog::warn("didChange for {}, which is not open", id.uri);
          return;
        }
        if (id.version <= before->version)
          spdlog::warn("didChange for {}: version {} does not increase on {}", id.uri, id.version, before->version);
        auto result = ctx.documents.change(id.uri, id.version, p.contentChanges, ctx.encoding);
        if (!result.document) {
          // The editor and the server disagree about the text. Analysing a
          // guess would put diagnostics in the wrong places: drop the
          // document and say so.
          spdlog::error("cannot apply didChange to {}: {}", id.uri, result.error);
          ctx.documents.close(id.uri);
          ctx.scheduler.remove(id.uri);
          ctx.document_closed.emit(id.uri);
          ctx.show_message(protocol::MessageType::Error,
                           "warplens lost track of " + id.uri + " (" + result.error +
                               "); close and reopen the file to analyse it again");
          return;
        }
        ctx.analyze(result.document);
      });

  ctx.methods.on_notification<protocol::DidCloseTextDocumentParams>(
      "textDocument/didClose", [&ctx](const protocol::DidCloseTextDocumentParams& p) {
        const auto& uri = p.textDocument.uri;
        if (!ctx.documents.close(uri)) return;
        ctx.scheduler.remove(uri);
        ctx.document_closed.emit(uri);
      });
}

}  // namespace warplens::server
