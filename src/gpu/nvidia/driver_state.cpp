#include "gpu/nvidia/driver_state.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include <fmt/format.h>

#include "gpu/nvidia/nvml_api.h"

namespace labcheck::gpu {

namespace {

using nlohmann::json;

bool LooksLikeVersion(const std::string& word) {
  // 535.261.03, 550.54.14, 177.80: digits and dots, starting and ending with a digit, one dot at least.
  if (word.empty() || !std::isdigit(static_cast<unsigned char>(word.front())) ||
      !std::isdigit(static_cast<unsigned char>(word.back())) || word.find('.') == std::string::npos)
    return false;
  return std::all_of(word.begin(), word.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; });
}

// GPUs bound to vfio-pci or pci-stub are handed to virtual machines: not this system's to drive.
bool HeldForVirtualMachines(const env::NvidiaPciDevice& d) { return d.driver == "vfio-pci" || d.driver == "pci-stub"; }

std::vector<const env::NvidiaPciDevice*> GpusForThisSystem(const env::NvidiaPciBus& bus) {
  std::vector<const env::NvidiaPciDevice*> gpus;
  for (const env::NvidiaPciDevice& d : bus.devices)
    if (d.gpu && !HeldForVirtualMachines(d)) gpus.push_back(&d);
  return gpus;
}

bool BusRead(const DriverFacts& f) { return f.bus && !f.bus->na; }

// A userspace driver is there: a libcuda that answered anything but the stub's 34, or an NVML
// whose file carries a driver version (the toolkit's stub answers nvmlInit_v2 with 9 too, and its
// file is plain libnvidia-ml.so).
bool UserspaceInstalled(const DriverFacts& f) {
  if (f.libcuda && f.libcuda->init_result && *f.libcuda->init_result != cuda::kErrorStubLibrary) return true;
  return f.nvml && !f.nvml->version.empty();
}

// The libraries' version as the NVML file names it (NVML is the driver's own; a libcuda may be a
// cuda-compat copy of a newer branch, whose version differs from the module's by design).
bool VersionsDiffer(const DriverFacts& f) {
  return f.module.loaded && !f.module.version.empty() && f.nvml && !f.nvml->version.empty() &&
         f.nvml->version != f.module.version;
}

bool NvmlSaid(const DriverFacts& f, int result) { return f.nvml && f.nvml->init_result == result; }

}  // namespace

const char* DriverStateName(DriverStateKind kind) {
  switch (kind) {
    case DriverStateKind::Running: return "running";
    case DriverStateKind::Loaded: return "loaded";
    case DriverStateKind::ModuleNotLoaded: return "module_not_loaded";
    case DriverStateKind::VersionMismatch: return "version_mismatch";
    case DriverStateKind::NoGpuOnBus: return "no_gpu_on_bus";
    case DriverStateKind::NotInstalled: return "not_installed";
    case DriverStateKind::Unknown: return "unknown";
  }
  return "unknown";
}

// In this order: what the libraries themselves say of the module outranks the files (a library
// that talked to the module knows it is there), the module outranks the bus (a loaded module with
// no GPU on a bus we read is the module's business), and the bus decides between "nothing to
// drive" and "a driver that should be running".
DriverStateKind JudgeDriverState(const DriverFacts& f) {
  if (f.libcuda && f.libcuda->init_result == cuda::kSuccess) return DriverStateKind::Running;
  // cuInit's 803 beside an NVML that initialised is a libcuda foreign to a driver that runs (a
  // cuda-compat copy this branch does not support, a stale copy): the module is fine, cuInit's own
  // reason names the file.
  const bool cuda_mismatch = f.libcuda && f.libcuda->init_result == cuda::kErrorSystemDriverMismatch && !NvmlSaid(f, nvml::kSuccess);
  if (NvmlSaid(f, nvml::kErrorLibRmVersionMismatch) || cuda_mismatch || VersionsDiffer(f))
    return DriverStateKind::VersionMismatch;
  if (f.module.loaded || NvmlSaid(f, nvml::kSuccess)) return DriverStateKind::Loaded;
  if (BusRead(f) && GpusForThisSystem(*f.bus).empty()) return DriverStateKind::NoGpuOnBus;
  if (!UserspaceInstalled(f)) return DriverStateKind::NotInstalled;
  if (f.module.read && BusRead(f)) return DriverStateKind::ModuleNotLoaded;
  return DriverStateKind::Unknown;
}

