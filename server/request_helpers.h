// Helpers for requests answered from the analysis of a document's current
// version (hover, code actions, code lenses). No request reparses: it waits
// for the scheduler's record of the version the editor has now.
#pragma once

#include <functional>
#include <string>

#include "server/analyses.h"
#include "server/method_table.h"
#include "server/workspace.h"

namespace warplens::server {

// Calls `answer(record)` once the record of the document's current version
// is ready, and replies with whatever it returns. Replies `empty` for a
// document that is not open (or not a file), ContentModified when the
// document changes while waiting, and turns exceptions into error replies.
void answer_from_current_record(const Workspace& workspace, Analyses& analyses, RequestContext& request, const std::string& uri,
                                json empty, std::function<json(const RecordPtr&)> answer);

// The engine position of a client position in the analysed text; throws
// RequestError(InvalidParams) when it is outside the document.
Position engine_position(const AnalysisRecord& record, const protocol::Position& position,
                         formats::PositionEncoding encoding);
Range engine_range(const AnalysisRecord& record, const protocol::Range& range, formats::PositionEncoding encoding);

// Commands take one optional object argument: arguments[0] ({} when absent);
// throws RequestError(InvalidParams) for anything else.
json command_argument(const protocol::ExecuteCommandParams& params);

// The open file document a command's {uri} argument names; throws
// RequestError(InvalidParams) naming `command` when it is missing or not open.
DocumentPtr command_document(const json& argument, const std::string& command, const Workspace& workspace);

// The editor's text of `doc` is what is on disk (false when unreadable).
bool matches_disk(const Document& doc);

// Ranges that overlap or touch (a cursor at either end of a finding counts).
bool touches(const Range& a, const Range& b);

}  // namespace warplens::server
