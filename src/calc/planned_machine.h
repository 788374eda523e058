// The machine `serve` and `plan` plan for, chosen one way in both: the flags (--gpu ID of
// data/gpus.json, --gpu-mem, --gpus), else this machine's cards, else the course's machine
// (calculator_constants.json, course_lab_machine), and a line saying which. A student runs the
// calculators before the cards arrive (the course page), so no GPU is not a dead end.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "calc/calc_commands.h"
#include "calc/calc_constants.h"
#include "core/cli_forward.h"
#include "core/text.h"
#include "reference/gpu_catalog.h"

namespace labcheck::calc {

struct MachineFlags {
  int gpus = 0;            // --gpus; 0: from the machine, else the course's
  std::string gpu_id;      // --gpu: a card id of data/gpus.json; empty: the machine's card, else unnamed
  double gpu_mem_gib = 0;  // --gpu-mem; 0: the card's (--gpu), else the machine's, else the course's
};

enum class MachineOrigin {
  Flags,        // --gpu or --gpu-mem: a machine one may not have
  ThisMachine,  // the cards found here (or, for plan, the last report's)
  CourseMachine // nothing found, nothing given: the course's lab machine
};

struct PlannedMachine {
  int gpus = 0;
  double memory_gib = 0;       // per card; of several different cards, the smallest
  std::string gpu_name;        // the card's name where one is known; may be empty
  const reference::GpuSpec* card = nullptr;  // its entry in data/gpus.json, where it matches one
  MachineOrigin origin = MachineOrigin::CourseMachine;
  Text source;                 // the line that says which machine and why
};

// --gpus, --gpu and --gpu-mem, with the same words in every command that takes them; `card_gives`
// ends --gpu's help with what the command takes from the card.
void AddMachineOptions(CLI::App* sub, MachineFlags& flags, const Text& card_gives, Lang lang);
// Why --gpu's id is not a card of data/gpus.json, naming the known ones; nullopt when it is (or empty).
std::optional<Text> UnknownGpuIdError(const std::string& gpu_id);
// `cards`: the cards found on this machine (may be empty). Without --gpu-mem, --gpu takes the memory
// the card is sold with, a little above what PyTorch sees (79.19 GiB of an H100 80GB in the logs).
PlannedMachine ChooseMachine(const MachineFlags& flags, const std::vector<LiveGpu>& cards, const CalcConstants& constants);

}  // namespace labcheck::calc
