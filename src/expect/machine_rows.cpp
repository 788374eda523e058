// Machine-wide rows: P2P, GPU→GPU copies, all-reduce bus bandwidth and Llama training speed.
#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "core/regex_instances.h"  // <regex>, its code generated once
#include "expect/expectation_rows.h"
#include "facts/statements.h"

namespace labcheck::expect {
namespace {

using reference::Band;

struct PairReading {
  int from = 0, to = 0;
  std::string key;
  double value = 0;
};

// p2p.{i}-{j}.access and p2p.{i}-{j}.copy_gbps, in report order.
std::vector<PairReading> PairReadings(const Report& report, const std::string& what) {
  static const std::regex kPairKey(R"(^p2p\.(\d+)-(\d+)\.(\w+)$)");
  std::vector<PairReading> out;
  for (const auto& check : report.checks) {
    for (const auto& m : check.measurements) {
      std::smatch match;
      if (std::regex_match(m.key, match, kPairKey) && match[3] == what) {
        out.push_back(PairReading{std::stoi(match[1]), std::stoi(match[2]), m.key, m.value});
      }
    }
  }
  return out;
}

ExpectationRow CourseWorded(const std::string& id, const CourseReference& course) {
  ExpectationRow row;
  row.id = id;
  if (const CourseRow* c = course.Row(id)) {
    row.label = c->label;
    row.what = c->what;
    row.reference = c->course_text;
  }
  return row;
}

bool AnyGeforce(const ReportFacts& facts) {
  for (const auto& g : facts.gpus) {
    if (g.spec().geforce) return true;
  }
  return false;
}

// Every card is an NVLink board (SXM: links soldered, not bridged): with the topology unknown,
// NVLink is still what every pair has.
bool AllNvlinkBoards(const ReportFacts& facts) {
  if (facts.gpus.empty()) return false;
  for (const auto& g : facts.gpus) {
    if (!g.spec().nvlink || g.spec().nvlink->bridge_links > 0) return false;
  }
  return true;
}

// The machine has one card (the driver's count, not what CUDA_VISIBLE_DEVICES leaves visible):
// the pair rows have no pair to expect anything of.
bool OneCardMachine(const ReportFacts& facts) {
  return std::max(facts.run.cards.DriverCount(), static_cast<int>(facts.gpus.size())) == 1;
}

Text NoPair() { return T("одна GPU: пары карт нет", "one GPU: there is no pair of cards"); }

// "GPU 0↔1, 2↔3" for a set of unordered pairs; "все пары" when it covers all of them.
Text PairList(std::vector<std::pair<int, int>> pairs, const ReportFacts& facts) {
  for (auto& p : pairs)
    if (p.first > p.second) std::swap(p.first, p.second);
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  const size_t n = facts.gpus.size();
  if (n > 2 && pairs.size() == n * (n - 1) / 2) return T("все пары", "every pair");
  constexpr size_t kShown = 6;
  std::string list;
  for (size_t i = 0; i < pairs.size() && i < kShown; ++i)
    list += (list.empty() ? "" : ", ") + fmt::format("{}↔{}", pairs[i].first, pairs[i].second);
  if (pairs.size() > kShown) list += fmt::format(", … ({})", pairs.size());
  return Text("GPU " + list);
}

// The unordered pairs of a path (NVLink, PCIe, host) in facts.pairs.
std::vector<std::pair<int, int>> PairsOn(const ReportFacts& facts, reference::PeerPath path) {
  std::vector<std::pair<int, int>> out;
  for (const PairFacts& p : facts.pairs)
    if (p.expected.path == path) out.emplace_back(p.from, p.to);
  return out;
}

ExpectationRow P2pRow(const Report& report, const ReportFacts& facts, const CourseReference& course) {
  ExpectationRow row = CourseWorded("p2p", course);
  const std::vector<PairReading> access = PairReadings(report, "access");
  const auto nvlink_pairs = PairsOn(facts, reference::PeerPath::NvLink);
  const bool other_pairs = nvlink_pairs.size() < facts.pairs.size();
  if (!nvlink_pairs.empty()) {
    // Judged per pair: NVLink pairs should have P2P; the others are what their platform allows.
    const Text nv = PairList(nvlink_pairs, facts);
    row.reference = T("по NVLink — «да» (" + nv.ru + ")", "over NVLink: “yes” (" + nv.en + ")");
    if (other_pairs) {
      const Text rest = AnyGeforce(facts) ? T("по PCIe на GeForce обычно «нет», это нормально",
                                              "over PCIe usually “no” on GeForce, and that is normal")
                                          : T("по PCIe зависит от платформы", "over PCIe it depends on the platform");
      row.reference.ru += "; " + rest.ru;
      row.reference.en += "; " + rest.en;
    }
  } else if (OneCardMachine(facts)) {
    row.reference = NoPair();
  } else if (!AnyGeforce(facts) && !facts.gpus.empty()) {
    row.reference = !facts.topology_known && AllNvlinkBoards(facts)
                        ? T("с NVLink — «да»", "with NVLink: “yes”")
                        : T("зависит от платформы; без P2P обмен идёт через память процессора",
                            "depends on the platform; without P2P data goes through host memory");
  }
  if (access.empty()) {
    row.measured = MissingBecause(report, facts, "gpu.p2p");
    return row;
  }
  row.answered = true;
  int yes = 0;
  for (const auto& a : access) yes += a.value > 0.5 ? 1 : 0;
  const std::string counts = fmt::format("{} из {} пар", yes, access.size());
  const std::string counts_en = fmt::format("{} of {} pairs", yes, access.size());
  if (yes == 0) {
    row.measured = T("нет (" + counts + ")", "no (" + counts_en + ")");
  } else if (yes == static_cast<int>(access.size())) {
    row.measured = T("да (" + counts + ")", "yes (" + counts_en + ")");
  } else {
    row.measured = T("частично (" + counts + ")", "partly (" + counts_en + ")");
  }
  // A pair that does not behave as its link says is named; the others are fine as they are.
  std::vector<std::pair<int, int>> no_p2p;
  std::vector<std::string> seen;
  for (const PairFacts& p : facts.pairs) {
    if (!p.expected.problem) continue;
    if (p.expected.path == reference::PeerPath::NvLink && p.link.p2p == false) no_p2p.emplace_back(p.from, p.to);
    const std::string key = fmt::format("{}-{}", std::min(p.from, p.to), std::max(p.from, p.to));
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    const std::string where = fmt::format("GPU {}↔{}: ", std::min(p.from, p.to), std::max(p.from, p.to));
    row.note.ru += (row.note.ru.empty() ? "" : "; ") + where + p.expected.problem->ru;
    row.note.en += (row.note.en.empty() ? "" : "; ") + where + p.expected.problem->en;
  }
  if (!no_p2p.empty()) {
    const Text pairs = PairList(no_p2p, facts);
    row.failure = T("нет P2P по NVLink (" + pairs.ru + ")", "no P2P over NVLink (" + pairs.en + ")");
    row.local_cause = *row.failure;
  }
  // Without NVML's topology: NVLink boards should have P2P between every pair.
  if (!facts.topology_known && AllNvlinkBoards(facts) && !AnyGeforce(facts) && yes < static_cast<int>(access.size())) {
    row.note = T("ожидался P2P через NVLink: посмотрите nvidia-smi topo -m", "P2P over NVLink was expected: look at nvidia-smi topo -m");
  }
  return row;
}

// A row below its reference whose cards' links ran below their rating: the link explains it (the
// note), the reference stays the rated one.
void NoteLinkBelowRating(const ReportFacts& facts, ExpectationRow& row) {
  if (!row.worst || row.worst->ratio >= 1) return;
  if (const auto link = SlowestLinkBelowRating(facts)) {
    const Text bound = reference::DescribeLinkBelowRating(*link);
    row.note = T("упирается в " + bound.ru, "bound by " + bound.en);
    row.local_cause = bound;
  }
}

bool SameBand(const std::optional<Band>& a, const std::optional<Band>& b) {
  if (!a || !b) return !a && !b;
  return std::abs(a->low - b->low) < 1e-9 && std::abs(a->high - b->high) < 1e-9;
}

// The reference column: each kind of link with its pairs, «NVLink NV4: … (GPU 0↔1, 2↔3); без P2P …».
// Pairs of one kind whose bands differ (host paths over cards rated for different PCIe links)
// share one entry with the range of their bands.
Text PerLinkReference(const std::vector<const PairFacts*>& pairs, const ReportFacts& facts) {
  struct Group {
    const reference::PeerExpectation* expected;
    std::vector<std::pair<int, int>> pairs;
    std::optional<Band> range;
    bool same_basis = true;
  };
  std::vector<Group> groups;
  for (const PairFacts* p : pairs) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return g.expected->path == p->expected.path && g.expected->link.en == p->expected.link.en;
    });
    if (it == groups.end()) {
      groups.push_back({&p->expected, {}, p->expected.band, true});
      it = groups.end() - 1;
    }
    it->pairs.emplace_back(p->from, p->to);
    it->same_basis = it->same_basis && it->expected->basis.en == p->expected.basis.en;
    if (it->range && p->expected.band) {
      it->range->low = std::min(it->range->low, p->expected.band->low);
      it->range->high = std::max(it->range->high, p->expected.band->high);
    }
  }
  Text out;
  for (const Group& g : groups) {
    Text basis = g.expected->basis;
    if (!g.same_basis && g.expected->path == reference::PeerPath::Host && g.range) {
      basis = T("без P2P через память процессора по паспортной связи PCIe более медленной карты пары: " + BandText(*g.range),
                "no P2P, through host memory over the rated PCIe link of each pair's slower card: " + BandText(*g.range));
    }
    const Text where = PairList(g.pairs, facts);
    const std::string sep_ru = out.ru.empty() ? "" : "; ", sep_en = out.en.empty() ? "" : "; ";
    out.ru += sep_ru + basis.ru + (groups.size() > 1 ? " (" + where.ru + ")" : "");
    out.en += sep_en + basis.en + (groups.size() > 1 ? " (" + where.en + ")" : "");
  }
  return out;
}

