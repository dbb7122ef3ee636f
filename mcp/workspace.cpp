#include "mcp/workspace.h"

#include <stdexcept>

#include "mcp/tool.h"

namespace warplens::mcp {

namespace fs = std::filesystem;

bool is_within(const fs::path& path, const fs::path& root) {
  auto p = path.begin(), r = root.begin();
  for (; r != root.end(); ++r, ++p) {
    if (r->empty()) continue;  // a trailing separator
    if (p == path.end() || *p != *r) return false;
  }
  return true;
}

Workspace::Workspace(WorkspaceConfig config) : config_(std::move(config)) {
  std::error_code ec;
  fs::path root = config_.root.empty() ? fs::current_path(ec) : config_.root;
  root_ = fs::canonical(root, ec);
  if (ec || !fs::is_directory(root_, ec))
    throw std::runtime_error("the workspace root `" + root.string() + "` is not a directory");
}

fs::path Workspace::resolve(const std::string& given, const std::string& argument, bool must_exist) const {
  if (given.empty()) throw ToolError("not-found", "`" + argument + "` is empty");
  if (given.find('\0') != std::string::npos) throw ToolError("outside-root", "`" + argument + "` holds a NUL byte");
  fs::path p(given);
  if (p.is_relative()) p = root_ / p;
  std::error_code ec;
  // weakly_canonical follows every link of the part that exists and
  // collapses `..` in the rest, so neither a link nor `..` escapes.
  fs::path resolved = fs::weakly_canonical(p, ec);
  if (ec) throw ToolError("not-found", "`" + argument + "`: cannot resolve `" + given + "`: " + ec.message());
  if (!is_within(resolved, root_))
    throw ToolError("outside-root", "`" + argument + "`: `" + given + "` is outside the workspace root " +
                                        root_.string() + "; this server reads and writes only inside it");
  if (must_exist && !fs::exists(resolved, ec))
    throw ToolError("not-found", "`" + argument + "`: `" + given + "` does not exist (paths are relative to " +
                                     root_.string() + ")");
  return resolved;
}

std::string Workspace::relative(const fs::path& path) const {
  std::error_code ec;
  fs::path r = fs::relative(path, root_, ec);
  return ec || r.empty() ? path.string() : r.generic_string();
}

fs::path Workspace::default_capture_dir() const {
  return root_ / (config_.capture_dir.empty() ? fs::path(".warplens/capture") : fs::path(config_.capture_dir));
}

}  // namespace warplens::mcp
