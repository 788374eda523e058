// What cuInit's result means for a user, one entry per cause (cuda.h's comments on each value, and
// NVIDIA's deployment guides where cuda.h points to them). SKIP where there is nothing to measure
// and nothing of ours is broken (no driver, only the toolkit's stub, no GPU visible to CUDA); FAIL
// where a machine that has GPUs cannot run CUDA: that is what a training job would hit too.
#include <fmt/format.h>

#include "env/os_info.h"
#include "gpu/nvidia/cuda_driver.h"

namespace labcheck::gpu {

namespace {

DriverProblem Problem(DriverVerdict verdict, Text reason, Text hint, const std::string& error) {
  DriverProblem problem;
  problem.verdict = verdict;
  problem.reason = std::move(reason);
  problem.hint = std::move(hint);
  problem.error = error;
  return problem;
}

DriverProblem OnlyTheToolkitStub(const std::string& error) {
  return Problem(DriverVerdict::Skip,
                 T("нашлась только заглушка libcuda.so из CUDA Toolkit: GPU-драйвера нет",
                   "only the CUDA toolkit's stub libcuda.so was found: no GPU driver"),
                 T("уберите папку stubs из LD_LIBRARY_PATH; если GPU есть: " + DriverInstallHint().ru,
                   "remove the stubs folder from LD_LIBRARY_PATH; if there is a GPU: " + DriverInstallHint().en),
                 error);
}

DriverProblem NoGpuVisible(const std::string& error) {
  return Problem(DriverVerdict::Skip, T("драйвер NVIDIA есть, но видеокарт он не видит", "the NVIDIA driver sees no GPU"),
                 T("проверьте CUDA_VISIBLE_DEVICES (пустая строка или несуществующий номер скрывают все карты) и "
                   "nvidia-smi -L; в контейнере запускайте с --gpus all",
                   "check CUDA_VISIBLE_DEVICES (an empty value or a wrong index hides every card) and nvidia-smi -L; "
                   "in a container, run with --gpus all"),
                 error);
}

DriverProblem FabricManagerNotRunning(const std::string& error) {
  return Problem(DriverVerdict::Fail,
                 T("система не готова к CUDA: на платах с NVSwitch (HGX, DGX) это значит, что не запущен "
                   "nvidia-fabricmanager",
                   "the system is not ready for CUDA: on NVSwitch boards (HGX, DGX) this means "
                   "nvidia-fabricmanager is not running"),
                 T("systemctl status nvidia-fabricmanager; запустите его: sudo systemctl enable --now "
                   "nvidia-fabricmanager. Версия пакета fabric manager должна в точности совпадать с версией "
                   "драйвера (nvidia-smi); причина отказа — в journalctl -u nvidia-fabricmanager",
                   "systemctl status nvidia-fabricmanager; start it: sudo systemctl enable --now "
                   "nvidia-fabricmanager. The fabric manager package's version must equal the driver's exactly "
                   "(nvidia-smi); why it stopped is in journalctl -u nvidia-fabricmanager"),
                 error);
}

// Source for the states: nvml.h's nvmlGpuFabricInfo_t ("Current state of GPU registration
// process"). NVIDIA's Fabric Manager user guide: the GPUs of an NVSwitch system cannot run CUDA
// until the fabric manager has registered them, so at boot cuInit says 802 until it has.
Text FabricReason(FabricRegistration registration) {
  switch (registration) {
    case FabricRegistration::InProgress:
      return T("фабрика NVSwitch ещё запускается: nvidia-fabricmanager регистрирует карты (так бывает сразу после загрузки)",
               "the NVSwitch fabric is still starting: nvidia-fabricmanager is registering the GPUs (as just after boot)");
    case FabricRegistration::NotStarted:
      return T("фабрика NVSwitch не начала регистрировать карты: nvidia-fabricmanager не запущен или ещё не стартовал после загрузки",
               "the NVSwitch fabric has not started registering the GPUs: nvidia-fabricmanager is not running, or not yet "
               "started after boot");
    case FabricRegistration::Failed:
      return T("nvidia-fabricmanager не смог зарегистрировать карты в фабрике NVSwitch",
               "nvidia-fabricmanager failed to register the GPUs with the NVSwitch fabric");
    case FabricRegistration::Unknown: break;
  }
  return T("система не готова к CUDA: на платах с NVSwitch (HGX, DGX) nvidia-fabricmanager не запущен или ещё "
           "регистрирует карты после загрузки (NVML не говорит, что из двух)",
           "the system is not ready for CUDA: on NVSwitch boards (HGX, DGX) nvidia-fabricmanager is not running, or "
           "still registering the GPUs after boot (NVML does not say which)");
}

DriverProblem DriverAndModuleDiffer(const std::string& error) {
  return Problem(DriverVerdict::Fail,
                 T("libcuda и модуль ядра NVIDIA разных версий: драйвер обновили без перезагрузки, или "
                   "подключён пакет прямой совместимости (cuda-compat), который эта ветка драйвера не поддерживает",
                   "libcuda and the NVIDIA kernel module differ in version: the driver was updated without a "
                   "reboot, or a forward-compatibility package (cuda-compat) this driver branch does not "
                   "support is in use"),
                 T("сравните cat /proc/driver/nvidia/version с версией в nvidia-smi; после обновления драйвера "
                   "перезагрузитесь; уберите папку cuda-compat (/usr/local/cuda/compat) из LD_LIBRARY_PATH",
                   "compare cat /proc/driver/nvidia/version with the version nvidia-smi shows; reboot after a "
                   "driver update; remove the cuda-compat folder (/usr/local/cuda/compat) from LD_LIBRARY_PATH"),
                 error);
}

DriverProblem CompatPackageUnsupported(const std::string& error) {
  return Problem(DriverVerdict::Fail,
                 T("подключён пакет прямой совместимости CUDA (cuda-compat), а эта карта его не поддерживает "
                   "(он работает только на серверных GPU, не на GeForce и не на RTX для рабочих станций)",
                   "a CUDA forward-compatibility package (cuda-compat) is in use, and this GPU does not support it "
                   "(it works on data-centre GPUs only, not on GeForce or workstation RTX cards)"),
                 T("уберите папку cuda-compat (/usr/local/cuda/compat) из LD_LIBRARY_PATH и /etc/ld.so.conf.d, "
                   "чтобы работала libcuda самого драйвера; нужна более новая CUDA — обновите драйвер",
                   "remove the cuda-compat folder (/usr/local/cuda/compat) from LD_LIBRARY_PATH and "
                   "/etc/ld.so.conf.d so that the driver's own libcuda runs; for a newer CUDA, update the driver"),
                 error);
}

DriverProblem DriverOlderThanNeeded(const std::string& error) {
  return Problem(DriverVerdict::Fail,
                 T("драйвер NVIDIA старше, чем нужно: " + error, "the NVIDIA driver is too old: " + error),
                 DriverInstallHint(), error);
}

DriverProblem UvmNotLoaded(const std::string& error) {
  return Problem(DriverVerdict::Fail,
                 T("драйвер CUDA не инициализировался (" + error + "): часто не загружен модуль nvidia_uvm или "
                   "нет /dev/nvidia-uvm",
                   "the CUDA driver did not initialise (" + error + "): often the nvidia_uvm module is not "
                   "loaded or /dev/nvidia-uvm is missing"),
                 T("ls -l /dev/nvidia*; sudo modprobe nvidia_uvm (или nvidia-modprobe -u -c=0); в контейнере "
                   "запускайте с --gpus all",
                   "ls -l /dev/nvidia*; sudo modprobe nvidia_uvm (or nvidia-modprobe -u -c=0); in a container, "
                   "run with --gpus all"),
                 error);
}

DriverProblem GpusBusyOrProhibited(const std::string& error) {
  return Problem(DriverVerdict::Fail,
                 T("видеокарты заняты или недоступны: режим EXCLUSIVE_PROCESS с чужим процессом на карте или "
                   "режим PROHIBITED",
                   "the GPUs are busy or unavailable: EXCLUSIVE_PROCESS mode with another process on the card, "
                   "or PROHIBITED mode"),
                 T("nvidia-smi покажет режим (Compute M.) и процессы; освободите карту или верните режим: "
                   "sudo nvidia-smi -c DEFAULT",
                   "nvidia-smi shows the mode (Compute M.) and the processes; free the card or restore the mode: "
                   "sudo nvidia-smi -c DEFAULT"),
                 error);
}

DriverProblem GpuUnreachable(const std::string& error) {
  return Problem(DriverVerdict::Fail,
                 T("драйвер CUDA не смог обратиться к GPU (" + error + "): модуль ядра не загружен или сбоит, "
                   "карта отвалилась от шины, или машина вышла из сна",
                   "the CUDA driver could not reach the GPU (" + error + "): the kernel module is not loaded or "
                   "is failing, a card fell off the bus, or the machine resumed from suspend"),
                 T("nvidia-smi; sudo dmesg | grep -i -E 'nvrm|xid'; после сна: sudo rmmod nvidia_uvm && sudo "
                   "modprobe nvidia_uvm; не помогло — перезагрузитесь",
                   "nvidia-smi; sudo dmesg | grep -i -E 'nvrm|xid'; after suspend: sudo rmmod nvidia_uvm && sudo "
                   "modprobe nvidia_uvm; if that does not help, reboot"),
                 error);
}

DriverProblem DriverFailedToStart(const std::string& error) {
  return Problem(DriverVerdict::Fail,
                 T("драйвер CUDA не запустился: " + error, "the CUDA driver failed to start: " + error), DriverInstallHint(),
                 error);
}

}  // namespace

// The command that installs the driver on a distribution (os-release's ID): Ubuntu's own tool
// (Ubuntu Server docs, "NVIDIA drivers installation": sudo ubuntu-drivers install); Debian's
// nvidia-driver package from contrib/non-free (https://wiki.debian.org/NvidiaGraphicsDrivers);
// elsewhere the distribution's packages or NVIDIA's repository, without a command that would not
// exist there.
Text DriverInstallHintFor(const std::string& os_id) {
  std::string command;
  if (os_id == "ubuntu") {
    command = "sudo ubuntu-drivers install";
  } else if (os_id == "debian") {
    command = "sudo apt install nvidia-driver firmware-misc-nonfree";
  }
  if (command.empty())
    return T("установите или обновите проприетарный драйвер NVIDIA (пакет вашего дистрибутива или репозиторий CUDA "
             "от NVIDIA), перезагрузитесь и проверьте nvidia-smi",
             "install or update NVIDIA's proprietary driver (your distribution's package or NVIDIA's CUDA repository), "
             "reboot and check nvidia-smi");
  return T("установите или обновите проприетарный драйвер NVIDIA (" + command + "), перезагрузитесь и проверьте nvidia-smi",
           "install or update NVIDIA's proprietary driver (" + command + "), reboot and check nvidia-smi");
}

const Text& DriverInstallHint() {
  static const Text hint = DriverInstallHintFor(env::ReadOsInfo().id);
  return hint;
}

const char* KnownResultName(cuda::CUresult result) {
  switch (result) {
    case cuda::kErrorNotInitialized: return "CUDA_ERROR_NOT_INITIALIZED";
    case cuda::kErrorStubLibrary: return "CUDA_ERROR_STUB_LIBRARY";
    case cuda::kErrorInsufficientDriver: return "CUDA_ERROR_INSUFFICIENT_DRIVER";
    case cuda::kErrorDeviceUnavailable: return "CUDA_ERROR_DEVICE_UNAVAILABLE";
    case cuda::kErrorNoDevice: return "CUDA_ERROR_NO_DEVICE";
    case cuda::kErrorSystemNotReady: return "CUDA_ERROR_SYSTEM_NOT_READY";
    case cuda::kErrorSystemDriverMismatch: return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH";
    case cuda::kErrorCompatNotSupportedOnDevice: return "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE";
    case cuda::kErrorOutOfMemory: return "CUDA_ERROR_OUT_OF_MEMORY";
    case cuda::kErrorEccUncorrectable: return "CUDA_ERROR_ECC_UNCORRECTABLE";
    case cuda::kErrorUnknown: return "CUDA_ERROR_UNKNOWN";
    default: return nullptr;
  }
}

bool InitResultRefusesLibrary(cuda::CUresult result) {
  switch (result) {
    case cuda::kErrorStubLibrary:                 // the toolkit's stub: never a driver
    case cuda::kErrorInsufficientDriver:          // this libcuda is older than asked for
    case cuda::kErrorSystemDriverMismatch:        // this libcuda ≠ the kernel module (cuda-compat, stale copy)
    case cuda::kErrorCompatNotSupportedOnDevice:  // a forward-compat libcuda on a GPU without support
      return true;
    default:
      return false;
  }
}

Text RefusedLibraryReason(cuda::CUresult result, const std::string& error) {
  switch (result) {
    case cuda::kErrorStubLibrary:
      return T("заглушка из CUDA Toolkit (" + error + "), пропущена", "CUDA toolkit stub (" + error + "), skipped");
    case cuda::kErrorSystemDriverMismatch:
      return T("не совпадает с модулем ядра NVIDIA (" + error + "), пропущена",
               "does not match the NVIDIA kernel module (" + error + "), skipped");
    case cuda::kErrorCompatNotSupportedOnDevice:
      return T("пакет прямой совместимости (cuda-compat), эта карта его не поддерживает (" + error + "), пропущена",
               "forward-compatibility libcuda (cuda-compat) that this GPU does not support (" + error + "), skipped");
    default:
      return T("драйвер не подходит (" + error + "), пропущен", "driver cannot serve us (" + error + "), skipped");
  }
}

namespace {

DriverProblem ClassifyInitCode(cuda::CUresult result, const std::string& error) {
  switch (result) {
    case cuda::kSuccess: return Problem(DriverVerdict::Ready, {}, {}, error);
    case cuda::kErrorStubLibrary: return OnlyTheToolkitStub(error);
    case cuda::kErrorNoDevice: return NoGpuVisible(error);
    case cuda::kErrorSystemNotReady: return FabricManagerNotRunning(error);
    case cuda::kErrorSystemDriverMismatch: return DriverAndModuleDiffer(error);
    case cuda::kErrorCompatNotSupportedOnDevice: return CompatPackageUnsupported(error);
    case cuda::kErrorInsufficientDriver: return DriverOlderThanNeeded(error);
    case cuda::kErrorNotInitialized: return UvmNotLoaded(error);
    case cuda::kErrorDeviceUnavailable: return GpusBusyOrProhibited(error);
    case cuda::kErrorUnknown: return GpuUnreachable(error);
    default: return DriverFailedToStart(error);
  }
}

}  // namespace

DriverProblem ClassifyInitResult(cuda::CUresult result, const std::string& error) {
  DriverProblem problem = ClassifyInitCode(result, error);
  problem.init_result = result;
  return problem;
}

DriverProblem FabricNotReady(FabricRegistration registration, const std::string& error) {
  DriverProblem problem = FabricManagerNotRunning(error);
  problem.reason = FabricReason(registration);
  if (registration == FabricRegistration::InProgress)
    problem.hint = T("подождите минуту и повторите; если не проходит: systemctl status nvidia-fabricmanager, "
                     "journalctl -u nvidia-fabricmanager",
                     "wait a minute and run it again; if it stays: systemctl status nvidia-fabricmanager, "
                     "journalctl -u nvidia-fabricmanager");
  problem.init_result = cuda::kErrorSystemNotReady;
  return problem;
}

DriverProblem NoDriverFound(const std::string& error) {
  return Problem(DriverVerdict::Skip, T("драйвер NVIDIA не найден (нет libcuda.so.1)", "no NVIDIA driver found (no libcuda.so.1)"),
                 DriverInstallHint(), error);
}

DriverProblem DriverTooOld(const std::string& error) {
  return Problem(DriverVerdict::Fail,
                 T("libcuda есть, но в ней нет нужных функций: драйвер слишком старый",
                   "libcuda is there but lacks functions we need: the driver is too old"),
                 DriverInstallHint(), error);
}

}  // namespace labcheck::gpu