ExpectationRow GpuToGpuRow(const Report& report, const ReportFacts& facts, const CourseReference& course) {
  ExpectationRow row = CourseWorded("gpu_to_gpu", course);
  const CourseRow* course_row = course.Row("gpu_to_gpu");
  const bool course_gpu = !facts.gpus.empty() && course.IsCourseGpu(facts.gpus.front().spec().id) &&
                          course_row != nullptr && course_row->course_band;
  if (!facts.gpus.empty()) row.gpu_model = facts.gpus.front().spec().id;
  std::vector<const PairFacts*> judged;
  bool all_host = true;
  for (const auto& c : PairReadings(report, "copy_gbps")) {
    Reading r{fmt::format("GPU {}→{}", c.from, c.to), -1, c.key, c.value, std::nullopt};
    if (const PairFacts* p = facts.Pair(c.from, c.to)) {
      judged.push_back(p);
      all_host = all_host && p->expected.path == reference::PeerPath::Host;
      // The course's own figure for its cards' copies through host memory.
      r.band = course_gpu && p->expected.path == reference::PeerPath::Host ? course_row->course_band : p->expected.band;
    }
    row.readings.push_back(r);
  }
  if (judged.empty())
    for (const PairFacts& p : facts.pairs) judged.push_back(&p);  // nothing measured: still say what to expect
  if (course_gpu && all_host) {
    row.course_machine = true;  // the course's text, already the reference
  } else if (!judged.empty()) {
    row.reference = PerLinkReference(judged, facts);
  } else if (OneCardMachine(facts)) {
    row.reference = NoPair();
  } else if (!course_gpu && !facts.gpus.empty()) {
    // Another model, its links unknown (no topology): not the course's GeForce wording.
    row.reference = AllNvlinkBoards(facts) ? T("по NVLink: число линков × скорость линка (топология неизвестна)",
                                               "over NVLink: links × the link rate (the topology is unknown)")
                                           : T("зависит от связи между картами; здесь она неизвестна (нет топологии)",
                                               "depends on the link between the cards, unknown here (no topology)");
  }
  // One band for the row where every pair shares it (the JSON's "band"); else each reading has its own.
  for (size_t i = 0; i < row.readings.size(); ++i) {
    if (i == 0) row.band = row.readings[0].band;
    else if (!SameBand(row.band, row.readings[i].band)) row.band.reset();
  }
  if (row.readings.empty() && course_gpu) row.band = course_row->course_band;
  FinishRow(row, course, MissingBecause(report, facts, "gpu.p2p"));
  NoteLinkBelowRating(facts, row);
  return row;
}

