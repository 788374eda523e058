#include "gpu/collective/nccl_log.h"

namespace labcheck::gpu {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

void ParseLine(std::string_view line, NcclLogSummary* summary) {
  constexpr std::string_view kWarn = "NCCL WARN ";
  constexpr std::string_view kVersion = "NCCL INFO NCCL version ";
  if (size_t at = line.find(kWarn); at != std::string_view::npos) {
    summary->warnings.emplace_back(Trim(line.substr(at + kWarn.size())));
    return;
  }
  if (line.find("NCCL INFO") == std::string_view::npos) return;
  if (size_t at = line.find(kVersion); at != std::string_view::npos) {
    std::string_view rest = line.substr(at + kVersion.size());
    summary->version = std::string(rest.substr(0, rest.find(' ')));
    return;
  }
  if (line.find("Init COMPLETE") != std::string_view::npos) summary->init_complete = true;
  // "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read" and "… [send] via NET/IB/3/GDRDMA".
  if (line.find("Channel") == std::string_view::npos || line.find("->") == std::string_view::npos) return;
  constexpr std::string_view kVia = " via ";
  size_t at = line.rfind(kVia);
  if (at == std::string_view::npos) return;
  std::string_view path = Trim(line.substr(at + kVia.size()));
  path = path.substr(0, path.find(' '));
  if (path.empty()) return;
  std::string_view transport = path.substr(0, path.find('/'));
  summary->paths.emplace(path);
  ++summary->transports[std::string(transport)];
}

}  // namespace

NcclLogSummary ParseNcclLog(std::string_view text) {
  NcclLogSummary summary;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = Trim(text.substr(start, end - start));
    if (!line.empty()) {
      ++summary.lines;
      summary.last_line = std::string(line);
      ParseLine(line, &summary);
    }
    start = end + 1;
  }
  return summary;
}

std::string TransportSummary(const NcclLogSummary& summary) {
  if (summary.transports.empty()) return "unknown";
  std::string joined;
  // NCCL's own preference order, so the string is stable.
  for (const char* name : {"P2P", "SHM", "NET", "COLLNET"}) {
    if (summary.transports.count(name) != 0) joined += (joined.empty() ? "" : "+") + std::string(name);
  }
  for (const auto& [name, count] : summary.transports) {
    if (name != "P2P" && name != "SHM" && name != "NET" && name != "COLLNET") joined += (joined.empty() ? "" : "+") + name;
  }
  return joined;
}

}  // namespace labcheck::gpu
