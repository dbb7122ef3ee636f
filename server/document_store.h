// The open documents: their text as the editor has it (unsaved buffers
// included), their versions, and the edits that move them forward.
//
// Every change makes a new immutable snapshot, so an analysis, a published
// result or a hover can hold the exact text it was computed on while the
// user keeps typing.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "protocol/lsp_document_sync.h"
#include "formats/source_text.h"
#include "formats/text_lookup.h"

namespace warplens::server {

struct Document {
  std::string uri;
  std::string path;         // empty for non-file URIs (untitled:, ...)
  std::string language_id;
  std::int64_t version = 0;
  formats::SourceText text;
};
using DocumentPtr = std::shared_ptr<const Document>;

// Applies one content change to `text` (incremental when it has a range,
// full otherwise). Returns an error message, or empty on success.
std::string apply_change(std::string& text, const protocol::TextDocumentContentChangeEvent& change,
                         formats::PositionEncoding encoding);

class DocumentStore {
 public:
  struct ChangeResult {
    DocumentPtr document;  // the new snapshot; null on error
    std::string error;     // why the changes could not be applied
  };

  // Opens (or, if the client reopens without closing, replaces) a document.
  DocumentPtr open(const std::string& uri, const std::string& language_id, std::int64_t version,
                   std::string text);
  // Applies the changes in order. On error the document is left unchanged.
  ChangeResult change(const std::string& uri, std::int64_t version,
                      const std::vector<protocol::TextDocumentContentChangeEvent>& changes,
                      formats::PositionEncoding encoding);
  bool close(const std::string& uri);

  DocumentPtr get(const std::string& uri) const;
  // The open document whose path is `path`, if any.
  DocumentPtr find_by_path(const std::string& path) const;
  std::vector<DocumentPtr> all() const;

 private:
  std::map<std::string, DocumentPtr> documents_;
};

// The texts that ranges are converted with (formats/text_lookup.h): the open
// documents of `store` (their unsaved text and version) before the disk.
// `store` must outlive the lookup.
formats::TextLookup text_lookup(const DocumentStore& store);
// Pins `document`'s snapshot in `texts`, so it wins over the store and the
// disk (nothing for a document without a path).
void pin(formats::TextLookup& texts, const DocumentPtr& document);

}  // namespace warplens::server
