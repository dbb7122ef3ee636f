// Memory per language-server session (issue 21, "never leak"): the
// fuzz_server harness' per-input work (a fresh LanguageServer with its
// worker threads, a client's frames, shutdown; tests/fuzz/fuzz_server.cpp,
// compiled here without libFuzzer or sanitizers) run over a fixed set of
// inputs many times in one process. The reference is the process' RSS
// after the first pass (everything warmed up); the result is how much it
// grew after that, per session. A server that kept anything per session
// (a registry, a cache keyed by something the client sends, a thread that
// never ends) grows linearly here; the harness under libFuzzer and ASan
// grows for reasons of its own (docs/fuzzing.md), which is why this runs
// the same code without them.
//
// usage: bench_session_memory [--passes N] SEED_DIR_OR_FILES...
//   (seeds: python3 tests/fuzz/make_seeds.py DIR; then DIR/fuzz_server)
// Prints `passes`, `sessions`, RSS at the reference and at the end (KB),
// and `growth_bytes_per_session`.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

long rss_kb() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}

void add_input(std::vector<std::string>& inputs, const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "bench_session_memory: cannot read %s\n", p.c_str());
    std::exit(2);
  }
  inputs.emplace_back(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

}  // namespace

int main(int argc, char** argv) {
  // The server logs every session (to stdout, spdlog's default, in this
  // harness): not what is measured.
  spdlog::set_level(spdlog::level::off);
  int passes = 200;
  std::vector<std::string> inputs;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--passes" && i + 1 < argc) {
      passes = std::atoi(argv[++i]);
      if (passes < 2) {
        std::fprintf(stderr, "bench_session_memory: --passes must be at least 2\n");
        return 2;
      }
    } else if (std::filesystem::is_directory(a)) {
      for (const auto& e : std::filesystem::directory_iterator(a))
        if (e.is_regular_file()) add_input(inputs, e.path());
    } else {
      add_input(inputs, a);
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr,
                 "usage: bench_session_memory [--passes N] SEED_DIR_OR_FILES...\n"
                 "  seeds: python3 tests/fuzz/make_seeds.py DIR, then DIR/fuzz_server\n");
    return 2;
  }
  auto pass = [&] {
    for (const std::string& s : inputs)
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
  };
  pass();
  const long reference = rss_kb();
  for (int p = 1; p < passes; ++p) pass();
  const long end = rss_kb();
  const long long sessions = static_cast<long long>(inputs.size()) * (passes - 1);
  std::printf("passes\t%d\nsessions_after_reference\t%lld\nrss_reference_kb\t%ld\nrss_end_kb\t%ld\n"
              "growth_bytes_per_session\t%.1f\n",
              passes, sessions, reference, end, (end - reference) * 1024.0 / static_cast<double>(sessions));
  return 0;
}
