#include "agent/verifier/reference_cache.h"

#include <unistd.h>

#include <cstdio>
#include <future>
#include <map>
#include <mutex>

#include "agent/verifier/verifier_json.h"
#include "profiler/capture_format.h"

namespace warplens::verifier {

namespace fs = std::filesystem;

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CompileResult, ok, relocatable, command, log, ms, cancelled)

namespace {

// What is kept next to the cubin on disk.
std::string meta_text(const CachedReference& c) {
  json j = {{"format", "warplens-reference-cache"},
            {"version", 1},
            {"original_compile", c.original_compile},
            {"input_sets", c.input_sets},
            {"reference_ms", c.reference_ms}};
  return j.dump(1);
}

std::shared_ptr<CachedReference> load_from_disk(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir / "meta.json", ec) || !fs::exists(dir / "reference.json", ec) ||
      !fs::exists(dir / "original.cubin", ec))
    return nullptr;
  try {
    auto c = std::make_shared<CachedReference>();
    json j = json::parse(read_text_file(dir / "meta.json"));
    if (j.value("format", std::string()) != "warplens-reference-cache") return nullptr;
    c->original_compile = j.value("original_compile", CompileResult{});
    c->input_sets = j.value("input_sets", std::vector<InputSetSpec>{});
    c->reference_ms = j.value("reference_ms", 0.0);
    c->reference = parse_reference_result(read_text_file(dir / "reference.json"));
    c->dir = dir;
    c->cubin = dir / "original.cubin";
    c->reference_path = dir / "reference.json";
    c->ok = c->reference.ok;
    return c->ok ? c : nullptr;
  } catch (const std::exception&) {
    return nullptr;
  }
}

fs::path make_temp_dir(const char* stem) {
  std::string tmpl = (fs::temp_directory_path() / (std::string(stem) + "-XXXXXX")).string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a temporary directory in " + tmpl);
  return tmpl;
}

}  // namespace

std::string reference_cache_key(const std::vector<std::string>& parts) {
  std::string all;
  for (const auto& p : parts) {
    all += std::to_string(p.size());
    all += ':';
    all += p;
  }
  const std::uint64_t a = capture::content_hash(all.data(), all.size());
  const std::string salted = "warplens reference key\n" + all;
  const std::uint64_t b = capture::content_hash(salted.data(), salted.size());
  char buf[40];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return buf;
}

struct ReferenceCache::Impl {
  std::mutex mutex;
  std::map<std::string, std::shared_future<std::shared_ptr<const CachedReference>>> entries;
  fs::path root;  // this process's entries, removed at exit
  ~Impl() {
    std::error_code ec;
    if (!root.empty()) fs::remove_all(root, ec);
  }
  fs::path fresh_dir() {
    if (root.empty()) root = make_temp_dir("warplens-reference");
    std::string tmpl = (root / "entry-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a directory in " + root.string());
    return tmpl;
  }
};

ReferenceCache::ReferenceCache() : impl_(std::make_shared<Impl>()) {}

ReferenceCache& ReferenceCache::instance() {
  static ReferenceCache cache;
  return cache;
}

void ReferenceCache::clear() {
  std::lock_guard lock(impl_->mutex);
  impl_->entries.clear();
}

std::shared_ptr<const CachedReference> ReferenceCache::get(const std::string& key, const fs::path& persistent_dir,
                                                           const ReferenceComputation& compute) {
  std::promise<std::shared_ptr<const CachedReference>> promise;
  std::shared_future<std::shared_ptr<const CachedReference>> existing;
  {
    std::lock_guard lock(impl_->mutex);
    auto it = impl_->entries.find(key);
    if (it != impl_->entries.end()) existing = it->second;
    else impl_->entries[key] = promise.get_future().share();
  }
  if (existing.valid()) {
    auto found = existing.get();  // waits while another verification computes it
    if (!found->ok) return found;
    auto copy = std::make_shared<CachedReference>(*found);
    copy->reused = true;
    return copy;
  }
  std::shared_ptr<CachedReference> entry;
  if (!persistent_dir.empty()) {
    entry = load_from_disk(persistent_dir / key);
    if (entry) entry->reused = true;
  }
  if (!entry) {
    entry = std::make_shared<CachedReference>();
    try {
      fs::path dir;
      {
        std::lock_guard lock(impl_->mutex);
        dir = impl_->fresh_dir();
      }
      *entry = compute(dir);
      entry->dir = dir;
      if (entry->ok && !persistent_dir.empty()) {
        // Copied whole, then renamed into place: readers never see half an entry.
        std::error_code ec;
        fs::create_directories(persistent_dir, ec);
        const fs::path tmp = persistent_dir / (key + ".tmp-" + std::to_string(::getpid()));
        fs::remove_all(tmp, ec);
        fs::copy(dir, tmp, fs::copy_options::recursive, ec);
        if (!ec) write_text_file(tmp / "meta.json", meta_text(*entry));
        if (!ec) fs::rename(tmp, persistent_dir / key, ec);
        if (ec) fs::remove_all(tmp, ec);
      }
    } catch (const std::exception& e) {
      entry->ok = false;
      entry->error = e.what();
    }
  }
  promise.set_value(entry);
  if (!entry->ok) {
    std::lock_guard lock(impl_->mutex);
    impl_->entries.erase(key);
  }
  return entry;
}

}  // namespace warplens::verifier
