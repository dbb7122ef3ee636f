// Kernel and memcpy records through the CUPTI Activity API.
//
// CONCURRENT_KERNEL (not KERNEL, which serialises kernels) gives each
// launch's name, grid, block, registers, shared and local memory and its
// start/end timestamps; MEMCPY gives transfer sizes and durations. CUPTI
// fills buffers we provide and hands them back on its own thread; records
// go straight into the Recorder.
#pragma once

#include <cupti.h>

namespace warplens::inject {

class Recorder;

// Registers the buffer callbacks and enables the activity kinds. Must be
// called once, before the program's first kernel (from InitializeInjection).
CUptiResult start_activity_trace(Recorder& recorder);

// Hands every buffered record to the Recorder, complete or not (at context
// destruction and at exit).
void flush_activity_trace();

}  // namespace warplens::inject
