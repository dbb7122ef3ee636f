// The warplens binary: everything is in server/cli_*.cpp.
#include "server/cli.h"

int main(int argc, char** argv) { return warplens::server::cli_main(argc, argv, WARPLENS_VERSION); }
