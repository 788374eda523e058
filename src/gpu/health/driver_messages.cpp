#include "gpu/health/driver_messages.h"

#include "core/regex_instances.h"  // <regex>, its code generated once
#include "gpu/health/kernel_log_lines.h"

namespace labcheck::gpu::health {

namespace {

std::string MessageFromNvrm(const std::string& text) {
  const size_t at = text.find("NVRM:");
  return at == std::string::npos ? text : text.substr(at);
}

std::optional<DriverMessage> InitFailed(const LogLine& line) {
  // With the card (NV_DEV_PRINTF's "NVRM: GPU %04x:%02x:%02x.%x: " prefix) or, older, without.
  static const std::regex kRmInit(
      R"(NVRM: (?:GPU ((?:[0-9A-Fa-f]{4}:)?[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})\.[0-7]: )?RmInitAdapter failed! \(([0-9A-Fa-fx:]+)\))");
  static const std::regex kOpen(
      R"(NVRM: (?:GPU ((?:[0-9A-Fa-f]{4}:)?[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})\.[0-7]: )?rm_init_adapter(?:\(\d+\))? failed)");
  std::smatch m;
  if (std::regex_search(line.text, m, kRmInit))
    return DriverMessage{"init_failed", m[1].matched ? KernelPci(m[1].str()) : "", MessageFromNvrm(line.text), m[2].str(), {},
                         line.time_s};
  if (std::regex_search(line.text, m, kOpen))
    return DriverMessage{"init_failed", m[1].matched ? KernelPci(m[1].str()) : "", MessageFromNvrm(line.text), "", {},
                         line.time_s};
  return std::nullopt;
}

std::optional<DriverMessage> RxDetectFailed(const LogLine& line) {
  static const std::regex kRxDetect(
      R"(NVRM: (?:knvlinkUpdatePostRxDetectLinkMask_\w+: Failed to update Rx Detect Link mask!|knvlinkDiscoverPostRxDetLinks_\w+: Getting peer\d+(?:'s)? postRxDetLinkMask failed!))");
  if (!std::regex_search(line.text, kRxDetect)) return std::nullopt;
  return DriverMessage{"nvlink_rx_detect_failed", "", MessageFromNvrm(line.text), "", {}, line.time_s};
}

// One message per kind and card: a later line of the same is the first one's evidence.
void AddOrJoin(std::vector<DriverMessage>& messages, DriverMessage m) {
  for (DriverMessage& earlier : messages) {
    if (earlier.kind != m.kind || earlier.pci != m.pci) continue;
    earlier.also.push_back(m.line);
    if (earlier.detail.empty()) earlier.detail = m.detail;
    return;
  }
  messages.push_back(std::move(m));
}

}  // namespace

std::vector<DriverMessage> DriverMessagesOf(const std::vector<std::string>& records) {
  std::vector<DriverMessage> messages;
  for (const LogLine& line : KernelLogLinesOf(records)) {
    if (IsBootLine(line.text)) messages.clear();
    else if (line.text.find("NVRM:") == std::string::npos) continue;  // std::regex is slow: the driver's lines only
    else if (std::optional<DriverMessage> m = InitFailed(line)) AddOrJoin(messages, std::move(*m));
    else if (std::optional<DriverMessage> r = RxDetectFailed(line)) AddOrJoin(messages, std::move(*r));
  }
  return messages;
}

}  // namespace labcheck::gpu::health
