// node-check --memtest SECONDS: the memory test's log (gpu/memtest/memtest_log.h) from the child,
// judged as `lab_check memtest` judges it (gpu/memtest/memtest_verdicts.h): words that read back
// wrong (LC211), memory that is not what the card reports (LC212), an uncorrectable ECC error
// that lost the context (LC213), single-bit errors ECC corrected during the test (LC214, monitor:
// the data stayed right), a test that could not run to its end (LC215). Each card's figures join
// its entry in --json ("memtest": tested GiB, passes, errors, the slowest pattern's GB/s).
#include <fmt/format.h>

#include "core/units.h"
#include "gpu/memtest/memtest_verdicts.h"
#include "node_check/findings/findings.h"

namespace labcheck::node_check {

namespace {

using nlohmann::json;
namespace mt = gpu::memtest;

json CardFigures(const mt::CardSummary& card, const mt::CardFacts& facts) {
  json figures = {{"tested_gib", BytesToGiB(facts.tested_bytes)}, {"free_gib", BytesToGiB(facts.free_bytes)},
                  {"passes", card.passes}, {"device_seconds", card.device_seconds}, {"errors", facts.errors}};
  std::optional<double> slowest;
  for (const mt::PatternSummary& p : card.patterns)
    if (p.gbps) slowest = slowest ? std::min(*slowest, *p.gbps) : *p.gbps;
  figures["slowest_pattern_gbps"] = slowest ? json(*slowest) : json(nullptr);
  return figures;
}

void AddCardFindings(const mt::CardSummary& card, std::vector<Finding>& out) {
  const mt::CardFacts f = mt::ReadCardFacts(card, /*self_test=*/false);
  if (f.context_lost) out.push_back({f.index, "memtest_ecc_lost", mt::ContextLostText(f)});
  if (f.CapacityProblem()) out.push_back({f.index, "memtest_capacity", mt::CapacityText(f)});
  if (f.errors > 0) out.push_back({f.index, "memtest_errors", mt::DataErrorText(f)});
  if (!f.error.empty())
    out.push_back({f.index, "memtest_stopped", T("тест памяти остановился: " + f.error, "the memory test stopped: " + f.error)});
  if (f.ecc_corrected_delta.value_or(0) > 0)
    out.push_back({f.index, "memtest_ecc_corrected",
                   T(fmt::format("ECC исправила {} однобитных ошибок за время теста памяти", *f.ecc_corrected_delta),
                     fmt::format("ECC corrected {} single-bit errors during the memory test", *f.ecc_corrected_delta))});
}

}  // namespace

void AddMemtestFindings(const json& memtest, std::vector<Finding>& out, json& gpus) {
  if (!memtest.is_object()) return;
  const mt::MemtestLog log = mt::ReadMemtestLog(memtest.value("log", std::string()));
  if (log.cards.empty()) {
    const std::string why = memtest.value("error", std::string("it wrote nothing"));
    out.push_back({-1, "memtest_stopped", T("тест памяти не проверил ни одной карты: " + why, "the memory test tested no card: " + why)});
    return;
  }
  for (const mt::CardSummary& card : log.cards) {
    AddCardFindings(card, out);
    for (json& g : gpus)
      if (g.value("index", -1) == card.index) g["memtest"] = CardFigures(card, mt::ReadCardFacts(card, false));
  }
}

}  // namespace labcheck::node_check
