// Placeholder: the Clang front end is being written (issue 2).
#include "analysis/frontend.h"

#include <clang/Basic/Version.h>

namespace warplens {

bool frontend_available() { return true; }

ParseResult parse_translation_unit(const SourceFile& file, const AnalysisOptions& options,
                                   std::stop_token) {
  ParseResult r;
  r.model.file = file.path;
  r.toolchain.requested_arch = options.arch;
  (void)clang::getClangFullVersion;
  return r;
}

}  // namespace warplens
