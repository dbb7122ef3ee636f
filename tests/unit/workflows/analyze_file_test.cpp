// "Check a file" (workflows/analyze_file.h): the analysis, then resource
// usage unless asked not to, with the reason when there is none.
#include <doctest/doctest.h>

#include "tests/support/analysis_requirements.h"
#include "workflows/analyze_file.h"

namespace warplens {

using test::needs;

TEST_CASE("without resource usage the result says why there is none") {
  workflows::FileAnalysis a =
      workflows::analyze_file(SourceFile{"/tmp/warplens-analyze-file.cu", "__global__ void k() {}\n"}, {}, false);
  CHECK_FALSE(a.resources);
  CHECK(a.resources_skipped == "resource usage was not asked for");
  CHECK(a.findings().size() == a.result.findings.size());
}

TEST_CASE("a parsed file with device code gets its resources, and their findings follow the analysis's" *
          needs("clang-front-end", "nvcc")) {
  const char* text = "__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n"
                     "void run(float* x) { k<<<1, 256>>>(x); }\n";
  workflows::FileAnalysis a = workflows::analyze_file(SourceFile{"/tmp/warplens-analyze-file.cu", text}, {});
  REQUIRE(a.result.parsed);
  REQUIRE_MESSAGE(a.resources, a.resources_skipped);
  CHECK(a.resources_skipped.empty());
  CHECK(a.findings().size() == a.result.findings.size() + a.resources->findings.size());
}

}  // namespace warplens
