#include "mcp/tool_support.h"

#include <fstream>
#include <set>
#include <sstream>

#include "mcp/tool.h"

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
