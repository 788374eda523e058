#include "calc/planned_machine.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "calc/command_support.h"

namespace labcheck::calc {

void AddMachineOptions(CLI::App* sub, MachineFlags& flags, const Text& card_gives, Lang lang) {
  sub->add_option("--gpus", flags.gpus, T("сколько GPU есть", "GPUs available").In(lang))->check(CLI::Range(1, 1024));
  sub->add_option("--gpu", flags.gpu_id,
                  T("карта по id из data/gpus.json (rtx-4090, a100-sxm-80gb, ...): ", "the card, an id of data/gpus.json (rtx-4090, a100-sxm-80gb, ...): ").In(lang) +
                      card_gives.In(lang));
  sub->add_option("--gpu-mem", flags.gpu_mem_gib, T("память одной GPU, ГиБ", "memory per GPU, GiB").In(lang))->check(CLI::Range(0.1, 100000.0));
}

std::optional<Text> UnknownGpuIdError(const std::string& gpu_id) {
  if (gpu_id.empty() || reference::GpuCatalog::Builtin().FindById(gpu_id)) return std::nullopt;
  std::vector<std::string> ids;
  for (const reference::GpuSpec& g : reference::GpuCatalog::Builtin().gpus()) ids.push_back(g.id);
  return T(fmt::format("--gpu \"{}\": такой карты нет в data/gpus.json; есть: {}", gpu_id, fmt::join(ids, ", ")),
           fmt::format("--gpu \"{}\" is not a card of data/gpus.json; known: {}", gpu_id, fmt::join(ids, ", ")));
}

PlannedMachine ChooseMachine(const MachineFlags& flags, const std::vector<LiveGpu>& cards, const CalcConstants& k) {
  PlannedMachine m;
  if (const reference::GpuSpec* card = flags.gpu_id.empty() ? nullptr : reference::GpuCatalog::Builtin().FindById(flags.gpu_id)) {
    m.gpu_name = card->name;
    m.card = card;
    if (flags.gpu_mem_gib <= 0) {
      m.origin = MachineOrigin::Flags;
      m.gpus = flags.gpus > 0 ? flags.gpus : 1;
      m.memory_gib = card->memory_gib;
      m.source = T(fmt::format("{} × {}, {:g} GiB — объём по паспорту; PyTorch видит чуть меньше: точнее с --gpu-mem", m.gpus,
                               card->DisplayName().ru, card->memory_gib),
                   fmt::format("{} × {}, {:g} GiB as sold; PyTorch sees a little less: give --gpu-mem for exact figures", m.gpus, card->name,
                               card->memory_gib));
      return m;
    }
  }
  if (flags.gpu_mem_gib > 0) {
    m.origin = MachineOrigin::Flags;
    m.gpus = flags.gpus > 0 ? flags.gpus : 1;
    m.memory_gib = flags.gpu_mem_gib;
    m.source = T("GPU заданы в командной строке", "GPUs as given on the command line");
    return m;
  }
  if (!cards.empty()) {
    m.origin = MachineOrigin::ThisMachine;
    m.gpus = flags.gpus > 0 ? std::min<int>(flags.gpus, static_cast<int>(cards.size())) : static_cast<int>(cards.size());
    m.memory_gib = SmallestMemoryGib(cards);
    m.gpu_name = cards.front().name;
    m.card = reference::GpuCatalog::Builtin().Match(m.gpu_name, m.memory_gib);
    m.source = T(fmt::format("GPU этой машины: {} × {:.1f} GiB", m.gpus, m.memory_gib),
                 fmt::format("This machine's GPUs: {} × {:.1f} GiB", m.gpus, m.memory_gib));
    return m;
  }
  m.origin = MachineOrigin::CourseMachine;
  m.gpus = flags.gpus > 0 ? flags.gpus : k.course_lab_gpus;
  m.memory_gib = k.course_lab_memory_gib;
  m.source = T(fmt::format("GPU не найдены и не заданы (--gpu, --gpu-mem): считаю для машины курса, {} × {:g} GiB", m.gpus, m.memory_gib),
               fmt::format("No GPUs found or given (--gpu, --gpu-mem): assuming the course's machine, {} × {:g} GiB", m.gpus, m.memory_gib));
  return m;
}

}  // namespace labcheck::calc