// What went wrong with all-reduce, in the row's words; nullopt when it worked at once. The first
// attempt's fields are top-level in the check's data, the retry's under p2p_disable_retry.
std::optional<Text> AllreduceFailure(const Report& report) {
  const CheckResult* check = FindCheck(report, "interconnect.allreduce");
  if (check == nullptr) return std::nullopt;
  if (AllreduceWrongSum(report)) return T("неверная сумма", "wrong sum");
  const auto& d = check->data;
  std::optional<Text> problem;
  if (DataFlag(d, "hung")) {
    problem = T("завис", "hung");
  } else if (DataFlag(d, "crashed")) {
    problem = T("процесс упал", "the process crashed");
  } else if (DataFlag(d, "nccl_error") || !DataString(d, "nccl_error").empty()) {
    problem = T("ошибка NCCL", "NCCL error");
  } else if (check->outcome == Outcome::Fail) {
    problem = T("не работает", "does not work");
  }
  // WARN: the retry with NCCL_P2P_DISABLE=1 worked; still worth flagging, the advice applies.
  if (problem && check->outcome == Outcome::Warn) {
    problem->ru += ", работает с NCCL_P2P_DISABLE=1";
    problem->en += ", works with NCCL_P2P_DISABLE=1";
  }
  return problem;
}

