// A cache of nvcc runs for resource usage: memory (recent entries) and disk
// ($XDG_CACHE_HOME/warplens/resource-usage, else ~/.cache/...).
//
// An entry is identified by the exact command (nvcc path, version, flags,
// working directory; temporary paths masked) plus the exact source text. The
// hash only names the file: a hit compares the stored command and text
// byte for byte, so a hash collision can never return another file's
// numbers. Each entry also records the headers the compile read (nvcc -MD)
// with their size and modification time; editing an included header makes
// the entry stale. Builds that failed are cached too (same input, same
// error); cancelled or timed-out runs are not.
//
// Thread-safe. Disk writes are atomic (write + rename); a corrupt or
// foreign file is treated as a miss and replaced.
#pragma once

#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warplens {

struct DependencyStamp {
  std::string path;
  std::int64_t mtime_ns = 0;
  std::int64_t size = 0;
  bool operator==(const DependencyStamp&) const = default;
};

// The current stamp of a file; nullopt when it is gone.
std::optional<DependencyStamp> stamp_file(const std::string& path);

struct CachedRun {
  int exit_code = 0;
  std::string output;                      // the tools' combined output, verbatim
  std::vector<DependencyStamp> dependencies;
};

class ResourceCache {
 public:
  // `disk_directory` empty: memory only.
  explicit ResourceCache(std::string disk_directory, std::size_t memory_entries = 64,
                         std::size_t disk_entries = 512);

  std::optional<CachedRun> lookup(const std::string& command_key, const std::string& source_text);
  void store(const std::string& command_key, const std::string& source_text, const CachedRun& run);
  void clear_memory();

  const std::string& disk_directory() const { return dir_; }

  // $XDG_CACHE_HOME/warplens/resource-usage, or $HOME/.cache/warplens/resource-usage;
  // empty when neither variable is set.
  static std::string default_directory();

 private:
  struct Entry {
    std::string command_key, source_text;
    CachedRun run;
  };
  std::string dir_;
  std::size_t memory_entries_, disk_entries_;
  std::mutex mu_;
  std::list<Entry> recent_;  // most recent first

  std::string path_for(const std::string& command_key, const std::string& source_text) const;
  std::optional<Entry> read_disk(const std::string& path);
  void write_disk(const std::string& path, const Entry& e);
  void prune_disk();
};

// The process-wide cache (default_directory(), 64 entries in memory).
ResourceCache& default_resource_cache();

// 64-bit FNV-1a; names cache files (not a security boundary, see above).
std::uint64_t fnv1a64(std::string_view data, std::uint64_t seed = 0xcbf29ce484222325ull);

}  // namespace warplens
