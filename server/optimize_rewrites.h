// The verified winners of an optimize job as the editor gets them:
// {title, edit, summary}, the argument of the client-side command
// warplens.previewRewrite (editors/vscode/src/protocol.ts, PreviewRewriteArgs;
// editors/nvim/lua/warplens/preview.lua). Which rewrites qualify, their
// titles and evidence are the workflow's (workflows/verified_rewrites.h);
// this turns each into LSP.
//
// The edit is always a WorkspaceEdit with versioned documentChanges for the
// document version the job started from: a client applies it only to that
// text, never to a buffer edited since.
#pragma once

#include <string>
#include <vector>

#include "protocol/lsp_basic.h"
#include "formats/convert.h"
#include "server/document_store.h"
#include "workflows/verified_rewrites.h"

namespace warplens::server {

struct RewriteOffer {
  std::string title;    // "Apply verified rewrite: 3.1× faster (level 2, correct on 5 input sets on NVIDIA H200): pad-shared(pad=1)"
  protocol::WorkspaceEdit edit;
  std::string summary;  // markdown evidence: plan, checks, timings
  double speedup = 0;
};

// `document` is the snapshot the job optimised.
std::vector<RewriteOffer> rewrite_offers(const std::vector<workflows::VerifiedRewrite>& rewrites,
                                         const Document& document, formats::Converter& convert);

nlohmann::json to_json(const RewriteOffer& offer);

}  // namespace warplens::server
