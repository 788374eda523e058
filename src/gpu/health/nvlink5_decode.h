// The NVLink5 XIDs 144-150 (GB200, B200 and later), decoded as NVIDIA's Xid catalog asks: their
// immediate action is WORKFLOW_NVLINK5_ERR, "These errors need decoding of XID message … to
// determine the resolution action", by the sheet "Xid 144-150 Decode" of NVIDIA's Xid catalog
// spreadsheet (data/nvlink5_xid_decode.json, every row with its source). The line:
//   NVRM: Xid (PCI:0009:01:00): 149, NETIR_LINK_EVT  Fatal   XC0 i0 Link 01 (0x021425c6 0x00000000 …)
// carries the IntrInfo (first value in the parentheses) and the Error Status (second). A row
// matches when the IntrInfo agrees with its bit pattern and the status is one of its; the pattern
// column is the one of the driver that wrote the line (V1 before R575, V2 from R575 on). That
// version comes from the log's own "NVRM: loading" line before the XID, not from the driver running
// now: NVSentinel decodes by the running driver (syslog-health-monitor, PR 749), which misreads a
// log an older driver wrote. Where the log does not say, both columns are tried and must agree.
// What cannot be decoded (another line format, no matching row, rows that disagree) is reported
// as not decoded, with why, and judged strictly by the caller.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/text.h"

namespace labcheck::gpu::health {

// The fields of an NVLink5 XID line.
struct Nvlink5Line {
  int xid = 0;
  std::string subcode;   // "NETIR_LINK_EVT"
  std::string severity;  // "Fatal", "Nonfatal"
  int link = 0;          // -1 for the unit as a whole
  std::uint32_t intrinfo = 0;
  std::uint32_t error_status = 0;
};
std::optional<Nvlink5Line> ParseNvlink5Line(const std::string& line);

struct Nvlink5Decoding {
  bool decoded = false;
  std::string action;   // the sheet's: "IGNORE", "RESET_GPU", "XID_154_EVAL"; empty when not decoded
  std::string column;   // "v1", "v2", or "v1 and v2" (the writer's version not in the log, both agree)
  std::vector<int> rows;       // the sheet's rows that matched
  std::string subcode;         // the matched row's subcode as the sheet names it
  std::string investigatory;   // the matched row's investigatory action
  Text why;                    // decoded: what was read; not decoded: why not
};

// `driver_version` is the version of the driver that wrote the line ("570.86.15"), empty if unknown.
Nvlink5Decoding DecodeNvlink5(int xid, const std::string& line, const std::string& driver_version);

// The class data/nvlink5_xid_decode.json gives a decoded action ("application", "reset");
// nullopt for an action it does not map.
std::optional<std::string> Nvlink5OutcomeClass(const std::string& action);

// The sheet as shipped, for its tests.
struct Nvlink5Row {
  int row = 0, xid = 0;
  std::string subcode, intrinfo_v1, intrinfo_v2;
  std::vector<std::uint32_t> error_status;  // empty: any
  std::string action;
  std::string action2_v1, action2_v2, action2;  // "Action 2" and its own patterns, where the row has one
  std::string investigatory, severity;
};
const std::vector<Nvlink5Row>& Nvlink5Rows();

// Whether `value` agrees with a 32-digit pattern of '0', '1' and '-' (bit 31 first).
bool IntrinfoMatches(const std::string& pattern, std::uint32_t value);

}  // namespace labcheck::gpu::health
