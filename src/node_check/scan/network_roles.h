// Which network cards are the node's compute rails and which serve storage or in-band management,
// so that each is judged against its own kind (findings/network_port_findings.cpp). A DGX H100/H200
// has eight single-port ConnectX-7 compute rails, each behind the PCIe switch of its GPU, and two
// dual-port ConnectX-7 cards in slots 1 and 2 for storage and in-band management on the CPUs' own
// root ports (NVIDIA DGX H100/H200 User Guide, "Network Modules", table 6; DGX BasePOD deployment
// guide, "DGX H200/H100 System Network Ports"): the slot cards' second ports are often left
// uncabled and their storage fabric may run HDR 200 beside NDR 400 rails.
//
// The rule, in order (NVIDIA NVSentinel classifies the same way from `nvidia-smi topo -m`:
// health-monitors/nic-health-monitor/pkg/topology/topology.go, commit 5550aa3c: PIX/PXB compute,
// NODE/PHB storage, all SYS by NUMA):
//   1. `--ib-devices mlx5_0,…` names the compute rails: every other port is "other".
//   2. A port whose HCA shares a PCIe bridge below the host bridge with a GPU (scan/pci_location.h,
//      SharedBridge) is "compute"; on a node where some HCA does, one that does not is "other".
//   3. Where no HCA shares one with any GPU (GH200: each Grace Hopper superchip has its own root,
//      the GPU behind NVLink-C2C), an InfiniBand HCA on a GPU's NUMA node is "compute", and so is
//      one whose NUMA node is unknown; the rest (RoCE, other sockets) "other".
//   4. Where the GPUs' or the HCA's place on the bus cannot be read (no GPU in /sys/bus/pci, a fake
//      tree of plain folders), "compute": judged strictly, as every port was before issue 53.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace labcheck::node_check {

// The NVIDIA GPUs of ScanPciBus with their place: [{pci_bus_id, pci_path, numa_node}, …].
nlohmann::json ReadGpuLocations(const std::string& sys_root);

// `items` (ReadNetworkPorts' ports, or ReadNetworkCardsWithoutRdma's cards: objects with
// pci_path, numa_node, link_layer and, for a port, device) each with
// "role": "compute" | "other", "role_basis": "ib_devices" | "pcie_switch" | "numa" | "unknown",
// and for a compute rail found by the bus, "beside_gpu" (the GPU's bus id) and "shared_bridge".
// `node_hcas`: every HCA of the node, ports and lost cards together, for rule 2's "on a node where
// some HCA does" (a lost storage card is judged beside the rails that share a switch).
nlohmann::json WithNetworkRoles(nlohmann::json items, const nlohmann::json& gpus, const std::vector<std::string>& ib_devices,
                                const nlohmann::json& node_hcas);

}  // namespace labcheck::node_check
