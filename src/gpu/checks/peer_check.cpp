// gpu.p2p: can GPU i read GPU j's memory directly, and GPU→GPU copy speed with and without it,
// each pair judged against the link that joins it (reference/peer_link.h): an NVLink pair against
// NVLink, a PCIe pair with P2P against the slower card's PCIe link, a pair without P2P against
// the host path. On a workstation with bridges on some pairs, the bridged pairs are fast and the
// others are not, and neither is a finding; a pair that does not behave as its link says is.
#include <algorithm>

#include <fmt/format.h>

#include "gpu/checks/gpu_check_list.h"
#include "gpu/checks/gpu_check_support.h"
#include "gpu/job_envelope.h"
#include "gpu/jobs/gpu_jobs.h"
#include "reference/gpu_catalog.h"
#include "reference/peer_link.h"

namespace labcheck::gpu {

namespace {

std::optional<double> NumberAt(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

// Each GPU as gpu.inventory names it: its catalog entry carries the ratings the pairs are judged
// against (never the copies measured: a card on a slow riser must not lower its own reference).
std::vector<reference::PeerCard> Cards(const CheckContext& context, int count, const reference::GpuCatalog& catalog) {
  std::vector<reference::PeerCard> cards(count);
  for (int i = 0; i < count; ++i) {
    if (const nlohmann::json* gpu = InventoryGpu(context, i)) {
      auto name = gpu->find("name");
      if (name != gpu->end() && name->is_string())
        cards[i].spec = catalog.Match(name->get<std::string>(), NumberAt(*gpu, "memory_total_gib").value_or(0));
    }
  }
  return cards;
}

// gpu.inventory's topology cell for (i, j): NV#, PIX…SYS; unknown when absent.
reference::PeerLink TopologyLink(const CheckContext& context, int i, int j) {
  const CheckResult* inventory = context.Earlier(kInventoryCheck.id);
  if (inventory == nullptr || !inventory->data.is_object()) return {};
  auto topology = inventory->data.find("topology");
  if (topology == inventory->data.end() || !topology->is_object()) return {};
  auto matrix = topology->find("matrix");
  if (matrix == topology->end() || !matrix->is_array() || i >= static_cast<int>(matrix->size())) return {};
  const nlohmann::json& row = (*matrix)[i];
  if (!row.is_array() || j >= static_cast<int>(row.size()) || !row[j].is_string()) return {};
  return reference::ParseTopologyCell(row[j].get<std::string>()).value_or(reference::PeerLink{});
}

std::string BandCell(const std::optional<reference::Band>& band) {
  if (!band) return "—";
  return fmt::format("{}–{}", Figure(band->low), Figure(band->high));
}

Text OneGpuReason() { return T("одна видеокарта: обмениваться не с кем", "one GPU: there is no pair to measure"); }

// The can-access matrix as a table, its measurements, and the link of every pair it learned.
struct PeerAccess {
  Table table;
  int peers = 0;                  // ordered pairs with P2P
  bool pcie_without_p2p = false;  // a pair without NVLink whose P2P is off
  std::vector<std::vector<reference::PeerLink>> links;
};

PeerAccess ReadAccess(const CheckContext& context, const nlohmann::json& can_access, int count, CheckResult& result) {
  PeerAccess access{{T("P2P: может ли GPU (строка) читать память GPU (столбец)", "P2P: can GPU (row) access GPU (column) memory"), {""}}};
  for (int c = 0; c < count; ++c) access.table.columns.push_back(Text("GPU" + std::to_string(c)));
  access.links.assign(count, std::vector<reference::PeerLink>(count));
  for (int r = 0; r < count; ++r) {
    std::vector<Text> row = {Text("GPU" + std::to_string(r))};
    for (int c = 0; c < count; ++c) {
      const nlohmann::json& cell = can_access[r][c];
      if (r == c) {
        row.push_back(Text("X"));
        continue;
      }
      access.links[r][c] = TopologyLink(context, r, c);
      if (!cell.is_boolean()) {  // the query failed: unknown, not "no"
        row.push_back(T("неизвестно", "unknown"));
        continue;
      }
      const bool can = cell.get<bool>();
      access.links[r][c].p2p = can;
      access.peers += can ? 1 : 0;
      access.pcie_without_p2p = access.pcie_without_p2p || (!can && access.links[r][c].nvlinks == 0);
      row.push_back(can ? T("да", "yes") : T("нет", "no"));
      result.Add({fmt::format("p2p.{}-{}.access", r, c), T(fmt::format("P2P {}→{}", r, c), fmt::format("P2P {}→{}", r, c)),
                  can ? 1.0 : 0.0, "0/1", Text("cuDeviceCanAccessPeer")});
    }
    access.table.AddRow(row);
  }
  return access;
}

// Under the matrix: GeForce's P2P switched off is normal; a query the driver did not answer is a WARN.
void NoteAccess(const nlohmann::json& payload, const std::vector<reference::PeerCard>& cards, PeerAccess& access,
                CheckResult& result) {
  bool geforce = false;
  for (const reference::PeerCard& card : cards) geforce = geforce || (card.spec != nullptr && card.spec->geforce);
  if (access.pcie_without_p2p && geforce)
    access.table.notes.push_back(T("На GeForce прямой обмен P2P по PCIe обычно отключён драйвером: «нет» у пар без NVLink — это нормально.",
                                   "On GeForce cards the driver usually disables P2P over PCIe: \"no\" for pairs without NVLink is normal."));
  const nlohmann::json errors = payload.value("can_access_errors", nlohmann::json::array());
  if (!errors.empty()) {
    access.table.notes.push_back(Text("cuDeviceCanAccessPeer: " + errors.front().get<std::string>()));
    result.outcome = Outcome::Warn;
    result.reason = T("драйвер не ответил, возможен ли P2P: см. таблицу", "the driver did not say whether P2P works: see the table");
    result.error = errors.front().get<std::string>();
  }
  result.data["can_access_errors"] = errors;
}

// What the copy rows leave for the verdict and the summary.
struct PairTally {
  double best = 0;
  std::vector<Text> findings;  // pairs that do not behave as their link says, first one in the reason
  std::vector<Text> wrong_data;  // copies whose read-back differed from what was sent
};

// A copy that read back other bytes than were sent, in words: "GPU0→GPU1 (with P2P): at byte …".
void NoteWrongData(const nlohmann::json& pair, int src, int dst, PairTally& tally) {
  for (const char* key : {"with_peer", "without_peer"}) {
    if (!pair.contains(key) || !pair[key].contains("data_check")) continue;
    const nlohmann::json& check = pair[key]["data_check"];
    if (check.value("delivered", true)) continue;
    const bool with = std::string(key) == "with_peer";
    const std::string where = check.value("first_wrong", std::string());
    tally.wrong_data.push_back(T(fmt::format("GPU{}→GPU{} ({}): {}", src, dst, with ? "с P2P" : "без P2P", where),
                                 fmt::format("GPU{}→GPU{} ({}): {}", src, dst, with ? "with P2P" : "without P2P", where)));
  }
}

const char* PathName(reference::PeerPath path) {
  return path == reference::PeerPath::NvLink ? "nvlink" : path == reference::PeerPath::Pcie ? "pcie" : "host";
}

// A pair that does not behave as its link says: the link's own problem, or a copy far below its band.
std::optional<Text> PairFinding(int src, int dst, const reference::PeerExpectation& expected, std::optional<double> reported) {
  if (expected.problem) {
    // One line per unordered pair: both directions share the link.
    if (src >= dst) return std::nullopt;
    return T(fmt::format("GPU{}↔GPU{}: {}", src, dst, expected.problem->ru),
             fmt::format("GPU{}↔GPU{}: {}", src, dst, expected.problem->en));
  }
  if (!reported || !expected.band || !(*reported < expected.band->low * kFarBelow)) return std::nullopt;
  return T(fmt::format("GPU{}→GPU{}: {} ГБ/с при ожидаемых {} ({})", src, dst, Figure(*reported), BandCell(expected.band),
                       expected.link.ru),
           fmt::format("GPU{}→GPU{}: {} GB/s where {} is expected ({})", src, dst, Figure(*reported),
                       BandCell(expected.band), expected.link.en));
}

// One ordered pair's copies: its measurement, its row, its link in the data, its finding.
void AddPair(const nlohmann::json& pair, const reference::PeerExpectation& expected, int src, int dst, int nvlinks,
             CheckResult& result, Table& copies, PairTally& tally) {
  auto cell = [&](const char* key) -> std::optional<double> {
    if (!pair.contains(key) || pair[key].contains("error")) return std::nullopt;
    return pair[key].value("gbps", 0.0);
  };
  std::optional<double> with = cell("with_peer"), without = cell("without_peer");
  std::optional<double> reported = with ? with : without;
  if (reported) {
    tally.best = std::max(tally.best, *reported);
    result.Add({fmt::format("p2p.{}-{}.copy_gbps", src, dst), T(fmt::format("GPU{}→GPU{}", src, dst), fmt::format("GPU{}→GPU{}", src, dst)),
                *reported, "GB/s",
                with ? T("cuMemcpyPeerAsync, peer access включён, скопированные байты, медиана",
                         "cuMemcpyPeerAsync, peer access on, bytes copied, median")
                     : T("cuMemcpyPeerAsync, без peer access (через память хоста), скопированные байты, медиана",
                         "cuMemcpyPeerAsync, no peer access (staged via host), bytes copied, median")});
    result.measurements.back().spread = TimingSpread(*reported, pair[with ? "with_peer" : "without_peer"]);
  }
  copies.AddRow({Text(fmt::format("{} → {}", src, dst)), expected.link, Text(with ? Figure(*with) : "—"),
                 Text(without ? Figure(*without) : "—"), Text(BandCell(expected.band))});
  nlohmann::json link = {{"src", src}, {"dst", dst}, {"nvlinks", nvlinks}, {"path", PathName(expected.path)}};
  link["expected_gbps"] = expected.band ? nlohmann::json::array({expected.band->low, expected.band->high}) : nlohmann::json(nullptr);
  if (expected.problem) link["problem"] = expected.problem->en;
  if (std::optional<Text> finding = PairFinding(src, dst, expected, reported)) tally.findings.push_back(*finding);
  NoteWrongData(pair, src, dst, tally);
  result.data["links"].push_back(link);
}

Table CopyTable(const nlohmann::json& payload, const PeerAccess& access, const std::vector<reference::PeerCard>& cards,
                int count, CheckResult& result, PairTally& tally) {
  const reference::GpuCatalog& catalog = reference::GpuCatalog::Builtin();
  Table copies{T("Копирование GPU→GPU, ГБ/с", "GPU→GPU copies, GB/s"),
               {T("Откуда → куда", "From → to"), T("Связь", "Link"), T("С P2P", "With P2P"),
                T("Без P2P (через CPU)", "Without P2P (via CPU)"), T("Ожидается", "Expected")},
               {},
               {PayloadMethod(payload)}};
  result.data["links"] = nlohmann::json::array();
  for (const nlohmann::json& pair : payload["pairs"]) {
    const int src = pair.value("src", 0), dst = pair.value("dst", 0);
    if (src < 0 || dst < 0 || src >= count || dst >= count) continue;
    const reference::PeerExpectation expected = reference::ExpectPeerCopy(access.links[src][dst], cards[src], cards[dst], catalog);
    AddPair(pair, expected, src, dst, access.links[src][dst].nvlinks, result, copies, tally);
  }
  copies.notes.push_back(T("Каждая пара сравнивается со своей связью: NVLink — число линков × скорость линка; PCIe с P2P — "
                           "более медленная из двух карт; без P2P данные идут через память процессора и обычно не быстрее, "
                           "чем CPU→GPU.",
                           "Each pair is compared with its own link: NVLink — links × the link rate; PCIe with P2P — the "
                           "slower of the two cards; without P2P the data goes through host memory and is usually no "
                           "faster than CPU→GPU."));
  for (const Text& f : tally.findings) copies.notes.push_back(f);
  return copies;
}

// A pair off its link is a WARN, unless the driver's silence already made one. The advice is for
// the cards there are: NVLink bridges only where a card has NVLink (no GeForce 40-series has).
void PickVerdict(const std::vector<Text>& findings, const std::vector<reference::PeerCard>& cards, CheckResult& result) {
  if (findings.empty() || result.outcome != Outcome::Pass) return;
  result.outcome = Outcome::Warn;
  result.reason = T("пара ведёт себя не так, как её связь: " + findings.front().ru,
                    "a pair does not behave as its link says: " + findings.front().en);
  const bool nvlink = std::any_of(cards.begin(), cards.end(), [](const reference::PeerCard& c) { return c.spec && c.spec->nvlink; });
  result.hint = nvlink ? T("проверьте мосты NVLink и P2P: nvidia-smi topo -m, nvidia-smi topo -p2p r, nvidia-smi nvlink -s; "
                           "без P2P такая пара обменивается через память процессора",
                           "check the NVLink bridges and P2P: nvidia-smi topo -m, nvidia-smi topo -p2p r, nvidia-smi nvlink -s; "
                           "without P2P such a pair exchanges data through host memory")
                       : T("проверьте путь PCIe между картами и P2P: nvidia-smi topo -m, nvidia-smi topo -p2p r; без P2P такая "
                           "пара обменивается через память процессора, и её скорость — не больше, чем CPU↔GPU",
                           "check the PCIe path between the cards and P2P: nvidia-smi topo -m, nvidia-smi topo -p2p r; without "
                           "P2P such a pair exchanges data through host memory, no faster than CPU↔GPU");
}

// Wrong bytes outweigh every speed finding: training on such a pair breaks without an error.
void PickDataVerdict(const std::vector<Text>& wrong_data, CheckResult& result) {
  if (wrong_data.empty()) return;
  result.outcome = Outcome::Fail;
  result.reason = T("копирование между картами портит данные: " + wrong_data.front().ru,
                    "P2P copies deliver wrong data: " + wrong_data.front().en);
  result.hint = T("обучение на этих картах будет ломаться без ошибок. Проверьте IOMMU и ACS (BIOS, iommu=pt) и драйвер; "
                  "до исправления запускайте с NCCL_P2P_DISABLE=1",
                  "training across these cards will break without an error. Check IOMMU and ACS (BIOS, iommu=pt) and "
                  "the driver; until fixed, run with NCCL_P2P_DISABLE=1");
  result.data["wrong_data"] = nlohmann::json::array();
  for (const Text& w : wrong_data) result.data["wrong_data"].push_back(w.en);
}

CheckResult RunPeerCheck(CheckContext& context) {
  if (std::optional<CheckResult> one = SkipWithOneGpu(context, kPeerCheck.id, OneGpuReason())) return *one;
  GpuJobReply reply = RunGpuJobFor(context, kPeerCheck, "cuMemcpyPeer");
  if (reply.ending) return *reply.ending;
  const nlohmann::json& j = reply.payload;
  const int count = j.value("count", 0);
  if (count < 2) return Skipped(kPeerCheck.id, OneGpuReason());
  const std::vector<reference::PeerCard> cards = Cards(context, count, reference::GpuCatalog::Builtin());

  CheckResult result;
  result.outcome = Outcome::Pass;
  result.data["can_access"] = j["can_access"];
  result.data["pairs"] = j["pairs"];
  PeerAccess access = ReadAccess(context, j["can_access"], count, result);
  NoteAccess(j, cards, access, result);
  result.tables.push_back(access.table);
  PairTally tally;
  result.tables.push_back(CopyTable(j, access, cards, count, result, tally));
  PickDataVerdict(tally.wrong_data, result);
  PickVerdict(tally.findings, cards, result);
  result.summary = T(fmt::format("P2P: {} из {} пар; до {} ГБ/с", access.peers, count * (count - 1), Figure(tally.best)),
                     fmt::format("P2P: {} of {} pairs; up to {} GB/s", access.peers, count * (count - 1), Figure(tally.best)));
  return result;
}

}  // namespace

// GPU→GPU copies are judged against what each pair's link is rated for (reference/peer_link.h).
const GpuCheckSpec kPeerCheck = {
    .id = "gpu.p2p",
    .section = "gpu",
    .title = T("P2P и копирование между картами", "P2P and GPU-to-GPU copies"),
    .quick = QuickMode::Shortened,
    .budget_s = 240,
    .job = kPeerJob,
    .job_fn = PeerJob,
    .run = RunPeerCheck,
    .reads = {&kInventoryCheck},
};

}  // namespace labcheck::gpu
