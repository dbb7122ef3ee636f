#include "protocol/lsp_lifecycle.h"

namespace warplens::protocol {

namespace {

bool flag(const json& caps, std::initializer_list<const char*> path) {
  const json& v = at_path(caps, path);
  return v.is_boolean() && v.get<bool>();
}

bool present(const json& caps, std::initializer_list<const char*> path) {
  return at_path(caps, path).is_object();
}

std::vector<std::string> strings(const json& caps, std::initializer_list<const char*> path) {
  std::vector<std::string> out;
  const json& v = at_path(caps, path);
  if (v.is_array())
    for (const auto& s : v)
      if (s.is_string()) out.push_back(s.get<std::string>());
  return out;
}

}  // namespace

void from_json(const json& j, ClientCapabilities& v) {
  v = ClientCapabilities{};
  v.raw = j;
  if (!j.is_object()) return;
  v.positionEncodings = strings(j, {"general", "positionEncodings"});
  v.workDoneProgress = flag(j, {"window", "workDoneProgress"});
  v.applyEdit = flag(j, {"workspace", "applyEdit"});
  v.documentChanges = flag(j, {"workspace", "workspaceEdit", "documentChanges"});
  v.configuration = flag(j, {"workspace", "configuration"});
  v.codeLensRefresh = flag(j, {"workspace", "codeLens", "refreshSupport"});
  v.diagnosticVersionSupport = flag(j, {"textDocument", "publishDiagnostics", "versionSupport"});
  v.diagnosticRelatedInformation = flag(j, {"textDocument", "publishDiagnostics", "relatedInformation"});
  v.diagnosticCodeDescription = flag(j, {"textDocument", "publishDiagnostics", "codeDescriptionSupport"});
  v.diagnosticData = flag(j, {"textDocument", "publishDiagnostics", "dataSupport"});
  v.hoverContentFormat = strings(j, {"textDocument", "hover", "contentFormat"});
  v.codeActionLiterals = present(j, {"textDocument", "codeAction", "codeActionLiteralSupport"});
  v.codeActionData = flag(j, {"textDocument", "codeAction", "dataSupport"});
  v.codeActionResolveProperties = strings(j, {"textDocument", "codeAction", "resolveSupport", "properties"});
}

void to_json(json& j, const ClientCapabilities& v) { j = v.raw.is_null() ? json::object() : v.raw; }

void from_json(const json& j, ClientInfo& v) {
  j.at("name").get_to(v.name);
  read_optional(j, "version", v.version);
}
void to_json(json& j, const ClientInfo& v) {
  j = json{{"name", v.name}};
  write_optional(j, "version", v.version);
}

void from_json(const json& j, InitializeParams& v) {
  if (!j.is_object()) throw json::type_error::create(302, "initialize params must be an object", &j);
  read_optional(j, "processId", v.processId);
  read_optional(j, "clientInfo", v.clientInfo);
  read_optional(j, "rootUri", v.rootUri);
  if (auto it = j.find("capabilities"); it != j.end()) it->get_to(v.capabilities);
  if (auto it = j.find("initializationOptions"); it != j.end()) v.initializationOptions = *it;
  read_optional(j, "trace", v.trace);
}
void to_json(json& j, const InitializeParams& v) {
  j = json{{"processId", nullptr}, {"rootUri", nullptr}, {"capabilities", v.capabilities}};
  if (v.processId) j["processId"] = *v.processId;
  if (v.rootUri) j["rootUri"] = *v.rootUri;
  write_optional(j, "clientInfo", v.clientInfo);
  if (!v.initializationOptions.is_null()) j["initializationOptions"] = v.initializationOptions;
  write_optional(j, "trace", v.trace);
}

void to_json(json& j, const ServerCapabilities& v) {
  j = json{{"positionEncoding", v.positionEncoding},
           {"textDocumentSync",
            {{"openClose", v.textDocumentSync.openClose},
             {"change", static_cast<int>(v.textDocumentSync.change)}}},
           {"hoverProvider", v.hoverProvider}};
  if (v.codeActionProvider)
    j["codeActionProvider"] = {{"codeActionKinds", v.codeActionProvider->codeActionKinds},
                               {"resolveProvider", v.codeActionProvider->resolveProvider}};
  if (v.codeLensProvider) j["codeLensProvider"] = {{"resolveProvider", v.codeLensProvider->resolveProvider}};
  if (v.executeCommandProvider)
    j["executeCommandProvider"] = {{"commands", v.executeCommandProvider->commands},
                                   {"workDoneProgress", v.executeCommandProvider->workDoneProgress}};
}
void from_json(const json& j, ServerCapabilities& v) {
  v.positionEncoding = j.value("positionEncoding", std::string(position_encoding_kind::kUtf16));
  if (auto it = j.find("textDocumentSync"); it != j.end()) {
    if (it->is_number_integer()) {
      v.textDocumentSync.change = static_cast<TextDocumentSyncKind>(it->get<int>());
    } else if (it->is_object()) {
      v.textDocumentSync.openClose = it->value("openClose", false);
      v.textDocumentSync.change = static_cast<TextDocumentSyncKind>(it->value("change", 0));
    }
  }
  v.hoverProvider = j.value("hoverProvider", false);
  if (auto it = j.find("codeActionProvider"); it != j.end() && it->is_object())
    v.codeActionProvider = CodeActionOptions{it->value("codeActionKinds", std::vector<std::string>{}),
                                             it->value("resolveProvider", false)};
  if (auto it = j.find("codeLensProvider"); it != j.end() && it->is_object())
    v.codeLensProvider = CodeLensOptions{it->value("resolveProvider", false)};
  if (auto it = j.find("executeCommandProvider"); it != j.end() && it->is_object())
    v.executeCommandProvider = ExecuteCommandOptions{it->value("commands", std::vector<std::string>{}),
                                                     it->value("workDoneProgress", false)};
}

void to_json(json& j, const InitializeResult& v) {
  j = json{{"capabilities", v.capabilities}};
  if (v.serverInfo) {
    j["serverInfo"] = {{"name", v.serverInfo->name}};
    if (v.serverInfo->version) j["serverInfo"]["version"] = *v.serverInfo->version;
  }
}
void from_json(const json& j, InitializeResult& v) {
  j.at("capabilities").get_to(v.capabilities);
  if (auto it = j.find("serverInfo"); it != j.end() && it->is_object())
    v.serverInfo = ServerInfo{it->value("name", std::string()),
                              it->contains("version") ? std::optional<std::string>((*it)["version"].get<std::string>())
                                                      : std::nullopt};
}

}  // namespace warplens::protocol
