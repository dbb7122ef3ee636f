// Logging from inside the profiled program. Its stdout belongs to the
// program, so everything goes to stderr with a "[warplens]" prefix; the
// runner captures the program's stderr into a file. Detail messages appear
// only with WARPLENS_PROFILE_VERBOSE=1; problems always do.
#pragma once

namespace warplens::inject {

void set_verbose(bool verbose);
bool verbose();
void log_detail(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void log_problem(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace warplens::inject
