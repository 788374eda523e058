// NVLink5 XIDs 144-150 by NVIDIA's decode sheet (data/nvlink5_xid_decode.json). A test per row of
// the sheet and per column (V1 before R575, V2 from it): a line written for the test from the row's
// own bit pattern and error status decodes to the row's action, whatever its user-decode ("-") bits
// hold; the rows with an "Action 2" give it for their second pattern. Then the production lines
// gpud's tests keep (tests/gpu/testdata/kernel_log/gpud-nvlink5.log), the column chosen by the driver
// that wrote the line, and what cannot be decoded.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "gpu/health/kernel_log.h"
#include "gpu/health/nvlink5_decode.h"
#include "gpu/health/xid_catalog.h"

namespace labcheck::gpu::health {
namespace {

// The IntrInfo a pattern describes, its "-" bits all `fill`.
std::uint32_t IntrinfoOf(const std::string& pattern, bool fill) {
  std::uint32_t value = 0;
  for (size_t i = 0; i < pattern.size(); ++i)
    if (pattern[i] == '1' || (pattern[i] == '-' && fill)) value |= 1u << (31 - i);
  return value;
}

std::string LineFor(const Nvlink5Row& row, std::uint32_t intrinfo) {
  const std::uint32_t status = row.error_status.empty() ? 0x1234u : row.error_status.back();  // no list: any status
  std::string subcode = row.subcode.substr(0, row.subcode.find('/'));  // the V1 name where the sheet gives two
  for (char& c : subcode)
    if (c == ' ') c = '_';  // "MSE Degraded" as a mnemonic the line can carry
  return fmt::format("NVRM: Xid (PCI:0000:04:00): {}, {} Nonfatal XC0 i0 Link 03 (0x{:08x} 0x{:08x} 0x00000000 0x00000000)", row.xid,
                     subcode, intrinfo, status);
}

class SheetRow : public ::testing::TestWithParam<size_t> {};

TEST_P(SheetRow, DecodesToItsActionInBothColumns) {
  const Nvlink5Row& row = Nvlink5Rows()[GetParam()];
  for (const auto& [version, pattern, pattern2] :
       {std::tuple{"570.124.06", row.intrinfo_v1, row.action2_v1}, std::tuple{"580.95.05", row.intrinfo_v2, row.action2_v2}}) {
    for (bool fill : {false, true}) {
      const Nvlink5Decoding d = DecodeNvlink5(row.xid, LineFor(row, IntrinfoOf(pattern, fill)), version);
      EXPECT_TRUE(d.decoded) << "row " << row.row << " driver " << version << ": " << d.why.en;
      EXPECT_EQ(d.action, row.action) << "row " << row.row << " driver " << version << " fill " << fill;
      EXPECT_NE(std::find(d.rows.begin(), d.rows.end(), row.row), d.rows.end()) << "row " << row.row;
      if (row.action2.empty()) continue;
      const Nvlink5Decoding d2 = DecodeNvlink5(row.xid, LineFor(row, IntrinfoOf(pattern2, fill)), version);
      EXPECT_EQ(d2.action, row.action2) << "row " << row.row << " action 2, driver " << version;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Xid144To150Decode, SheetRow, ::testing::Range<size_t>(0, 95),
                         [](const ::testing::TestParamInfo<size_t>& info) { return "row" + std::to_string(Nvlink5Rows()[info.param].row); });

TEST(Nvlink5Sheet, HasEveryRowAsPublished) {
  ASSERT_EQ(Nvlink5Rows().size(), 95u);  // the sheet's rows 2-96
  EXPECT_EQ(Nvlink5Rows().front().row, 2);
  EXPECT_EQ(Nvlink5Rows().back().row, 96);
  int ignore = 0, reset = 0, eval = 0, action2 = 0;
  for (const Nvlink5Row& r : Nvlink5Rows()) {
    EXPECT_EQ(r.intrinfo_v1.size(), 32u) << r.row;
    EXPECT_EQ(r.intrinfo_v2.size(), 32u) << r.row;
    EXPECT_GE(r.xid, 144);
    EXPECT_LE(r.xid, 150);
    ignore += r.action == "IGNORE", reset += r.action == "RESET_GPU", eval += r.action == "XID_154_EVAL";
    action2 += !r.action2.empty();
  }
  EXPECT_EQ(ignore + reset + eval, 95);  // every row's action is one node-check maps
  EXPECT_EQ(eval, 8);                    // RLW_REMAP 0x1-0x20, RLW_SRC_TRACK 0x4 and 0x8
  EXPECT_EQ(action2, 3);                 // RLW_RXPIPE 0x1, 0x2, 0x4: bit 10 (V1) / 7 (V2) set, a GPU reset
  EXPECT_EQ(Nvlink5OutcomeClass("IGNORE"), "application");
  EXPECT_EQ(Nvlink5OutcomeClass("XID_154_EVAL"), "application");  // the XID 154 line decides
  EXPECT_EQ(Nvlink5OutcomeClass("RESET_GPU"), "reset");
}

// gpud's production lines (V1 IntrInfo, a driver before R575), each by hand against the sheet.
TEST(Nvlink5Decode, GpudsProductionLines) {
  struct Case {
    const char* line;
    const char* action;
    int row;
  };
  const Case cases[] = {
      {"NVRM: Xid (PCI:0018:01:00): 149, NETIR_BER_EVENT Nonfatal XC0 i0 Link 03 (0x00086226 0x00000001 0x00000000 0x00000000 0x00000000 0x00000000)",
       "IGNORE", 87},
      {"NVRM: Xid (PCI:0018:01:00): 145, pid=876767, name=ray::WorkerDict, RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x0409a0c2 0x00000008 0x00000001 0x00000000 0x00100000 0x00000004)",
       "IGNORE", 26},
      {"NVRM: Xid (PCI:0019:01:00): 145, RLW_SRC_TRACK Nonfatal XC1 i0 Link 12 (0x040988e2 0x00000008 0x00000000 0x00000000 0x00000000 0x00000000)",
       "XID_154_EVAL", 31},
      {"NVRM: Xid (PCI:0019:01:00): 149, NETIR Fatal XC0 i0 Link -1 (0x000fe406 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)",
       "RESET_GPU", 64},
      {"NVRM: Xid (PCI:0008:01:00): 149, NETIR_LINK_EVT Fatal XC0 i0 Link 08 (0x004505c6 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)",
       "RESET_GPU", 68},
      {"[171167.620236] NVRM: Xid (PCI:0009:01:00): 149, NETIR_LINK_EVT  Fatal   XC0 i0 Link 01 (0x021425c6 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)",
       "RESET_GPU", 77},
  };
  for (const Case& c : cases) {
    const int xid = std::stoi(std::string(c.line).substr(std::string(c.line).find("): ") + 3));
    for (const char* version : {"", "570.124.06"}) {  // unknown: both columns tried, only V1 fits
      const Nvlink5Decoding d = DecodeNvlink5(xid, c.line, version);
      EXPECT_TRUE(d.decoded) << c.line << " " << d.why.en;
      EXPECT_EQ(d.action, c.action) << c.line;
      ASSERT_FALSE(d.rows.empty()) << c.line;
      EXPECT_EQ(d.rows.front(), c.row) << c.line;
    }
  }
}

// The column is the writer's: a V1 line read as a V2 driver's matches no row and stays strict; so
// the log's own load line decides, not the driver running now (what NVSentinel uses).
TEST(Nvlink5Decode, TheColumnIsTheDriverThatWroteTheLine) {
  const std::string ber =
      "NVRM: Xid (PCI:0018:01:00): 149, NETIR_BER_EVENT Nonfatal XC0 i0 Link 03 (0x00086226 0x00000001 0x00000000 0x00000000)";
  EXPECT_EQ(DecodeNvlink5(149, ber, "570.124.06").action, "IGNORE");
  const Nvlink5Decoding as_v2 = DecodeNvlink5(149, ber, "580.95.05");
  EXPECT_FALSE(as_v2.decoded);
  EXPECT_NE(as_v2.why.en.find("no row of NVIDIA's decode sheet"), std::string::npos) << as_v2.why.en;
  EXPECT_NE(as_v2.why.en.find("V2 (driver 580.95.05)"), std::string::npos) << as_v2.why.en;
  // Through the kernel log: the load line before the XID names the writer.
  const std::vector<KernelXid> older = KernelXidsOf({"[ 10.0] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  570.124.06  Wed Feb 26 2025",
                                                     "[ 20.0] " + ber});
  ASSERT_EQ(older.size(), 1u);
  EXPECT_EQ(LookUpXid(149, older[0].line, older[0].driver_version).cls, XidClass::Application);
  EXPECT_EQ(LookUpXid(149, older[0].line, older[0].driver_version).decoded_action, "IGNORE");
}

TEST(Nvlink5Decode, WhatCannotBeDecodedStaysStrictAndSaysWhy) {
  // No IntrInfo and status: an older driver's line, or one cut short.
  const XidInfo bare = LookUpXid(149, "NVRM: Xid (PCI:0000:04:00): 149, NVLINK: NETIR Error");
  EXPECT_EQ(bare.cls, XidClass::Reset);
  EXPECT_NE(bare.detail.en.find("not decoded: the line has no IntrInfo and Error Status"), std::string::npos) << bare.detail.en;
  // A NETIR_LINK_EVT whose reason bits ([25:20] = 000011) no row lists.
  const XidInfo unlisted = LookUpXid(
      149, "NVRM: Xid (PCI:0000:04:00): 149, NETIR_LINK_EVT Fatal XC0 i0 Link 00 (0x003005c6 0x00000000 0x00000000 0x00000000)", "570.0");
  EXPECT_EQ(unlisted.cls, XidClass::Reset);
  EXPECT_TRUE(unlisted.decoded_action.empty());
  // An error status the row does not list (SAW_MVB lists 0x1-0x20).
  EXPECT_EQ(LookUpXid(144, "NVRM: Xid (PCI:0000:04:00): 144, SAW_MVB Nonfatal XC0 i0 Link 00 (0x00000021 0x00000040 0x0 0x0)", "570.0").cls,
            XidClass::Reset);
  // The XID number of the line must be the one asked about.
  EXPECT_FALSE(DecodeNvlink5(145, "NVRM: Xid (PCI:0000:04:00): 149, NETIR Fatal XC0 i0 Link -1 (0x000fe406 0x00000000)", "").decoded);
  // During the check (no line), an NVLink5 XID is the strictest outcome.
  EXPECT_EQ(LookUpXid(149).cls, XidClass::Reset);
  EXPECT_TRUE(IntrinfoMatches("------000000----------0000100001", 0x00000021));
  EXPECT_FALSE(IntrinfoMatches("------000000----------0000100001", 0x00100021));
  EXPECT_FALSE(IntrinfoMatches("short", 0));
}

}  // namespace
}  // namespace labcheck::gpu::health