std::string ModuleVersionFromProc(const std::string& text) {
  const std::string first_line = text.substr(0, text.find('\n'));
  if (first_line.find("NVRM version:") == std::string::npos) return "";
  std::istringstream words(first_line);
  for (std::string word; words >> word;)
    if (LooksLikeVersion(word)) return word;
  return "";
}

std::string DriverVersionFromFileName(const std::string& file_name) {
  for (const char* prefix : {"libcuda.so.", "libnvidia-ml.so."}) {
    const std::string p = prefix;
    if (file_name.rfind(p, 0) != 0) continue;
    const std::string rest = file_name.substr(p.size());
    // libcuda.so.1 and libcuda.so.1.1 (WSL) are sonames, not driver versions: those have 3 digits.
    const bool driver_like = LooksLikeVersion(rest) && rest.find('.') >= 3;
    return driver_like ? rest : "";
  }
  return "";
}

namespace {

std::string Plural(size_t n, const char* one, const char* many) { return fmt::format("{} {}", n, n == 1 ? one : many); }

// "libcuda 535.261.03" / "libnvidia-ml 535.261.03" / "": the version the installed driver carries.
std::string InstalledVersionText(const DriverFacts& f) {
  if (f.libcuda && !f.libcuda->version.empty()) return "libcuda " + f.libcuda->version;
  if (f.nvml && !f.nvml->version.empty()) return "libnvidia-ml " + f.nvml->version;
  return "";
}

bool AnyGpuHeldBy(const env::NvidiaPciBus& bus, const char* driver) {
  return std::any_of(bus.devices.begin(), bus.devices.end(), [&](const env::NvidiaPciDevice& d) { return d.gpu && d.driver == driver; });
}

DriverProblem Problem(DriverVerdict verdict, Text reason, Text hint, const DriverProblem& cuda_problem) {
  DriverProblem problem = cuda_problem;
  problem.verdict = verdict;
  problem.reason = std::move(reason);
  problem.hint = std::move(hint);
  return problem;
}

// `sudo modprobe nvidia` says why the module does not load; its three common answers and what each
// means: the kernel has no module built for it (modprobe's "Module nvidia not found in directory
// /lib/modules/<release>"), Secure Boot refuses an unsigned module (the kernel's EKEYREJECTED and
// ENOKEY, "Key was rejected by service" / "Required key not available"), the module found no card
// it drives (ENODEV, "No such device": nouveau or vfio-pci holds it, or the card is not supported
// by this branch; the kernel log's NVRM lines say which).
const Text kModprobeHint = T(
    "sudo modprobe nvidia и прочитайте ошибку: «Module nvidia not found» — модуль не собран для этого ядра: "
    "сравните dkms status с uname -r, поставьте заголовки этого ядра и переустановите драйвер (или sudo dkms "
    "autoinstall); «Key was rejected by service» или «Required key not available» — Secure Boot не пускает "
    "неподписанный модуль (mokutil --sb-state): зарегистрируйте ключ драйвера (sudo mokutil --import) или "
    "выключите Secure Boot; «No such device» — модуль не нашёл карту, которой умеет управлять: lspci -nnk -d 10de: "
    "покажет, какой драйвер держит каждую карту, sudo dmesg | grep NVRM — почему. Потом проверьте nvidia-smi",
    "sudo modprobe nvidia, and read its error: \"Module nvidia not found\" — no module was built for this kernel: "
    "compare dkms status with uname -r, install this kernel's headers and reinstall the driver (or sudo dkms "
    "autoinstall); \"Key was rejected by service\" or \"Required key not available\" — Secure Boot refuses the "
    "unsigned module (mokutil --sb-state): enrol the driver's key (sudo mokutil --import) or turn Secure Boot off; "
    "\"No such device\" — the module found no card it drives: lspci -nnk -d 10de: shows which driver holds each "
    "card, sudo dmesg | grep NVRM says why. Then check nvidia-smi");

const Text kNouveauHint = T(
    "карты держит nouveau (свободный драйвер): запретите его (blacklist nouveau в /etc/modprobe.d, sudo "
    "update-initramfs -u) и перезагрузитесь; ",
    "the cards are held by nouveau (the free driver): blacklist it (blacklist nouveau in /etc/modprobe.d, sudo "
    "update-initramfs -u) and reboot; ");

DriverProblem ModuleNotLoaded(const DriverState& s, const DriverProblem& cuda_problem) {
  const DriverFacts& f = s.facts;
  const std::string version = InstalledVersionText(f);
  const size_t gpus = GpusForThisSystem(*f.bus).size();
  const std::string installed = version.empty() ? "" : " (" + version + ")";
  const Text reason = T(fmt::format("драйвер NVIDIA установлен{}, но его модуль ядра не загружен: на шине PCI {} NVIDIA, "
                                    "а /proc/driver/nvidia/version нет",
                                    installed, Plural(gpus, "GPU", "GPU")),
                        fmt::format("the NVIDIA driver is installed{} but its kernel module is not loaded: {} on the PCI "
                                    "bus, and no /proc/driver/nvidia/version",
                                    installed, Plural(gpus, "NVIDIA GPU", "NVIDIA GPUs")));
  Text hint = kModprobeHint;
  if (AnyGpuHeldBy(*f.bus, "nouveau")) hint = T(kNouveauHint.ru + hint.ru, kNouveauHint.en + hint.en);
  return Problem(DriverVerdict::Fail, reason, hint, cuda_problem);
}

DriverProblem VersionMismatch(const DriverState& s, const DriverProblem& cuda_problem) {
  const DriverFacts& f = s.facts;
  const std::string library = f.nvml && !f.nvml->version.empty() ? " (" + f.nvml->version + ")" : "";
  const std::string module = !f.module.version.empty() ? " (" + f.module.version + ")" : "";
  const Text reason = T(fmt::format("библиотеки драйвера NVIDIA{} и загруженный модуль ядра{} разных версий: драйвер "
                                    "обновили, а старый модуль всё ещё загружен",
                                    library, module),
                        fmt::format("the NVIDIA driver's libraries{} and the loaded kernel module{} are different "
                                    "versions: the driver was updated and the old module is still loaded",
                                    library, module));
  const Text hint = T("перезагрузитесь (загрузится новый модуль); или, когда GPU никто не занимает, перезагрузите модуль: "
                      "остановите nvidia-persistenced и графический сеанс, sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset "
                      "nvidia && sudo modprobe nvidia. Версию загруженного модуля покажет cat /proc/driver/nvidia/version",
                      "reboot (the new module loads at boot); or, with nothing using the GPUs, reload the module: stop "
                      "nvidia-persistenced and the display manager, sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia "
                      "&& sudo modprobe nvidia. cat /proc/driver/nvidia/version names the module that is loaded");
  return Problem(DriverVerdict::Fail, reason, hint, cuda_problem);
}

// cuInit's 100 from an installed driver is said anew (the bus, not hidden cards); a stub or no
// libcuda at all keeps its own words and hint after the bus's.
DriverProblem NoGpuOnBus(const DriverState& s, const DriverProblem& cuda_problem) {
  size_t held = 0;
  for (const env::NvidiaPciDevice& d : s.facts.bus->devices) held += d.gpu && HeldForVirtualMachines(d) ? 1 : 0;
  Text reason = held == 0 ? T("на шине PCI нет GPU NVIDIA", "no NVIDIA GPU on the PCI bus")
                          : T(fmt::format("на шине PCI {} NVIDIA, и все отданы виртуальным машинам (vfio-pci)",
                                          Plural(held, "GPU", "GPU")),
                              fmt::format("{} on the PCI bus, all handed to virtual machines (vfio-pci)",
                                          Plural(held, "NVIDIA GPU", "NVIDIA GPUs")));
  if (cuda_problem.init_result != cuda::kErrorNoDevice)
    return Problem(DriverVerdict::Skip, T(reason.ru + "; " + cuda_problem.reason.ru, reason.en + "; " + cuda_problem.reason.en),
                   cuda_problem.hint, cuda_problem);
  return Problem(DriverVerdict::Skip, reason,
                 T("здесь нечего измерять; в виртуальной машине пробросьте GPU в неё; lspci -d 10de: перечислит "
                   "устройства NVIDIA",
                   "nothing to measure on this machine; in a virtual machine, pass the GPU through to it; lspci -d 10de: "
                   "lists NVIDIA's devices"),
                 cuda_problem);
}

DriverProblem NotInstalled(const DriverState& s, const DriverProblem& cuda_problem) {
  const size_t gpus = GpusForThisSystem(*s.facts.bus).size();
  const bool stub = s.facts.libcuda_stub_seen;
  const Text reason = T(fmt::format("на шине PCI {} NVIDIA, но драйвер NVIDIA не установлен ({})", Plural(gpus, "GPU", "GPU"),
                                    stub ? "есть только заглушка libcuda.so из CUDA Toolkit" : "нет libcuda.so.1"),
                        fmt::format("{} on the PCI bus, but no NVIDIA driver is installed ({})",
                                    Plural(gpus, "NVIDIA GPU", "NVIDIA GPUs"),
                                    stub ? "only the CUDA toolkit's stub libcuda.so" : "no libcuda.so.1"));
  return Problem(DriverVerdict::Skip, reason, cuda_problem.hint, cuda_problem);
}

}  // namespace

