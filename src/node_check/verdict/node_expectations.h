// What a node should be, as `lab_check node-check` judges it: every threshold with its default
// and the flag that sets it (node_check_command.cpp). A default is what a healthy node of any
// model meets; the flags say what this cluster's nodes must have on top.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace labcheck::node_check {

struct NodeExpectations {
  std::optional<int> gpus;             // --expect-gpus: exact count; default: any, but at least one
  std::string model;                   // --expect-model: words of the device name ("H100"); default: all cards alike
  std::optional<double> memory_gib;    // --expect-memory-gib: each card at least this × kMemoryTolerance
  std::string driver;                  // --expect-driver: "580" or "580.95.05", matched by leading components
  bool mig = false;                    // --expect-mig on|off
  bool persistence_required = true;    // --persistence-optional turns it off
  std::optional<int> pcie_gen;         // --pcie-gen: the generation under load; default NVML's maximum
  std::optional<int> pcie_width;       // --pcie-width: default the card's width (catalog), else NVML's
  std::optional<int> nvlinks;          // --expect-nvlinks: active links per GPU; default from the catalog
  std::optional<double> power_limit_w; // --expect-power-limit: a deliberate cap; a limit at or above it is fine
  double perf_tolerance = 0.20;        // --perf-tolerance: how far below the catalog band's low edge is still fine
  double max_spread = 0.15;            // --max-spread: a card this much slower than the median card is a finding
  double other_process_gib = 0.5;      // another process holding this much memory is a finding
  std::set<int> xid_ignore;            // --xid-ignore: these XIDs never fail the node (still reported)
  // --ecc-corrected-warn: correctable ECC errors since the driver loaded above this are a warning
  // (never a failure). 50,000,000 is Meta's gcm default for its prolog check
  // (facebookresearch/gcm, health_checks check-nvidia-smi ecc_corrected_volatile_total,
  // --ecc_corrected_volatile_threshold).
  unsigned long long ecc_corrected_warn = 50'000'000;
  // --sram-corrected-warn: correctable SRAM ECC errors since the driver loaded above this are a
  // monitor finding. 10,000 is Azure's HPC health checks' SRAM threshold (azurehpc-health-checks,
  // conf/*.conf: `check_gpu_ecc 20000000 10000`, customTests/azure_gpu_ecc.nhc, FaultCode NHC2019).
  unsigned long long sram_corrected_warn = 10'000;
  // --nvlink-errors-warn: an NVLink replay, recovery or CRC counter above this since the driver
  // loaded is a warning. 0, as Meta's gcm tolerates none by default (facebookresearch/gcm,
  // health_checks check-dcgmi nvlink, --data/flit/recovery/replay_error_threshold 0).
  unsigned long long nvlink_errors_warn = 0;
  // --expect-ib: at least this many InfiniBand ports (link layer InfiniBand); --expect-roce: at
  // least this many RoCE ports (link layer Ethernet). Either one has every port judged by its role
  // (findings/network_port_findings.cpp); default: ports not judged. Before issue 53 --expect-ib
  // counted RoCE ports too: a node with RoCE ports and no --expect-roce gets a warning saying so.
  std::optional<int> ib_ports;
  std::optional<int> roce_ports;
  // --ib-devices mlx5_0,mlx5_3,…: the compute rails by RDMA device name, where the PCI bus cannot
  // tell (scan/network_roles.h); every other port is judged as a storage/in-band card. A name not
  // on the node is a missing rail. Also has the ports judged.
  std::vector<std::string> ib_devices;
  std::set<int> xid_fail;              // --xid-fail: these kernel-log XIDs fail it until a GPU reset, whatever the catalog says
  // --report-only: findings with these codes ("LC402"), or every finding ("all"), are reported with
  // their severity and never fail or drain the node: how a new rule is tried on a fleet first.
  std::set<std::string> report_only;
};

// The driver reports a little less than the memory a card is sold with (an H100 80GB: 79.6 GiB),
// and a card whose memory differs from its siblings' by more than a few percent is another model
// or a card with a memory fault.
inline constexpr double kMemoryTolerance = 0.97;

}  // namespace labcheck::node_check
