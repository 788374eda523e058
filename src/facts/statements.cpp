#include "facts/statements.h"

#include <fmt/format.h>

namespace labcheck::facts {
namespace {

std::string Shown(const std::string& python) { return python.empty() ? std::string("?") : python; }

// "4 GPU драйвера" / "the driver's 4 GPUs": what the driver has, in words.
Text DriverCards(const CardFacts& cards) {
  const int n = cards.DriverCount();
  return T(fmt::format("{} GPU драйвера", n), n == 1 ? std::string("the driver's GPU") : fmt::format("the driver's {} GPUs", n));
}

}  // namespace

std::string VariableAsTyped(const std::string& value) {
  return value.empty() ? "CUDA_VISIBLE_DEVICES=\"\"" : "CUDA_VISIBLE_DEVICES=" + value;
}

std::optional<Text> WhyFewerGpus(const CardFacts& cards) {
  if (!cards.SomeHidden()) return std::nullopt;
  const int driver = cards.DriverCount();
  if (cards.visible_devices) {
    const std::string var = VariableAsTyped(*cards.visible_devices);
    if (cards.cuda_gpus == 0)
      return T(fmt::format("{} скрывает все {} (их видят NVML и nvidia-smi, но не CUDA и не PyTorch)", var, DriverCards(cards).ru),
               fmt::format("{} hides all {} (NVML and nvidia-smi list them, CUDA and PyTorch do not)", var, DriverCards(cards).en));
    return T(fmt::format("{} оставляет видимыми для CUDA {} из {} GPU драйвера", var, cards.cuda_gpus, driver),
             fmt::format("{} leaves {} of the driver's {} GPUs visible to CUDA", var, cards.cuda_gpus, driver));
  }
  if (cards.cuda_gpus == 0) {
    const Text why = cards.cuda_problem.empty() ? T("CUDA не инициализировалась", "CUDA did not initialise") : cards.cuda_problem;
    return T(fmt::format("CUDA не видит ни одной из {}: {}", DriverCards(cards).ru, why.ru),
             fmt::format("CUDA sees none of {}: {}", DriverCards(cards).en, why.en));
  }
  return T(fmt::format("CUDA видит {} из {} GPU, которые перечисляет NVML", cards.cuda_gpus, driver),
           fmt::format("CUDA sees {} of the {} GPUs NVML lists", cards.cuda_gpus, driver));
}

Text FixFewerGpus(const CardFacts& cards) {
  if (!cards.SomeHidden()) return {};
  if (cards.visible_devices) {
    std::string all;
    for (int i = 0; i < cards.DriverCount(); ++i) all += (i == 0 ? "" : ",") + std::to_string(i);
    return T("unset CUDA_VISIBLE_DEVICES (или перечислите все карты: export CUDA_VISIBLE_DEVICES=" + all + ")",
             "unset CUDA_VISIBLE_DEVICES (or list every card: export CUDA_VISIBLE_DEVICES=" + all + ")");
  }
  if (cards.cuda_gpus > 0)
    return T("nvidia-smi -L покажет все карты; карта, которой нет в CUDA, часто в логе ядра: sudo dmesg | grep -i xid",
             "nvidia-smi -L lists every card; one missing from CUDA is often in the kernel log: sudo dmesg | grep -i xid");
  return {};
}

std::optional<Text> WhyCudaHasNoGpu(const CardFacts& cards) {
  if (cards.cuda_ok) return std::nullopt;
  if (!cards.inventory_ran) return std::nullopt;
  if (auto hidden = WhyFewerGpus(cards)) return hidden;
  if (!cards.cuda_problem.empty()) return cards.cuda_problem;
  return T("нет GPU", "no GPU");
}

std::optional<Text> TorchMissing(const TorchFacts& torch) {
  const std::string python = Shown(torch.python);
  switch (torch.state) {
    case TorchState::NoInterpreter:
      return T("не найден интерпретатор Python", "no Python interpreter was found");
    case TorchState::InterpreterBroken:
      return T("интерпретатор " + python + " не запускается", "the interpreter " + python + " does not start");
    case TorchState::ImportHangs:
      return T("import torch в " + python + " не возвращается", "import torch does not come back in " + python);
    case TorchState::Absent:
      return T("PyTorch не установлен в интерпретаторе " + python, "torch is not installed in the interpreter " + python);
    default:
      return std::nullopt;
  }
}

std::optional<Text> WhyTorchHasNoGpu(const RunFacts& f) {
  const std::optional<int> usable = f.TorchCards();
  if (!usable || *usable > 0) return std::nullopt;
  // No card in the machine: that is the cause, whatever torch is.
  if (f.cards.inventory_ran && !f.cards.AnyGpu()) return WhyCudaHasNoGpu(f.cards);
  if (auto missing = TorchMissing(f.torch)) return missing;
  if (f.torch.state == TorchState::NoCuda) {
    const std::string version = f.torch.version.empty() ? "" : " " + f.torch.version;
    return T("PyTorch" + version + " в " + Shown(f.torch.python) + " — " + f.torch.build.ru + ", без CUDA",
             "PyTorch" + version + " in " + Shown(f.torch.python) + " is a " + f.torch.build.en + ", without CUDA");
  }
  if (auto cuda = WhyCudaHasNoGpu(f.cards)) return cuda;
  const std::string error = f.torch.cuda_error.empty() ? "" : ": " + f.torch.cuda_error;
  return T(fmt::format("PyTorch (CUDA {}) не видит ни одной из {}{}", f.torch.cuda, DriverCards(f.cards).ru, error),
           fmt::format("PyTorch (CUDA {}) sees none of {}{}", f.torch.cuda, DriverCards(f.cards).en, error));
}

Text FixTorchMissing(const TorchFacts& torch) {
  if (torch.state != TorchState::NoInterpreter && torch.state != TorchState::Absent) return {};
  return T("активируйте окружение курса (source ~/venvs/ai/bin/activate) или укажите интерпретатор: "
           "lab_check --python ~/venvs/ai/bin/python",
           "activate the course's environment (source ~/venvs/ai/bin/activate) or name the interpreter: "
           "lab_check --python ~/venvs/ai/bin/python");
}

Text FixTorchHasNoGpu(const RunFacts& f) {
  if (f.cards.inventory_ran && !f.cards.AnyGpu()) return {};
  switch (f.torch.state) {
    case TorchState::NoInterpreter:
    case TorchState::Absent:
      return FixTorchMissing(f.torch);
    case TorchState::InterpreterBroken:
    case TorchState::ImportHangs:
      return T("см. env.python", "see env.python");
    case TorchState::NoCuda:
      return T("поставьте сборку torch с CUDA под этот драйвер (команда — в env.compat)",
               "install torch's CUDA build for this driver (the command is in env.compat)");
    default: break;
  }
  return FixFewerGpus(f.cards);
}

Text NotInReport(const RunFlags& flags) {
  if (flags.interrupted) return T("не запускался: проверка прервана", "not run: the run was interrupted");
  if (!flags.only.empty()) return T("не запускался: не выбран в --only", "not run: not chosen by --only");
  return T("не запускался", "not run");
}

Text ShortenedByQuick() {
  return T("не замерялось: --quick меряет меньше, этот замер — только в полной проверке",
           "not measured: --quick measures less, this figure comes with the full check only");
}

}  // namespace labcheck::facts
