// The machine profile: what the simulated machine is (tests/sim/README.md has the schema). Read
// once per process from the file named by LABCHECK_SIM_MACHINE; every library of the sim asks
// here. Every profile starts from core/profile_defaults.json (built in), which gives each key's
// default and lists every key a profile may give: a key it does not list, in the profile or any
// file of its "base" chain, refuses the profile with a message that names the key and the file.
// A new group of functions adds its keys there and reads them from Gpu::spec.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nvsim {

using nlohmann::json;

// Accessors by '/'-separated path ("perf/h2d_pinned_gbps"). Number/String/Flag are for keys the
// defaults give a value: the profile's value where it has that type, else the default (a
// matrix where a number may also be given reads as the default); asking for a key the defaults
// give no such value aborts, as a bug in the sim. At() is for keys absent by default (null or
// "name?" in the defaults): nullptr when absent; NumberOr() for such a key whose absence means
// another figure (kernel_copy_gbps: device_copy_gbps), and only for such a key.
struct Gpu {
  int index = 0;        // position in the profile's "gpus": the CUDA enumeration order
  int nvml_index = 0;   // NVML's enumeration order (PCI bus id order unless the profile says)
  json spec;            // defaults, then "gpu_defaults", then this GPU's entry
  std::string name;
  std::string bus_id;   // canonical, lower case: "0000:01:00.0"
  uint64_t memory_bytes = 0;
  int cc_major = 0, cc_minor = 0;

  double Number(const char* path) const;
  double NumberOr(const char* path, double absent) const;
  bool Flag(const char* path) const;
  std::string String(const char* path) const;
  const json* At(const char* path) const;
};

struct Machine {
  bool loaded = false;
  std::string error;  // why not loaded: names the file, and the key where one is unknown
  std::string path;
  json raw;           // defaults, then the "base" chain, then the profile
  std::vector<Gpu> gpus;

  // Set but not loadable (LABCHECK_SIM_MACHINE unset is no machine, not a broken one).
  bool broken() const { return !loaded && !path.empty(); }

  const json* At(const char* path) const;
  double Number(const char* path) const;
  double NumberOr(const char* path, double absent) const;
  std::string String(const char* path) const;
  bool Flag(const char* path) const;
};

// The profile of this process (parsed on first use, thread-safe). A broken one is reported on
// stderr ("nvsim: machine profile …") when first asked for.
const Machine& Profile();

// The profile at `path`, read as Profile() reads LABCHECK_SIM_MACHINE's (for tests and tools).
Machine LoadMachine(const std::string& path);

// json at a '/'-separated path below `root`, or nullptr (also for null).
const json* JsonAt(const json& root, const char* path);

// "0000:01:00.0" from "1:0.0", "00000000:01:00.0" or "0000:01:00.0"; "" if unreadable.
std::string CanonicalBusId(const std::string& text);

}  // namespace nvsim
