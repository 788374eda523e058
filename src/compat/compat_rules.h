// env.compat's verdicts: each line names a rule of data/compat.json, the facts it compared, what
// breaks on a mismatch and the one command that fixes it. A pure function of CompatFacts and
// CompatData, so tests drive every rule with hand-made facts.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "compat/compat_data.h"
#include "compat/compat_facts.h"
#include "core/check_result.h"

namespace labcheck::compat {

struct CompatLine {
  std::string rule;        // a rule id of compat.json
  std::optional<int> gpu;  // per-GPU rules
  Outcome status = Outcome::Pass;
  bool na = false;  // the facts for it are missing, or a feature the card lacks that nothing needs: `facts` says which
  Text subject;     // "torch CUDA 12.8 / driver CUDA 12.4"
  Text facts;
  Text breaks;  // the rule's text, on a mismatch
  Text fix;     // one command, on a mismatch
};

std::vector<CompatLine> JudgeCompat(const CompatFacts& facts, const CompatData& data);
CheckResult AssessCompat(const CompatFacts& facts, const CompatData& data);

// The wheel index for a CUDA build no newer than the driver runs (`driver_cuda` 124 = 12.4) that
// carries code for `cc`; nullptr when none does.
const WheelIndex* WheelFor(const CompatData& data, std::optional<int> driver_cuda, int cc);

}  // namespace labcheck::compat
