#include "gpu/memtest/memtest_verdicts.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/gpu_label.h"
#include "core/units.h"
#include "gpu/memtest/memtest_tables.h"

namespace labcheck::gpu::memtest {

namespace {

using nlohmann::json;

std::optional<uint64_t> SnapshotCount(const json& snapshot, const char* key) {
  if (!snapshot.is_object() || !snapshot.contains(key) || !snapshot[key].is_number()) return std::nullopt;
  return snapshot[key].get<uint64_t>();
}

std::optional<uint64_t> SnapshotGrowth(const json& before, const json& after, const char* key) {
  const std::optional<uint64_t> a = SnapshotCount(before, key), b = SnapshotCount(after, key);
  if (!a || !b) return std::nullopt;
  return *b >= *a ? *b - *a : 0;
}

std::string VerdictGib(uint64_t bytes) { return Fixed(BytesToGiB(bytes), 2); }

void ReadCardMemory(const CardSummary& card, CardFacts& f) {
  f.tested_bytes = card.memory.value("tested_bytes", uint64_t{0});
  f.free_bytes = card.memory.value("free_bytes", uint64_t{0});
  f.total_bytes = card.memory.value("total_bytes", uint64_t{0});
  f.allocation_short = card.memory.value("allocation_short", false);
  f.first_failed_bytes = card.memory.value("first_failed_bytes", uint64_t{0});
  // More than a tenth of the card held by others (or the driver) when we started.
  f.others_hold_memory = static_cast<double>(f.free_bytes) < 0.9 * static_cast<double>(f.total_bytes);
}

void ReadCardErrors(const CardSummary& card, bool self_test, CardFacts& f) {
  for (const PatternSummary& p : card.patterns) {
    const bool wrong = !p.missed.empty() || !p.extra.empty();
    if (self_test && wrong) f.self_test_wrong.push_back(p.key);
    // In the self-test the flipped words are the expected errors; anything beyond them counts.
    const uint64_t beyond = self_test ? (p.errors.count > p.flips.size() ? p.errors.count - p.flips.size() : 0) : p.errors.count;
    if (beyond == 0) continue;
    f.errors += beyond;
    f.failing_patterns.push_back(p.key);
    f.all.Add(p.errors);
    if (p.key == Info(PatternId::OwnAddress).key && !f.aliasing) f.aliasing = FindAliasing(p.errors.records, card.ranges);
  }
  // An own-address word with a stuck or flipped bit also reads as another tested address (the
  // address with that bit changed). Aliasing cannot show in a constant pattern (the same word is
  // written through every address), a bad bit does: only a clean pass of ones and zeros lets the
  // own-address words speak of aliasing.
  const PatternSummary* constant = card.Pattern(Info(PatternId::OnesZeros).key);
  if (constant == nullptr || constant->complete_runs == 0 || constant->errors.count > 0) f.aliasing.reset();
  std::sort(f.all.records.begin(), f.all.records.end(), [](const WordError& a, const WordError& b) { return a.address < b.address; });
}

Text BitsText(const CardFacts& f) {
  std::string ru, en;
  int shown = 0;
  for (const BitStride& b : BitStrides(f.all)) {
    if (shown++ == 4) break;
    const std::string sep = ru.empty() ? "" : ", ";
    ru += sep + fmt::format("{} ({}×{})", b.bit, b.count, b.stride > 0 ? ", шаг " + StrideText(b.stride) : "");
    en += sep + fmt::format("{} ({}×{})", b.bit, b.count, b.stride > 0 ? ", stride " + StrideText(b.stride) : "");
  }
  return T("биты " + ru, "bits " + en);
}

// The first three patterns' names ("; " between them: a name may hold a comma), then how many more.
Text PatternNames(const std::vector<std::string>& keys) {
  std::string ru, en;
  for (size_t i = 0; i < keys.size() && i < 3; ++i) {
    const PatternInfo* info = InfoByKey(keys[i]);
    ru += (ru.empty() ? "" : "; ") + (info ? info->title.ru : keys[i]);
    en += (en.empty() ? "" : "; ") + (info ? info->title.en : keys[i]);
  }
  if (keys.size() > 3) {
    ru += fmt::format(" и ещё {}", keys.size() - 3);
    en += fmt::format(" and {} more", keys.size() - 3);
  }
  return T(ru, en);
}

}  // namespace

Text DataErrorText(const CardFacts& f) {
  const Text patterns = PatternNames(f.failing_patterns), bits = BitsText(f);
  std::string first_ru, first_en;
  if (!f.all.records.empty()) {
    const WordError& e = f.all.records.front();
    const std::optional<uint64_t> at = LogicalOffset(f.ranges, e.address);
    const std::string where = at ? fmt::format("{} GiB (0x{:x})", VerdictGib(*at), e.address) : fmt::format("0x{:x}", e.address);
    first_ru = fmt::format("; первое на {}: ожидалось 0x{:016x}, прочитано 0x{:016x}", where, e.expected, e.read);
    first_en = fmt::format("; the first at {}: expected 0x{:016x}, read 0x{:016x}", where, e.expected, e.read);
  }
  return T(fmt::format("{} слов(а) памяти прочитаны не так, как записаны ({}); {}{}", f.errors, patterns.ru, bits.ru, first_ru),
           fmt::format("{} word(s) of memory read back differently than written ({}); {}{}", f.errors, patterns.en, bits.en,
                       first_en));
}

Text CapacityText(const CardFacts& f) {
  if (f.aliasing) {
    const Aliasing& a = *f.aliasing;
    return T(fmt::format("память карты — не то, что она сообщает: адреса на расстоянии {} ГиБ ведут в одни и те же ячейки "
                         "(с {} ГиБ); настоящей памяти около {} ГиБ, а не {}",
                         VerdictGib(a.distance), VerdictGib(a.from_offset), VerdictGib(a.distance), VerdictGib(f.total_bytes)),
             fmt::format("the card's memory is not what it reports: addresses {} GiB apart reach the same cells (from "
                         "{} GiB on); it holds about {} GiB, not {}",
                         VerdictGib(a.distance), VerdictGib(a.from_offset), VerdictGib(a.distance), VerdictGib(f.total_bytes)));
  }
  return T(fmt::format("память карты — не то, что она сообщает: драйвер отказал в выделении после {} ГиБ из {} ГиБ "
                       "свободных, а другие процессы память не держат",
                       VerdictGib(f.tested_bytes), VerdictGib(f.free_bytes)),
           fmt::format("the card's memory is not what it reports: the driver refused allocations after {} GiB of the {} GiB "
                       "free, with nothing else holding memory",
                       VerdictGib(f.tested_bytes), VerdictGib(f.free_bytes)));
}

Text ContextLostText(const CardFacts& f) {
  const std::string grew = f.ecc_uncorrected_delta ? fmt::format(" (+{})", *f.ecc_uncorrected_delta) : "";
  return T(fmt::format("неисправимая ошибка ECC оборвала тест: CUDA потеряла контекст (ошибка 214, "
                       "CUDA_ERROR_ECC_UNCORRECTABLE); счётчик неисправимых ошибок{}",
                       grew.empty() ? " NVML не прочитан" : grew),
           fmt::format("an uncorrectable ECC error stopped the test: CUDA lost the context (error 214, "
                       "CUDA_ERROR_ECC_UNCORRECTABLE); the uncorrected count{}",
                       grew.empty() ? " could not be read from NVML" : grew));
}

namespace {

Text Labelled(const CardFacts& f, const Text& text) { return T(f.label + ": " + text.ru, f.label + ": " + text.en); }

}  // namespace

bool CardFacts::Failed() const {
  return errors > 0 || CapacityProblem() || context_lost || !error.empty() || !self_test_wrong.empty();
}

CardFacts ReadCardFacts(const CardSummary& card, bool self_test) {
  CardFacts f;
  f.index = card.index;
  f.pci_bus_id = card.pci_bus_id;
  f.label = GpuLabel(card.index, card.pci_bus_id);
  f.ranges = card.ranges;
  ReadCardMemory(card, f);
  ReadCardErrors(card, self_test, f);
  f.context_lost = card.context_lost;
  if (!card.context_lost) f.error = card.error;
  if (card.ecc_before.contains("ecc_mode") && card.ecc_before["ecc_mode"].is_boolean()) f.ecc_enabled = card.ecc_before["ecc_mode"].get<bool>();
  f.ecc_corrected_delta = SnapshotGrowth(card.ecc_before, card.ecc_after, "ecc_corrected_volatile");
  f.ecc_uncorrected_delta = SnapshotGrowth(card.ecc_before, card.ecc_after, "ecc_uncorrected_volatile");
  f.remapped_rows_after = card.ecc_after.value("remapped_rows", json());
  return f;
}

std::vector<Text> ProblemLines(const CardFacts& f) {
  std::vector<Text> lines;
  if (f.context_lost) lines.push_back(Labelled(f, ContextLostText(f)));
  if (f.CapacityProblem()) lines.push_back(Labelled(f, CapacityText(f)));
  if (f.errors > 0) lines.push_back(Labelled(f, DataErrorText(f)));
  if (!f.self_test_wrong.empty()) {
    const Text names = PatternNames(f.self_test_wrong);
    lines.push_back(T(fmt::format("{}: самопроверка: проверка шаблонов ({}) сообщила не ровно те биты, что были перевёрнуты",
                                  f.label, names.ru),
                      fmt::format("{}: self-test: the check of ({}) did not report exactly the bits that were flipped", f.label,
                                  names.en)));
  }
  if (!f.error.empty())
    lines.push_back(T(fmt::format("{}: тест остановился: {}", f.label, f.error), fmt::format("{}: the test stopped: {}", f.label, f.error)));
  return lines;
}

Text HintFor(const CardFacts& f) {
  const std::string id = NvidiaSmiId(f.pci_bus_id);
  if (f.context_lost)
    return T(fmt::format("`nvidia-smi -q -d ECC,ROW_REMAPPER -i {0}` покажет ошибку; строка памяти заменяется при сбросе карты "
                         "(`sudo nvidia-smi -r -i {0}`) или перезагрузке; повторится после этого — замена карты (RMA)", id),
             fmt::format("`nvidia-smi -q -d ECC,ROW_REMAPPER -i {0}` shows the error; the memory row is remapped when the card "
                         "is reset (`sudo nvidia-smi -r -i {0}`) or the machine reboots; if it comes back after that, replace "
                         "the card (RMA)", id));
  if (f.CapacityProblem())
    return T("карта сообщает больше памяти, чем у неё есть (поддельный или неверно прошитый объём): обучение, занявшее память "
             "выше этой границы, перезапишет собственные данные. Верните карту продавцу; до тех пор ограничьте PyTorch "
             "`torch.cuda.set_per_process_memory_fraction(доля)` ниже границы",
             "the card reports more memory than it has (fake or misflashed capacity): training that uses memory above that "
             "line overwrites its own data. Return the card to its seller; until then keep PyTorch below the line with "
             "`torch.cuda.set_per_process_memory_fraction(share)`");
  if (f.errors > 0 && f.ecc_enabled.value_or(false))
    return T(fmt::format("ECC включена, но ошибки дошли до данных: `nvidia-smi -q -d ECC,ROW_REMAPPER -i {0}`; ожидающая замена "
                         "строк выполняется сбросом (`sudo nvidia-smi -r -i {0}`); повторяются — замена карты (RMA)", id),
             fmt::format("ECC is on, yet the errors reached the data: `nvidia-smi -q -d ECC,ROW_REMAPPER -i {0}`; a pending row "
                         "remap happens at a reset (`sudo nvidia-smi -r -i {0}`); if they come back, replace the card (RMA)", id));
  if (f.errors > 0)
    return T(fmt::format("без ECC такая карта молча портит веса и активации: loss скачет или уходит в NaN через часы или дни. "
                         "Подтвердите: повторите `lab_check memtest --gpus {1}` после остывания и после снижения частоты памяти "
                         "(`nvidia-smi -q -d CLOCK -i {0}` покажет её; `sudo nvidia-smi -i {0} -lmc <min>,<max ниже>`, "
                         "вернуть: `-rmc`); переустановите карту в слот, проверьте питание; одни и те же биты с одним шагом — "
                         "это один чип памяти: переделанную карту — продавцу, иначе — по гарантии", id, f.index),
             fmt::format("without ECC such a card silently corrupts weights and activations: the loss jumps or turns NaN hours or "
                         "days later. Confirm: run `lab_check memtest --gpus {1}` again after a cool-down and with the memory "
                         "clock lowered (`nvidia-smi -q -d CLOCK -i {0}` shows it; `sudo nvidia-smi -i {0} -lmc <min>,<lower max>`, "
                         "back with `-rmc`); reseat the card and check its power; the same bits at one stride are one memory chip: "
                         "a modified card goes back to its seller, any other to its warranty", id, f.index));
  if (!f.self_test_wrong.empty())
    return T("самопроверка не сошлась: это ошибка lab_check или драйвера, не карты; пришлите отчёт авторам",
             "the self-test did not add up: that is a fault of lab_check or the driver, not of the card; send the report to the authors");
  return {};
}

CheckResult JudgeMemtest(const MemtestLog& log, const JudgeOptions& options) {
  CheckResult result;
  result.id = options.id;
  result.section = "gpu";
  result.title = T("Тест памяти GPU", "GPU memory test");
  std::vector<CardFacts> facts;
  for (const CardSummary& card : log.cards) facts.push_back(ReadCardFacts(card, options.self_test));
  FillOutcome(result, log, facts, options);
  AddTables(result, log, facts, options);
  return result;
}

// "1 MiB", "64 KiB", "4096 B".
std::string StrideText(uint64_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  if (bytes >= 1024 && bytes % 1024 == 0) return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} B", bytes);
}

}  // namespace labcheck::gpu::memtest
