// build/bin/warplens-profile: `warplens profile` without the rest of the
// binary (for the CLI tests and the H200 script).
#include "cli/profile.h"

int main(int argc, char** argv) {
  // Same convention as the real binary: argv[0] is the subcommand.
  static char name[] = "profile";
  argv[0] = name;
  return warplens::cli::run_profile_command(argc, argv);
}
