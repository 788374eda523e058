// The processor lab_check was built for, in the spellings its library searches need: the one
// place in the tree that asks the compiler (as llama.cpp keeps its platform #ifs in one file).
// Built for x86-64 or arm64 (Grace Hopper GH200 and other SBSA servers; docs/install.md, "Platforms").
#pragma once
#include <string>
#include <vector>

namespace labcheck {

// Debian/Ubuntu's multiarch folder name, where their packages and NVIDIA's driver packages for
// them put libraries: /usr/lib/<this>. "x86_64-linux-gnu" or "aarch64-linux-gnu".
const char* MultiarchTriplet();

// The CUDA toolkit's per-target folders (<toolkit>/targets/<name>/lib), most likely first. NVIDIA's
// CUDA Installation Guide for Linux names three targets: x86_64, arm64-SBSA (servers: the toolkit
// is targets/sbsa-linux) and arm64-Jetson (Tegra: targets/aarch64-linux). An arm64 binary lists
// both arm64 ones; none lists another processor's, whose libraries it could not load.
std::vector<std::string> CudaTargetNames();

}  // namespace labcheck
