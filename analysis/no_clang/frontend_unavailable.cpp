#include "analysis/frontend.h"

namespace warplens {

bool frontend_available() { return false; }

ParseResult parse_translation_unit(const SourceFile& file, const AnalysisOptions& options,
                                   std::stop_token) {
  ParseResult r;
  r.model.file = file.path;
  r.toolchain.requested_arch = options.arch;
  Finding f;
  f.code = codes::kToolchain;
  f.severity = Severity::Error;
  f.location = {file.path, {}};
  f.message =
      "this warplens was built without the Clang front end (WARPLENS_WITH_CLANG=OFF): "
      "static analysis is unavailable; rebuild with Clang 19 to analyse sources";
  r.diagnostics.push_back(std::move(f));
  return r;
}

}  // namespace warplens
