// Reads NCCL's own NCCL_DEBUG=INFO log: which transport it chose between GPUs ("… via P2P/CUMEM",
// "via SHM/direct/direct", "via NET/Socket/0"), its version, its warnings and, for a hang, the
// last thing it said. The log is the only place NCCL says how it moves data.
#pragma once
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace labcheck::gpu {

struct NcclLogSummary {
  std::string version;                   // "2.21.5+cuda12.4"
  std::map<std::string, int> transports;  // "P2P" → channels using it
  std::set<std::string> paths;           // "P2P/CUMEM/read", "SHM/direct/direct"
  std::vector<std::string> warnings;     // the text after "NCCL WARN "
  bool init_complete = false;            // some rank logged "Init COMPLETE"
  std::string last_line;                 // the last non-empty line, for a hang
  int lines = 0;
};

NcclLogSummary ParseNcclLog(std::string_view text);

// "P2P", "SHM", "P2P+SHM", "NET"…; "unknown" when the log names none.
std::string TransportSummary(const NcclLogSummary& summary);

}  // namespace labcheck::gpu
