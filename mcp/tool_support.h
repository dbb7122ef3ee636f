// What several tools need: reading a workspace file, converting engine
// results to the JSON the tools return (the same views `warplens check` and
// `warplens report` print: LSP ranges, 0-based lines, UTF-16 columns), and
// finding a kernel by name.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/analyzer.h"
#include "server/convert.h"

namespace warplens::mcp {

// The whole file; ToolError("not-found") when it cannot be read, and
// ("refused") when it is larger than `max_bytes` or a directory.
std::string read_workspace_file(const std::filesystem::path& path, const std::string& argument,
                                std::size_t max_bytes = 16u << 20);

// Converts ranges of results for `path` whose text is `text`.
class ResultConverter {
 public:
  ResultConverter(const std::string& path, const std::string& text, const std::string& docs_dir);
  server::Converter& convert() { return convert_; }

  // {code, severity, source, message, range, file, numbers, docs}: one
  // diagnostic as the analyze tool returns it. `numbers` is the finding's
  // evidence (the measured or computed values the message quotes); `docs`
  // the documentation page of its code, when there is one.
  nlohmann::json diagnostic(const Finding& finding);

 private:
  std::string docs_dir_;
  server::TextLookup texts_;
  server::Converter convert_;
};

// The kernels (and device functions) of `model` called `name`: a plain name
// matches every overload and instantiation. Empty when there is none.
std::vector<const Function*> functions_named(const KernelModel& model, const std::string& name);
// "scale_add, transpose" (kernels only), for "no kernel named X" errors.
std::string kernel_names(const KernelModel& model);

}  // namespace warplens::mcp
