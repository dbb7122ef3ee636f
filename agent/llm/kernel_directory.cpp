#include "agent/llm/kernel_directory.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

namespace warplens::agent::llm {

namespace fs = std::filesystem;

namespace {

fs::path best_canonical(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(p, ec);
  return ec ? p.lexically_normal() : c;
}

// True when `p` is `root` or lies below it (component-wise, not a string prefix:
// /work/a is not inside /work/ab).
bool inside(const fs::path& p, const fs::path& root) {
  auto [r, q] = std::mismatch(root.begin(), root.end(), p.begin(), p.end());
  return r == root.end();
}

// "'path'" (built by appending: GCC 12 warns falsely about "'" + string).
std::string quote(std::string_view path) {
  std::string q = "'";
  q.append(path);
  q += '\'';
  return q;
}

bool has_hidden_component(const fs::path& relative) {
  for (const auto& part : relative) {
    const std::string s = part.string();
    if (!s.empty() && s[0] == '.' && s != "." && s != "..") return true;
  }
  return false;
}

}  // namespace

KernelDirectory::KernelDirectory(const SourceFile& kernel_file) : file_(kernel_file) {
  fs::path p = fs::path(kernel_file.path);
  if (p.is_relative()) p = fs::current_path() / p;
  kernel_path_ = best_canonical(p);
  root_ = kernel_path_.parent_path();
}

std::string KernelDirectory::kernel_file_name() const { return kernel_path_.filename().string(); }

fs::path KernelDirectory::resolve(std::string_view path, std::string& error) const {
  std::string text(path);
  if (text.empty() || text == ".") return root_;
  fs::path requested(text);
  fs::path absolute = requested.is_absolute() ? requested : root_ / requested;
  // Canonical resolves "..", "." and symlinks, so a link pointing out of the
  // directory is caught by the containment check below.
  fs::path resolved = best_canonical(absolute);
  if (!inside(resolved, root_)) {
    error = quote(text) + " is outside the kernel's directory; only files under it can be read";
    return {};
  }
  if (has_hidden_component(resolved.lexically_relative(root_)) ||
      has_hidden_component(absolute.lexically_normal().lexically_relative(root_))) {
    error = quote(text) + " is a hidden file or directory; those are not shared with the model";
    return {};
  }
  return resolved;
}

KernelDirectory::Read KernelDirectory::read(std::string_view path, std::size_t max_bytes) const {
  Read r;
  fs::path p = resolve(path, r.error);
  if (p.empty()) return r;
  r.shown_path = p == root_ ? "." : p.lexically_relative(root_).string();
  std::string text;
  if (p == kernel_path_) {
    text = file_.text;  // the editor's buffer, unsaved edits included
  } else {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      r.error = quote(path) + " is a directory; use list_files to see what it holds";
      return r;
    }
    if (!fs::is_regular_file(p, ec)) {
      r.error = "no file '" + std::string(path) + "' in the kernel's directory";
      return r;
    }
    std::ifstream in(p, std::ios::binary);
    if (!in) {
      r.error = "could not open '" + std::string(path) + "'";
      return r;
    }
    text.resize(max_bytes + 1);
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (text.find('\0') != std::string::npos) {
      r.error = quote(path) + " is a binary file";
      return r;
    }
  }
  if (text.size() > max_bytes) {
    text.resize(max_bytes);
    r.truncated = true;
  }
  r.ok = true;
  r.text = std::move(text);
  return r;
}

std::string KernelDirectory::list(std::string_view path, std::string& error) const {
  fs::path p = resolve(path, error);
  if (p.empty()) return {};
  std::error_code ec;
  if (!fs::is_directory(p, ec)) {
    error = quote(path) + " is not a directory in the kernel's directory";
    return {};
  }
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(p, fs::directory_options::skip_permission_denied, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code e2;
    names.push_back(name + (entry.is_directory(e2) ? "/" : ""));
    if (names.size() >= 500) break;
  }
  if (ec) {
    error = "could not list '" + std::string(path) + "': " + ec.message();
    return {};
  }
  std::sort(names.begin(), names.end());
  std::ostringstream out;
  for (const auto& n : names) out << n << '\n';
  return out.str();
}

}  // namespace warplens::agent::llm