std::optional<DriverProblem> ProblemForState(const DriverState& s, const DriverProblem& cuda_problem) {
  const bool was_skip = cuda_problem.verdict == DriverVerdict::Skip;
  switch (s.kind) {
    case DriverStateKind::ModuleNotLoaded: return ModuleNotLoaded(s, cuda_problem);
    case DriverStateKind::VersionMismatch:
      // cuInit 803 without an NVML to ask may still be a cuda-compat libcuda: cuInit's own reason
      // says both causes; NVML's 18 or two versions read say it is the module.
      if (NvmlSaid(s.facts, nvml::kErrorLibRmVersionMismatch) || VersionsDiffer(s.facts)) return VersionMismatch(s, cuda_problem);
      return std::nullopt;
    case DriverStateKind::NoGpuOnBus: return was_skip ? std::optional(NoGpuOnBus(s, cuda_problem)) : std::nullopt;
    case DriverStateKind::NotInstalled:
      return was_skip && BusRead(s.facts) ? std::optional(NotInstalled(s, cuda_problem)) : std::nullopt;
    default: return std::nullopt;
  }
}

namespace {

json LibraryJson(const std::optional<DriverLibraryFacts>& lib, const char* init_key) {
  if (!lib) return nullptr;
  return {{"file", lib->file},
          {"version", lib->version.empty() ? json(nullptr) : json(lib->version)},
          {init_key, lib->init_result ? json(*lib->init_result) : json(nullptr)}};
}

}  // namespace

