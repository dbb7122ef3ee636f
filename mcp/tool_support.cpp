#include "mcp/tool_support.h"

#include <fstream>
#include <set>
#include <sstream>

#include "mcp/tool.h"
#include "server/document_store.h"
#include "server/model_json.h"

namespace warplens::mcp {

namespace fs = std::filesystem;

std::string read_workspace_file(const fs::path& path, const std::string& argument, std::size_t max_bytes) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw ToolError("refused", "`" + argument + "`: " + path.string() + " is a directory");
  auto size = fs::file_size(path, ec);
  if (!ec && size > max_bytes)
    throw ToolError("refused", "`" + argument + "`: " + path.string() + " is larger than " +
                                   std::to_string(max_bytes >> 20) + " MiB");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ToolError("not-found", "`" + argument + "`: cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

ResultConverter::ResultConverter(const std::string& path, const std::string& text, const std::string& docs_dir)
    : docs_dir_(docs_dir), convert_(server::ConvertOptions{server::PositionEncoding::Utf16, docs_dir}, texts_, path) {
  auto doc = std::make_shared<server::Document>();
  doc->path = path;
  doc->text = server::SourceText(text);
  texts_.pin(doc);
}

nlohmann::json ResultConverter::diagnostic(const Finding& finding) {
  nlohmann::json f = server::finding_json(finding, convert_);
  nlohmann::json j = {{"code", finding.code},
                      {"severity", warplens::to_string(finding.severity)},
                      {"source", f.value("source", nlohmann::json())},
                      {"message", finding.message},
                      {"file", f.value("file", nlohmann::json())},
                      {"range", f.value("range", nlohmann::json())},
                      {"numbers", f.contains("data") ? f["data"] : nlohmann::json::object()}};
  if (!finding.kernel.empty()) j["kernel"] = finding.kernel;
  if (auto href = server::docs_href(docs_dir_, finding.code)) j["docs"] = *href;
  return j;
}

std::vector<const Function*> functions_named(const KernelModel& model, const std::string& name) {
  std::vector<const Function*> out;
  for (const auto& f : model.functions)
    if (f.name == name || f.key == name) out.push_back(&f);
  return out;
}

std::string kernel_names(const KernelModel& model) {
  std::set<std::string> names;
  for (const auto& f : model.functions)
    if (f.kind == FunctionKind::Kernel) names.insert(f.name);
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

}  // namespace warplens::mcp
