// Finding the device memory a launch can touch through its parameters, and
// copying it. Every 8-byte-aligned word of the parameter buffer (top-level
// pointers and pointers inside by-value structs) is asked whether it points
// into a CUDA allocation; the whole allocation it points into is what the
// capture records, so the kernel may read or write anywhere in it.
//
// Device memory and managed memory are captured (managed memory is copied
// through the driver like device memory and replayed as device memory).
// Host memory (pinned, mapped or registered) and allocations on another
// device are refused with the reason.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

#include "profiler/capture_format.h"

namespace warplens::inject {

struct FoundAllocation {
  CUdeviceptr base = 0;
  std::uint64_t bytes = 0;
  capture::MemoryKind memory = capture::MemoryKind::Device;
};

struct PointerScan {
  bool ok = true;
  std::string refusal;                        // why the launch cannot be captured
  std::vector<FoundAllocation> allocations;   // distinct, in order of first use
  std::vector<capture::PointerSlot> pointers;
};

// `device` is the ordinal of the launch's context.
PointerScan scan_pointers(const std::vector<capture::ParamSlot>& params, const std::vector<std::uint8_t>& buffer,
                          int device);

// "" when no 8-byte-aligned word among the first 64 KiB of `bytes` (a module
// variable's contents) is a CUDA pointer (device, managed or host memory the
// driver knows); otherwise where the first one is ("at byte 16"). Larger
// tables are checked only that far: 8192 driver queries bound the cost.
std::string device_pointer_inside(const std::vector<std::uint8_t>& bytes, int device);

// Copies an allocation to host memory (synchronously). Empty `error` on success.
std::vector<std::uint8_t> copy_allocation(const FoundAllocation& a, std::string* error);

}  // namespace warplens::inject