json DriverStateJson(const DriverState& s) {
  const DriverFacts& f = s.facts;
  json out = {{"state", DriverStateName(s.kind)},
              {"libcuda", LibraryJson(f.libcuda, "cu_init")},
              {"libcuda_stub_seen", f.libcuda_stub_seen},
              {"nvml", LibraryJson(f.nvml, "nvml_init")}};
  if (f.module.read)
    out["kernel_module"] = {{"loaded", f.module.loaded},
                            {"version", f.module.version.empty() ? json(nullptr) : json(f.module.version)},
                            {"source", f.module.source.empty() ? json(nullptr) : json(f.module.source)}};
  else
    out["kernel_module"] = {{"na", f.module.na.empty() ? "not read" : f.module.na}};
  if (!f.bus) {
    out["pci_bus"] = {{"na", f.bus_na.empty() ? "not read" : f.bus_na}};
  } else if (f.bus->na) {
    out["pci_bus"] = {{"na", *f.bus->na}};
  } else {
    json drivers = json::object();
    for (const env::NvidiaPciDevice& d : f.bus->devices)
      if (d.gpu) drivers[d.bus_id] = d.driver.empty() ? json(nullptr) : json(d.driver);
    out["pci_bus"] = {{"nvidia_gpus", f.bus->Gpus()}, {"drivers", drivers}};
  }
  return out;
}

}  // namespace labcheck::gpu
