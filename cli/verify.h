// CLI subcommands of the verifier workflow:
//
//   warplens capture --kernel REGEX [--launches K] [--out DIR] [--max-bytes N]
//                    [--timeout S] -- PROGRAM ARGS...
//   warplens verify  --capture DIR --original FILE.cu --candidate FILE.cu --kernel NAME
//                    [--json] [--rtol X --atol X] [--inputs 5] [--runs 30] [--timeout S]
//                    [--pytorch-ref model.py] ...   (--help lists everything)
//
// `argv[0]` is the subcommand name ("verify" / "capture"); main.cpp passes
// `argc - 1, argv + 1`. Results go to stdout (text, or the verdict JSON with
// --json); diagnostics to stderr. Exit codes:
//   verify:  0 correct (level >= 1), 1 incorrect or demoted (level -1),
//            2 could not verify (no GPU, bad capture, bad arguments), 130 interrupted
//   capture: 0 at least one launch captured, 1 none, 2 error
#pragma once

namespace warplens::cli {

int run_verify_command(int argc, char** argv);
int run_capture_command(int argc, char** argv);

}  // namespace warplens::cli
