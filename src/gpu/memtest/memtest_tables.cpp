#include "gpu/memtest/memtest_tables.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/units.h"
#include "gpu/memtest/memtest_verdicts.h"

namespace labcheck::gpu::memtest {

namespace {

using nlohmann::json;

std::optional<double> CardSmCopy(const CardSummary& card, const JudgeOptions& options) {
  auto it = options.sm_copy_gbps.find(card.index);
  if (it != options.sm_copy_gbps.end()) return it->second;
  return card.sm_copy_gbps;
}

std::string TableGib(uint64_t bytes) { return Fixed(BytesToGiB(bytes), 1); }

double ShareOf(uint64_t part, uint64_t whole) { return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0; }

// The speeds of the patterns that move the memory: least and most over every card.
std::pair<double, double> SpeedRange(const MemtestLog& log) {
  double low = 0, high = 0;
  for (const CardSummary& card : log.cards)
    for (const PatternSummary& p : card.patterns) {
      if (!p.gbps) continue;
      low = low == 0 ? *p.gbps : std::min(low, *p.gbps);
      high = std::max(high, *p.gbps);
    }
  return {low, high};
}

Text PassSummary(const MemtestLog& log, const std::vector<CardFacts>& facts, const JudgeOptions& options) {
  int passes = -1;
  uint64_t tested = 0;
  double share = 100;
  for (size_t i = 0; i < facts.size(); ++i) {
    passes = passes < 0 ? log.cards[i].passes : std::min(passes, log.cards[i].passes);
    tested = tested == 0 ? facts[i].tested_bytes : std::min(tested, facts[i].tested_bytes);
    share = std::min(share, ShareOf(facts[i].tested_bytes, facts[i].free_bytes));
  }
  const auto [low, high] = SpeedRange(log);
  std::optional<double> sm;
  for (const CardSummary& card : log.cards)
    if (std::optional<double> s = CardSmCopy(card, options)) sm = sm ? std::min(*sm, *s) : *s;
  const std::string speed = high > 0 ? fmt::format("; {:.0f}–{:.0f}", low, high) : "";
  const std::string sm_ru = sm ? fmt::format(" ГБ/с (SM-копирование {:.0f})", *sm) : (high > 0 ? " ГБ/с" : "");
  const std::string sm_en = sm ? fmt::format(" GB/s (SM copy {:.0f})", *sm) : (high > 0 ? " GB/s" : "");
  return T(fmt::format("GPU: {}, проходов: {}, по {} ГиБ ({:.0f} % свободной), ошибок нет{}{}", facts.size(), std::max(passes, 0),
                       TableGib(tested), share, speed, sm_ru),
           fmt::format("{} GPU, {} pass(es) over {} GiB each ({:.0f} % of the free memory), no errors{}{}", facts.size(),
                       std::max(passes, 0), TableGib(tested), share, speed, sm_en));
}

json MemtestCardJson(const CardSummary& card, const CardFacts& f, const JudgeOptions& options) {
  json patterns = json::array();
  for (const PatternSummary& p : card.patterns) {
    json one = {{"key", p.key}, {"runs", p.runs}, {"complete_runs", p.complete_runs}, {"bytes_moved", p.bytes_moved},
                {"seconds", p.seconds}, {"errors", TallyJson(p.errors, card.ranges)}};
    if (p.gbps) one["gbps"] = *p.gbps;
    if (!p.flips.empty()) one["self_test_exact"] = p.missed.empty() && p.extra.empty();
    patterns.push_back(one);
  }
  json j = {{"index", card.index}, {"name", card.name}, {"pci_bus_id", card.pci_bus_id}, {"memory", card.memory},
            {"passes", card.passes}, {"device_seconds", card.device_seconds}, {"errors", f.errors},
            {"patterns", patterns}, {"context_lost", f.context_lost}, {"capacity_problem", f.CapacityProblem()},
            {"ecc_before", card.ecc_before}, {"ecc_after", card.ecc_after}, {"verdict", f.Failed() ? "FAIL" : "PASS"}};
  if (std::optional<double> sm = CardSmCopy(card, options)) j["sm_copy_gbps"] = *sm;
  if (f.aliasing) j["aliasing"] = {{"distance", f.aliasing->distance}, {"from_offset", f.aliasing->from_offset}, {"pairs", f.aliasing->pairs}};
  if (!f.error.empty()) j["error"] = f.error;
  if (f.ecc_corrected_delta) j["ecc_corrected_during_test"] = *f.ecc_corrected_delta;
  return j;
}

// "corrected 5 → 17, uncorrected 0 → 0": an ECC counter before and after the test.
std::string Counter(const CardSummary& card, const char* key) {
  auto read = [&](const json& snapshot) {
    return snapshot.contains(key) && snapshot[key].is_number() ? std::to_string(snapshot[key].get<uint64_t>()) : std::string("N/A");
  };
  return read(card.ecc_before) + " → " + read(card.ecc_after);
}

// On a card with ECC: its counters and row remapping around the test.
std::optional<Text> EccNote(const CardSummary& card, const CardFacts& f) {
  if (!f.ecc_enabled.value_or(false)) return std::nullopt;
  std::string rows_ru, rows_en;
  const json& remap = f.remapped_rows_after;
  if (remap.is_object() && remap.contains("pending")) {
    const int corrected = remap.value("corrected", 0), uncorrected = remap.value("uncorrected", 0);
    const bool pending = remap.value("pending", false), failed = remap.value("failed", false);
    rows_ru = fmt::format("; заменённых строк: {} из-за исправимых, {} из-за неисправимых{}{}", corrected, uncorrected,
                          pending ? ", замена ждёт сброса" : "", failed ? ", замена НЕ УДАЛАСЬ" : "");
    rows_en = fmt::format("; remapped rows {} corrected, {} uncorrected{}{}", corrected, uncorrected, pending ? ", pending a reset" : "",
                          failed ? ", a remap FAILED" : "");
  }
  const std::string corrected = Counter(card, "ecc_corrected_volatile"), uncorrected = Counter(card, "ecc_uncorrected_volatile");
  return T(fmt::format("{}: ECC включена; исправленные ошибки {}, неисправимые {} (с загрузки драйвера, до и после теста){}", f.label,
                       corrected, uncorrected, rows_ru),
           fmt::format("{}: ECC on; corrected errors {}, uncorrected {} (since the driver loaded, before and after the test){}", f.label,
                       corrected, uncorrected, rows_en));
}

Table MemtestCardTable(const MemtestLog& log, const std::vector<CardFacts>& facts, const JudgeOptions& options) {
  Table t{T("Тест памяти: карты", "Memory test: cards"),
          {"GPU", T("Проверено, ГиБ", "Tested, GiB"), T("Доля свободной", "Of the free memory"), T("Проходов", "Passes"),
           T("Время GPU, с", "GPU time, s"), T("SM-копирование, ГБ/с", "SM copy, GB/s"), T("Ошибок", "Errors"),
           T("Итог", "Verdict")}};
  for (size_t i = 0; i < facts.size(); ++i) {
    const CardSummary& card = log.cards[i];
    const CardFacts& f = facts[i];
    const std::optional<double> sm = CardSmCopy(card, options);
    t.AddRow({f.label, TableGib(f.tested_bytes), fmt::format("{:.1f} %", ShareOf(f.tested_bytes, f.free_bytes)),
              std::to_string(card.passes), Fixed(card.device_seconds, 1), sm ? Fixed(*sm, 0) : std::string("—"),
              std::to_string(f.errors), f.Failed() ? "FAIL" : "PASS"});
  }
  t.notes.push_back(T("Проверяется свободная память за вычетом 400 МиБ для драйвера и рабочего стола, одним куском или частями, "
                      "если драйвер не даёт одного; время — время работы GPU по событиям CUDA.",
                      "The free memory less 400 MiB for the driver and the desktop is tested, in one piece or in chunks where "
                      "the driver will not give one; time is the GPU's working time by CUDA events."));
  for (size_t i = 0; i < facts.size(); ++i)
    if (std::optional<Text> note = EccNote(log.cards[i], facts[i])) t.notes.push_back(*note);
  return t;
}

Table MemtestPatternTable(const MemtestLog& log, const JudgeOptions& options) {
  Table t{T("Тест памяти: шаблоны", "Memory test: patterns"),
          {T("Шаблон", "Pattern"), T("Источник", "Source"), T("ГБ/с по картам", "GB/s per card"), T("× SM-копирования", "× SM copy"),
           T("Ошибок", "Errors")}};
  std::vector<std::string> keys;
  for (const CardSummary& card : log.cards)
    for (const PatternSummary& p : card.patterns)
      if (std::find(keys.begin(), keys.end(), p.key) == keys.end()) keys.push_back(p.key);
  for (const std::string& key : keys) {
    const PatternInfo* info = InfoByKey(key);
    std::string speeds;
    std::optional<double> worst_ratio;
    uint64_t errors = 0;
    for (const CardSummary& card : log.cards) {
      const PatternSummary* p = card.Pattern(key);
      if (p == nullptr) continue;
      errors += p->errors.count;
      speeds += (speeds.empty() ? "" : " / ") + (p->gbps ? Fixed(*p->gbps, 0) : std::string("—"));
      const std::optional<double> sm = CardSmCopy(card, options);
      if (p->gbps && sm && *sm > 0) worst_ratio = std::min(worst_ratio.value_or(1e9), *p->gbps / *sm);
    }
    t.AddRow({info ? info->title : Text(key), info ? info->source : Text("—"), speeds,
              worst_ratio ? Fixed(*worst_ratio, 2) : std::string("—"), std::to_string(errors)});
  }
  t.notes.push_back(T("ГБ/с — прочитанные + записанные байты в секунду, как у SM-копирования (запись шаблона, проверка с записью "
                      "дополнения, проверка); «× SM-копирования» — у самой медленной карты. Бегущая единица пишет несколько слов: "
                      "скорости у неё нет.",
                      "GB/s counts bytes read + bytes written per second, as the SM copy does (write the pattern, check it and "
                      "write the complement, check); '× SM copy' is the slowest card's. Walking ones writes a few words: it has "
                      "no speed."));
  return t;
}

void AddMemtestErrorTables(CheckResult& result, const std::vector<CardFacts>& facts) {
  Table words{T("Тест памяти: слова, прочитанные не так", "Memory test: words that read back wrong"),
              {"GPU", T("Смещение, ГиБ", "Offset, GiB"), T("Адрес", "Address"), T("Ожидалось", "Expected"),
               T("Прочитано", "Read"), T("Повторно", "Read again"), T("Биты", "Bits")}};
  Table bits{T("Тест памяти: биты", "Memory test: bits"), {"GPU", T("Бит", "Bit"), T("Сколько раз", "Count"), T("Шаг адресов", "Address stride")}};
  for (const CardFacts& f : facts) {
    int shown = 0;
    for (const WordError& e : f.all.records) {
      if (shown++ == 8) break;
      const std::optional<uint64_t> at = LogicalOffset(f.ranges, e.address);
      std::string list;
      for (int b = 0; b < 64; ++b)
        if ((e.Bits() >> b) & 1) list += (list.empty() ? "" : ",") + std::to_string(b);
      words.AddRow({f.label, at ? Fixed(BytesToGiB(*at), 3) : std::string("—"), fmt::format("0x{:x}", e.address),
                    fmt::format("0x{:016x}", e.expected), fmt::format("0x{:016x}", e.read), fmt::format("0x{:016x}", e.reread), list});
    }
    for (const BitStride& b : BitStrides(f.all))
      bits.AddRow({f.label, std::to_string(b.bit), std::to_string(b.count), b.stride > 0 ? StrideText(b.stride) : "—"});
  }
  words.notes.push_back(T("Биты — номера в 8-байтовом слове (0 — младший). «Повторно» — второе чтение того же слова: совпало с "
                          "прочитанным — ячейка хранит неверное значение, совпало с ожидаемым — ошибся путь чтения.",
                          "Bits are positions in the 8-byte word (0 the lowest). 'Read again' is a second load of the same word: "
                          "equal to the read value, the cell holds the wrong value; equal to the expected one, the read path erred."));
  if (!words.rows.empty()) result.tables.push_back(words);
  if (!bits.rows.empty()) result.tables.push_back(bits);
}

void AddMemtestMeasurements(CheckResult& result, const MemtestLog& log, const std::vector<CardFacts>& facts) {
  for (size_t i = 0; i < facts.size(); ++i) {
    const int g = facts[i].index;
    result.Add({fmt::format("gpu{}.memtest_tested_gib", g), T(fmt::format("GPU{}: проверено памяти", g), fmt::format("GPU{}: memory tested", g)),
                BytesToGiB(facts[i].tested_bytes), "GiB", T("выделено и проверено тестом памяти", "allocated and tested by the memory test")});
    result.Add({fmt::format("gpu{}.memtest_errors", g), T(fmt::format("GPU{}: ошибок памяти", g), fmt::format("GPU{}: memory errors", g)),
                static_cast<double>(facts[i].errors), "count", T("8-байтовые слова, прочитанные не так, как записаны",
                                                                 "8-byte words read back differently than written")});
    // The slowest pattern: the one figure to compare runs by (each pattern's is in the table).
    const PatternSummary* slowest = nullptr;
    for (const PatternSummary& p : log.cards[i].patterns)
      if (p.gbps && (slowest == nullptr || *p.gbps < *slowest->gbps)) slowest = &p;
    if (slowest == nullptr) continue;
    const PatternInfo* info = InfoByKey(slowest->key);
    const Text name = info != nullptr ? info->title : Text(slowest->key);
    result.Add({fmt::format("gpu{}.memtest_slowest_gbps", g), T(fmt::format("GPU{}: тест памяти, самый медленный шаблон", g),
                                                                 fmt::format("GPU{}: memory test, the slowest pattern", g)),
                *slowest->gbps, "GB/s",
                T("прочитанные + записанные байты в секунду; шаблон «" + name.ru + "»",
                  "bytes read + bytes written per second; pattern '" + name.en + "'")});
  }
}

}  // namespace

void FillOutcome(CheckResult& result, const MemtestLog& log, const std::vector<CardFacts>& facts, const JudgeOptions& options) {
  std::vector<Text> problems, warnings;
  const CardFacts* first_failed = nullptr;
  for (const CardFacts& f : facts) {
    for (Text& line : ProblemLines(f)) problems.push_back(std::move(line));
    if (f.Failed() && first_failed == nullptr) first_failed = &f;
    if (f.ecc_corrected_delta && *f.ecc_corrected_delta > 0)
      warnings.push_back(T(fmt::format("{}: ECC исправила {} однобитных ошибок за время теста: данные целы, но ячейки слабые",
                                       f.label, *f.ecc_corrected_delta),
                           fmt::format("{}: ECC corrected {} single-bit errors during the test: the data stayed right, but "
                                       "cells are weak", f.label, *f.ecc_corrected_delta)));
    if (f.allocation_short && f.others_hold_memory)
      warnings.push_back(T(fmt::format("{}: проверено только {} ГиБ: память держат другие процессы", f.label, TableGib(f.tested_bytes)),
                           fmt::format("{}: only {} GiB tested: other processes hold memory", f.label, TableGib(f.tested_bytes))));
  }
  auto join = [](const std::vector<Text>& lines) {
    Text out;
    for (const Text& l : lines) {
      out.ru += (out.ru.empty() ? "" : "; ") + l.ru;
      out.en += (out.en.empty() ? "" : "; ") + l.en;
    }
    return out;
  };
  if (facts.empty()) {
    result.outcome = Outcome::Fail;
    result.summary = result.reason = T("тест памяти не проверил ни одной карты", "the memory test tested no card");
  } else if (!problems.empty()) {
    result.outcome = Outcome::Fail;
    result.summary = problems.front();
    result.reason = join(problems);
    result.hint = first_failed != nullptr ? HintFor(*first_failed) : Text{};
  } else if (!warnings.empty()) {
    result.outcome = Outcome::Warn;
    result.summary = warnings.front();
    result.reason = join(warnings);
    result.hint = T("следите за счётчиками: растущие исправимые ошибки предшествуют неисправимой "
                    "(`nvidia-smi -q -d ECC,ROW_REMAPPER`)",
                    "watch the counters: growing correctable errors come before an uncorrectable one "
                    "(`nvidia-smi -q -d ECC,ROW_REMAPPER`)");
  } else if (options.self_test) {
    result.outcome = Outcome::Pass;
    result.summary = T("самопроверка: каждый шаблон сообщил ровно те биты, что были перевёрнуты, на каждой карте",
                       "self-test: every pattern reported exactly the bits that were flipped, on every card");
  } else {
    result.outcome = options.interrupted ? Outcome::Warn : Outcome::Pass;
    result.summary = PassSummary(log, facts, options);
    if (options.interrupted)
      result.reason = T("тест остановлен (Ctrl-C): сказано о том, что успело пройти", "the test was stopped (Ctrl-C): this is what ran");
  }
  json cards = json::array();
  for (size_t i = 0; i < facts.size(); ++i) cards.push_back(MemtestCardJson(log.cards[i], facts[i], options));
  result.data = {{"self_test", options.self_test}, {"interrupted", options.interrupted}, {"complete", log.complete}, {"cards", cards}};
}

void AddTables(CheckResult& result, const MemtestLog& log, const std::vector<CardFacts>& facts, const JudgeOptions& options) {
  if (facts.empty()) return;
  result.tables.push_back(MemtestCardTable(log, facts, options));
  result.tables.push_back(MemtestPatternTable(log, options));
  AddMemtestErrorTables(result, facts);
  AddMemtestMeasurements(result, log, facts);
}

}  // namespace labcheck::gpu::memtest
