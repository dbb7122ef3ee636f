// `warplens optimize`: the optimize loop from the command line.
//
//   warplens optimize FILE --kernel NAME [--budget SECONDS] [--policy builtin|llm] [--json]
//       search, verify every candidate on this GPU, report the verified winners
//   warplens optimize FILE --kernel NAME --policy llm --llm-endpoint URL --llm-model NAME
//       the same with the LLM policy proposing (API key from WARPLENS_LLM_API_KEY only)
//   warplens optimize FILE --kernel NAME --candidates-only --out DIR
//       write the built-in engine's candidates (no GPU; needs Clang)
//   warplens optimize --verify-dir DIR [--verify-dir DIR ...]
//       verify directories written by --candidates-only (no Clang needed: the
//       GPU machine), with a summary across them
//
// `argv[0]` is "optimize" (main.cpp passes `argc - 1, argv + 1`). Reports go
// to stdout (markdown, or JSON with --json); progress and diagnostics to
// stderr. Exit codes: 0 a verified winner was found (or candidates were
// written), 1 nothing beat the original, 2 error (bad arguments, no GPU, the
// original fails), 130 interrupted. `--help` lists every option.
#pragma once

namespace warplens::cli {

int run_optimize_command(int argc, char** argv);

}  // namespace warplens::cli
