#include "smoke/skip_reasons.h"

#include "smoke/judge_common.h"

namespace labcheck::smoke {
namespace {

std::string Field(const nlohmann::json& result, const char* key, const char* fallback = "?") {
  return StringOr(result, key, fallback);
}

}  // namespace

Text SkipReasonText(const nlohmann::json& result, const std::string& python) {
  const std::string reason = Field(result, "reason", "");
  if (reason == "no_torch") {
    return T("в интерпретаторе " + python + " нет PyTorch (" + Field(result, "error", "import torch не удался") + ")",
             "the interpreter " + python + " has no PyTorch (" + Field(result, "error", "import torch failed") + ")");
  }
  if (reason == "package_missing") {
    const std::string package = Field(result, "package");
    return T("пакет " + package + " не установлен", "package " + package + " is not installed");
  }
  if (reason == "torch_too_old") {
    const std::string needed = Field(result, "needed"), have = Field(result, "have");
    return T("нужен PyTorch " + needed + " или новее, установлен " + have,
             "needs PyTorch " + needed + " or newer, this one is " + have);
  }
  if (reason == "no_gpu") {
    return T("нет GPU: PyTorch не видит ни одной видеокарты", "no GPU: PyTorch sees no CUDA device");
  }
  if (reason == "gpu_too_old") {
    const std::string needed = Field(result, "needed"), have = Field(result, "have");
    return T("нужна GPU с compute capability " + needed + " или выше (Ampere), у этой " + have,
             "needs a GPU of compute capability " + needed + " or higher (Ampere), this one has " + have);
  }
  if (reason == "bf16_unsupported") {
    const std::string device = Field(result, "device_name"), cc = Field(result, "cc");
    return T("GPU " + device + " (compute capability " + cc + ") не поддерживает BF16",
             "the GPU " + device + " (compute capability " + cc + ") does not support BF16");
  }
  if (reason == "fsdp2_cpu_unsupported") {
    const std::string have = Field(result, "have"), error = Field(result, "error");
    return T("FSDP2 в этом PyTorch (" + have + ") не работает на CPU через gloo: " + error,
             "FSDP2 in this PyTorch (" + have + ") cannot run on a CPU over gloo: " + error);
  }
  if (reason == "no_distributed") {
    return T("этот PyTorch собран без torch.distributed", "this PyTorch was built without torch.distributed");
  }
  return T("пропущено пробой: " + (reason.empty() ? std::string("причина не указана") : reason),
           "skipped by the probe: " + (reason.empty() ? std::string("no reason given") : reason));
}

}  // namespace labcheck::smoke
