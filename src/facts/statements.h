// The words chosen from the report's facts (facts/run_facts.h), one function per kind of
// statement: why PyTorch or CUDA has no card to use, why CUDA sees fewer cards than the driver has,
// what fixes it, why a check is not in the report. Every check and section that says one of these
// things says it through here, so that two parts of one report cannot give two causes.
#pragma once
#include <optional>
#include <string>

#include "core/text.h"
#include "facts/run_facts.h"

namespace labcheck::facts {

// "CUDA_VISIBLE_DEVICES=\"\"" / "CUDA_VISIBLE_DEVICES=0,1", as the user would type it.
std::string VariableAsTyped(const std::string& value);

// Why CUDA sees fewer cards than the driver has, when it does: the variable and its value, or
// CUDA's own failure in gpu.inventory's words («CUDA_VISIBLE_DEVICES=0 оставляет видимой 1 из 4 GPU
// драйвера»). nullopt when CUDA sees every card the driver has.
std::optional<Text> WhyFewerGpus(const CardFacts& cards);
// Its fix: unset the variable; for CUDA's own failure, gpu.inventory's hint (empty here).
Text FixFewerGpus(const CardFacts& cards);

// Why lab_check's own GPU checks (CUDA, NCCL: no torch involved) had no card: the cards hidden
// (above), CUDA's failure in gpu.inventory's words, or no GPU at all. nullopt when CUDA saw one.
std::optional<Text> WhyCudaHasNoGpu(const CardFacts& cards);

// Why PyTorch in the chosen interpreter has no card to use: no GPU in the machine at all; else the
// interpreter or torch (absent, broken, hanging, a build without CUDA); else the cards hidden from
// CUDA; else torch's own CUDA error. nullopt when PyTorch has a card or nothing is known.
std::optional<Text> WhyTorchHasNoGpu(const RunFacts& facts);
// What to do about it, for the same cause (empty where the cause is the machine itself).
Text FixTorchHasNoGpu(const RunFacts& facts);

// The interpreter or torch as the cause, whatever the cards: "torch is not installed in /usr/bin/python3".
// nullopt for a torch that imports (with or without CUDA) or when nothing is known.
std::optional<Text> TorchMissing(const TorchFacts& torch);

// How to reach an interpreter with torch, for TorchMissing's causes (no interpreter, torch absent):
// the course's environment or --python; empty for the others (env.python's hint says it).
Text FixTorchMissing(const TorchFacts& torch);

// Why a check that the report refers to is not in it: not chosen by --only, the run interrupted.
Text NotInReport(const RunFlags& flags);
// Why a check that ran under --quick has no figure that the full check measures.
Text ShortenedByQuick();

}  // namespace labcheck::facts
