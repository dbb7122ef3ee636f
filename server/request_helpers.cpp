#include "server/request_helpers.h"

#include <fstream>
#include <sstream>

#include <spdlog/spdlog.h>

#include "common/file_read.h"

namespace warplens::server {

using protocol::ErrorCode;

void answer_from_current_record(const Workspace& workspace, Analyses& analyses, RequestContext& request,
                                const std::string& uri, json empty, std::function<json(const RecordPtr&)> answer) {
  auto doc = workspace.documents.get(uri);
  if (!doc || doc->path.empty()) return request.reply.result(std::move(empty));
  Reply reply = request.reply;
  std::stop_token stop = request.stop;
  analyses.when_ready(uri, doc->version, [reply, stop, empty = std::move(empty), answer = std::move(answer)](
                                             RecordPtr record, std::optional<WaitError> error) {
    if (stop.stop_requested() || reply.done()) return;  // cancelled: already answered
    if (error) {
      switch (*error) {
        case WaitError::ContentModified:
          return reply.error(ErrorCode::ContentModified, "the document changed; ask again");
        case WaitError::ShuttingDown:
          return reply.error(ErrorCode::RequestFailed, "the server is shutting down");
        case WaitError::Closed:
        case WaitError::Failed:
          return reply.result(empty);
      }
    }
    try {
      reply.result(answer(record));
    } catch (const RequestError& e) {
      reply.error(e.code(), e.what());
    } catch (const std::exception& e) {
      spdlog::error("request failed: {}", e.what());
      reply.error(ErrorCode::InternalError, std::string("internal error: ") + e.what());
    }
  });
}

Position engine_position(const AnalysisRecord& record, const protocol::Position& position,
                         formats::PositionEncoding encoding) {
  auto p = record.document->text.from_client(position, encoding);
  if (!p)
    throw RequestError(ErrorCode::InvalidParams, "position " + std::to_string(position.line) + ":" +
                                                     std::to_string(position.character) + " is outside the document");
  return *p;
}

Range engine_range(const AnalysisRecord& record, const protocol::Range& range, formats::PositionEncoding encoding) {
  return {engine_position(record, range.start, encoding), engine_position(record, range.end, encoding)};
}

json command_argument(const protocol::ExecuteCommandParams& p) {
  if (p.arguments.empty() || p.arguments[0].is_null()) return json::object();
  if (!p.arguments[0].is_object())
    throw RequestError(ErrorCode::InvalidParams, p.command + " takes one object argument");
  return p.arguments[0];
}

DocumentPtr command_document(const json& argument, const std::string& command, const Workspace& workspace) {
  auto uri = argument.find("uri");
  if (uri == argument.end() || !uri->is_string())
    throw RequestError(ErrorCode::InvalidParams, command + ": the argument needs a document `uri`");
  auto doc = workspace.documents.get(uri->get<std::string>());
  if (!doc) throw RequestError(ErrorCode::InvalidParams, command + ": " + uri->get<std::string>() + " is not open");
  if (doc->path.empty())
    throw RequestError(ErrorCode::InvalidParams, command + ": only file:// documents can be used");
  return doc;
}

bool touches(const Range& a, const Range& b) { return !(a.end < b.start || b.end < a.start); }

bool matches_disk(const Document& doc) {
  // Bounded by the document's own size: /dev/zero or a FIFO behind a
  // file:// URI is never read without end.
  common::FileReadResult read = common::read_regular_file(doc.path, doc.text.text().size());
  return read && *read.content == doc.text.text();
}

}  // namespace warplens::server
