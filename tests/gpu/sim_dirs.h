// Where the build puts the simulated NVIDIA libraries (tests/sim/CMakeLists.txt), for the tests
// here that load them through the real library search: beside the binary under test.
#pragma once
#include <filesystem>

namespace labcheck::testing {

inline const std::filesystem::path kSimDir = std::filesystem::path(LAB_CHECK_BINARY).parent_path() / "sim-nvidia";
inline const std::filesystem::path kSimStubDir = kSimDir.parent_path() / "sim-nvidia-stub";
inline const std::filesystem::path kSimCu13Dir = kSimDir.parent_path() / "sim-nvidia-cu13";

}  // namespace labcheck::testing
