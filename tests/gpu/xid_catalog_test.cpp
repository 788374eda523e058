// NVIDIA's Xid catalog as shipped (data/xid_catalog.json): it parses, names its source, and
// gives the buckets the catalog gives, including where issue 39's examples differ from it.
#include <gtest/gtest.h>

#include "gpu/health/xid_catalog.h"

namespace labcheck::gpu::health {
namespace {

TEST(XidCatalog, ParsesAndNamesItsSource) {
  const XidCatalogFacts& c = XidCatalog();
  EXPECT_EQ(c.url, "https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html");
  EXPECT_FALSE(c.read.empty());
  EXPECT_GT(c.rows.size(), 50u);
  for (const XidInfo& row : c.rows) {
    EXPECT_FALSE(row.mnemonic.empty()) << row.xid;
    EXPECT_FALSE(row.meaning.en.empty()) << row.xid;
    EXPECT_FALSE(row.meaning.ru.empty()) << row.xid;
  }
}

TEST(XidCatalog, BucketsAsTheCatalogGivesThem) {
  EXPECT_EQ(LookUpXid(13).action, "RESTART_APP");
  EXPECT_EQ(LookUpXid(31).cls, XidClass::Application);
  EXPECT_EQ(LookUpXid(48).cls, XidClass::Reset);     // WORKFLOW_XID_48: solo, a GPU reset
  EXPECT_EQ(LookUpXid(64).cls, XidClass::Reset);
  EXPECT_EQ(LookUpXid(95).cls, XidClass::Reset);
  EXPECT_EQ(LookUpXid(79).action, "RESTART_BM");
  EXPECT_EQ(LookUpXid(79).cls, XidClass::Reboot);
  // Where issue 39's examples said otherwise, the catalog wins: 43 is IGNORE (not RESTART_APP),
  // 63 and 92 IGNORE and 94 RESTART_APP (not a reset), 119 and 120 RESET_GPU (not a reboot).
  EXPECT_EQ(LookUpXid(43).action, "IGNORE");
  EXPECT_EQ(LookUpXid(63).cls, XidClass::Application);
  EXPECT_EQ(LookUpXid(92).cls, XidClass::Application);
  EXPECT_EQ(LookUpXid(94).cls, XidClass::Application);
  EXPECT_EQ(LookUpXid(119).cls, XidClass::Reset);
  EXPECT_EQ(LookUpXid(120).cls, XidClass::Reset);
}

TEST(XidCatalog, UnknownXidsAreContactSupport) {
  const XidInfo unknown = LookUpXid(9999);
  EXPECT_EQ(unknown.action, "CONTACT_SUPPORT");
  EXPECT_EQ(unknown.cls, XidClass::ContactSupport);
  EXPECT_EQ(LookUpXid(1).cls, XidClass::ContactSupport);  // "Unused" in the catalog: not shipped
  EXPECT_EQ(XidWithMeaning(79).en, "79 (GPU has fallen off the bus)");
  EXPECT_EQ(XidAction(XidClass::Reset).en, "reset the GPU");
}

TEST(XidCatalog, Xid154CarriesTheDriversAction) {
  EXPECT_EQ(LookUpXid(154, "NVRM: Xid (PCI:0000:3b:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)").cls,
            XidClass::Reboot);
  EXPECT_EQ(LookUpXid(154, "... from 0x0 (None) to 0x1 (GPU Reset Required)").cls, XidClass::Reset);
  EXPECT_EQ(LookUpXid(154, "... from 0x1 (GPU Reset Required) to 0x0 (None)").cls, XidClass::Application);
  // As field 230's drain-P2P fails the node, so does the same action announced in the log.
  EXPECT_EQ(LookUpXid(154, "... from 0x0 (None) to 0x3 (Drain P2P)").cls, XidClass::Reset);
  EXPECT_EQ(LookUpXid(154, "garbled").cls, XidClass::ContactSupport);
}

}  // namespace
}  // namespace labcheck::gpu::health
