// Text synchronisation: the document store follows the editor's buffers
// (full and incremental changes, in the negotiated position encoding) and
// every new version is handed to the scheduler.
#include <spdlog/spdlog.h>

#include "protocol/lsp_document_sync.h"
#include "server/features.h"

namespace warplens::server {

void register_text_sync(Registry& registry, Workspace& workspace, Analyses& analyses, Events& events, Client& client) {
  registry.capabilities.textDocumentSync = {true, protocol::TextDocumentSyncKind::Incremental};

  registry.methods.on_notification<protocol::DidOpenTextDocumentParams>(
      "textDocument/didOpen", [&workspace, &analyses](const protocol::DidOpenTextDocumentParams& p) {
        const auto& item = p.textDocument;
        auto doc = workspace.documents.open(item.uri, item.languageId, item.version, item.text);
        if (doc->path.empty()) {
          spdlog::info("not analysing {}: only file:// documents are analysed", item.uri);
          return;
        }
        spdlog::debug("opened {} version {} ({} bytes)", item.uri, item.version, item.text.size());
        analyses.analyze(doc);
      });

  registry.methods.on_notification<protocol::DidChangeTextDocumentParams>(
      "textDocument/didChange",
      [&workspace, &analyses, &events, &client](const protocol::DidChangeTextDocumentParams& p) {
        const auto& id = p.textDocument;
        auto before = workspace.documents.get(id.uri);
        if (!before) {
          spdlog::warn("didChange for {}, which is not open", id.uri);
          return;
        }
        if (id.version <= before->version)
          spdlog::warn("didChange for {}: version {} does not increase on {}", id.uri, id.version, before->version);
        auto result = workspace.documents.change(id.uri, id.version, p.contentChanges, client.encoding());
        if (!result.document) {
          // The editor and the server disagree about the text. Analysing a
          // guess would put diagnostics in the wrong places: drop the
          // document and say so.
          spdlog::error("cannot apply didChange to {}: {}", id.uri, result.error);
          workspace.documents.close(id.uri);
          analyses.remove(id.uri);
          events.document_closed.emit(id.uri);
          client.show_message(protocol::MessageType::Error,
                              "warplens lost track of " + id.uri + " (" + result.error +
                                  "); close and reopen the file to analyse it again");
          return;
        }
        analyses.analyze(result.document);
      });

  registry.methods.on_notification<protocol::DidCloseTextDocumentParams>(
      "textDocument/didClose", [&workspace, &analyses, &events](const protocol::DidCloseTextDocumentParams& p) {
        const auto& uri = p.textDocument.uri;
        if (!workspace.documents.close(uri)) return;
        analyses.remove(uri);
        events.document_closed.emit(uri);
      });
}

}  // namespace warplens::server
