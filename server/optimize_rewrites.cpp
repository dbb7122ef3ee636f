#include "server/optimize_rewrites.h"

namespace warplens::server {

std::vector<RewriteOffer> rewrite_offers(const std::vector<workflows::VerifiedRewrite>& rewrites,
                                         const Document& document, formats::Converter& convert) {
  std::vector<RewriteOffer> out;
  for (const auto& r : rewrites) {
    RewriteOffer o;
    o.title = r.title;
    o.summary = r.summary;
    o.speedup = r.speedup;
    protocol::TextDocumentEdit change;
    change.textDocument.uri = document.uri;
    change.textDocument.version = document.version;
    change.edits = convert.text_edits(document.path, r.edits);
    o.edit.documentChanges = std::vector<protocol::TextDocumentEdit>{std::move(change)};
    out.push_back(std::move(o));
  }
  return out;
}

nlohmann::json to_json(const RewriteOffer& offer) {
  return nlohmann::json{{"title", offer.title}, {"edit", offer.edit}, {"summary", offer.summary}};
}

}  // namespace warplens::server
