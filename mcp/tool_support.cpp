#include "mcp/tool_support.h"

#include <set>

#include "common/file_read.h"
#include "mcp/tool.h"

namespace warplens::mcp {

namespace fs = std::filesystem;

std::string read_workspace_file(const fs::path& path, const std::string& argument, std::size_t max_bytes) {
  common::FileReadResult read = common::read_regular_file(path.string(), max_bytes);
  if (read) return std::move(*read.content);
  throw ToolError(read.refusal == common::FileRefusal::NotFound ? "not-found" : "refused",
                  "`" + argument + "`: cannot read " + read.error);
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
