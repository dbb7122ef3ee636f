// The labelled corpus: runs the real analyzer (Clang front end + static
// analyses) on every tests/corpus/*.cu, compares its findings with the
// `// expect:` labels (README.md) and prints the confusion per code. Fails
// below precision 0.95 / recall 0.90 for uncoalesced-global and
// shared-bank-conflict. Also prints what the analyses cost against the parse.
// The fusion corpus (tests/corpus/fusion/*.cu: launch sequences) is scored
// the same way for fusable-intermediate, with the severity as the verdict.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/analyzer.h"
#include "corpus_labels.h"
#include "tests/support/analysis_requirements.h"

using namespace warplens;
using warplens::test::needs;
using namespace warplens::corpus;

namespace {

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

std::vector<std::filesystem::path> corpus_files(const std::filesystem::path& dir = WARPLENS_CORPUS_DIR) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".cu") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Every file analysed, its labels parsed and its findings of the labelled
// codes collected.
struct CorpusRun {
  std::vector<Label> expected;
  std::vector<Observed> observed;
  std::vector<AnalysisResult> results;  // owns the findings `observed` points into
  std::vector<std::string> errors;
  double parse_ms = 0, analysis_ms = 0;
  int kernels = 0, parsed = 0;
};

CorpusRun run_corpus(const std::vector<std::filesystem::path>& files) {
  CorpusRun run;
  run.results.reserve(files.size());
  for (const auto& path : files) {
    SourceFile src{path.string(), read_file(path)};
    auto labels = parse_labels(src.path, src.text, run.errors);
    run.expected.insert(run.expected.end(), labels.begin(), labels.end());
    run.results.push_back(analyze(src, AnalysisOptions{}));
    const AnalysisResult& r = run.results.back();
    run.parsed += r.parsed;
    run.parse_ms += r.parse_ms;
    run.analysis_ms += r.analysis_ms;
    run.kernels += int(r.model.kernels().size());
    for (const auto& f : r.findings)
      if (f.source == "clang" && f.severity == Severity::Error)
        std::printf("  clang error %s:%d: %s\n", path.filename().c_str(), f.location.range.start.line + 1,
                    f.message.c_str());
    auto obs = observed_findings(src.path, r.findings);
    run.observed.insert(run.observed.end(), obs.begin(), obs.end());
  }
  for (const auto& e : run.errors) std::printf("  label error: %s\n", e.c_str());
  return run;
}

}  // namespace

TEST_CASE("the label parser reads kinds, degrees, ratios and severities, and rejects typos") {
  std::vector<std::string> errors;
  auto labels = parse_labels("/x/k.cu",
                             "a = b;\n"
                             "x[i] = y[j];  // expect: uncoalesced-global(load, 8x) uncoalesced-global(store)\n"
                             "t[tx][ty];  // expect: shared-bank-conflict(load, 32-way)@info\n"
                             "__syncthreads();  // expect: divergent-barrier@warning\n",
                             errors);
  CHECK(errors.empty());
  REQUIRE(labels.size() == 4);
  CHECK(labels[0].line == 2);
  CHECK(labels[0].kind == "load");
  CHECK(labels[0].ratio == 8.0);
  CHECK(labels[1].kind == "store");
  CHECK(labels[2].degree == 32);
  CHECK(labels[2].severity == Severity::Information);
  CHECK(labels[3].code == "divergent-barrier");
  CHECK(labels[3].severity == Severity::Warning);

  parse_labels("/x/k.cu", "// expect: uncoalesced-globl(load)\n// expect: shared-bank-conflict\n", errors);
  CHECK(errors.size() == 2);
}

TEST_CASE("matching counts a load and a store on one line separately") {
  std::vector<std::string> errors;
  auto labels = parse_labels("/x/k.cu", "x\n// expect: uncoalesced-global(load) uncoalesced-global(store)\n", errors);
  std::vector<Finding> findings(2);
  for (auto& f : findings) {
    f.code = codes::kUncoalescedGlobal;
    f.location.range.start.line = 1;
  }
  findings[0].data.set("access", std::string("store"));
  findings[1].data.set("access", std::string("atomic"));
  findings.push_back(findings[0]);  // a second store on the line: the same observation
  Comparison cmp;
  compare(labels, observed_findings("/x/k.cu", findings), cmp);
  CHECK(cmp.by_code[codes::kUncoalescedGlobal].tp == 1);
  CHECK(cmp.by_code[codes::kUncoalescedGlobal].fp == 1);
  CHECK(cmp.by_code[codes::kUncoalescedGlobal].fn == 1);
}