ExpectationRow AllreduceRow(const Report& report, const ReportFacts& facts, const CourseReference& course) {
  ExpectationRow row = CourseWorded("allreduce", course);
  const double w = course.allreduce_busbw_assumed_gbps;
  const bool course_gpu = !facts.gpus.empty() && course.IsCourseGpu(facts.gpus.front().spec().id);
  if (course_gpu || facts.gpus.empty()) {
    // The course machine: the lessons' W is its own reference (and its PCIe limit is in the text).
    row.band = Band{w, w};
    row.course_machine = true;
  } else if (OneCardMachine(facts)) {
    row.reference = T(fmt::format("в уроках W = {}; с одной GPU all-reduce нечего передавать", Num(w)),
                      fmt::format("the lessons assume W = {}; with one GPU an all-reduce has nothing to pass", Num(w)));
  } else if (facts.ring) {
    // nccl-tests: bus bandwidth "should reflect the speed of the hardware bottleneck"; a ring
    // through a pair without NVLink is bound by that pair, whatever links the others have.
    const RingLimit& ring = *facts.ring;
    row.band = ring.expected.band;
    row.reference = T(fmt::format("в уроках W = {}; здесь кольцо NCCL ограничено самой медленной связью, GPU {}↔{}: {}",
                                  Num(w), std::min(ring.a, ring.b), std::max(ring.a, ring.b), ring.expected.basis.ru),
                      fmt::format("the lessons assume W = {}; here NCCL's ring is bound by its slowest link, GPU {}↔{}: {}",
                                  Num(w), std::min(ring.a, ring.b), std::max(ring.a, ring.b), ring.expected.basis.en));
  } else {
    row.reference = T(fmt::format("в уроках W = {}; скорость связей между картами неизвестна (нет топологии или замера P2P)", Num(w)),
                      fmt::format("the lessons assume W = {}; the speed of the links between cards is unknown (no topology "
                                  "or P2P measurement)", Num(w)));
  }
  if (auto busbw = MeasuredValue(report, "nccl.allreduce_busbw_gbps")) {
    row.readings.push_back(Reading{"", -1, "nccl.allreduce_busbw_gbps", *busbw, std::nullopt});
  }
  row.failure = AllreduceFailure(report);
  if (row.failure) row.local_cause = *row.failure;
  if (row.failure && row.readings.empty()) row.measured = *row.failure;
  FinishRow(row, course, MissingBecause(report, facts, "interconnect.allreduce"));
  NoteLinkBelowRating(facts, row);
  return row;
}

ExpectationRow LlamaRow(const Report& report, const ReportFacts& facts, const CourseReference& course) {
  ExpectationRow row = CourseWorded("llama_train", course);
  row.course_machine = true;  // the lessons assume 20–40 TFLOPS per card whatever the card
  const auto tflops = MeasuredValue(report, "smoke.llama.train_tflops");
  if (!tflops && MeasuredValue(report, "smoke.llama_cpu_tiny.tokens_per_s")) {
    // smoke.llama_train trained a tiny configuration on the CPU; its speed compares with nothing.
    const Text why = facts::WhyTorchHasNoGpu(facts.run).value_or(T("PyTorch не видит GPU", "PyTorch sees no GPU"));
    row.measured = T("на CPU шла крошечная конфигурация, её скорость не сравнима: " + why.ru,
                     "a tiny configuration ran on the CPU, its speed compares with nothing: " + why.en);
    return row;
  }
  row.band = course.train_tflops_assumed;
  if (tflops) row.readings.push_back(Reading{"", -1, "smoke.llama.train_tflops", *tflops});
  FinishRow(row, course, MissingBecause(report, facts, "smoke.llama_train"));
  return row;
}

}  // namespace

void AddMachineRows(const Report& report, const ReportFacts& facts, const CourseReference& course,
                    const reference::GpuCatalog& /*catalog: the pairs in facts carry it*/, std::vector<ExpectationRow>& rows) {
  rows.push_back(P2pRow(report, facts, course));
  rows.push_back(GpuToGpuRow(report, facts, course));
  rows.push_back(AllreduceRow(report, facts, course));
  rows.push_back(LlamaRow(report, facts, course));
}

}  // namespace labcheck::expect
