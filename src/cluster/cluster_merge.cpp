#include "cluster/cluster_merge.h"

#include <algorithm>
#include <climits>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "cluster/nic_discovery.h"
#include "gpu/collective/allreduce_json.h"
#include "gpu/collective/allreduce_math.h"

namespace labcheck::cluster {

namespace {

using nlohmann::json;

std::string Num(double v) { return v >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:.3g}", v); }
std::string MiB(uint64_t bytes) { return bytes >= (1u << 20) ? fmt::format("{} MiB", bytes >> 20) : fmt::format("{} B", bytes); }

// j[key] when j is an object that has it (and it is not null), else an empty object, so that
// value() and range-for work on whatever an older or broken rank sent.
const json& Field(const json& j, const char* key) {
  static const json kEmpty = json::object();
  return j.is_object() && j.contains(key) && !j[key].is_null() ? j[key] : kEmpty;
}

struct Node {
  int index = 0;
  std::string key;
  std::vector<int> ranks;
  std::set<std::string> gpus, nets;
  NicInventory nics;
  bool peermem = false, gdrdma_all = true, any_net = false;
  std::optional<double> alone;  // busbw of the node alone (algbw of a local copy for one GPU)
  bool alone_is_copy = false;
  uint64_t alone_bytes = 0;
};

// The last size of a rank's sweep object (its largest), or null.
const json* LastSize(const json& sweep) {
  const json& sizes = Field(sweep, "sizes");
  return sizes.is_array() && !sizes.empty() ? &sizes.back() : nullptr;
}

struct Problem {
  int rank = 0;
  std::string kind;  // died, hung, waiting, missing, wrong_sum, init_error, failed, stalled
  Text what;
  bool culprit = true;
};

std::string Where(const json& block) {
  const json& child = Field(block, "child");
  std::string phase = child.value("phase", std::string("?"));
  if (child.contains("running_bytes")) phase += ", " + MiB(child["running_bytes"].get<uint64_t>());
  return phase;
}

void CollectProblems(int rank, const json& block, const std::string& gather_error, std::vector<Problem>* out) {
  if (block.is_null()) {
    out->push_back({rank, "missing", T("не прислал свою часть отчёта: " + gather_error, "sent nothing for the report: " + gather_error)});
    return;
  }
  const json& child = Field(block, "child");
  const std::string ended = child.value("ended", std::string("failed"));
  const std::string where = Where(block);
  if (ended == "died")
    out->push_back({rank, "died", T("процесс all-reduce погиб (" + child.value("describe", std::string()) + ") на этапе " + where,
                                    "the all-reduce process died (" + child.value("describe", std::string()) + ") at " + where)});
  else if (ended == "hung")
    out->push_back({rank, "hung", T("завис: " + child.value("describe", std::string()) + ", этап " + where,
                                    "hung: " + child.value("describe", std::string()) + ", at " + where)});
  else if (ended == "failed")
    out->push_back({rank, "failed", Text("failed: " + child.value("describe", block.value("error", std::string())))});
  if (block.contains("init_error"))
    out->push_back({rank, "init_error", Text(block["init_error"].get<std::string>())});
  for (const char* key : {"sweep", "node_sweep"}) {
    const json& sweep = Field(block, key);
    const std::string which = std::string(key) == "sweep" ? "world" : "node";
    if (sweep.value("wrong_sum", false)) {
      std::string sizes;
      for (const json& s : Field(sweep, "sizes"))
        if (!s.value("correct", true)) sizes += (sizes.empty() ? "" : ", ") + MiB(s.value("bytes", 0ull));
      out->push_back({rank, "wrong_sum", T("неверная сумма (" + which + ": " + sizes + ")", "wrong sum (" + which + ": " + sizes + ")")});
    }
    if (ended == "ok" && (sweep.value("hung", false) || !sweep.value("nccl_error", std::string()).empty())) {
      const std::string at = sweep.contains("stopped_at_bytes") ? MiB(sweep["stopped_at_bytes"].get<uint64_t>()) : "?";
      const std::string error = sweep.value("nccl_error", std::string());
      out->push_back({rank, "stalled",
                      T("ждал других рангов (" + which + ", " + at + ")" + (error.empty() ? "" : ": " + error),
                        "waited for the other ranks (" + which + ", " + at + ")" + (error.empty() ? "" : ": " + error)),
                      false});
    }
  }
}

// How far a rank got in its phase: two steps per finished size, one more once it entered the next
// (the child writes running_bytes right before calling the collective). nullopt outside a sweep.
std::optional<std::pair<std::string, int>> Position(const json& block) {
  const json& child = Field(block, "child");
  const std::string phase = child.value("phase", std::string());
  if (phase != "sweep" && phase != "node_sweep") return std::nullopt;
  const json& sizes = Field(Field(block, phase.c_str()), "sizes");
  const int finished = sizes.is_array() ? static_cast<int>(sizes.size()) : 0;
  return std::pair{phase, 2 * finished + (child.contains("running_bytes") ? 1 : 0)};
}

// A collective ends only when every rank has entered it, so when one rank stops short of it, the
// ranks already inside hang with it: they are waiting, not the cause. Among the ranks that hung or
// died in the same phase, the ones that got least far keep the blame; a hung rank that got further
// is relabelled "waiting" on them. When all got equally far (a hang inside NCCL itself), all stay
// hung: nothing tells them apart.
void BlameTheLaggards(const std::vector<json>& blocks, const std::vector<int>& node_of, std::vector<Problem>* problems) {
  std::map<int, std::pair<std::string, int>> at;
  for (const Problem& p : *problems)
    if (p.kind == "hung" || p.kind == "died")
      if (auto pos = Position(blocks[p.rank])) at[p.rank] = *pos;
  if (at.size() < 2) return;
  const std::string phase = at.begin()->second.first;
  int least = INT_MAX;
  for (const auto& [rank, pos] : at) {
    if (pos.first != phase) return;  // different phases: no common yardstick
    least = std::min(least, pos.second);
  }
  std::string laggards;
  for (const auto& [rank, pos] : at)
    if (pos.second == least) laggards += (laggards.empty() ? "" : ", ") + fmt::format("{} (node {})", rank, node_of[rank]);
  for (Problem& p : *problems) {
    auto it = at.find(p.rank);
    if (p.kind != "hung" || it == at.end() || it->second.second == least) continue;
    const json& child = Field(blocks[p.rank], "child");
    const std::string size = child.contains("running_bytes") ? MiB(child["running_bytes"].get<uint64_t>()) : "?";
    p.kind = "waiting";
    p.culprit = false;
    p.what = T("ждал в all-reduce (" + size + ") ранг " + laggards + ": тот в эту операцию не вошёл",
               "waited in the all-reduce (" + size + ") for rank " + laggards + ", which never entered it");
  }
}

}  // namespace

CheckResult MergeClusterRun(const MergeInput& input) {
  CheckResult result;
  result.id = kClusterCheckId;
  result.section = "interconnect";
  result.title = T("All-reduce между узлами (NCCL)", "All-reduce across nodes (NCCL)");
  const int world = input.world_size;
  std::vector<json> blocks = input.blocks;
  blocks.resize(static_cast<size_t>(world));

  // Every rank that reported skipped (no GPU, no driver, no NCCL): the check does not apply.
  // (A rank whose sweep skipped has nothing to gather with either, so only rank 0's block may be here.)
  const json* first_present = nullptr;
  bool all_skipped = true;
  for (const json& b : blocks) {
    if (b.is_null()) continue;
    if (!first_present) first_present = &b;
    all_skipped = all_skipped && Field(b, "child").value("ended", "") == "skipped";
  }
  if (first_present && all_skipped) {
    const json& first = *first_present;
    const json& reason = Field(first, "reason");
    return Skipped(kClusterCheckId,
                   reason.contains("en") ? Text(reason.value("ru", ""), reason.value("en", "")) : T("нет GPU", "no GPU"),
                   Text(Field(first, "hint").value("ru", ""), Field(first, "hint").value("en", "")));
  }

  // Nodes, in the order of their first rank.
  std::vector<Node> nodes;
  std::vector<int> node_of(static_cast<size_t>(world), -1);
  for (int r = 0; r < world; ++r) {
    const json& b = blocks[r];
    if (b.is_null()) continue;
    const std::string key = b.value("node_key", std::string("?"));
    auto it = std::find_if(nodes.begin(), nodes.end(), [&](const Node& n) { return n.key == key; });
    if (it == nodes.end()) {
      Node n;
      n.index = static_cast<int>(nodes.size());
      n.key = key;
      n.nics = NicInventory::FromJson(Field(b, "nics"));
      n.peermem = b.value("peermem", false);
      nodes.push_back(n);
      it = nodes.end() - 1;
    }
    node_of[r] = it->index;
    it->ranks.push_back(r);
    if (b.contains("gpu_name")) it->gpus.insert(b["gpu_name"].get<std::string>());
    const json& transport = Field(b, "transport");
    const std::string net = transport.value("net", std::string());
    if (!net.empty()) {
      it->any_net = true;
      it->nets.insert(net);
      it->gdrdma_all = it->gdrdma_all && transport.value("gdrdma", false);
    }
    // The node alone: the slowest of its ranks at the largest size it finished.
    if (const json* last = LastSize(Field(b, "node_sweep"))) {
      const json& busbw = Field(*last, "busbw_gbps");
      const bool copy = !busbw.is_number();
      const double v = copy ? last->value("algbw_gbps", 0.0) : busbw.get<double>();
      if (!it->alone || v < *it->alone) {
        it->alone = v;
        it->alone_is_copy = copy;
        it->alone_bytes = last->value("bytes", 0ull);
      }
    }
  }
  const int node_count = static_cast<int>(nodes.size());

  // The cluster's sweep: per size, the slowest rank's time (a collective ends when its last rank does).
  std::map<uint64_t, std::vector<const json*>> by_size;
  for (const json& b : blocks)
    for (const json& s : Field(Field(b, "sweep"), "sizes")) by_size[s.value("bytes", 0ull)].push_back(&s);
  json sizes = json::array();
  Table sweep_table{T("Все ранги вместе, float32", "All ranks together, float32"),
                    {T("Размер", "Size"), T("Время, мс (медленнейший ранг)", "Time, ms (slowest rank)"), "algbw, GB/s",
                     "busbw, GB/s", T("busbw как в nccl-tests, GB/s", "busbw as nccl-tests, GB/s"), T("Рангов", "Ranks"),
                     T("Сумма", "Sum")}};
  std::optional<double> cluster_busbw_nccl_tests;
  std::optional<double> cluster_busbw;
  uint64_t cluster_bytes = 0;
  bool any_complete = false;  // some size that every rank finished
  for (const auto& [bytes, list] : by_size) {
    double time_ms = 0;
    bool correct = true;
    std::vector<double> host_times_us;  // each rank's own host clock (nccl-tests' per-process time)
    for (const json* s : list) {
      time_ms = std::max(time_ms, s->value("time_ms", 0.0));
      correct = correct && s->value("correct", false);
      host_times_us.push_back(Field(*s, "host_time_us").is_number() ? Field(*s, "host_time_us").get<double>() : 0.0);
    }
    const bool complete = static_cast<int>(list.size()) == world;
    const double algbw = gpu::AlgorithmBandwidthGbps(bytes, time_ms);
    std::optional<double> busbw = gpu::BusBandwidthGbps(bytes, time_ms, world);
    json size = {{"bytes", bytes}, {"time_ms", time_ms}, {"algbw_gbps", algbw},
                 {"busbw_gbps", busbw ? json(*busbw) : json(nullptr)}, {"ranks_reporting", list.size()}, {"correct", correct}};
    // nccl-tests averages the ranks' times: only when every rank has one, or it is another figure.
    gpu::AddNcclTestsFigures(size, bytes, complete ? host_times_us : std::vector<double>(), world);
    const json& nccl_tests = size["busbw_gbps_nccl_tests"];
    sizes.push_back(size);
    sweep_table.AddRow({Text(MiB(bytes)), Text(Num(time_ms)), Text(Num(algbw)), Text(busbw ? Num(*busbw) : "—"),
                        Text(nccl_tests.is_number() ? Num(nccl_tests.get<double>()) : "—"),
                        Text(fmt::format("{}/{}", list.size(), world)), correct ? Text("OK") : T("НЕВЕРНО", "WRONG")});
    any_complete = any_complete || complete;
    if (complete && busbw) {
      cluster_busbw = busbw;
      cluster_bytes = bytes;
      cluster_busbw_nccl_tests = nccl_tests.is_number() ? std::optional<double>(nccl_tests.get<double>()) : std::nullopt;
    }
  }

  // Each node alone against the others: the slowest, and any out of line with the median.
  std::vector<double> alone;
  for (const Node& n : nodes)
    if (n.alone) alone.push_back(*n.alone);
  std::sort(alone.begin(), alone.end());
  const double median = alone.empty() ? 0 : alone.size() % 2 ? alone[alone.size() / 2]
                                                             : (alone[alone.size() / 2 - 1] + alone[alone.size() / 2]) / 2;
  std::optional<int> slowest;
  std::vector<int> out_of_line;
  for (const Node& n : nodes) {
    if (!n.alone) continue;
    if (!slowest || *n.alone < *nodes[*slowest].alone) slowest = n.index;
    if (alone.size() >= 2 && *n.alone < kOutOfLineShare * median) out_of_line.push_back(n.index);
  }
  if (alone.size() < 2) slowest.reset();

  // The network: what the slowest node's NICs allow.
  std::optional<double> expected;
  for (const Node& n : nodes)
    if (std::optional<double> g = n.nics.InterNodeGBps()) expected = expected ? std::min(*expected, *g) : *g;

  // Problems, per rank.
  std::vector<Problem> problems;
  for (int r = 0; r < world; ++r) CollectProblems(r, blocks[r], input.gather_error, &problems);
  BlameTheLaggards(blocks, node_of, &problems);
  auto ranks_of = [&](const char* kind) {
    std::vector<int> list;
    for (const Problem& p : problems)
      if (p.kind == kind && std::find(list.begin(), list.end(), p.rank) == list.end()) list.push_back(p.rank);
    return list;
  };

  // Tables.
  Table node_table{T("Узлы", "Nodes"),
                   {T("Узел", "Node"), T("Ранги", "Ranks"), "GPU", T("Сеть между узлами", "Network between nodes"),
                    T("Ожидается, GB/s", "Expected, GB/s"), T("Узел один, GB/s", "Node alone, GB/s"), "NCCL NET", "GDRDMA",
                    "nvidia_peermem"}};
  json nodes_json = json::array();
  for (const Node& n : nodes) {
    std::string ranks, gpus, nets;
    for (int r : n.ranks) ranks += (ranks.empty() ? "" : ",") + std::to_string(r);
    for (const std::string& g : n.gpus) gpus += (gpus.empty() ? "" : ", ") + g;
    for (const std::string& x : n.nets) nets += (nets.empty() ? "" : ", ") + x;
    std::optional<double> nic = n.nics.InterNodeGBps();
    std::string alone_text = n.alone ? Num(*n.alone) + (n.alone_is_copy ? " (copy)" : "") : "—";
    if (slowest && *slowest == n.index && node_count > 1) alone_text += " ←";
    node_table.AddRow({Text(fmt::format("node {}", n.index)), Text(ranks), Text(gpus.empty() ? "—" : gpus), Text(n.nics.Describe()),
                       Text(nic ? Num(*nic) : "—"), Text(alone_text), Text(nets.empty() ? "—" : nets),
                       n.any_net ? (n.gdrdma_all ? T("да", "yes") : T("нет", "no")) : Text("—"),
                       n.peermem ? T("загружен", "loaded") : T("нет", "no")});
    nodes_json.push_back({{"index", n.index}, {"ranks", n.ranks}, {"gpus", std::vector<std::string>(n.gpus.begin(), n.gpus.end())},
                          {"nics", n.nics.Describe()}, {"nic_kind", n.nics.Kind()}, {"nic_count", n.nics.UsableCount()},
                          {"expected_inter_node_gbps", nic ? json(*nic) : json(nullptr)},
                          {"alone_gbps", n.alone ? json(*n.alone) : json(nullptr)},
                          {"alone_figure", n.alone ? (n.alone_is_copy ? "algbw_one_gpu_copy" : "busbw") : ""},
                          {"alone_bytes", n.alone_bytes}, {"nccl_net", std::vector<std::string>(n.nets.begin(), n.nets.end())},
                          {"gdrdma", n.any_net ? json(n.gdrdma_all) : json(nullptr)}, {"peermem", n.peermem}});
  }
  node_table.notes.push_back(T("«Узел один»: busbw all-reduce только между GPU этого узла, все узлы одновременно; "
                               "(copy) — на узле одна GPU, это скорость локального копирования",
                               "'Node alone': all-reduce busbw among this node's GPUs only, all nodes at once; "
                               "(copy): one GPU on the node, so it is the speed of a local copy"));
  node_table.notes.push_back(T("«Ожидается»: сумма активных портов InfiniBand/RoCE узла (иначе Ethernet) / 8, GB/s в одну сторону",
                               "'Expected': the node's active InfiniBand/RoCE ports (else Ethernet links) added up / 8, GB/s per direction"));
  result.tables.push_back(node_table);
  sweep_table.notes.push_back(T("busbw = bytes/time × 2(n−1)/n, n — все ранги (nccl-tests); время — медленнейшего ранга "
                                "по событиям CUDA; «как в nccl-tests»: время по часам каждого ранга от первого запуска до "
                                "завершения потока, среднее по рангам (как all_reduce_perf)",
                                "busbw = bytes/time × 2(n−1)/n over all ranks (nccl-tests); time of the slowest rank by CUDA "
                                "events; 'as nccl-tests': each rank's host clock from the first launch until its stream is "
                                "done, averaged over the ranks (as all_reduce_perf)"));
  result.tables.push_back(sweep_table);
  if (!problems.empty()) {
    Table problem_table{T("Ранги с проблемами", "Ranks with problems"), {T("Ранг", "Rank"), T("Узел", "Node"), T("Что", "What")}};
    for (const Problem& p : problems)
      problem_table.AddRow({Text(std::to_string(p.rank)), Text(node_of[p.rank] >= 0 ? fmt::format("node {}", node_of[p.rank]) : "?"), p.what});
    result.tables.push_back(problem_table);
  }

  // Figures.
  if (cluster_busbw)
    result.Add({"cluster.allreduce_busbw_gbps", T("all-reduce всех рангов, bus bandwidth", "all-reduce over all ranks, bus bandwidth"),
                *cluster_busbw, "GB/s", Text(fmt::format("{} ranks on {} nodes, {}, slowest rank's time", world, node_count, MiB(cluster_bytes)))});
  if (cluster_busbw_nccl_tests)
    result.Add({"cluster.allreduce_busbw_nccl_tests_gbps",
                T("all-reduce всех рангов, bus bandwidth как в nccl-tests", "all-reduce over all ranks, bus bandwidth as nccl-tests"),
                *cluster_busbw_nccl_tests, "GB/s",
                Text(fmt::format("{} ranks, {}, host clock per rank averaged over the ranks (all_reduce_perf)", world, MiB(cluster_bytes)))});
  if (cluster_busbw && node_count >= 2) {
    Measurement& m = result.Add({"cluster.allreduce_inter_node_busbw_gbps", T("all-reduce между узлами, bus bandwidth", "all-reduce across nodes, bus bandwidth"),
                                 *cluster_busbw, "GB/s", Text("the cluster sweep's busbw at its largest size")});
    if (expected) {
      m.reference = *expected;
      m.reference_label = T("сетевые карты медленнейшего узла", "the slowest node's NICs");
    }
  }
  for (const Node& n : nodes)
    if (n.alone && !n.alone_is_copy)
      result.Add({fmt::format("cluster.node{}_alone_busbw_gbps", n.index), Text(fmt::format("node {} alone, busbw", n.index)),
                  *n.alone, "GB/s", Text(fmt::format("{} GPUs of node {}, {}", n.ranks.size(), n.index, MiB(n.alone_bytes)))});

  result.data = {{"world_size", world},
                 {"nodes_count", node_count},
                 {"nodes", nodes_json},
                 {"sizes", sizes},
                 {"expected_inter_node_gbps", expected ? json(*expected) : json(nullptr)},
                 {"slowest_node", slowest ? json(*slowest) : json(nullptr)},
                 {"out_of_line_nodes", out_of_line},
                 {"dead_ranks", ranks_of("died")},
                 {"hung_ranks", ranks_of("hung")},
                 {"missing_ranks", ranks_of("missing")},
                 {"wrong_sum_ranks", ranks_of("wrong_sum")},
                 {"stalled_ranks", ranks_of("stalled")},
                 {"waiting_ranks", ranks_of("waiting")},
                 {"gather_error", input.gather_error}};
  json ranks = json::array();
  for (int r = 0; r < world; ++r) {
    json b = blocks[r];
    if (b.is_object()) {
      b.erase("node_key");  // a hash of a host name: never in a report
      b["node"] = node_of[r];
    }
    ranks.push_back(b);
  }
  result.data["ranks"] = ranks;

  // Verdict and hints.
  std::vector<Text> hints;
  bool ib_somewhere = false, socket_somewhere = false, no_gdr = false, peermem_missing = false;
  for (const Node& n : nodes) {
    const std::string kind = n.nics.Kind();
    const bool rdma = kind.find("InfiniBand") != std::string::npos || kind == "RoCE";
    ib_somewhere = ib_somewhere || rdma;
    if (rdma && n.nets.count("Socket")) socket_somewhere = true;
    if (rdma && n.any_net && !n.gdrdma_all) no_gdr = true;
    if (rdma && !n.peermem) peermem_missing = true;
  }
  const json& env0 = Field(blocks.front(), "nccl_env");
  auto var = [&](const char* name) { return env0.contains(name) ? env0[name].get<std::string>() : std::string("unset"); };
  std::vector<Text> warnings;
  if (socket_somewhere) {
    warnings.push_back(T("NCCL шёл через TCP-сокеты, хотя на узле есть InfiniBand/RoCE", "NCCL used TCP sockets although the node has InfiniBand/RoCE"));
    hints.push_back(T("проверьте NCCL_IB_HCA (сейчас: " + var("NCCL_IB_HCA") + "), NCCL_IB_DISABLE и что установлены rdma-core/libibverbs",
                      "check NCCL_IB_HCA (now: " + var("NCCL_IB_HCA") + "), NCCL_IB_DISABLE, and that rdma-core/libibverbs is installed"));
  }
  if (no_gdr)
    warnings.push_back(T("GPUDirect RDMA не используется (в логе NCCL нет GDRDMA)", "GPUDirect RDMA is not used (no GDRDMA in NCCL's log)"));
  if (peermem_missing && (no_gdr || ib_somewhere))
    hints.push_back(T("модуль nvidia_peermem не загружен: sudo modprobe nvidia_peermem (или NCCL ≥ 2.19 с DMA-BUF)",
                      "the nvidia_peermem module is not loaded: sudo modprobe nvidia_peermem (or NCCL ≥ 2.19 with DMA-BUF)"));
  if (node_count >= 2 && cluster_busbw && expected && *cluster_busbw < kNetworkShare * *expected) {
    warnings.push_back(T(fmt::format("между узлами {} GB/s — {:.0f} % от {} GB/s, что позволяют сетевые карты", Num(*cluster_busbw), 100 * *cluster_busbw / *expected, Num(*expected)),
                         fmt::format("across nodes {} GB/s, {:.0f} % of the {} GB/s the NICs allow", Num(*cluster_busbw), 100 * *cluster_busbw / *expected, Num(*expected))));
    if (!ib_somewhere || socket_somewhere)
      hints.push_back(T("NCCL_SOCKET_IFNAME (сейчас: " + var("NCCL_SOCKET_IFNAME") + ") выбирает интерфейс: укажите быстрый, например NCCL_SOCKET_IFNAME=eth0",
                        "NCCL_SOCKET_IFNAME (now: " + var("NCCL_SOCKET_IFNAME") + ") picks the interface: name the fast one, e.g. NCCL_SOCKET_IFNAME=eth0"));
  }
  for (int n : out_of_line) {
    warnings.push_back(T(fmt::format("node {} один: {} GB/s — ниже {:.0f} % медианы узлов ({} GB/s)", n, Num(*nodes[n].alone), 100 * kOutOfLineShare, Num(median)),
                         fmt::format("node {} alone: {} GB/s, below {:.0f} % of the nodes' median ({} GB/s)", n, Num(*nodes[n].alone), 100 * kOutOfLineShare, Num(median))));
    hints.push_back(T(fmt::format("на node {} проверьте nvidia-smi topo -m, ширину PCIe и NVLink (lab_check на этом узле)", n),
                      fmt::format("on node {} check nvidia-smi topo -m, the PCIe width and NVLink (lab_check on that node)", n)));
  }

  std::vector<Text> failures;
  for (const Problem& p : problems)
    if (p.culprit) failures.push_back(Text(fmt::format("rank {} (node {}): ", p.rank, node_of[p.rank]) + p.what.ru,
                                           fmt::format("rank {} (node {}): ", p.rank, node_of[p.rank]) + p.what.en));
  const bool incomplete = !any_complete || static_cast<int>(by_size.rbegin()->second.size()) != world;
  if (failures.empty() && incomplete) failures.push_back(T("замер не дошёл до конца ни на одном размере для всех рангов", "no size finished on every rank"));
  auto join = [](const std::vector<Text>& list) {
    Text t;
    for (const Text& x : list) {
      t.ru += (t.ru.empty() ? "" : "; ") + x.ru;
      t.en += (t.en.empty() ? "" : "; ") + x.en;
    }
    return t;
  };
  const std::string where = fmt::format("{} ranks, {} nodes", world, node_count);
  if (!failures.empty()) {
    result.outcome = Outcome::Fail;
    result.reason = join(failures);
    if (ranks_of("wrong_sum").size() > 0)
      hints.insert(hints.begin(), T("данные портятся при обмене: узел с неверной суммой — проверьте его память (ECC) и сеть",
                                    "data is corrupted on the way: check the node with the wrong sum (ECC errors, its network)"));
    else
      hints.insert(hints.begin(), T("запустите ещё раз с NCCL_DEBUG=INFO и посмотрите лог названного ранга; все процессы должны видеть одинаковый размер мира",
                                    "run again with NCCL_DEBUG=INFO and read the named rank's log; every process must see the same world size"));
  } else if (!warnings.empty()) {
    result.outcome = Outcome::Warn;
    result.reason = join(warnings);
  } else {
    result.outcome = Outcome::Pass;
  }
  result.hint = join(hints);
  std::string summary = where;
  if (cluster_busbw) summary += ", busbw " + Num(*cluster_busbw) + " GB/s";
  if (node_count >= 2 && cluster_busbw && expected) summary += fmt::format(" ({:.0f} % of NICs)", 100 * *cluster_busbw / *expected);
  if (slowest) summary += fmt::format(", slowest node {}", *slowest);
  if (world == 1) summary += ": one rank, nothing crossed a link";
  result.summary = Text(summary);
  result.Add({"cluster.allreduce_ok", T("all-reduce между узлами: сумма верна, все ранги дошли", "all-reduce across nodes: right sum, every rank finished"),
              result.outcome == Outcome::Fail ? 0.0 : 1.0, "0/1", Text("bit-exact comparison on every rank")});
  return result;
}

}  // namespace labcheck::cluster
