#include "smoke/smoke_hints.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>

#include "reference/hints.h"

namespace labcheck::smoke {
namespace {

bool Mentions(const std::string& haystack, std::initializer_list<const char*> needles) {
  std::string lower(haystack.size(), ' ');
  std::transform(haystack.begin(), haystack.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* needle : needles) {
    if (lower.find(needle) != std::string::npos) return true;
  }
  return false;
}

bool IsDistributed(const std::string& test) { return test == "ddp" || test == "fsdp2"; }

Text InstallTorch() {
  return T("установите PyTorch в это окружение (шаг 3 страницы курса): pip install torch numpy — или укажите "
           "интерпретатор с PyTorch: lab_check --python ~/venvs/ai/bin/python",
           "install PyTorch into this environment (step 3 of the course page): pip install torch numpy — or point "
           "lab_check at an interpreter that has it: lab_check --python ~/venvs/ai/bin/python");
}

Text PackageHint(const std::string& package) {
  if (package == "transformers" || package == "peft" || package == "accelerate") {
    return hint::Action(hint::kLlamaLoraSkip);
  }
  if (package == "bitsandbytes") return hint::Action(hint::kBitsandbytes);
  if (package == "vllm") return hint::Action(hint::kVllmSkip);
  if (package == "triton") {
    return T("Triton входит в сборки PyTorch с CUDA для Linux: pip install triton или переустановите torch",
             "Triton comes with PyTorch's CUDA builds for Linux: pip install triton, or reinstall torch");
  }
  if (package == "flash-attn") {
    return T("pip install flash-attn --no-build-isolation (нужно колесо под вашу версию torch и CUDA, иначе "
             "долгая сборка); без него PyTorch всё равно использует свой flash-бэкенд в SDPA",
             "pip install flash-attn --no-build-isolation (it needs a wheel for your torch and CUDA, or a long "
             "build); without it PyTorch still uses its own flash backend in SDPA");
  }
  if (package == "unsloth") {
    return T("pip install unsloth — лучше в отдельном окружении: он требует свои версии transformers и peft",
             "pip install unsloth — better in a separate environment: it pins its own transformers and peft");
  }
  return Text("pip install " + package);
}

}  // namespace

Text HintForSkip(const std::string& test, const std::string& reason, const std::string& package) {
  (void)test;
  if (reason == "no_torch") return InstallTorch();
  if (reason == "torch_too_old" || reason == "fsdp2_cpu_unsupported") {
    return T("обновите PyTorch: pip install --upgrade torch", "upgrade PyTorch: pip install --upgrade torch");
  }
  if (reason == "package_missing") return PackageHint(package);
  // no_gpu, gpu_too_old, bf16_unsupported, one_gpu: a fact about the machine, nothing to install.
  return {};
}

Text HintForError(const std::string& test, const std::string& error_text) {
  if (Mentions(error_text, {"python.h", "cc1", "gcc", "g++", "c compiler", "compiler", "calledprocesserror"})) {
    return hint::Action(hint::kTritonCompiler);
  }
  if (Mentions(error_text, {"undefined symbol"})) {
    if (test == "qlora") return hint::Action(hint::kBitsandbytes);
    return T("пакет собран под другую версию PyTorch: переустановите его после обновления torch "
             "(pip install --force-reinstall --no-cache-dir <пакет>)",
             "the package was built for another PyTorch version: reinstall it after upgrading torch "
             "(pip install --force-reinstall --no-cache-dir <package>)");
  }
  if (Mentions(error_text, {"out of memory"})) {
    return T("не хватило памяти GPU: посмотрите в nvidia-smi, кто ещё занимает карту, и запустите снова",
             "the GPU ran out of memory: check in nvidia-smi what else holds the card, then run again");
  }
  if (IsDistributed(test)) return hint::Action(hint::kNcclHang);
  if (test == "hf_llama" || test == "lora") return hint::Action(hint::kLlamaLoraSkip);
  if (test == "qlora") return hint::Action(hint::kBitsandbytes);
  if (test == "triton" || test == "torch_compile") return hint::Action(hint::kTritonCompiler);
  return {};
}

Text HintForDistributedFailure(const std::string& backend) {
  if (backend == "nccl") return hint::Action(hint::kNcclHang);
  return T("на CPU ранги общаются через gloo по 127.0.0.1: проверьте, что localhost доступен и локальные порты не "
           "закрыты; lab_check --skip-dist пропустит распределённые тесты",
           "on a CPU the ranks talk over gloo on 127.0.0.1: check that localhost works and local ports are not "
           "blocked; lab_check --skip-dist skips the distributed tests");
}

}  // namespace labcheck::smoke
