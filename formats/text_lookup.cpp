#include "formats/text_lookup.h"

#include "common/file_read.h"

namespace warplens::formats {

void TextLookup::pin(const std::string& path, Snapshot snapshot) {
  if (!path.empty() && snapshot.text) pinned_[path] = std::move(snapshot);
}

TextLookup::Entry TextLookup::get(const std::string& path) {
  if (auto it = pinned_.find(path); it != pinned_.end()) return {it->second.text.get(), it->second.version};
  if (open_documents_)
    if (Snapshot open = open_documents_(path); open.text) {
      const Entry entry{open.text.get(), open.version};
      pinned_[path] = std::move(open);
      return entry;
    }
  auto it = disk_.find(path);
  if (it == disk_.end()) {
    std::shared_ptr<const SourceText> text;
    // A related location in a header: the same rule as every read.
    if (common::FileReadResult read = common::read_text_file(path))
      text = std::make_shared<SourceText>(std::move(*read.content));
    it = disk_.emplace(path, std::move(text)).first;
  }
  return {it->second.get(), std::nullopt};
}

}  // namespace warplens::formats
