// The report's facts: what the chosen interpreter and its torch are, which cards the driver has
// and how many of them CUDA (and so PyTorch) sees and why fewer, and how the run was started.
// Read once from the check results; every reason, hint and "not measured" line that depends on them
// is worded from these fields (facts/statements.h), never from a proxy such as "torch_cuda is null"
// (which a missing torch and a CPU-only one share) or "gpu.inventory lists one card" (which
// CUDA_VISIBLE_DEVICES=0 makes true on a machine with four).
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/check_result.h"
#include "core/text.h"

namespace labcheck {
struct Report;
}

namespace labcheck::facts {

enum class TorchState {
  Unknown,            // env.python did not run (--only without it) or left nothing readable
  NoInterpreter,      // no Python was found or given
  InterpreterBroken,  // the interpreter does not start, or ends before it answers
  ImportHangs,        // the interpreter starts, `import torch` does not come back
  Absent,             // torch is not installed in this interpreter
  NoCuda,             // a torch build without CUDA: CPU-only, or ROCm
  Cuda,               // a CUDA build of torch
};

struct TorchFacts {
  TorchState state = TorchState::Unknown;
  std::string python;   // the interpreter's path, as the report shows it
  std::string version;  // "2.5.1+cu124"; empty when unknown
  std::string cuda;     // the CUDA the build is for ("12.4"); empty for NoCuda
  Text build;           // "CPU-only build", "ROCm 6.1 build", "CUDA 12.4"
  Text problem;         // env.python's own reason for InterpreterBroken and ImportHangs
  // What torch itself saw, where a smoke test's probe imported it (its facts): the CUDA devices
  // torch.cuda lists in this environment, and the error when it could not tell.
  std::optional<int> sees;
  std::string cuda_error;

  bool installed() const { return state == TorchState::ImportHangs || state == TorchState::NoCuda || state == TorchState::Cuda; }
};

// The driver's state as the driver-state detection reads it (src/gpu/nvidia/driver_state.h: NVML's
// init error, the kernel module, the GPUs on the PCI bus), from gpu.inventory's data.driver_state
// {"state": "running" | "loaded" | "module_not_loaded" | "version_mismatch" | "no_gpu_on_bus" |
// "not_installed" | "unknown", "pci_bus": {"nvidia_gpus": [bus id]}} (docs/report-schema.md);
// Unknown where the field is absent (reports of other versions).
enum class DriverState { Unknown, Loaded, NotLoaded, Mismatch, NoGpuOnBus, Absent };

struct DriverGpu {
  int index = 0;     // NVML's index (PCI bus order); not CUDA's when CUDA_VISIBLE_DEVICES reorders
  std::string name;  // "NVIDIA GeForce RTX 4080"
};

struct CardFacts {
  bool inventory_ran = false;        // gpu.inventory is in the report
  DriverState driver = DriverState::Unknown;
  std::optional<int> pci_gpus;       // NVIDIA GPUs on the PCI bus (driver-state seam)
  // The cards the driver has, as NVML (and so nvidia-smi) lists them: CUDA_VISIBLE_DEVICES does not
  // apply to NVML. nullopt when NVML did not answer.
  std::optional<std::vector<DriverGpu>> nvml;
  int cuda_gpus = 0;                 // the cards CUDA sees in lab_check's environment
  bool cuda_ok = false;              // cuInit succeeded and counted at least one card
  Outcome inventory_outcome = Outcome::NotRun;
  Text cuda_problem;                 // gpu.inventory's reason when CUDA found no card or failed
  std::string cuda_error;            // its raw error ("CUDA_ERROR_NO_DEVICE (100) …")
  // CUDA_VISIBLE_DEVICES as lab_check was started with it; nullopt: not set.
  std::optional<std::string> visible_devices;

  // The cards the driver has: NVML's count; without NVML, what CUDA sees when nothing hides any
  // (the variable unset); else the PCI bus's count where known; 0 when nothing says there are any.
  int DriverCount() const;
  // Any fact says there are NVIDIA cards in this machine.
  bool AnyGpu() const { return DriverCount() > 0 || cuda_gpus > 0; }
  // CUDA sees fewer cards than the driver has.
  bool SomeHidden() const { return DriverCount() > cuda_gpus; }
};

struct RunFlags {
  bool quick = false;
  bool skip_dist = false;
  bool interrupted = false;
  std::vector<std::string> only;  // --only's patterns; empty: every check was chosen
};

struct RunFacts {
  TorchFacts torch;
  CardFacts cards;
  RunFlags flags;

  // The cards PyTorch in this interpreter can use: 0 without a torch that has CUDA, else what torch
  // saw where a probe looked, else what CUDA sees in the same environment; nullopt when env.python
  // did not run.
  std::optional<int> TorchCards() const;
};

// A check's result by id, or nullptr when it is not in the report (or did not run before).
using CheckLookup = std::function<const CheckResult*(const std::string& id)>;

RunFacts ReadRunFacts(const CheckLookup& find, const RunFlags& flags);
RunFacts ReadRunFacts(const Report& report);

// The torch half alone, from env.python's result (nullptr: not run) and a smoke test's torch facts
// (the probes' torch_facts(): {"cuda_available", "devices": […], "cuda_error"}; may be null).
TorchFacts ReadTorchFacts(const CheckResult* python, const nlohmann::json& torch_seen);
// The card half alone, from gpu.inventory's result (nullptr: not run).
CardFacts ReadCardFacts(const CheckResult* inventory);

}  // namespace labcheck::facts
