// The kernel log as dmesg, journalctl -k and /dev/kmsg give it: each XID with the kernel's clock,
// and what a later line says (the driver loaded again, an administrator's reset note, a new boot).
#include <fstream>

#include <gtest/gtest.h>

#include "gpu/health/kernel_log.h"

namespace labcheck::gpu::health {
namespace {

TEST(KernelLog, ReadsDmesgsClockAndKeepsTheOrder) {
  const std::vector<KernelXid> x = KernelXidsOf({
      "[   12.345678] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue Sep 23 09:34:33 UTC 2025",
      "[ 8123.000001] NVRM: Xid (PCI:0000:3b:00): 31, pid=4242, name=python3, MMU Fault",
      "[ 9000.5] usb 1-1: new device",
      "[ 9001.500000] NVRM: Xid (PCI:0000:5E:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error",
  });
  ASSERT_EQ(x.size(), 2u);
  EXPECT_EQ(x[0].xid, 31);
  EXPECT_EQ(x[0].pci, "0000:3b:00");
  EXPECT_DOUBLE_EQ(*x[0].time_s, 8123.000001);
  EXPECT_EQ(x[1].pci, "0000:5e:00");
  EXPECT_TRUE(x[1].cleared_by.empty());
}

TEST(KernelLog, AKmsgRecordsClockIsMicroseconds) {
  const std::vector<KernelXid> x = KernelXidsOf({"3,1234,5678901234,-;NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus."});
  ASSERT_EQ(x.size(), 1u);
  EXPECT_DOUBLE_EQ(*x[0].time_s, 5678.901234);
}

TEST(KernelLog, JournalctlsWallClockIsNoKernelTimeButTheOrderHolds) {
  const std::vector<KernelXid> x = KernelXidsOf({
      "Dec 06 03:05:56 gpu07 kernel: NVRM: Xid (PCI:0000:3b:00): 48, pid='<unknown>', name=<unknown>, Double Bit ECC",
      "Dec 06 04:00:00 gpu07 kernel: NVRM: loading NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue Sep 23 2025",
  });
  ASSERT_EQ(x.size(), 1u);
  EXPECT_FALSE(x[0].time_s.has_value());
  EXPECT_EQ(x[0].cleared_by, "driver_load");
}

TEST(KernelLog, ADriverLoadClearsEveryCardAResetNoteOnlyItsOwn) {
  const std::vector<KernelXid> loaded = KernelXidsOf({
      "[ 100.0] NVRM: Xid (PCI:0000:3b:00): 48, Double Bit ECC",
      "[ 200.0] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.95.05",
      "[ 300.0] NVRM: Xid (PCI:0000:3b:00): 48, Double Bit ECC",
  });
  ASSERT_EQ(loaded.size(), 2u);
  EXPECT_EQ(loaded[0].cleared_by, "driver_load");
  EXPECT_DOUBLE_EQ(*loaded[0].cleared_at_s, 200.0);
  EXPECT_TRUE(loaded[1].cleared_by.empty());  // after the load: still in force

  const std::vector<KernelXid> reset = KernelXidsOf({
      "[ 100.0] NVRM: Xid (PCI:0000:3b:00): 48, Double Bit ECC",
      "[ 100.5] NVRM: Xid (PCI:0000:5e:00): 95, Uncontained",
      "[ 150.0] " + ResetNote("0000:3b:00"),
  });
  EXPECT_EQ(reset[0].cleared_by, "gpu_reset");
  EXPECT_TRUE(reset[1].cleared_by.empty());
}

TEST(KernelLog, ANewBootDropsWhatCameBefore) {
  const std::vector<KernelXid> x = KernelXidsOf({
      "[ 100.0] NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.",
      "[    0.000000] Linux version 6.1.0-28-amd64 (debian-kernel@lists.debian.org)",
      "[ 50.0] NVRM: Xid (PCI:0000:3b:00): 13, Graphics Exception",
  });
  ASSERT_EQ(x.size(), 1u);
  EXPECT_EQ(x[0].xid, 13);
}

TEST(KernelLog, ReadsATextFileAndNamesOneItCannotRead) {
  const std::string path = ::testing::TempDir() + "kern.log";
  std::ofstream(path) << "[ 1.0] NVRM: Xid (PCI:0000:3b:00): 31, pid=1, name=a\n[ 2.0] other\n";
  Result<std::vector<KernelXid>> read = ReadKernelXids(path);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->size(), 1u);
  Result<std::vector<KernelXid>> missing = ReadKernelXids("/nonexistent/kern.log");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/kern.log"), std::string::npos);
}

}  // namespace
}  // namespace labcheck::gpu::health
