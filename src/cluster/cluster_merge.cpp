#include "cluster/cluster_merge.h"

#include <algorithm>
#include <climits>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "cluster/nic_discovery.h"
#include "cluster/rank_block.h"
#include "cluster/rank_problems.h"
#include "gpu/collective/allreduce_json.h"
#include "gpu/collective/allreduce_math.h"

namespace labcheck::cluster {

namespace {

using nlohmann::json;

std::string Num(double v) { return v >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:.3g}", v); }

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

// Every rank that reported skipped (no GPU, no driver, no NCCL): the check does not apply.
// (A rank whose sweep skipped has nothing to gather with either, so only rank 0's block may be here.)
std::optional<CheckResult> SkippedOnEveryRank(const std::vector<json>& blocks) {
  const json* first_present = nullptr;
  bool all_skipped = true;
  for (const json& b : blocks) {
    if (b.is_null()) continue;
    if (!first_present) first_present = &b;
    all_skipped = all_skipped && Field(b, "child").value("ended", "") == "skipped";
  }
  if (!first_present || !all_skipped) return std::nullopt;
  const json& first = *first_present;
  const json& reason = Field(first, "reason");
  return Skipped(kClusterCheckId,
                 reason.contains("en") ? Text(reason.value("ru", ""), reason.value("en", "")) : T("нет GPU", "no GPU"),
                 Text(Field(first, "hint").value("ru", ""), Field(first, "hint").value("en", "")));
}

void AddRankToNode(const json& b, int rank, Node& node) {
  node.ranks.push_back(rank);
  if (b.contains("gpu_name")) node.gpus.insert(b["gpu_name"].get<std::string>());
  const json& transport = Field(b, "transport");
  const std::string net = transport.value("net", std::string());
  if (!net.empty()) {
    node.any_net = true;
    node.nets.insert(net);
    node.gdrdma_all = node.gdrdma_all && transport.value("gdrdma", false);
  }
  // The node alone: the slowest of its ranks at the largest size it finished.
  if (const json* last = LastSize(Field(b, "node_sweep"))) {
    const json& busbw = Field(*last, "busbw_gbps");
    const bool copy = !busbw.is_number();
    const double v = copy ? last->value("algbw_gbps", 0.0) : busbw.get<double>();
    if (!node.alone || v < *node.alone) {
      node.alone = v;
      node.alone_is_copy = copy;
      node.alone_bytes = last->value("bytes", 0ull);
    }
  }
}

struct Nodes {
  std::vector<Node> list;
  std::vector<int> node_of;  // index = rank; -1 where that rank never reported
  int count() const { return static_cast<int>(list.size()); }
};

// Nodes, in the order of their first rank.
Nodes GroupRanksIntoNodes(const std::vector<json>& blocks) {
  Nodes nodes;
  nodes.node_of.assign(blocks.size(), -1);
  for (int r = 0; r < static_cast<int>(blocks.size()); ++r) {
    const json& b = blocks[r];
    if (b.is_null()) continue;
    const std::string key = b.value("node_key", std::string("?"));
    auto it = std::find_if(nodes.list.begin(), nodes.list.end(), [&](const Node& n) { return n.key == key; });
    if (it == nodes.list.end()) {
      Node n;
      n.index = nodes.count();
      n.key = key;
      n.nics = NicInventory::FromJson(Field(b, "nics"));
      n.peermem = b.value("peermem", false);
      nodes.list.push_back(n);
      it = nodes.list.end() - 1;
    }
    nodes.node_of[r] = it->index;
    AddRankToNode(b, r, *it);
  }
  return nodes;
}

struct ClusterSweep {
  json sizes = json::array();
  Table table;
  std::optional<double> busbw_nccl_tests;
  std::optional<double> busbw;  // at the largest size every rank finished
  uint64_t bytes = 0;
  bool any_complete = false;      // some size that every rank finished
  bool largest_complete = false;  // the largest size anyone reached, finished by every rank
};

Table EmptySweepTable() {
  Table table{T("Все ранги вместе, float32", "All ranks together, float32"),
              {T("Размер", "Size"), T("Время, мс (медленнейший ранг)", "Time, ms (slowest rank)"), "algbw, GB/s",
               "busbw, GB/s", T("busbw как в nccl-tests, GB/s", "busbw as nccl-tests, GB/s"), T("Рангов", "Ranks"),
               T("Сумма", "Sum")}};
  table.notes.push_back(T("busbw = bytes/time × 2(n−1)/n, n — все ранги (nccl-tests); время — медленнейшего ранга "
                          "по событиям CUDA; «как в nccl-tests»: время по часам каждого ранга от первого запуска до "
                          "завершения потока, среднее по рангам (как all_reduce_perf)",
                          "busbw = bytes/time × 2(n−1)/n over all ranks (nccl-tests); time of the slowest rank by CUDA "
                          "events; 'as nccl-tests': each rank's host clock from the first launch until its stream is "
                          "done, averaged over the ranks (as all_reduce_perf)"));
  return table;
}

// The cluster's sweep: per size, the slowest rank's time (a collective ends when its last rank does).
ClusterSweep MergeSweeps(const std::vector<json>& blocks, int world) {
  std::map<uint64_t, std::vector<const json*>> by_size;
  for (const json& b : blocks)
    for (const json& s : Field(Field(b, "sweep"), "sizes")) by_size[s.value("bytes", 0ull)].push_back(&s);
  ClusterSweep sweep;
  sweep.table = EmptySweepTable();
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
    sweep.sizes.push_back(size);
    sweep.table.AddRow({Text(MiB(bytes)), Text(Num(time_ms)), Text(Num(algbw)), Text(busbw ? Num(*busbw) : "—"),
                        Text(nccl_tests.is_number() ? Num(nccl_tests.get<double>()) : "—"),
                        Text(fmt::format("{}/{}", list.size(), world)), correct ? Text("OK") : T("НЕВЕРНО", "WRONG")});
    sweep.any_complete = sweep.any_complete || complete;
    sweep.largest_complete = complete;
    if (complete && busbw) {
      sweep.busbw = busbw;
      sweep.bytes = bytes;
      sweep.busbw_nccl_tests = nccl_tests.is_number() ? std::optional<double>(nccl_tests.get<double>()) : std::nullopt;
    }
  }
  return sweep;
}

struct NodesAlone {
  double median = 0;
  std::optional<int> slowest;  // only when two nodes or more measured themselves
  std::vector<int> out_of_line;
};

// Each node alone against the others: the slowest, and any out of line with the median.
NodesAlone CompareNodesAlone(const std::vector<Node>& nodes) {
  std::vector<double> alone;
  for (const Node& n : nodes)
    if (n.alone) alone.push_back(*n.alone);
  std::sort(alone.begin(), alone.end());
  NodesAlone result;
  result.median = alone.empty() ? 0 : alone.size() % 2 ? alone[alone.size() / 2]
                                                       : (alone[alone.size() / 2 - 1] + alone[alone.size() / 2]) / 2;
  for (const Node& n : nodes) {
    if (!n.alone) continue;
    if (!result.slowest || *n.alone < *nodes[*result.slowest].alone) result.slowest = n.index;
    if (alone.size() >= 2 && *n.alone < kOutOfLineShare * result.median) result.out_of_line.push_back(n.index);
  }
  if (alone.size() < 2) result.slowest.reset();
  return result;
}

// The network: what the slowest node's NICs allow.
std::optional<double> ExpectedNetworkGbps(const std::vector<Node>& nodes) {
  std::optional<double> expected;
  for (const Node& n : nodes)
    if (std::optional<double> g = n.nics.InterNodeGBps()) expected = expected ? std::min(*expected, *g) : *g;
  return expected;
}

std::string Joined(const std::set<std::string>& items) {
  std::string text;
  for (const std::string& x : items) text += (text.empty() ? "" : ", ") + x;
  return text;
}

Table NodeTable(const std::vector<Node>& nodes, std::optional<int> slowest) {
  Table table{T("Узлы", "Nodes"),
              {T("Узел", "Node"), T("Ранги", "Ranks"), "GPU", T("Сеть между узлами", "Network between nodes"),
               T("Ожидается, GB/s", "Expected, GB/s"), T("Узел один, GB/s", "Node alone, GB/s"), "NCCL NET", "GDRDMA",
               "nvidia_peermem"}};
  for (const Node& n : nodes) {
    std::string ranks;
    for (int r : n.ranks) {
      if (!ranks.empty()) ranks += ',';
      ranks += std::to_string(r);
    }
    const std::string gpus = Joined(n.gpus), nets = Joined(n.nets);
    std::optional<double> nic = n.nics.InterNodeGBps();
    std::string alone_text = n.alone ? Num(*n.alone) + (n.alone_is_copy ? " (copy)" : "") : "—";
    if (slowest && *slowest == n.index && nodes.size() > 1) alone_text += " ←";
    table.AddRow({Text(fmt::format("node {}", n.index)), Text(ranks), Text(gpus.empty() ? "—" : gpus), Text(n.nics.Describe()),
                  Text(nic ? Num(*nic) : "—"), Text(alone_text), Text(nets.empty() ? "—" : nets),
                  n.any_net ? (n.gdrdma_all ? T("да", "yes") : T("нет", "no")) : Text("—"),
                  n.peermem ? T("загружен", "loaded") : T("нет", "no")});
  }
  table.notes.push_back(T("«Узел один»: busbw all-reduce только между GPU этого узла, все узлы одновременно; "
                          "(copy) — на узле одна GPU, это скорость локального копирования",
                          "'Node alone': all-reduce busbw among this node's GPUs only, all nodes at once; "
                          "(copy): one GPU on the node, so it is the speed of a local copy"));
  table.notes.push_back(T("«Ожидается»: сумма активных портов InfiniBand/RoCE узла (иначе Ethernet) / 8, GB/s в одну сторону",
                          "'Expected': the node's active InfiniBand/RoCE ports (else Ethernet links) added up / 8, GB/s per direction"));
  return table;
}

json NodesJson(const std::vector<Node>& nodes) {
  json list = json::array();
  for (const Node& n : nodes) {
    std::optional<double> nic = n.nics.InterNodeGBps();
    list.push_back({{"index", n.index}, {"ranks", n.ranks}, {"gpus", std::vector<std::string>(n.gpus.begin(), n.gpus.end())},
                    {"nics", n.nics.Describe()}, {"nic_kind", n.nics.Kind()}, {"nic_count", n.nics.UsableCount()},
                    {"expected_inter_node_gbps", nic ? json(*nic) : json(nullptr)},
                    {"alone_gbps", n.alone ? json(*n.alone) : json(nullptr)},
                    {"alone_figure", n.alone ? (n.alone_is_copy ? "algbw_one_gpu_copy" : "busbw") : ""},
                    {"alone_bytes", n.alone_bytes}, {"nccl_net", std::vector<std::string>(n.nets.begin(), n.nets.end())},
                    {"gdrdma", n.any_net ? json(n.gdrdma_all) : json(nullptr)}, {"peermem", n.peermem}});
  }
  return list;
}

void AddFigures(const ClusterSweep& sweep, const std::vector<Node>& nodes, std::optional<double> expected, int world,
                CheckResult& result) {
  const int node_count = static_cast<int>(nodes.size());
  if (sweep.busbw)
    result.Add({"cluster.allreduce_busbw_gbps", T("all-reduce всех рангов, bus bandwidth", "all-reduce over all ranks, bus bandwidth"),
                *sweep.busbw, "GB/s", Text(fmt::format("{} ranks on {} nodes, {}, slowest rank's time", world, node_count, MiB(sweep.bytes)))});
  if (sweep.busbw_nccl_tests)
    result.Add({"cluster.allreduce_busbw_nccl_tests_gbps",
                T("all-reduce всех рангов, bus bandwidth как в nccl-tests", "all-reduce over all ranks, bus bandwidth as nccl-tests"),
                *sweep.busbw_nccl_tests, "GB/s",
                Text(fmt::format("{} ranks, {}, host clock per rank averaged over the ranks (all_reduce_perf)", world, MiB(sweep.bytes)))});
  if (sweep.busbw && node_count >= 2) {
    Measurement& m = result.Add({"cluster.allreduce_inter_node_busbw_gbps", T("all-reduce между узлами, bus bandwidth", "all-reduce across nodes, bus bandwidth"),
                                 *sweep.busbw, "GB/s", Text("the cluster sweep's busbw at its largest size")});
    if (expected) {
      m.reference = *expected;
      m.reference_label = T("сетевые карты медленнейшего узла", "the slowest node's NICs");
    }
  }
  for (const Node& n : nodes)
    if (n.alone && !n.alone_is_copy)
      result.Add({fmt::format("cluster.node{}_alone_busbw_gbps", n.index), Text(fmt::format("node {} alone, busbw", n.index)),
                  *n.alone, "GB/s", Text(fmt::format("{} GPUs of node {}, {}", n.ranks.size(), n.index, MiB(n.alone_bytes)))});
}

// Every rank's block as it arrived, with its node's index in place of the hash that names it.
json RanksForReport(const std::vector<json>& blocks, const std::vector<int>& node_of) {
  json ranks = json::array();
  for (size_t r = 0; r < blocks.size(); ++r) {
    json b = blocks[r];
    if (b.is_object()) {
      b.erase("node_key");  // a hash of a host name: never in a report
      b["node"] = node_of[r];
    }
    ranks.push_back(b);
  }
  return ranks;
}

struct Transport {
  bool ib_somewhere = false, socket_somewhere = false, no_gdr = false, peermem_missing = false;
};

// The nodes' NICs against the transport NCCL chose on them.
Transport SurveyTransport(const std::vector<Node>& nodes) {
  Transport t;
  for (const Node& n : nodes) {
    const std::string kind = n.nics.Kind();
    const bool rdma = kind.find("InfiniBand") != std::string::npos || kind == "RoCE";
    t.ib_somewhere = t.ib_somewhere || rdma;
    if (rdma && n.nets.count("Socket")) t.socket_somewhere = true;
    if (rdma && n.any_net && !n.gdrdma_all) t.no_gdr = true;
    if (rdma && !n.peermem) t.peermem_missing = true;
  }
  return t;
}

struct Advice {
  std::vector<Text> warnings, hints;
};

// Warnings and hints about the network and the nodes; env0 is rank 0's NCCL variables, quoted
// in the hints.
Advice AdviseOnNetwork(const std::vector<Node>& nodes, const json& env0, std::optional<double> cluster_busbw,
                       std::optional<double> expected, const NodesAlone& alone) {
  const Transport t = SurveyTransport(nodes);
  auto var = [&](const char* name) { return env0.contains(name) ? env0[name].get<std::string>() : std::string("unset"); };
  Advice advice;
  if (t.socket_somewhere) {
    advice.warnings.push_back(T("NCCL шёл через TCP-сокеты, хотя на узле есть InfiniBand/RoCE", "NCCL used TCP sockets although the node has InfiniBand/RoCE"));
    advice.hints.push_back(T("проверьте NCCL_IB_HCA (сейчас: " + var("NCCL_IB_HCA") + "), NCCL_IB_DISABLE и что установлены rdma-core/libibverbs",
                             "check NCCL_IB_HCA (now: " + var("NCCL_IB_HCA") + "), NCCL_IB_DISABLE, and that rdma-core/libibverbs is installed"));
  }
  if (t.no_gdr)
    advice.warnings.push_back(T("GPUDirect RDMA не используется (в логе NCCL нет GDRDMA)", "GPUDirect RDMA is not used (no GDRDMA in NCCL's log)"));
  if (t.peermem_missing && (t.no_gdr || t.ib_somewhere))
    advice.hints.push_back(T("модуль nvidia_peermem не загружен: sudo modprobe nvidia_peermem (или NCCL ≥ 2.19 с DMA-BUF)",
                             "the nvidia_peermem module is not loaded: sudo modprobe nvidia_peermem (or NCCL ≥ 2.19 with DMA-BUF)"));
  if (nodes.size() >= 2 && cluster_busbw && expected && *cluster_busbw < kNetworkShare * *expected) {
    advice.warnings.push_back(T(fmt::format("между узлами {} GB/s — {:.0f} % от {} GB/s, что позволяют сетевые карты", Num(*cluster_busbw), 100 * *cluster_busbw / *expected, Num(*expected)),
                                fmt::format("across nodes {} GB/s, {:.0f} % of the {} GB/s the NICs allow", Num(*cluster_busbw), 100 * *cluster_busbw / *expected, Num(*expected))));
    if (!t.ib_somewhere || t.socket_somewhere)
      advice.hints.push_back(T("NCCL_SOCKET_IFNAME (сейчас: " + var("NCCL_SOCKET_IFNAME") + ") выбирает интерфейс: укажите быстрый, например NCCL_SOCKET_IFNAME=eth0",
                               "NCCL_SOCKET_IFNAME (now: " + var("NCCL_SOCKET_IFNAME") + ") picks the interface: name the fast one, e.g. NCCL_SOCKET_IFNAME=eth0"));
  }
  for (int n : alone.out_of_line) {
    advice.warnings.push_back(T(fmt::format("node {} один: {} GB/s — ниже {:.0f} % медианы узлов ({} GB/s)", n, Num(*nodes[n].alone), 100 * kOutOfLineShare, Num(alone.median)),
                                fmt::format("node {} alone: {} GB/s, below {:.0f} % of the nodes' median ({} GB/s)", n, Num(*nodes[n].alone), 100 * kOutOfLineShare, Num(alone.median))));
    advice.hints.push_back(T(fmt::format("на node {} проверьте nvidia-smi topo -m, ширину PCIe и NVLink (lab_check на этом узле)", n),
                             fmt::format("on node {} check nvidia-smi topo -m, the PCIe width and NVLink (lab_check on that node)", n)));
  }
  return advice;
}

Text JoinedText(const std::vector<Text>& list) {
  Text t;
  for (const Text& x : list) {
    t.ru += (t.ru.empty() ? "" : "; ") + x.ru;
    t.en += (t.en.empty() ? "" : "; ") + x.en;
  }
  return t;
}

// Verdict and hints: a culprit rank fails the check, a network finding warns.
void Judge(const std::vector<Text>& failures, bool wrong_sum, Advice advice, CheckResult& result) {
  if (!failures.empty()) {
    result.outcome = Outcome::Fail;
    result.reason = JoinedText(failures);
    if (wrong_sum)
      advice.hints.insert(advice.hints.begin(), T("данные портятся при обмене: узел с неверной суммой — проверьте его память (ECC) и сеть",
                                                  "data is corrupted on the way: check the node with the wrong sum (ECC errors, its network)"));
    else
      advice.hints.insert(advice.hints.begin(), T("запустите ещё раз с NCCL_DEBUG=INFO и посмотрите лог названного ранга; все процессы должны видеть одинаковый размер мира",
                                                  "run again with NCCL_DEBUG=INFO and read the named rank's log; every process must see the same world size"));
  } else if (!advice.warnings.empty()) {
    result.outcome = Outcome::Warn;
    result.reason = JoinedText(advice.warnings);
  } else {
    result.outcome = Outcome::Pass;
  }
  result.hint = JoinedText(advice.hints);
}

std::string Summary(int world, int node_count, const ClusterSweep& sweep, std::optional<double> expected, std::optional<int> slowest) {
  std::string summary = fmt::format("{} ranks, {} nodes", world, node_count);
  if (sweep.busbw) summary += ", busbw " + Num(*sweep.busbw) + " GB/s";
  if (node_count >= 2 && sweep.busbw && expected) summary += fmt::format(" ({:.0f} % of NICs)", 100 * *sweep.busbw / *expected);
  if (slowest) summary += fmt::format(", slowest node {}", *slowest);
  if (world == 1) summary += ": one rank, nothing crossed a link";
  return summary;
}

}  // namespace

