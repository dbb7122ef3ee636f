// The self-checking-program verifier's rule for speedups above 10x, on CPU:
// a stand-in nvcc "builds" each program into a shell script that prints the
// WARPLENS_EXAMPLE report its source asks for (`// fake-ms: M` is its median
// time), and a stand-in compute-sanitizer runs it and reports the errors its
// source asks for (`// fake-memcheck-errors: N`). Everything else — building,
// checking, timing, the memcheck step, levels and offers — is the real code.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "agent/program_verifier.h"

namespace fs = std::filesystem;
using namespace warplens;
using namespace warplens::agent;

namespace {

void write_script(const fs::path& p, const std::string& text) {
  std::ofstream(p) << text;
  fs::permissions(p, fs::perms::owner_all, fs::perm_options::add);
}

// nvcc ... -o BIN SRC: BIN prints a report; with `--time R` (R > 0) it adds
// its median time from the source's `// fake-ms:` line.
const char* kFakeNvcc = R"(#!/bin/sh
out=""; src=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift ;;
    *.cu) src="$1" ;;
  esac
  shift
done
ms=$(sed -n 's|^// fake-ms: *||p' "$src")
errs=$(sed -n 's|^// fake-memcheck-errors: *||p' "$src")
cat > "$out" <<EOF
#!/bin/sh
# fake-memcheck-errors: ${errs:-0}
sets=0; time=0
while [ \$# -gt 0 ]; do
  case "\$1" in
    --sets) sets="\$2"; shift ;;
    --time) time="\$2"; shift ;;
  esac
  shift
done
if [ "\$time" -gt 0 ]; then
  echo 'WARPLENS_EXAMPLE {"name":"fake","ok":true,"sets":'\$sets',"time_ms":{"runs":'\$time',"median":$ms,"p10":$ms,"p90":$ms}}'
else
  echo 'WARPLENS_EXAMPLE {"name":"fake","ok":true,"sets":'\$sets'}'
fi
EOF
chmod +x "$out"
)";

// compute-sanitizer --tool memcheck --error-exitcode 86 BIN ARGS...
const char* kFakeSanitizer = R"(#!/bin/sh
shift 4
bin="$1"
echo "========= COMPUTE-SANITIZER"
"$@"
n=$(sed -n 's|^# fake-memcheck-errors: *||p' "$bin")
if [ "$n" -gt 0 ]; then
  echo "========= Invalid __global__ write of size 4 bytes"
  echo "=========     at k+0x90"
  echo "========="
fi
echo "========= ERROR SUMMARY: $n errors"
[ "$n" -gt 0 ] && exit 86
exit 0
)";

std::string program(double ms, int memcheck_errors = 0) {
  return "// fake-ms: " + std::to_string(ms) + "\n// fake-memcheck-errors: " + std::to_string(memcheck_errors) +
         "\n__global__ void k() {}\n";
}

struct Bench {
  fs::path dir;
  ProgramVerifierOptions options;
  explicit Bench(const std::string& name, bool with_sanitizer = true) {
    dir = fs::temp_directory_path() / ("warplens-large-speedup-" + name);
    fs::remove_all(dir);
    fs::create_directories(dir / "work");
    write_script(dir / "nvcc", kFakeNvcc);
    write_script(dir / "compute-sanitizer", kFakeSanitizer);
    options.nvcc = (dir / "nvcc").string();
    options.sanitizer = with_sanitizer ? (dir / "compute-sanitizer").string() : (dir / "missing-sanitizer").string();
    options.timed_runs = 10;
    options.compile_jobs = 2;
    options.check_jobs = 2;
    options.work_dir = dir / "work";
  }
  ~Bench() { fs::remove_all(dir); }
};

std::vector<CandidateVerdict> verify(Bench& b, const std::vector<std::pair<std::string, std::string>>& candidates) {
  ProgramVerifier v({(b.dir / "original.cu").string(), program(1.0)}, b.options);
  std::vector<Candidate> cs;
  for (const auto& [id, source] : candidates) {
    Candidate c;
    c.id = id;
    c.source = source;
    cs.push_back(c);
  }
  return v.verify_all(cs, {});
}

}  // namespace

TEST_CASE("program verifier: a winner above 10x is offered only after a clean memcheck run") {
  Bench b("rule");
  auto verdicts = verify(b, {{"x2", program(0.5)},
                             {"x20", program(0.05)},
                             {"x20-bad", program(0.05, 3)},
                             {"x2000", program(0.0005)}});
  REQUIRE(verdicts.size() == 4);

  const auto& x2 = verdicts[0];  // an ordinary winner: no memcheck run, offered
  CHECK(x2.level == RewardLevel::Faster);
  CHECK(x2.speedup == doctest::Approx(2.0));
  CHECK_FALSE(x2.implausible);
  CHECK(x2.memcheck_note.empty());

  const auto& x20 = verdicts[1];  // large, memcheck clean: offered
  CHECK(x20.level == RewardLevel::Faster);
  CHECK(x20.speedup == doctest::Approx(20.0));
  CHECK_FALSE(x20.implausible);
  CHECK(x20.memcheck_clean);
  CHECK(x20.memcheck_note.find("compute-sanitizer memcheck: no errors") == 0);
  CHECK(x20.evidence.find("\"memcheck\"") != std::string::npos);

  const auto& bad = verdicts[2];  // large, memcheck reports errors: incorrect
  CHECK(bad.level == RewardLevel::Incorrect);
  CHECK_FALSE(bad.correct);
  CHECK(bad.reason.find("demoted by compute-sanitizer memcheck (3 error(s)): Invalid __global__ write") == 0);

  const auto& absurd = verdicts[3];  // > 1000x: held for review, no memcheck run
  CHECK(absurd.implausible);
  CHECK(absurd.memcheck_note.empty());
  CHECK(absurd.reason.find("more than 1000x faster") == 0);
}

TEST_CASE("program verifier: without compute-sanitizer a winner above 10x is held for review") {
  Bench b("no-sanitizer", false);
  auto verdicts = verify(b, {{"x20", program(0.05)}, {"x2", program(0.5)}});
  REQUIRE(verdicts.size() == 2);
  CHECK(verdicts[0].level == RewardLevel::Faster);
  CHECK(verdicts[0].implausible);
  CHECK(verdicts[0].reason.find("more than 10x faster than the original, held for review: compute-sanitizer") == 0);
  CHECK_FALSE(verdicts[1].implausible);  // the 2x winner does not need it
  CHECK(verdicts[1].level == RewardLevel::Faster);
}
