// Issue 53, item 4: network ports judged by role on real machines' layouts (fake_network_layouts.h
// says where each comes from). A DGX's storage and in-band cards beside its compute rails (HDR 200
// storage beside NDR 400 rails, second ports left uncabled) are OK; a compute rail down or at half
// rate, a storage card down while its peer is up, a storage port at half its peers' rate, and an
// InfiniBand card lost beside RoCE ports still FAIL, naming the port or card, its role and its bus id.
#include "node_check/scan/network_roles.h"

#include <gtest/gtest.h>

#include "fake_network_layouts.h"
#include "node_check/findings/findings.h"
#include "node_check/findings/judge_node.h"
#include "node_check/outputs/node_report.h"
#include "node_check/scan/network_ports.h"

namespace labcheck::node_check {
namespace {

using nlohmann::json;
using testing::Port;
using testing::Uncabled;

using NetworkRoles = testing::FakeSysTest;

// What node-check records of the tree (node_check_command.cpp, AddSysfsFacts).
json Payload(const std::string& sys, const std::vector<std::string>& ib_devices = {}) {
  const json gpus = ReadGpuLocations(sys), ports = ReadNetworkPorts(sys), lost = ReadNetworkCardsWithoutRdma(sys);
  json hcas = ports;
  hcas.insert(hcas.end(), lost.begin(), lost.end());
  return {{"network_ports", WithNetworkRoles(ports, gpus, ib_devices, hcas)},
          {"network_cards_without_rdma", WithNetworkRoles(lost, gpus, ib_devices, hcas)}};
}

NodeExpectations Expect(std::optional<int> ib, std::optional<int> roce = std::nullopt, std::vector<std::string> ib_devices = {}) {
  NodeExpectations e;
  e.ib_ports = ib;
  e.roce_ports = roce;
  e.ib_devices = std::move(ib_devices);
  return e;
}

bool Network(const Finding& f) { return f.item.rfind("network_", 0) == 0 || f.item == "expect_ib_meaning"; }

// "LC108 mlx5_4 port 1 (compute): down (DOWN, Polling)" for each network finding that fails the node.
std::vector<std::string> Failing(const NodeVerdict& v) {
  std::vector<std::string> lines;
  for (const Finding& f : v.findings)
    if (Network(f) && Fails(f)) lines.push_back(CodedFindingText(f, Lang::En));
  return lines;
}

std::vector<std::string> Warnings(const NodeVerdict& v) {
  std::vector<std::string> lines;
  for (const Finding& f : v.findings)
    if (Network(f) && !Fails(f)) lines.push_back(CodedFindingText(f, Lang::En));
  return lines;
}

const json& PortOf(const json& payload, const std::string& device) {
  for (const json& p : payload["network_ports"])
    if (p["device"] == device) return p;
  static const json none;
  return none;
}

TEST_F(NetworkRoles, DgxH100RailsShareTheirGpusSwitchTheSlotCardsDoNot) {
  testing::AddDgxH100(dir_);
  const json payload = Payload(dir_);
  ASSERT_EQ(payload["network_ports"].size(), 12u) << payload.dump();
  for (const char* rail : {"mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"}) {
    EXPECT_EQ(PortOf(payload, rail)["role"], "compute") << rail;
    EXPECT_EQ(PortOf(payload, rail)["role_basis"], "pcie_switch") << rail;
  }
  const json& rail0 = PortOf(payload, "mlx5_0");
  EXPECT_EQ(rail0["pci_bus_id"], "0000:18:00.0");
  EXPECT_EQ(rail0["beside_gpu"], "0000:19:00.0");
  EXPECT_EQ(rail0["shared_bridge"], "0000:15:00.0") << "the switch's upstream port";
  EXPECT_EQ(rail0["numa_node"], 0);
  for (const char* slot : {"mlx5_1", "mlx5_2", "mlx5_7", "mlx5_8"}) EXPECT_EQ(PortOf(payload, slot)["role"], "other") << slot;
  EXPECT_EQ(PortOf(payload, "mlx5_8")["pci_bus_id"], "0000:aa:00.1");
  EXPECT_TRUE(payload["network_cards_without_rdma"].empty()) << payload.dump();
}

TEST_F(NetworkRoles, HdrStorageBesideNdrRailsIsOk) {
  testing::AddDgxH100(dir_);
  const json payload = Payload(dir_);
  EXPECT_TRUE(Failing(JudgeNode(payload, Expect(10, 2))).empty());
  EXPECT_TRUE(Warnings(JudgeNode(payload, Expect(10, 2))).empty());
  // Before issue 53 every port was a sibling of every other: the storage ports failed every run.
  json unclassified = payload;
  for (json& p : unclassified["network_ports"]) p.erase("role");
  EXPECT_EQ(Failing(JudgeNode(unclassified, Expect(10, 2))),
            (std::vector<std::string>{"LC108 mlx5_1 port 1 (compute): 200 Gb/s, its compute siblings 400",
                                      "LC108 mlx5_7 port 1 (compute): 200 Gb/s, its compute siblings 400"}));
}

TEST_F(NetworkRoles, UncabledStoragePortsAreALayoutNotAFault) {
  testing::AddDgxH100(dir_, /*ib_storage_cabled=*/false);
  EXPECT_TRUE(Failing(JudgeNode(Payload(dir_), Expect(10, 2))).empty());
}

TEST_F(NetworkRoles, TheSecondPortsOfImbuesStorageCardsAreUncabled) {
  testing::AddImbueH100(dir_);
  const json payload = Payload(dir_);
  EXPECT_EQ(PortOf(payload, "mlx5_2")["state"], "DOWN");
  EXPECT_EQ(PortOf(payload, "mlx5_2")["role"], "other");
  EXPECT_TRUE(Failing(JudgeNode(payload, Expect(8, 4))).empty());
}

TEST_F(NetworkRoles, TheSecondPortsOfADgxA100sStorageCardsAreUncabled) {
  testing::AddDgxA100(dir_);
  const json payload = Payload(dir_);
  EXPECT_EQ(PortOf(payload, "mlx5_0")["beside_gpu"], "0000:07:00.0");
  EXPECT_EQ(PortOf(payload, "mlx5_9")["role"], "compute");
  EXPECT_EQ(PortOf(payload, "mlx5_11")["role"], "other");
  EXPECT_TRUE(Failing(JudgeNode(payload, Expect(8, 4))).empty());
}

TEST_F(NetworkRoles, AComputeRailDownOrAtHalfRateFails) {
  testing::AddDgxH100(dir_);
  testing::AddIbPort(dir_, Uncabled(Port("mlx5_4", "400 Gb/sec (4X NDR)")));
  testing::AddIbPort(dir_, Port("mlx5_9", "200 Gb/sec (2X NDR)"));
  const NodeVerdict v = JudgeNode(Payload(dir_), Expect(10, 2));
  EXPECT_EQ(Failing(v), (std::vector<std::string>{"LC108 mlx5_4 port 1 (compute): down (DOWN, Polling)",
                                                  "LC108 mlx5_9 port 1 (compute): 200 Gb/s, its compute siblings 400"}));
  EXPECT_EQ(v.state, NodeState::Unhealthy);
}

TEST_F(NetworkRoles, AStorageCardDownWhileItsPeerIsUpFails) {
  testing::AddDgxH100(dir_);
  testing::AddIbPort(dir_, Uncabled(Port("mlx5_8", "100 Gb/sec (4X EDR)", true)));
  EXPECT_EQ(Failing(JudgeNode(Payload(dir_), Expect(10, 2))),
            std::vector<std::string>{"LC108 mlx5_8 port 1 (storage/in-band): down (DOWN, Disabled); the same port of its peer card, "
                                     "mlx5_2 port 1, is up"});
  std::vector<std::string> russian;
  for (const Finding& f : JudgeNode(Payload(dir_), Expect(10, 2)).findings)
    if (f.item == "network_port") russian.push_back(FindingText(f, Lang::Ru));
  EXPECT_EQ(russian, std::vector<std::string>{"mlx5_8 порт 1 (хранилище/управление): не работает (DOWN, Disabled), а тот же порт "
                                              "соседней карты mlx5_2 порт 1 поднят"});
  // On imbue's node: the first port of a storage card down, the same port of the other card up.
  const std::string imbue = dir_ + "/imbue";
  testing::AddImbueH100(imbue);
  testing::AddIbPort(imbue, Uncabled(Port("mlx5_7", "200 Gb/sec (4X HDR)", true)));
  EXPECT_EQ(Failing(JudgeNode(Payload(imbue), Expect(8, 4))),
            std::vector<std::string>{"LC108 mlx5_7 port 1 (storage/in-band): down (DOWN, Disabled); the same port of its peer card, "
                                     "mlx5_1 port 1, is up"});
}

TEST_F(NetworkRoles, AStoragePortThatWasUpAndWentDownFailsWhateverItsPeers) {
  testing::AddDgxH100(dir_, /*ib_storage_cabled=*/false);
  testing::FakeIbPort pulled = Uncabled(Port("mlx5_7", "200 Gb/sec (4X HDR)"));
  pulled.link_downed = 1;
  testing::AddIbPort(dir_, pulled);
  EXPECT_EQ(Failing(JudgeNode(Payload(dir_), Expect(10, 2))),
            std::vector<std::string>{"LC108 mlx5_7 port 1 (storage/in-band): down (DOWN, Polling) after it was up (link_downed 1 since the "
                                     "driver loaded)"});
}

TEST_F(NetworkRoles, AStoragePortAtHalfItsPeersRateFails) {
  testing::AddDgxH100(dir_);
  testing::AddIbPort(dir_, Port("mlx5_7", "100 Gb/sec (4X EDR)"));
  EXPECT_EQ(Failing(JudgeNode(Payload(dir_), Expect(10, 2))),
            std::vector<std::string>{"LC108 mlx5_7 port 1 (storage/in-band): 100 Gb/s, its storage/in-band peers 200"});
}

// 8 InfiniBand rails and RoCE ports: before issue 53 --expect-ib 8 counted the RoCE ports too, and
// a lost rail went unnoticed (7 + 4 ports, "at least 8").
TEST_F(NetworkRoles, ALostInfinibandCardBesideRocePortsFailsNamingIt) {
  testing::AddImbueH100(dir_);
  EXPECT_TRUE(Failing(JudgeNode(Payload(dir_), Expect(8))).empty());
  EXPECT_EQ(Warnings(JudgeNode(Payload(dir_), Expect(8))),
            std::vector<std::string>{"LC406 --expect-ib 8 counts InfiniBand ports only (8 here); the 4 RoCE ports it counted before are "
                                     "not counted: add --expect-roce 4"});
  EXPECT_TRUE(Warnings(JudgeNode(Payload(dir_), Expect(8, 4))).empty()) << "the site counts them apart: nothing to warn of";

  testing::LoseRdmaDevice(dir_, "mlx5_6");  // on the bus, not in the RDMA stack
  const json payload = Payload(dir_);
  const NodeVerdict lost = JudgeNode(payload, Expect(8));
  EXPECT_EQ(Failing(lost), (std::vector<std::string>{
                               "LC109 7 InfiniBand ports, expected 8 (RoCE ports, 4, are counted apart: --expect-roce)",
                               "LC407 InfiniBand card 0000:9c:00.0 (compute) on the PCI bus but not in the RDMA stack: the driver lost it"}));
  const json report = NodeReportJson(lost, payload, Expect(8), "gpu07");
  bool named = false;
  for (const json& f : report["findings"])
    if (f["code"] == "LC407") named = f["pci_bus_id"] == "0000:9c:00.0" && f["device"].is_null() && f["port"].is_null();
  EXPECT_TRUE(named) << report["findings"].dump();
  // Bound to vfio-pci (given to a VM) it is not lost; the count still says it is not here.
  const std::filesystem::path function = std::filesystem::canonical(dir_ + "/bus/pci/devices/0000:9c:00.0");
  std::filesystem::create_directory_symlink("../../../../bus/pci/drivers/vfio-pci", function / "driver");
  EXPECT_EQ(Failing(JudgeNode(Payload(dir_), Expect(8, 4))), std::vector<std::string>{"LC109 7 InfiniBand ports, expected 8"});
  std::filesystem::remove(function / "driver");

  testing::RemoveCard(dir_, "mlx5_6", "0000:9c:00.0");  // off the bus: only the count can tell
  EXPECT_EQ(Failing(JudgeNode(Payload(dir_), Expect(8, 4))), std::vector<std::string>{"LC109 7 InfiniBand ports, expected 8"});
}

// A lost storage card is judged beside the rails that share their GPUs' switches: storage/in-band.
TEST_F(NetworkRoles, ALostStorageCardIsNamedAsOne) {
  testing::AddDgxH100(dir_);
  testing::LoseRdmaDevice(dir_, "mlx5_7");
  EXPECT_EQ(Failing(JudgeNode(Payload(dir_), Expect(9, 2))),
            std::vector<std::string>{"LC407 InfiniBand card 0000:aa:00.0 (storage/in-band) on the PCI bus but not in the RDMA stack: the "
                                     "driver lost it"});
}

TEST_F(NetworkRoles, ABadPortsFindingCarriesItsBusIdDeviceAndPortInJson) {
  testing::AddDgxH100(dir_);
  testing::AddIbPort(dir_, Uncabled(Port("mlx5_4", "400 Gb/sec (4X NDR)")));
  const json payload = Payload(dir_);
  const NodeVerdict v = JudgeNode(payload, Expect(10, 2));
  const json report = NodeReportJson(v, payload, Expect(10, 2), "gpu07");
  json f;
  for (const json& finding : report["findings"])
    if (finding["code"] == "LC108") f = finding;
  ASSERT_TRUE(f.is_object()) << report["findings"].dump();
  EXPECT_EQ(f["pci_bus_id"], "0000:4f:00.0");
  EXPECT_EQ(f["device"], "mlx5_4");
  EXPECT_EQ(f["port"], 1);
  EXPECT_EQ(f["gpu"], nullptr);
  EXPECT_EQ(report["expectations"]["roce_ports"], 2);
  EXPECT_EQ(report["network_ports"][0]["role"], "compute") << "the roles stay in the report";
}

// GH200: no HCA shares a PCIe switch with the GPU (its own root, NVLink-C2C): the InfiniBand rail
// on the GPU's NUMA node is compute, the Ethernet card other; --ib-devices says it outright.
TEST_F(NetworkRoles, Gh200ByNumaNodeOrByTheFlag) {
  testing::AddGh200(dir_);
  json payload = Payload(dir_);
  EXPECT_EQ(PortOf(payload, "mlx5_0")["role"], "compute");
  EXPECT_EQ(PortOf(payload, "mlx5_0")["role_basis"], "numa");
  EXPECT_EQ(PortOf(payload, "mlx5_1")["role"], "other");
  // The management card's spare port: a lone card whose other port is up.
  EXPECT_TRUE(Failing(JudgeNode(payload, Expect(1, 2))).empty());
  testing::AddIbPort(dir_, Uncabled(Port("mlx5_0", "400 Gb/sec (4X NDR)")));
  EXPECT_EQ(Failing(JudgeNode(Payload(dir_), Expect(1, 2))),
            std::vector<std::string>{"LC108 mlx5_0 port 1 (compute): down (DOWN, Polling)"});

  payload = Payload(dir_, {"mlx5_1"});
  EXPECT_EQ(PortOf(payload, "mlx5_1")["role"], "compute");
  EXPECT_EQ(PortOf(payload, "mlx5_1")["role_basis"], "ib_devices");
  EXPECT_EQ(PortOf(payload, "mlx5_0")["role"], "other");
  EXPECT_EQ(Failing(JudgeNode(Payload(dir_, {"mlx5_0", "mlx5_5"}), Expect(std::nullopt, std::nullopt, {"mlx5_0", "mlx5_5"}))),
            (std::vector<std::string>{"LC109 mlx5_5 (--ib-devices) is not on this node", "LC108 mlx5_0 port 1 (compute): down (DOWN, Polling)"}));
}

// Where the bus cannot tell (plain folders, no GPU located), every port is a compute rail, as before.
TEST_F(NetworkRoles, WithoutPlacesEveryPortIsJudgedStrictly) {
  testing::AddIbPortsOneDownOneHalf(dir_);
  const json payload = Payload(dir_);
  EXPECT_EQ(payload["network_ports"][0]["role_basis"], "unknown");
  EXPECT_EQ(payload["network_ports"][0]["pci_bus_id"], nullptr);
  EXPECT_EQ(Failing(JudgeNode(payload, Expect(4))).size(), 2u);
}

TEST_F(NetworkRoles, VirtualFunctionsAreNotPorts) {
  testing::AddDgxH100(dir_);
  testing::AddHcaAt(dir_, {"pci0000:16", "0000:16:01.0", "0000:18:00.2"}, "mlx5_12", false, 0);
  testing::AddIbPort(dir_, Port("mlx5_12", "400 Gb/sec (4X NDR)"));
  testing::WriteAttribute(std::filesystem::path(dir_) / "class/infiniband/mlx5_12/device/physfn/vendor", "0x15b3");
  EXPECT_EQ(Payload(dir_)["network_ports"].size(), 12u);
}

}  // namespace
}  // namespace labcheck::node_check
