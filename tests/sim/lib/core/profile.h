// The machine profile: what the simulated machine is (tests/sim/README.md has the schema). Read
// once per process from the file named by LABCHECK_SIM_MACHINE; every library of the sim asks
// here. Unknown keys are kept (Gpu::spec holds each GPU's merged JSON), so a later group of NVML
// functions can read its own keys without touching this file.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nvsim {

using nlohmann::json;

struct Gpu {
  int index = 0;        // position in the profile's "gpus": the CUDA enumeration order
  int nvml_index = 0;   // NVML's enumeration order (PCI bus id order unless the profile says)
  json spec;            // "gpu_defaults" merged with this GPU's entry
  std::string name;
  std::string bus_id;   // canonical, lower case: "0000:01:00.0"
  uint64_t memory_bytes = 0;
  int cc_major = 0, cc_minor = 0;

  // spec at a '/'-separated path ("perf/h2d_pinned_gbps"), or `fallback`.
  double Number(const char* path, double fallback) const;
  bool Flag(const char* path, bool fallback) const;
  const json* At(const char* path) const;
};

struct Machine {
  bool loaded = false;
  std::string error;  // why not loaded
  std::string path;
  json raw;
  std::vector<Gpu> gpus;

  const json* At(const char* path) const;
  double Number(const char* path, double fallback) const;
  std::string String(const char* path, const std::string& fallback) const;
};

// The profile of this process (parsed on first use, thread-safe).
const Machine& Profile();

// json at a '/'-separated path below `root`, or nullptr.
const json* JsonAt(const json& root, const char* path);

// "0000:01:00.0" from "1:0.0", "00000000:01:00.0" or "0000:01:00.0"; "" if unreadable.
std::string CanonicalBusId(const std::string& text);

}  // namespace nvsim
