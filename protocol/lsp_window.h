// LSP 3.17 window and workspace plumbing: messages to the user, work-done
// progress, request cancellation and configuration.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "protocol/lsp_features.h"

namespace warplens::protocol {

enum class MessageType : int { Error = 1, Warning = 2, Info = 3, Log = 4 };

struct ShowMessageParams {
  MessageType type = MessageType::Info;
  std::string message;
};
using LogMessageParams = ShowMessageParams;

struct WorkDoneProgressCreateParams {
  ProgressToken token;
};

struct WorkDoneProgressCancelParams {
  ProgressToken token;
};

struct WorkDoneProgressBegin {
  std::string title;
  std::optional<bool> cancellable;
  std::optional<std::string> message;
  std::optional<int> percentage;  // 0..100
};

struct WorkDoneProgressReport {
  std::optional<bool> cancellable;
  std::optional<std::string> message;
  std::optional<int> percentage;
};

struct WorkDoneProgressEnd {
  std::optional<std::string> message;
};

// $/progress; `value` is one of the three WorkDoneProgress* objects above.
struct ProgressParams {
  ProgressToken token;
  json value;
};

struct CancelParams {
  RequestId id;
};

struct ConfigurationItem {
  std::optional<std::string> scopeUri;
  std::optional<std::string> section;
};

struct ConfigurationParams {
  std::vector<ConfigurationItem> items;
};

struct DidChangeConfigurationParams {
  json settings;  // null when the client expects the server to pull
};

void to_json(json& j, const ShowMessageParams& v);
void from_json(const json& j, ShowMessageParams& v);
void to_json(json& j, const WorkDoneProgressCreateParams& v);
void from_json(const json& j, WorkDoneProgressCreateParams& v);
void to_json(json& j, const WorkDoneProgressCancelParams& v);
void from_json(const json& j, WorkDoneProgressCancelParams& v);
void to_json(json& j, const WorkDoneProgressBegin& v);
void to_json(json& j, const WorkDoneProgressReport& v);
void to_json(json& j, const WorkDoneProgressEnd& v);
void to_json(json& j, const ProgressParams& v);
void from_json(const json& j, ProgressParams& v);
void to_json(json& j, const CancelParams& v);
void from_json(const json& j, CancelParams& v);
void to_json(json& j, const ConfigurationItem& v);
void to_json(json& j, const ConfigurationParams& v);
void from_json(const json& j, DidChangeConfigurationParams& v);
void to_json(json& j, const DidChangeConfigurationParams& v);

}  // namespace warplens::protocol
