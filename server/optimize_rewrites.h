// The verified winners of an optimize job as the editor gets them:
// {title, edit, summary}, the argument of the client-side command
// warplens.previewRewrite (editors/vscode/src/protocol.ts, PreviewRewriteArgs;
// editors/nvim/lua/warplens/preview.lua).
//
// The edit is always a WorkspaceEdit with versioned documentChanges for the
// document version the job started from: a client applies it only to that
// text, never to a buffer edited since.
#pragma once

#include <string>
#include <vector>

#include "protocol/lsp_basic.h"
#include "server/convert.h"
#include "server/document_store.h"
#include "workflows/optimize.h"

namespace warplens::server {

struct RewriteOffer {
  std::string title;    // "Apply verified rewrite: 3.1× faster (level 2, correct on 5 input sets on NVIDIA H200): pad-shared(pad=1)"
  protocol::WorkspaceEdit edit;
  std::string summary;  // markdown evidence: plan, checks, timings
  double speedup = 0;
};

// Only candidates the verifier passed at reward level >= 2 (correct, more
// than 5% faster, plausible), best first. The job already filters its
// offers; this checks each offer against its own verdict again, because an
// offer reaching the user unverified is the one failure this feature must
// not have. `document` is the snapshot the job optimised.
std::vector<RewriteOffer> verified_rewrites(const workflows::OptimizeOutcome& outcome, const Document& document,
                                            Converter& convert);

// "3.1×" (one decimal; two below 1.1 so 1.06× does not read as 1.1×).
std::string format_speedup(double speedup);

nlohmann::json to_json(const RewriteOffer& offer);

}  // namespace warplens::server
