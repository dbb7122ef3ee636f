#include "analysis/resource_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace warplens {

namespace fs = std::filesystem;

std::uint64_t fnv1a64(std::string_view data, std::uint64_t h) {
  for (unsigned char c : data) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::optional<DependencyStamp> stamp_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  DependencyStamp s;
  s.path = path;
  s.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  s.size = static_cast<std::int64_t>(st.st_size);
  return s;
}

namespace {

constexpr const char* kMagic = "warplens-resource-cache 1";

bool dependencies_current(const std::vector<DependencyStamp>& deps) {
  for (const auto& d : deps) {
    auto now = stamp_file(d.path);
    if (!now || !(*now == d)) return false;
  }
  return true;
}

// Length-prefixed fields: "<tag> <length>\n<bytes>\n".
void put(std::ostream& o, const char* tag, const std::string& bytes) {
  o << tag << ' ' << bytes.size() << '\n';
  o.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  o << '\n';
}

bool get(std::istream& in, const char* tag, std::string& bytes) {
  std::string t;
  std::size_t n = 0;
  if (!(in >> t >> n) || t != tag || in.get() != '\n') return false;
  if (n > (256u << 20)) return false;
  bytes.resize(n);
  if (!in.read(bytes.data(), static_cast<std::streamsize>(n))) return false;
  return in.get() == '\n';
}

}  // namespace

ResourceCache::ResourceCache(std::string disk_directory, std::size_t memory_entries, std::size_t disk_entries)
    : dir_(std::move(disk_directory)), memory_entries_(memory_entries), disk_entries_(disk_entries) {}

std::string ResourceCache::default_directory() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/warplens/resource-usage";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/warplens/resource-usage";
  return {};
}

std::string ResourceCache::path_for(const std::string& key, const std::string& text) const {
  std::uint64_t a = fnv1a64(text, fnv1a64(key));
  std::uint64_t b = fnv1a64(key, fnv1a64(text, 0x84222325cbf29ce4ull));
  char name[64];
  std::snprintf(name, sizeof name, "%016llx%016llx.entry", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return dir_ + "/" + name;
}

std::optional<CachedRun> ResourceCache::lookup(const std::string& key, const std::string& text) {
  std::lock_guard lock(mu_);
  for (auto it = recent_.begin(); it != recent_.end(); ++it) {
    if (it->command_key != key || it->source_text != text) continue;
    if (!dependencies_current(it->run.dependencies)) {
      recent_.erase(it);
      return std::nullopt;
    }
    recent_.splice(recent_.begin(), recent_, it);
    return recent_.front().run;
  }
  if (dir_.empty()) return std::nullopt;
  auto e = read_disk(path_for(key, text));
  if (!e || e->command_key != key || e->source_text != text) return std::nullopt;
  if (!dependencies_current(e->run.dependencies)) return std::nullopt;
  CachedRun run = e->run;
  recent_.push_front(std::move(*e));
  if (recent_.size() > memory_entries_) recent_.pop_back();
  return run;
}

void ResourceCache::store(const std::string& key, const std::string& text, const CachedRun& run) {
  std::lock_guard lock(mu_);
  std::erase_if(recent_, [&](const Entry& e) { return e.command_key == key && e.source_text == text; });
  recent_.push_front({key, text, run});
  if (recent_.size() > memory_entries_) recent_.pop_back();
  if (dir_.empty()) return;
  write_disk(path_for(key, text), recent_.front());
  prune_disk();
}

void ResourceCache::clear_memory() {
  std::lock_guard lock(mu_);
  recent_.clear();
}

std::optional<ResourceCache::Entry> ResourceCache::read_disk(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string magic;
  if (!std::getline(in, magic) || magic != kMagic) return std::nullopt;
  Entry e;
  std::string exit_code, deps;
  if (!get(in, "key", e.command_key) || !get(in, "text", e.source_text) || !get(in, "exit", exit_code) ||
      !get(in, "deps", deps) || !get(in, "output", e.run.output))
    return std::nullopt;
  try {
    e.run.exit_code = std::stoi(exit_code);
  } catch (...) {
    return std::nullopt;
  }
  // deps: one "<mtime_ns> <size> <path>" per line.
  std::istringstream ds(deps);
  std::string line;
  while (std::getline(ds, line)) {
    std::istringstream ls(line);
    DependencyStamp d;
    if (!(ls >> d.mtime_ns >> d.size) || ls.get() != ' ') return std::nullopt;
    std::getline(ls, d.path);
    e.run.dependencies.push_back(std::move(d));
  }
  return e;
}

void ResourceCache::write_disk(const std::string& path, const Entry& e) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return;  // a cache that cannot be written is just a smaller cache
  std::ostringstream deps;
  for (const auto& d : e.run.dependencies) deps << d.mtime_ns << ' ' << d.size << ' ' << d.path << '\n';
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return;
    out << kMagic << '\n';
    put(out, "key", e.command_key);
    put(out, "text", e.source_text);
    put(out, "exit", std::to_string(e.run.exit_code));
    put(out, "deps", deps.str());
    put(out, "output", e.run.output);
    if (!out.flush()) {
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) fs::remove(tmp, ec);
}

void ResourceCache::prune_disk() {
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  for (const auto& de : fs::directory_iterator(dir_, ec)) {
    if (de.path().extension() != ".entry") continue;
    entries.emplace_back(de.last_write_time(ec), de.path());
  }
  if (entries.size() <= disk_entries_) return;
  std::sort(entries.begin(), entries.end());
  for (std::size_t i = 0; i + disk_entries_ < entries.size(); ++i) fs::remove(entries[i].second, ec);
}

ResourceCache& default_resource_cache() {
  static ResourceCache cache(ResourceCache::default_directory());
  return cache;
}

}  // namespace warplens
