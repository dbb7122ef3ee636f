// Synthetic captures of the launch-change case programs
// (tests/gpu/launch_cases/), written through the capture_format API with the
// values the fake GPU's original kernels produce (fake_launch_kernels.cpp),
// at the sizes the programs use. Keys: matvec (two launches of different
// shapes), matmul_rowx, saxpy (in place), elementwise_chain (two mul ->
// bias_relu pairs sharing their temporaries, in program order),
// elementwise_chain_tampered (the temporary changed between the two launches
// of the pair, as an uncaptured kernel would do), elementwise_chain_consumer_only
// (the `bias_relu` launches alone, as a capture of that kernel holds them),
// conv_constant (a kernel reading a __constant__ filter the capture
// recorded), conv_constant_unrecorded (the same, from a capture that did not
// record module variables), conv_constant_writes_filter (the launch changed
// the filter).
// False for other keys.
#pragma once

#include <filesystem>
#include <string>

namespace warplens::verifier::test {

bool write_launch_case_capture(const std::string& key, const std::filesystem::path& dir);

}  // namespace warplens::verifier::test
