// What several tools need: reading a workspace file, converting engine
// results to the JSON the tools return (result_json.h), and finding a kernel
// by name.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/analyzer.h"
#include "mcp/result_json.h"

namespace warplens::mcp {

// The whole file; ToolError("not-found") when it cannot be read, and
// ("refused") when it is larger than `max_bytes` or not a regular file (a
// directory, a FIFO, a device, a file of /proc): common/file_read.h, which
// opens without blocking, so a FIFO is refused at once instead of hanging
// the call until a writer appears.
std::string read_workspace_file(const std::filesystem::path& path, const std::string& argument,
                                std::size_t max_bytes = 16u << 20);

// Converts results for `path` whose text is `text`: ranges to UTF-16
// columns, findings to the analyze tool's diagnostics.
class ResultConverter {
 public:
  ResultConverter(const std::string& path, const std::string& text, const std::string& root,
                  const std::string& docs_dir)
      : docs_dir_(docs_dir), ranges_(path, text, root) {}
  RangeConverter& ranges() { return ranges_; }
  nlohmann::json diagnostic(const Finding& finding) { return finding_json(finding, ranges_, docs_dir_); }

 private:
  std::string docs_dir_;
  RangeConverter ranges_;
};

// The kernels (and device functions) of `model` called `name`: a plain name
// matches every overload and instantiation. Empty when there is none.
std::vector<const Function*> functions_named(const KernelModel& model, const std::string& name);
// "scale_add, transpose" (kernels only), for "no kernel named X" errors.
std::string kernel_names(const KernelModel& model);

}  // namespace warplens::mcp
