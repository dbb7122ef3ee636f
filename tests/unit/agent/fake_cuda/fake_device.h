// TEST DOUBLE: the "device" behind the fake CUDA driver. Device memory is
// host memory; work enqueued on a stream runs later, in stream order, only
// when something waits for it (a synchronise, an event query, a copy back
// to the host), with the documented ordering between streams:
//
//   * a non-blocking stream does not wait for the legacy default stream
//     (nor it for the non-blocking stream);
//   * the synchronous cuMemcpyHtoD from pageable memory returns once the
//     data is staged: the copy itself stays queued on the legacy stream;
//   * cuMemcpyDtoH waits for the legacy stream only.
//
// So code that restores a buffer with a synchronous copy and then launches
// on a non-blocking stream reads stale data here, as it may on a GPU (the
// race behind issue 14's "beta applied twice"). Kernels run to completion on
// the CPU when their turn comes; the events' clock is a modelled device
// clock that each operation advances by a cost of its own, so timings are
// deterministic and two runs of the same kernel take the same time.
//
// With FAKE_CUDA_MEMCHECK=<file>, allocations get a canary past their end,
// checked after every case kernel, and the case kernels report reads outside
// any allocation: violations are appended to <file> (the fake
// compute-sanitizer turns them into memcheck's report).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace warplens::fake_cuda {

struct FakeStream;
FakeStream* legacy_stream();
FakeStream* new_stream(bool blocking);
void destroy_stream(FakeStream* s);

// Enqueues `op` (cost in modelled nanoseconds is returned by op) on `s`;
// returns its sequence number.
std::uint64_t enqueue(FakeStream* s, std::function<double()> op);
// Runs `s`'s operations up to `seq` (and what they depend on).
void run_until(FakeStream* s, std::uint64_t seq);
void run_all();
std::uint64_t last_seq();
double device_clock_ns();

// A kernel that never ends: every later query is not-ready, every
// synchronise blocks.
bool hung();
void set_hung();
// A kernel that faulted (an illegal address): like a GPU, the context is
// lost; every later query, synchronise and launch fails.
bool faulted();
void set_faulted();
[[noreturn]] void block_forever();

// Allocation table (for memcheck and for pinned-memory checks).
void* allocate(std::size_t bytes);
void release(void* p);
bool memcheck_enabled();
// After a case kernel: canaries intact? Reports (and repairs) damage.
void memcheck_after_kernel(const std::string& kernel);
// For the tampering test double: zero every allocation of the same size as
// the one holding `like` that holds none of `keep` (what a kernel that could
// find device memory shaped like its own buffers would do: the original's
// side of the replay).
void zero_allocations_like(const void* like, const std::vector<const void*>& keep);
// A case kernel's access outside every allocation is reported.
void memcheck_access(const std::string& kernel, const void* p, std::size_t bytes, bool write);

}  // namespace warplens::fake_cuda
