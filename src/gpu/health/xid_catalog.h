// NVIDIA's Xid catalog (data/xid_catalog.json, with its URL and the date it was read): per XID the
// catalog's immediate action ("resolution bucket") and a short meaning, and what that action means
// for a node gate. node-check judges kernel-log XIDs by it and gpu.health words its lines with it,
// so the two never disagree about what an XID is.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/text.h"

namespace labcheck::gpu::health {

// What a kernel-log XID asks of the node, from the catalog's immediate action:
//   Application: the job's own fault (RESTART_APP) or nothing at all (IGNORE): report it only;
//   Reset: the GPU needs a reset (RESET_GPU, XID 48's workflow), until then the node is unhealthy;
//   Reboot: the node needs a reboot (RESTART_BM: XID 79, fallen off the bus);
//   ContactSupport: the catalog's CONTACT_SUPPORT and every XID it does not list.
enum class XidClass { Application, Reset, Reboot, ContactSupport };

struct XidInfo {
  int xid = 0;
  std::string mnemonic;  // "ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT"; empty when the catalog lacks the XID
  std::string action;    // the catalog's immediate action: "RESTART_APP", "RESET_GPU", ...; CONTACT_SUPPORT if unknown
  XidClass cls = XidClass::ContactSupport;
  Text meaning;          // "GPU memory page fault"; the mnemonic where the catalog gives no description
  // NVLink5 XIDs (144-150): what NVIDIA's decode sheet says of the line (nvlink5_decode.h), or why
  // it could not be decoded; empty for other XIDs.
  Text detail;
  std::string decoded_action;  // the sheet's action for a decoded NVLink5 line ("IGNORE"); else empty
};

// The catalog's entry for `xid`. `line` is the kernel log line: XID 154 carries the driver's own
// recovery action in its text ("... to 0x2 (Node Reboot Required)"), which decides its class, and
// the NVLink5 XIDs 144-150 their IntrInfo and error status, decoded by NVIDIA's sheet with the
// column of `driver_version`, the driver that wrote the line (nvlink5_decode.h). A line that cannot
// be decoded keeps the strictest outcome the sheet gives those XIDs, a GPU reset, and says why.
XidInfo LookUpXid(int xid, const std::string& line = {}, const std::string& driver_version = {});

// "application", "reset", "reboot", "contact_support": the keys of --json and the metrics.
const char* XidClassKey(XidClass cls);
std::optional<XidClass> XidClassFromKey(const std::string& key);
// What to do, in a few words: "reset the GPU", "reboot", "contact NVIDIA support".
Text XidAction(XidClass cls);

// "79 (GPU has fallen off the bus)".
Text XidWithMeaning(int xid, const std::string& line = {});

// The catalog as shipped, for its test: every row (xid, action) and the source URL.
struct XidCatalogFacts {
  std::string url, read;
  std::vector<XidInfo> rows;
};
const XidCatalogFacts& XidCatalog();

}  // namespace labcheck::gpu::health
