// The parser of `scontrol -o show nodes` on text captured from Slurm 22.05.8 (Debian 12's
// slurm-wlm, the cluster tests/node_check/slurm_cluster.h starts: labnode1 registered,
// labnode2..4 never do), and on states that cluster cannot produce in seconds, written by hand in
// the same shape: MIXED+DRAIN (draining with a job running), DOWN*+DRAIN (not responding).
#include <gtest/gtest.h>

#include "node_check/slurm/slurm_nodes.h"

namespace labcheck::node_check {
namespace {

// labnode2: drained by lab_check; labnode3: an administrator's reason that holds "Reason=" itself;
// labnode4: lab_check's reason naming a reboot.
const std::string kCaptured =
    "NodeName=labnode1 Arch=x86_64 CoresPerSocket=1  CPUAlloc=0 CPUEfctv=2 CPUTot=2 CPULoad=1.74 AvailableFeatures=(null) ActiveFeatures=(null) Gres=(null) NodeAddr=127.0.0.1 NodeHostName=vm Version=22.05.8 OS=Linux 6.18.44-fc-v1300 #1 SMP PREEMPT_DYNAMIC @0  RealMemory=1 AllocMem=0 FreeMem=20765 Sockets=2 Boards=1 State=IDLE ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A Partitions=debug,gpu  BootTime=2026-12-06T15:26:07 SlurmdStartTime=2026-12-06T17:45:05 LastBusyTime=2026-12-06T17:45:05 CfgTRES=cpu=2,mem=1M,billing=2 AllocTRES= CapWatts=n/a CurrentWatts=0 AveWatts=0 ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s\n"
    "NodeName=labnode2 CoresPerSocket=1  CPUAlloc=0 CPUEfctv=2 CPUTot=2 CPULoad=1.74 AvailableFeatures=(null) ActiveFeatures=(null) Gres=(null) NodeAddr=127.0.0.1 NodeHostName=labnode2  RealMemory=1 AllocMem=0 FreeMem=20765 Sockets=2 Boards=1 State=IDLE+DRAIN ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A Partitions=debug,gpu  BootTime=None SlurmdStartTime=None LastBusyTime=2026-12-06T17:45:09 CfgTRES=cpu=2,mem=1M,billing=2 AllocTRES= CapWatts=n/a CurrentWatts=0 AveWatts=0 ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s Reason=lab_check: GPU0 (0000:01:00.0) x; GPU1 y [root@2026-12-06T17:45:12]\n"
    "NodeName=labnode3 CoresPerSocket=1  CPUAlloc=0 CPUEfctv=2 CPUTot=2 CPULoad=1.74 AvailableFeatures=(null) ActiveFeatures=(null) Gres=(null) NodeAddr=127.0.0.1 NodeHostName=labnode3  RealMemory=1 AllocMem=0 FreeMem=20765 Sockets=2 Boards=1 State=IDLE+DRAIN ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A Partitions=debug,gpu  BootTime=None SlurmdStartTime=None LastBusyTime=2026-12-06T17:45:09 CfgTRES=cpu=2,mem=1M,billing=2 AllocTRES= CapWatts=n/a CurrentWatts=0 AveWatts=0 ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s Reason=admin: bad fan Reason=foo [root@2026-12-06T17:45:12]\n"
    "NodeName=labnode4 CoresPerSocket=1  CPUAlloc=0 CPUEfctv=2 CPUTot=2 CPULoad=1.74 AvailableFeatures=(null) ActiveFeatures=(null) Gres=(null) NodeAddr=127.0.0.1 NodeHostName=labnode4  RealMemory=1 AllocMem=0 FreeMem=20765 Sockets=2 Boards=1 State=IDLE+DRAIN ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A Partitions=debug,gpu  BootTime=None SlurmdStartTime=None LastBusyTime=2026-12-06T17:46:38 CfgTRES=cpu=2,mem=1M,billing=2 AllocTRES= CapWatts=n/a CurrentWatts=0 AveWatts=0 ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s Reason=lab_check: GPU1 (0000:41:00.0) XID 79 (GPU has fallen off the bus): reboot [root@2026-12-06T17:46:39]\n";

TEST(ScontrolNodes, ReadsNameStatePartitionsAndTheWholeReason) {
  const std::vector<SlurmNode> nodes = ParseScontrolNodes(kCaptured + "\n");
  ASSERT_EQ(nodes.size(), 4u);
  EXPECT_EQ(nodes[0].name, "labnode1");
  EXPECT_EQ(nodes[0].state, "IDLE");  // "OS=Linux … #1 SMP" before it holds spaces
  EXPECT_EQ(nodes[0].partitions, (std::vector<std::string>{"debug", "gpu"}));
  EXPECT_EQ(nodes[0].reason, "");
  EXPECT_FALSE(nodes[0].OutOfService());
  EXPECT_EQ(nodes[1].state, "IDLE+DRAIN");
  EXPECT_EQ(nodes[1].reason, "lab_check: GPU0 (0000:01:00.0) x; GPU1 y");  // without " [root@…]"
  EXPECT_TRUE(nodes[1].Draining());
  EXPECT_TRUE(nodes[1].DrainedByLabCheck());
  EXPECT_EQ(nodes[2].reason, "admin: bad fan Reason=foo");
  EXPECT_TRUE(nodes[2].OutOfService());
  EXPECT_FALSE(nodes[2].DrainedByLabCheck());
  EXPECT_EQ(nodes[3].reason, "lab_check: GPU1 (0000:41:00.0) XID 79 (GPU has fallen off the bus): reboot");
  ASSERT_TRUE(FindNode(nodes, "labnode3"));
  EXPECT_EQ(FindNode(nodes, "labnode3")->name, "labnode3");
  EXPECT_FALSE(FindNode(nodes, "labnode30"));
}

TEST(ScontrolNodes, StatesWithFlagsAndMarks) {
  const std::vector<SlurmNode> nodes = ParseScontrolNodes(
      "NodeName=g1 State=MIXED+DRAIN Partitions=gpu Reason=lab_check: GPU3 row remap failed [root@2026-12-04T03:05:56]\n"
      "NodeName=g2 State=DOWN*+DRAIN Partitions=gpu Reason=Not responding [slurm@2026-12-04T03:05:56] Comment=x\n"
      "NodeName=g3 State=DOWN* Partitions=gpu Reason=lab_check: no stamp here\n"
      "NodeName=g4 State=IDLE+NOT_RESPONDING Partitions=gpu,debug\n"
      "NodeName=g5 State=ALLOCATED+FAIL Partitions=gpu Reason=lab_check: x [root@2026-12-04T03:05:56]\n"
      "slurm_load_node error: Unable to contact slurm controller (connect failure)\n");
  ASSERT_EQ(nodes.size(), 5u);
  EXPECT_TRUE(nodes[0].Draining());
  EXPECT_TRUE(nodes[0].DrainedByLabCheck());
  EXPECT_EQ(nodes[1].reason, "Not responding");
  EXPECT_TRUE(nodes[1].Draining());
  EXPECT_FALSE(nodes[2].Draining());
  EXPECT_TRUE(nodes[2].OutOfService());            // DOWN, the '*' aside
  EXPECT_EQ(nodes[2].reason, "lab_check: no stamp here");  // no bracket: to the end of the line
  EXPECT_TRUE(nodes[2].DrainedByLabCheck());
  EXPECT_FALSE(nodes[3].OutOfService());
  EXPECT_EQ(nodes[3].partitions, (std::vector<std::string>{"gpu", "debug"}));
  EXPECT_TRUE(nodes[4].OutOfService());
  EXPECT_TRUE(ParseScontrolNodes("").empty());
}

}  // namespace
}  // namespace labcheck::node_check
