#include "server/client.h"

#include <spdlog/spdlog.h>

namespace warplens::server {

void Client::show_message(protocol::MessageType type, const std::string& message) {
  notify("window/showMessage", protocol::ShowMessageParams{type, message});
}

void Client::log_message(protocol::MessageType type, const std::string& message) {
  notify("window/logMessage", protocol::LogMessageParams{type, message});
}

void Client::refresh_code_lenses() {
  if (!capabilities_.codeLensRefresh) return;
  request("workspace/codeLens/refresh", nullptr, [](const protocol::Response& r) {
    if (r.error) spdlog::debug("workspace/codeLens/refresh: {}", r.error->message);
  });
}

}  // namespace warplens::server
