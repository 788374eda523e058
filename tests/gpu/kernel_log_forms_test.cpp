// The kernel log as the peers' own test cases write it (tests/gpu/testdata/kernel_log/, each file
// naming the repository, path and commit it comes from, or saying it was written for these tests):
// "GPU has fallen off the bus" in every form the driver says it without an Xid number, read as XID
// 79 of the card it names; older drivers' XID line without "PCI:"; DCGM's /dev/kmsg records and
// gcm's `dmesg -T` lines; and lines that only look like XIDs, which stay unread.
#include <gtest/gtest.h>

#include "gpu/health/kernel_log.h"
#include "platform/files.h"

namespace labcheck::gpu::health {
namespace {

std::vector<std::string> FormsFixture(const std::string& name) {
  const std::string path = std::string(LAB_CHECK_SOURCE_DIR) + "/tests/gpu/testdata/kernel_log/" + name;
  Result<std::vector<std::string>> lines = ReadKernelLogLines(path);
  EXPECT_TRUE(lines.ok()) << path;
  return lines.ok() ? *lines : std::vector<std::string>{};
}

struct FallenFormCase {
  const char* file;
  const char* pci;
  const char* form;
};

class FallenOffTheBus : public ::testing::TestWithParam<FallenFormCase> {};

// Each form alone in a log is one XID 79 of the card it names.
TEST_P(FallenOffTheBus, IsXid79OfTheCardItNames) {
  const std::vector<KernelXid> x = KernelXidsOf(FormsFixture(GetParam().file));
  ASSERT_EQ(x.size(), 1u) << GetParam().file;
  EXPECT_EQ(x[0].xid, 79);
  EXPECT_EQ(x[0].pci, GetParam().pci);
  EXPECT_EQ(x[0].form, GetParam().form);
  EXPECT_EQ(x[0].line.rfind("NVRM:", 0), 0u) << x[0].line;
  EXPECT_TRUE(x[0].cleared_by.empty());
}

INSTANTIATE_TEST_SUITE_P(
    EveryForm, FallenOffTheBus,
    ::testing::Values(FallenFormCase{"gpud-gpu-line.log", "0000:29:00", "gpu_line"},
                      FallenFormCase{"gpud-gpu-line-no-domain.log", "0000:18:00", "gpu_line"},
                      FallenFormCase{"gpud-probe-message.log", "0000:18:00", "probe_message"},
                      FallenFormCase{"nvsentinel-probe-message.log", "0000:b3:00", "probe_message"},
                      FallenFormCase{"nvsentinel-probe-message-no-pci-id.log", "0000:b3:00", "probe_message"},
                      FallenFormCase{"kmsg-probe-message.log", "0000:b3:00", "probe_message"},
                      FallenFormCase{"rsyslog-probe-message.log", "0000:b3:00", "probe_message"},
                      FallenFormCase{"probe-message-no-domain.log", "0000:01:00", "probe_message"}),
    [](const ::testing::TestParamInfo<FallenFormCase>& info) {
      std::string name = info.param.file;
      name = name.substr(0, name.find('.'));
      for (char& c : name)
        if (c == '-') c = '_';
      return name;
    });

TEST(KernelLogForms, TheProbeMessageKeepsItsLinesAndThePciId) {
  const std::vector<KernelXid> x = KernelXidsOf(FormsFixture("nvsentinel-probe-message.log"));
  ASSERT_EQ(x.size(), 1u);
  EXPECT_EQ(x[0].line,
            "NVRM: The NVIDIA GPU 0000:b3:00.0 NVRM: (PCI ID: 10de:26b5) installed in this system has NVRM: fallen off the bus and is "
            "not responding to commands.");
  EXPECT_DOUBLE_EQ(*x[0].time_s, 1843.308145);
  // /dev/kmsg's record: the clock in microseconds, the dictionary after it not part of the text.
  const std::vector<KernelXid> kmsg = KernelXidsOf(
      {"3,1043,1843308145,-;NVRM: The NVIDIA GPU 0000:b3:00.0\\x0aNVRM: (PCI ID: 10de:26b5) installed in this system "
       "has\\x0aNVRM: fallen off the bus and is not responding to commands.\n SUBSYSTEM=pci\n DEVICE=+pci:0000:b3:00.0"});
  ASSERT_EQ(kmsg.size(), 1u);
  EXPECT_DOUBLE_EQ(*kmsg[0].time_s, 1843.308145);
  EXPECT_EQ(kmsg[0].line.find("SUBSYSTEM"), std::string::npos) << kmsg[0].line;
}

// gpud's README case: the XID 79 line, then the driver's own line for the same card a few
// microseconds later, then the card's serial. One event, one record, both lines its evidence; the
// serial and UUID the driver logged for that bus are the card's, for the RMA of a card the driver
// no longer lists. The NVSwitches' SXids after it are no XIDs.
TEST(KernelLogForms, OneCardOneRecordWithEveryLineAsEvidence) {
  const std::vector<KernelXid> x = KernelXidsOf(FormsFixture("gpud-xid79-readme.log"));
  ASSERT_EQ(x.size(), 1u);
  EXPECT_EQ(x[0].pci, "0000:91:00");
  EXPECT_EQ(x[0].form, "xid");
  ASSERT_EQ(x[0].also.size(), 1u);
  EXPECT_EQ(x[0].also[0].form, "gpu_line");
  EXPECT_EQ(x[0].also[0].line, "NVRM: GPU 0000:91:00.0: GPU has fallen off the bus.");
  EXPECT_EQ(x[0].serial, "1653723052734");
  EXPECT_EQ(x[0].uuid, "GPU-b6c3b2be-c55b-d076-fa0e-d464e4c7e08b");
  EXPECT_DOUBLE_EQ(*x[0].time_s, 6781741.548779);
}

TEST(KernelLogForms, TheOlderDriversXidLineWithoutPci) {
  const std::vector<KernelXid> x = KernelXidsOf(FormsFixture("gpud-xid-old-form.log"));
  ASSERT_EQ(x.size(), 1u);
  EXPECT_EQ(x[0].xid, 14);
  EXPECT_EQ(x[0].pci, "0000:03:00");
  EXPECT_EQ(x[0].line, "NVRM: Xid (0000:03:00): 14, Channel 00000001");
}

TEST(KernelLogForms, DcgmsKmsgRecordsAndGcmsDmesgLines) {
  const std::vector<KernelXid> dcgm = KernelXidsOf(FormsFixture("dcgm-kmsg-xid.log"));
  ASSERT_EQ(dcgm.size(), 2u);
  EXPECT_EQ(dcgm[0].xid, 43);
  EXPECT_EQ(dcgm[0].pci, "0000:01:00");
  EXPECT_DOUBLE_EQ(*dcgm[0].time_s, 437.812449);
  EXPECT_DOUBLE_EQ(*dcgm[1].time_s, 437.812449);  // header fields after the flags ("c,1,-") are skipped
  const std::vector<KernelXid> gcm = KernelXidsOf(FormsFixture("gcm-dmesg-xid.log"));
  ASSERT_EQ(gcm.size(), 2u);
  EXPECT_EQ(gcm[0].pci, "000d:00:00");
  EXPECT_EQ(gcm[1].xid, 48);
  EXPECT_FALSE(gcm[0].time_s.has_value());  // dmesg -T's wall clock is not the kernel's
}

TEST(KernelLogForms, LinesThatOnlyLookLikeXidsStayUnread) {
  EXPECT_TRUE(KernelXidsOf(FormsFixture("not-xids.log")).empty());
  for (const std::string& line : FormsFixture("not-xids.log")) EXPECT_FALSE(ParseXidLine(line).has_value()) << line;
}

// The version of the driver that wrote each line: the last load line before it in its boot.
TEST(KernelLogForms, EachXidKnowsTheDriverThatWroteIt) {
  const std::vector<KernelXid> x = KernelXidsOf({
      "[    0.000000] Linux version 6.8.0-49-generic",
      "[    9.0] NVRM: Xid (PCI:0000:3b:00): 31, pid=1, name=a",
      "[   10.0] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  570.124.06  Wed Feb 26 2025",
      "[   20.0] NVRM: Xid (PCI:0000:3b:00): 31, pid=2, name=b",
      "[   30.0] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  (dvs-builder@U22)  Tue Sep 23 2025",
      "[   40.0] NVRM: Xid (PCI:0000:3b:00): 31, pid=3, name=c",
  });
  ASSERT_EQ(x.size(), 3u);
  EXPECT_EQ(x[0].driver_version, "");
  EXPECT_EQ(x[1].driver_version, "570.124.06");
  EXPECT_EQ(x[2].driver_version, "580.95.05");
  EXPECT_EQ(DriverLoadVersion("NVRM: loading NVIDIA UNIX aarch64 Kernel Module  550.127.05  Thu Oct 10 2024"), "550.127.05");
  EXPECT_FALSE(DriverLoadVersion("NVRM: Xid (PCI:0000:3b:00): 31").has_value());
}

// Whatever wrote the log down, a record's lines come out alike (kernel_log_lines.h).
TEST(KernelLogLines, EveryReadersFormOfOneRecord) {
  const std::string text = "NVRM: The NVIDIA GPU 0000:b3:00.0";
  for (const std::string& record :
       {"3,1043,1843308145,-;" + text + "\\x0aNVRM: next\n SUBSYSTEM=pci", "[ 1843.308145] " + text + "#012NVRM: next",
        "[ 1843.308145] " + text + "\nNVRM: next"}) {
    const std::vector<LogLine> lines = KernelLogLinesOf({record});
    ASSERT_EQ(lines.size(), 2u) << record;
    EXPECT_NE(lines[0].text.find(text), std::string::npos) << record;
    EXPECT_NE(lines[1].text.find("NVRM: next"), std::string::npos) << record;
    EXPECT_EQ(lines[1].text.find("SUBSYSTEM"), std::string::npos) << record;
    EXPECT_DOUBLE_EQ(*lines[1].time_s, 1843.308145) << record;
  }
  EXPECT_EQ(KernelPci("0000:3B:00.0"), "0000:3b:00");
  EXPECT_EQ(KernelPci("18:00.0"), "0000:18:00");
  EXPECT_EQ(KernelPci("PCI:0009:01:00"), "0009:01:00");
}

}  // namespace
}  // namespace labcheck::gpu::health
