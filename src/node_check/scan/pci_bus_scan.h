// What node-check records of the PCI bus: the NVIDIA GPUs and NVSwitches sysfs lists, whatever the
// driver made of them (env/nvidia_pci.h reads them: a GPU that fell off the bus or failed the
// driver's probe is gone from NVML and CUDA but still has its /sys/bus/pci/devices/<bus id>/
// entry), and how much of the node this run is given. `sys_root` is "/sys" or the fake tree
// LABCHECK_SYS_ROOT names in tests.
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "node_check/verdict/env_lookup.h"

namespace labcheck::node_check {

// {"gpus": ["0000:18:00.0", …], "nvswitches": [...]} sorted, or {"na": why} when the directory
// cannot be read (no sysfs: a container without /sys, another OS).
nlohmann::json ScanPciBus(const std::string& sys_root);

// Why this run sees only some of the node's cards, or nullopt when it is given the whole node:
// CUDA_VISIBLE_DEVICES (a job's GPUs under Slurm, or set by hand), NVIDIA_VISIBLE_DEVICES other
// than "all" (a container given some cards by the NVIDIA Container Toolkit), SLURM_JOB_GPUS.
// The bus then lists cards this run was never meant to see, so the bus is no expectation.
std::optional<std::string> PartialScope(const EnvLookup& env);

// A container given some of the host's cards by device node alone (CDI, `docker run --device
// /dev/nvidia3`, a Kubernetes device plugin in CDI mode: no *_VISIBLE_DEVICES to read) still sees
// the host's whole /sys, so every card it was not given would read as lost. Inside a container
// (/.dockerenv for Docker, /run/.containerenv for Podman, the `container` variable systemd-nspawn,
// LXC and Podman set, KUBERNETES_SERVICE_HOST in a pod), the /dev/nvidiaN nodes it holds are the
// cards it was given: "a container (/.dockerenv), device nodes=/dev/nvidia0,/dev/nvidia3". Never
// on a host, where a card that failed the driver's probe may have no node and must still be named.
// `fs_root`: "" for the real root; tests give a folder.
std::optional<std::string> ContainerScope(const std::string& fs_root, const EnvLookup& env);

// The /sys node-check reads: LABCHECK_SYS_ROOT's fake tree when set, else "/sys"; nullopt on a
// simulated machine without a fake tree (the real /sys holds this machine's devices, not the
// profile's: never passed off as the simulated node's).
std::optional<std::string> GateSysRoot(const EnvLookup& env, bool simulated);

// What node-check records as "pci_bus": ScanPciBus of LABCHECK_SYS_ROOT or /sys, with "partial"
// when PartialScope (else ContainerScope, of LABCHECK_FS_ROOT in tests) names fewer cards than the
// bus holds; {"na"} where GateSysRoot has none.
nlohmann::json PciBusFacts(const EnvLookup& env, bool simulated);

}  // namespace labcheck::node_check
