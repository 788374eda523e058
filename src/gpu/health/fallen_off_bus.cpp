#include "gpu/health/fallen_off_bus.h"

#include "core/regex_instances.h"  // <regex>, its code generated once

namespace labcheck::gpu::health {

namespace {

// A bus id as the driver prints it: "0000:29:00.0" (NV_PCI_DEV_FMT, "%04x:%02x:%02x.%x") or,
// from older drivers, without the domain ("18:00.0").
#define LAB_CHECK_PRINTED_BUS_ID R"(((?:[0-9A-Fa-f]{4}:)?[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})\.[0-7])"

std::string FallenLineFromNvrm(const std::string& text) {
  const size_t at = text.find("NVRM:");
  return at == std::string::npos ? text : text.substr(at);
}

const char kNotResponding[] = "fallen off the bus and is not responding to commands";

std::optional<FallenOffBus> FallenOffBusGpuLine(const LogLine& line) {
  static const std::regex kGpuLine("NVRM: GPU " LAB_CHECK_PRINTED_BUS_ID R"(: GPU has fallen off the bus)");
  std::smatch m;
  if (!std::regex_search(line.text, m, kGpuLine)) return std::nullopt;
  return FallenOffBus{KernelPci(m[1].str()), "gpu_line", "", FallenLineFromNvrm(line.text), line.time_s};
}

void TakeProbePciId(const std::string& text, FallenOffBus& event) {
  static const std::regex kPciId(R"(\(PCI ID: ([0-9A-Fa-f]{4}:[0-9A-Fa-f]{4})\))");
  std::smatch m;
  if (event.pci_id.empty() && std::regex_search(text, m, kPciId)) event.pci_id = m[1].str();
}

}  // namespace

std::optional<FallenOffBus> FallenOffBusMatcher::Feed(const LogLine& line) {
  // Every line of both messages is the driver's ("NVRM:"); std::regex is slow, so most lines of a
  // busy log are passed over with a plain search.
  if (line.text.find("NVRM:") == std::string::npos) {
    pending_.reset();
    return std::nullopt;
  }
  if (line.text.find("GPU has fallen off the bus") != std::string::npos)
    if (std::optional<FallenOffBus> event = FallenOffBusGpuLine(line)) return event;
  static const std::regex kProbeStart("NVRM: The NVIDIA GPU " LAB_CHECK_PRINTED_BUS_ID R"((?:\s|$))");
  std::smatch m;
  if (line.text.find("The NVIDIA GPU") != std::string::npos && std::regex_search(line.text, m, kProbeStart)) {
    pending_ = FallenOffBus{KernelPci(m[1].str()), "probe_message", "", FallenLineFromNvrm(line.text), line.time_s};
    lines_left_ = 2;  // the message's other two lines
  } else if (pending_ && lines_left_-- > 0) {
    pending_->line += " " + FallenLineFromNvrm(line.text);
  } else {
    pending_.reset();
    return std::nullopt;
  }
  TakeProbePciId(line.text, *pending_);
  if (line.text.find(kNotResponding) == std::string::npos) return std::nullopt;
  std::optional<FallenOffBus> done = std::move(pending_);
  pending_.reset();
  return done;
}

#undef LAB_CHECK_PRINTED_BUS_ID

}  // namespace labcheck::gpu::health
