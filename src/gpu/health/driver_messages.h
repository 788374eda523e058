// Messages of the NVIDIA driver that are not XIDs and that a health gate acts on (the survey of
// what leptonai/gpud, NVIDIA's NVSentinel, DCGM and Meta's gcm read: docs/cluster-gate.md, "What the
// peers read"). Each since the log's last boot:
//   - "init_failed": the driver could not initialise a card: "NVRM: GPU 0000:0b:00.0: RmInitAdapter
//     failed! (0x62:0x65:2522)" and, from the open call, "NVRM: GPU 0000:0b:00.0: rm_init_adapter
//     failed, device minor number 0" (open-gpu-kernel-modules src/nvidia/arch/nvalloc/unix/src/
//     osinit.c and kernel-open/nvidia/nv.c). Older drivers wrote "NVRM: RmInitAdapter failed!
//     (0x30:0xffffffff:720)" without the card's bus id: kept with an empty `pci`.
//   - "nvlink_rx_detect_failed": NVLink setup could not read which links got past receiver
//     detection, "NVRM: knvlinkDiscoverPostRxDetLinks_GH100: Getting peer0's postRxDetLinkMask
//     failed!" or "NVRM: knvlinkUpdatePostRxDetectLinkMask_…: Failed to update Rx Detect Link mask!"
//     (src/nvidia/src/kernel/gpu/nvlink/…; no bus id in the line). gpud marks the node unhealthy with
//     a reboot for it (components/accelerator/nvidia/nvlink/kmsg.go).
// GSP timeouts need no reader of their own: the driver reports them as XID 119 ("Timeout after 6s of
// waiting for RPC response from GPU4 GSP!", kernel_gsp.c), which the XID catalog judges, as DCGM's
// kmsg reader does (it reads XIDs 79, 119 and 120 from /dev/kmsg).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace labcheck::gpu::health {

struct DriverMessage {
  std::string kind;               // "init_failed", "nvlink_rx_detect_failed"
  std::string pci;                // "0000:0b:00"; empty where the line names no card
  std::string line;               // from "NVRM:" on
  std::string detail;             // init_failed: the driver's status triple "0x62:0x65:2522"
  std::vector<std::string> also;  // later lines saying the same of the same card
  std::optional<double> time_s;
};

// The messages of a log's records since its last boot, one per kind and card, in order.
std::vector<DriverMessage> DriverMessagesOf(const std::vector<std::string>& records);

}  // namespace labcheck::gpu::health
