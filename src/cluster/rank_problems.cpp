#include "cluster/rank_problems.h"

#include <algorithm>
#include <climits>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "cluster/rank_block.h"

namespace labcheck::cluster {

namespace {

using nlohmann::json;

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

std::vector<Problem> RankProblems(const std::vector<json>& blocks, const std::vector<int>& node_of, const std::string& gather_error) {
  std::vector<Problem> problems;
  for (int r = 0; r < static_cast<int>(blocks.size()); ++r) CollectProblems(r, blocks[r], gather_error, &problems);
  BlameTheLaggards(blocks, node_of, &problems);
  return problems;
}

std::vector<int> RanksWith(const std::vector<Problem>& problems, const char* kind) {
  std::vector<int> list;
  for (const Problem& p : problems)
    if (p.kind == kind && std::find(list.begin(), list.end(), p.rank) == list.end()) list.push_back(p.rank);
  return list;
}

Table ProblemTable(const std::vector<Problem>& problems, const std::vector<int>& node_of) {
  Table table{T("Ранги с проблемами", "Ranks with problems"), {T("Ранг", "Rank"), T("Узел", "Node"), T("Что", "What")}};
  for (const Problem& p : problems)
    table.AddRow({Text(std::to_string(p.rank)), Text(node_of[p.rank] >= 0 ? fmt::format("node {}", node_of[p.rank]) : "?"), p.what});
  return table;
}

std::vector<Text> Failures(const std::vector<Problem>& problems, const std::vector<int>& node_of, bool incomplete) {
  std::vector<Text> failures;
  for (const Problem& p : problems)
    if (p.culprit) failures.push_back(Text(fmt::format("rank {} (node {}): ", p.rank, node_of[p.rank]) + p.what.ru,
                                           fmt::format("rank {} (node {}): ", p.rank, node_of[p.rank]) + p.what.en));
  if (failures.empty() && incomplete) failures.push_back(T("замер не дошёл до конца ни на одном размере для всех рангов", "no size finished on every rank"));
  return failures;
}

}  // namespace labcheck::cluster
