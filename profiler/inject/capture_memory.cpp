#include "profiler/inject/capture_memory.h"

#include <algorithm>
#include <cstring>

#include "profiler/inject/capture_errors.h"

namespace warplens::inject {

PointerScan scan_pointers(const std::vector<capture::ParamSlot>& params, const std::vector<std::uint8_t>& buffer,
                          int device) {
  PointerScan scan;
  for (const auto& p : params) {
    // 8-byte words at 8-byte-aligned buffer offsets inside this parameter.
    std::uint64_t first = (p.offset + 7) / 8 * 8;
    for (std::uint64_t at = first; at + 8 <= p.offset + p.size && at + 8 <= buffer.size(); at += 8) {
      std::uint64_t value = 0;
      std::memcpy(&value, buffer.data() + at, 8);
      if (value == 0) continue;
      // cuPointerGetAttributes does not fail on a value that is no CUDA
      // pointer: it leaves the memory type 0. Scalars look like that.
      unsigned int memory_type = 0;
      CUdeviceptr start = 0;
      std::size_t size = 0;
      int is_managed = 0;
      int ordinal = -1;
      CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                     CU_POINTER_ATTRIBUTE_RANGE_SIZE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                     CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
      void* data[] = {&memory_type, &start, &size, &is_managed, &ordinal};
      if (cuPointerGetAttributes(5, attrs, data, static_cast<CUdeviceptr>(value)) != CUDA_SUCCESS) continue;
      if (memory_type == 0) continue;
      const std::string where = "parameter " + std::to_string(p.index) +
                                (at != p.offset ? " (at byte " + std::to_string(at - p.offset) + " inside it)" : "");
      if (memory_type == CU_MEMORYTYPE_HOST) {
        scan.ok = false;
        scan.refusal = where + " points to host memory (pinned, mapped or registered): warplens captures and "
                               "replays device and managed allocations only; allocate it with cudaMalloc to capture";
        return scan;
      }
      if (!is_managed && ordinal >= 0 && ordinal != device) {
        scan.ok = false;
        scan.refusal = where + " points to memory on device " + std::to_string(ordinal) +
                       ", not the launch's device " + std::to_string(device);
        return scan;
      }
      if (start == 0 || size == 0) {
        // Managed memory may not report a range on every driver; without
        // one the allocation's extent is unknown.
        CUdeviceptr base = 0;
        std::size_t bytes = 0;
        if (cuMemGetAddressRange(&base, &bytes, static_cast<CUdeviceptr>(value)) != CUDA_SUCCESS || bytes == 0) {
          scan.ok = false;
          scan.refusal = where + " points into " + (is_managed ? "managed" : "device") +
                         " memory whose allocation range the driver does not report";
          return scan;
        }
        start = base;
        size = bytes;
      }
      int index = -1;
      for (std::size_t k = 0; k < scan.allocations.size(); ++k)
        if (scan.allocations[k].base == start) index = static_cast<int>(k);
      if (index < 0) {
        index = static_cast<int>(scan.allocations.size());
        scan.allocations.push_back(
            {start, size, is_managed ? capture::MemoryKind::Managed : capture::MemoryKind::Device});
      }
      scan.pointers.push_back({p.index, at, index, value - start});
    }
  }
  return scan;
}

std::string device_pointer_inside(const std::vector<std::uint8_t>& bytes, int /*device*/) {
  const std::size_t limit = std::min<std::size_t>(bytes.size(), std::size_t{64} << 10);
  for (std::size_t at = 0; at + 8 <= limit; at += 8) {
    std::uint64_t value = 0;
    std::memcpy(&value, bytes.data() + at, 8);
    if (value == 0) continue;
    unsigned int memory_type = 0;
    if (cuPointerGetAttribute(&memory_type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, static_cast<CUdeviceptr>(value)) !=
        CUDA_SUCCESS)
      continue;
    if (memory_type != 0) return "at byte " + std::to_string(at);
  }
  return "";
}

std::vector<std::uint8_t> copy_allocation(const FoundAllocation& a, std::string* error) {
  std::vector<std::uint8_t> host(a.bytes);
  CUresult r = a.bytes ? cuMemcpyDtoH(host.data(), a.base, a.bytes) : CUDA_SUCCESS;
  if (r != CUDA_SUCCESS && error) *error = "copying " + std::to_string(a.bytes) + " bytes failed: " + cu_error_name(r);
  return host;
}

}  // namespace warplens::inject
