#include "server/document_store.h"

#include "formats/uri.h"

namespace warplens::server {

std::string apply_change(std::string& text, const protocol::TextDocumentContentChangeEvent& change,
                         formats::PositionEncoding encoding) {
  if (!change.range) {
    text = change.text;
    return {};
  }
  formats::SourceText source(std::move(text));
  auto start = source.offset_of(change.range->start, encoding);
  auto end = source.offset_of(change.range->end, encoding);
  text = std::move(source).take_text();
  if (!start || !end) {
    const auto& bad = start ? change.range->end : change.range->start;
    return "change range position " + std::to_string(bad.line) + ":" + std::to_string(bad.character) +
           " is outside the document";
  }
  if (*start > *end) return "change range ends before it starts";
  text.replace(*start, *end - *start, change.text);
  return {};
}

DocumentPtr DocumentStore::open(const std::string& uri, const std::string& language_id, std::int64_t version,
                                std::string text) {
  auto doc = std::make_shared<Document>();
  doc->uri = uri;
  doc->path = formats::path_from_uri(uri).value_or("");
  doc->language_id = language_id;
  doc->version = version;
  doc->text = formats::SourceText(std::move(text));
  documents_[uri] = doc;
  return doc;
}

DocumentStore::ChangeResult DocumentStore::change(
    const std::string& uri, std::int64_t version,
    const std::vector<protocol::TextDocumentContentChangeEvent>& changes, formats::PositionEncoding encoding) {
  auto it = documents_.find(uri);
  if (it == documents_.end()) return {nullptr, "the document is not open"};
  std::string text = it->second->text.text();
  for (std::size_t i = 0; i < changes.size(); ++i) {
    std::string error = apply_change(text, changes[i], encoding);
    if (!error.empty()) return {nullptr, "change " + std::to_string(i + 1) + ": " + error};
  }
  auto doc = std::make_shared<Document>(*it->second);
  doc->version = version;
  doc->text = formats::SourceText(std::move(text));
  it->second = doc;
  return {doc, {}};
}

bool DocumentStore::close(const std::string& uri) { return documents_.erase(uri) > 0; }

DocumentPtr DocumentStore::get(const std::string& uri) const {
  auto it = documents_.find(uri);
  return it == documents_.end() ? nullptr : it->second;
}

DocumentPtr DocumentStore::find_by_path(const std::string& path) const {
  if (path.empty()) return nullptr;
  for (const auto& [uri, doc] : documents_)
    if (doc->path == path) return doc;
  return nullptr;
}

std::vector<DocumentPtr> DocumentStore::all() const {
  std::vector<DocumentPtr> out;
  for (const auto& [uri, doc] : documents_) out.push_back(doc);
  return out;
}

namespace {
// The snapshot's text, kept alive by the snapshot (an aliasing shared_ptr).
formats::TextLookup::Snapshot snapshot_of(const DocumentPtr& document) {
  if (!document) return {};
  return {std::shared_ptr<const formats::SourceText>(document, &document->text), document->version};
}
}  // namespace

formats::TextLookup text_lookup(const DocumentStore& store) {
  return formats::TextLookup([&store](const std::string& path) { return snapshot_of(store.find_by_path(path)); });
}

void pin(formats::TextLookup& texts, const DocumentPtr& document) {
  if (document) texts.pin(document->path, snapshot_of(document));
}

}  // namespace warplens::server