CheckResult MergeClusterRun(const MergeInput& input) {
  const int world = input.world_size;
  std::vector<json> blocks = input.blocks;
  blocks.resize(static_cast<size_t>(world));
  if (std::optional<CheckResult> skipped = SkippedOnEveryRank(blocks)) return *skipped;

  const Nodes nodes = GroupRanksIntoNodes(blocks);
  const ClusterSweep sweep = MergeSweeps(blocks, world);
  const NodesAlone alone = CompareNodesAlone(nodes.list);
  const std::optional<double> expected = ExpectedNetworkGbps(nodes.list);
  const std::vector<Problem> problems = RankProblems(blocks, nodes.node_of, input.gather_error);

  CheckResult result;
  result.id = kClusterCheckId;
  result.section = "interconnect";
  result.title = T("All-reduce между узлами (NCCL)", "All-reduce across nodes (NCCL)");
  result.tables.push_back(NodeTable(nodes.list, alone.slowest));
  result.tables.push_back(sweep.table);
  if (!problems.empty()) result.tables.push_back(ProblemTable(problems, nodes.node_of));
  AddFigures(sweep, nodes.list, expected, world, result);
  result.data = {{"world_size", world},
                 {"nodes_count", nodes.count()},
                 {"nodes", NodesJson(nodes.list)},
                 {"sizes", sweep.sizes},
                 {"expected_inter_node_gbps", expected ? json(*expected) : json(nullptr)},
                 {"slowest_node", alone.slowest ? json(*alone.slowest) : json(nullptr)},
                 {"out_of_line_nodes", alone.out_of_line},
                 {"dead_ranks", RanksWith(problems, "died")},
                 {"hung_ranks", RanksWith(problems, "hung")},
                 {"missing_ranks", RanksWith(problems, "missing")},
                 {"wrong_sum_ranks", RanksWith(problems, "wrong_sum")},
                 {"stalled_ranks", RanksWith(problems, "stalled")},
                 {"waiting_ranks", RanksWith(problems, "waiting")},
                 {"gather_error", input.gather_error}};
  result.data["ranks"] = RanksForReport(blocks, nodes.node_of);

  const bool incomplete = !sweep.any_complete || !sweep.largest_complete;
  Judge(Failures(problems, nodes.node_of, incomplete), !RanksWith(problems, "wrong_sum").empty(),
        AdviseOnNetwork(nodes.list, Field(blocks.front(), "nccl_env"), sweep.busbw, expected, alone), result);
  result.summary = Text(Summary(world, nodes.count(), sweep, expected, alone.slowest));
  result.Add({"cluster.allreduce_ok", T("all-reduce между узлами: сумма верна, все ранги дошли", "all-reduce across nodes: right sum, every rank finished"),
              result.outcome == Outcome::Fail ? 0.0 : 1.0, "0/1",
              T("побитовое сравнение на каждом ранге", "bit-exact comparison on every rank")});
  return result;
}

}  // namespace labcheck::cluster