TEST_CASE("corpus: precision and recall per code" * needs("clang-front-end")) {
  auto files = corpus_files();
  REQUIRE(files.size() >= 10);
  CorpusRun run = run_corpus(files);
  const auto& [expected, observed, results, errors, parse_ms, analysis_ms, kernels, parsed] = run;
  CHECK(errors.empty());
  REQUIRE_MESSAGE(parsed > 0, "the front end parsed none of the " << files.size() << " files");
  CHECK(parsed == int(files.size()));
  CHECK(kernels >= 40);

  Comparison cmp;
  compare(expected, observed, cmp);
  std::printf("\ncorpus: %zu files, %d kernels, %zu labels, %zu findings\n", files.size(), kernels, expected.size(),
              observed.size());
  std::printf("%-22s %5s %5s %5s %10s %8s\n", "code", "TP", "FP", "FN", "precision", "recall");
  for (const auto& code : labelled_codes()) {
    const Confusion& c = cmp.by_code[code];
    std::printf("%-22s %5d %5d %5d %10.3f %8.3f\n", code.c_str(), c.tp, c.fp, c.fn, c.precision(), c.recall());
  }
  for (const auto& s : cmp.false_positives) std::printf("  FP %s\n", s.c_str());
  for (const auto& s : cmp.false_negatives) std::printf("  FN %s\n", s.c_str());
  for (const auto& s : cmp.detail_mismatches) std::printf("  detail %s\n", s.c_str());
  std::printf("cost: parse %.1f ms, static analyses %.1f ms (%.1f%% of parse)\n", parse_ms, analysis_ms,
              parse_ms > 0 ? 100.0 * analysis_ms / parse_ms : 0.0);

  for (const char* code : {codes::kUncoalescedGlobal, codes::kSharedBankConflict}) {
    INFO(code);
    CHECK(cmp.by_code[code].precision() >= 0.95);
    CHECK(cmp.by_code[code].recall() >= 0.90);
  }
  // The kernel corpus's programs label no fusable pair: any finding there is a false positive.
  CHECK(cmp.by_code[codes::kFusableIntermediate].fp == 0);
}

TEST_CASE("fusion corpus: fusable-intermediate precision and recall over launch sequences" * needs("clang-front-end")) {
  auto files = corpus_files(std::filesystem::path(WARPLENS_CORPUS_DIR) / "fusion");
  REQUIRE(files.size() >= 3);
  CorpusRun run = run_corpus(files);
  const auto& [expected, observed, results, errors, parse_ms, analysis_ms, kernels, parsed] = run;
  CHECK(errors.empty());
  REQUIRE_MESSAGE(parsed > 0, "the front end parsed none of the " << files.size() << " files");
  CHECK(parsed == int(files.size()));
  Comparison cmp;
  compare(expected, observed, cmp);
  const Confusion& c = cmp.by_code[codes::kFusableIntermediate];
  std::printf("\nfusion corpus: %zu files, %zu labels, %zu findings\n", files.size(), expected.size(),
              observed.size());
  std::printf("%-22s %5d %5d %5d %10.3f %8.3f\n", codes::kFusableIntermediate, c.tp, c.fp, c.fn, c.precision(),
              c.recall());
  for (const auto& s : cmp.false_positives)
    if (s.find(codes::kFusableIntermediate) != std::string::npos) std::printf("  FP %s\n", s.c_str());
  for (const auto& s : cmp.false_negatives) std::printf("  FN %s\n", s.c_str());
  // Only fusable-intermediate is labelled in these programs.
  for (const auto& [code, conf] : cmp.by_code)
    if (code != codes::kFusableIntermediate) CHECK_MESSAGE(conf.tp + conf.fn == 0, code);
  CHECK(c.tp >= 8);
  CHECK(c.precision() >= 0.95);
  CHECK(c.recall() >= 0.90);
}
