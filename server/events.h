// The events features hear about without knowing each other (the part of
// clangd's ClangdServer::Callbacks that crosses features). A feature
// connects to what it reacts to and emits only what it owns: the
// scheduler's hooks emit the analysis events, text sync document_closed,
// the configuration feature settings_changed, the lifecycle initialized and
// stopping, and the features whose findings are derived (occupancy,
// profile, configuration) diagnostics_changed.
//
// Connected at registration, emitted on the io thread only.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "server/document_store.h"
#include "server/scheduler.h"

namespace warplens::server {

// A list of callbacks, called in connection order.
template <class... Args>
class Signal {
 public:
  void connect(std::function<void(Args...)> slot) { slots_.push_back(std::move(slot)); }
  void emit(Args... args) const {
    for (const auto& slot : slots_) slot(args...);
  }

 private:
  std::vector<std::function<void(Args...)>> slots_;
};

struct Events {
  Signal<const RecordPtr&> analysis_published;
  Signal<const DocumentPtr&, const std::string&> analysis_failed;
  Signal<std::size_t> analysis_activity;           // documents with pending work
  Signal<const std::string&> document_closed;      // uri
  Signal<const std::string&> diagnostics_changed;  // uri: a findings provider's findings changed
  Signal<> initialized;
  Signal<> settings_changed;
  Signal<> stopping;  // shutdown or exit: background work must stop
};

}  // namespace warplens::server
