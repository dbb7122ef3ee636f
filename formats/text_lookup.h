// The texts ranges are converted with (formats/convert.h): a column is
// converted with the text of the line it is on. A lookup asks, in order, the
// snapshots pinned in it (the exact text that was analysed), the open
// documents its owner supplies (the language server's unsaved buffers), then
// the files on disk.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "formats/source_text.h"

namespace warplens::formats {

class TextLookup {
 public:
  struct Entry {
    const SourceText* text = nullptr;         // null: unreadable
    std::optional<std::int64_t> version;      // set for open documents
  };
  // A text kept alive by whoever owns it, and the version of an open document.
  struct Snapshot {
    std::shared_ptr<const SourceText> text;  // null: none
    std::optional<std::int64_t> version;
  };
  // The open document at `path`, if any (a Snapshot without text otherwise).
  using OpenDocuments = std::function<Snapshot(const std::string& path)>;

  explicit TextLookup(OpenDocuments open_documents = {}) : open_documents_(std::move(open_documents)) {}
  // Pins a snapshot (the analysed one) so it wins over open documents and the
  // disk. A snapshot without a path or a text is ignored.
  void pin(const std::string& path, Snapshot snapshot);
  Entry get(const std::string& path);

 private:
  OpenDocuments open_documents_;
  std::map<std::string, Snapshot> pinned_;
  std::map<std::string, std::shared_ptr<const SourceText>> disk_;  // null: unreadable
};

}  // namespace warplens::formats
