// The warplens binary: the command line in cli/ (cli_main.cpp dispatches).
#include "cli/cli.h"

int main(int argc, char** argv) { return warplens::cli::cli_main(argc, argv, WARPLENS_VERSION); }
