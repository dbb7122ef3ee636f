// `warplens profile`: run a program (or build and run a single .cu file)
// under the CUPTI injection library and print what was measured.
//
//   warplens profile [options] -- PROGRAM [ARGS...]
//   warplens profile [options] FILE.cu [-- ARGS...]
//   warplens profile --show PROFILE.json [--format json|tsv|text]
//
// Exit codes: 0 profiled (the program's own exit code is in the profile),
// 1 unreadable --show input or internal error, 2 usage, 3 no GPU,
// 4 the single file did not build, 5 profiling failed (no injection
// library, the program could not start, wrote no profile, or timed out).
#pragma once

namespace warplens::cli {

inline constexpr int kProfileExitOk = 0;
inline constexpr int kProfileExitError = 1;
inline constexpr int kProfileExitUsage = 2;
inline constexpr int kProfileExitNoGpu = 3;
inline constexpr int kProfileExitBuildFailed = 4;
inline constexpr int kProfileExitFailed = 5;

// argv[0] is the subcommand ("profile"), options follow: main() calls
// run_profile_command(argc - 1, argv + 1). Output goes to stdout (or --out),
// messages to stderr.
int run_profile_command(int argc, char** argv);

}  // namespace warplens::cli
