#include "gpu/health/xid_watch.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cerrno>
#include <cstring>

#include "core/regex_instances.h"  // <regex>, its code generated once
#include "gpu/health/health_facts.h"

namespace labcheck::gpu::health {

XidWatch::XidWatch(const nvml::NvmlHealthApi& api, const std::vector<nvml::nvmlDevice_t>& devices)
    : api_(api), devices_(devices), results_(devices.size(), nlohmann::json::array()) {
  if (api_.nvmlEventSetCreate == nullptr || api_.nvmlDeviceRegisterEvents == nullptr || api_.nvmlEventSetWait == nullptr) {
    for (auto& r : results_) r = MissingFunction("nvmlEventSetCreate/nvmlDeviceRegisterEvents/nvmlEventSetWait_v2");
    return;
  }
  nvml::nvmlReturn_t created = api_.nvmlEventSetCreate(&set_);
  if (created != nvml::kSuccess) {
    for (auto& r : results_) r = NotAvailable("nvmlEventSetCreate", created);
    set_ = nullptr;
    return;
  }
  bool any = false;
  for (size_t i = 0; i < devices_.size(); ++i) {
    nvml::nvmlReturn_t r = devices_[i] == nullptr
                               ? nvml::kErrorNotFound
                               : api_.nvmlDeviceRegisterEvents(devices_[i], nvml::kEventTypeXidCriticalError, set_);
    if (r != nvml::kSuccess) results_[i] = NotAvailable("nvmlDeviceRegisterEvents", r);
    else any = true;
  }
  if (!any) return;
  thread_ = std::thread([this] {
    while (!stop_.load()) {
      nvml::nvmlEventData_t data{};
      // A short timeout so Stop() returns quickly; nvmlEventSetWait blocks in the driver.
      nvml::nvmlReturn_t r = api_.nvmlEventSetWait(set_, &data, 100);
      if (r != nvml::kSuccess || (data.eventType & nvml::kEventTypeXidCriticalError) == 0) {
        if (r != nvml::kSuccess && r != nvml::kErrorTimeout) std::this_thread::sleep_for(std::chrono::milliseconds(50));
        continue;
      }
      std::lock_guard<std::mutex> lock(mutex_);
      for (size_t i = 0; i < devices_.size(); ++i)
        if (devices_[i] == data.device && results_[i].is_array()) results_[i].push_back(data.eventData);
    }
  });
}

XidWatch::~XidWatch() { Stop(); }

std::vector<nlohmann::json> XidWatch::Stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  if (set_ != nullptr && api_.nvmlEventSetFree != nullptr) api_.nvmlEventSetFree(set_);
  set_ = nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  return results_;
}

std::optional<KernelXid> ParseXidLine(const std::string& message) {
  // "NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
  static const std::regex kXid(R"(NVRM: Xid \(PCI:([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})[^)]*\): (\d+))");
  std::smatch m;
  if (!std::regex_search(message, m, kXid)) return std::nullopt;
  KernelXid x;
  x.pci = m[1].str();
  for (char& c : x.pci) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  x.xid = std::stoi(m[2].str());
  const size_t start = message.find("NVRM: Xid");
  x.line = message.substr(start);
  while (!x.line.empty() && (x.line.back() == '\n' || x.line.back() == '\r')) x.line.pop_back();
  return x;
}

Result<std::vector<KernelXid>> ReadKernelXids(const std::string& kmsg_path) {
  int fd = open(kmsg_path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    if (e == EPERM || e == EACCES)
      return Status::Error(kmsg_path + " is readable only by root here (kernel.dmesg_restrict=1): sudo dmesg | grep 'NVRM: Xid'");
    return Status::Error(kmsg_path + ": " + std::strerror(e) + " (no kernel log in this container?)");
  }
  std::vector<KernelXid> found;
  char record[8192];
  for (;;) {
    ssize_t n = read(fd, record, sizeof record - 1);
    if (n < 0 && errno == EPIPE) continue;  // a record was overwritten while reading: go on
    if (n <= 0) break;                      // EAGAIN: the end of the buffer
    record[n] = 0;
    // "6,1234,5678,-;message\n": the message follows the first ';'.
    const char* text = std::strchr(record, ';');
    if (auto x = ParseXidLine(text != nullptr ? text + 1 : record)) found.push_back(*x);
  }
  close(fd);
  return found;
}

bool SameGpu(const std::string& kernel_pci, const std::string& bus_id) {
  return !kernel_pci.empty() && bus_id.rfind(kernel_pci, 0) == 0;
}

}  // namespace labcheck::gpu::health
