// gpu.p2p: can GPU i read GPU j's memory directly, and GPU→GPU copy speed with and without it.
#include <fmt/format.h>

#include "gpu/checks/gpu_check_list.h"
#include "gpu/checks/gpu_check_support.h"
#include "gpu/job_envelope.h"
#include "gpu/jobs/gpu_jobs.h"

namespace labcheck::gpu {

CheckResult RunPeerCheck(CheckContext& context) {
  constexpr const char* kId = "gpu.p2p";
  if (const CheckResult* inventory = context.Earlier("gpu.inventory")) {
    const nlohmann::json& gpus = inventory->data.value("gpus", nlohmann::json::array());
    if (gpus.is_array() && gpus.size() == 1)
      return Skipped(kId, T("одна видеокарта: обмениваться не с кем", "one GPU: there is no pair to measure"));
  }
  GpuJobReply reply = RunGpuJobFor(context, kId, kPeerJob, "cuMemcpyPeer");
  if (reply.ending) return *reply.ending;
  const nlohmann::json& j = reply.payload;
  const int count = j.value("count", 0);
  if (count < 2) return Skipped(kId, T("одна видеокарта: обмениваться не с кем", "one GPU: there is no pair to measure"));

  CheckResult result;
  result.outcome = Outcome::Pass;
  result.data["can_access"] = j["can_access"];
  result.data["pairs"] = j["pairs"];
  Table access{T("P2P: может ли GPU (строка) читать память GPU (столбец)", "P2P: can GPU (row) access GPU (column) memory"), {""}};
  for (int c = 0; c < count; ++c) access.columns.push_back(Text("GPU" + std::to_string(c)));
  int peers = 0;
  for (int r = 0; r < count; ++r) {
    std::vector<Text> row = {Text("GPU" + std::to_string(r))};
    for (int c = 0; c < count; ++c) {
      const nlohmann::json& cell = j["can_access"][r][c];
      if (cell.is_null()) {
        row.push_back(Text("X"));
        continue;
      }
      const bool can = cell.get<bool>();
      peers += can ? 1 : 0;
      row.push_back(can ? T("да", "yes") : T("нет", "no"));
      result.Add({fmt::format("p2p.{}-{}.access", r, c), T(fmt::format("P2P {}→{}", r, c), fmt::format("P2P {}→{}", r, c)),
                  can ? 1.0 : 0.0, "0/1", Text("cuDeviceCanAccessPeer")});
    }
    access.AddRow(row);
  }
  access.notes.push_back(T("На GeForce прямой обмен P2P обычно отключён драйвером: «нет» здесь — это нормально.",
                           "On GeForce cards the driver usually disables P2P: \"no\" here is normal."));
  result.tables.push_back(access);

  Table copies{T("Копирование GPU→GPU, ГБ/с", "GPU→GPU copies, GB/s"),
               {T("Откуда → куда", "From → to"), T("С P2P", "With P2P"), T("Без P2P (через CPU)", "Without P2P (via CPU)")},
               {},
               {Text(j.value("method", std::string()))}};
  double best = 0;
  for (const nlohmann::json& pair : j["pairs"]) {
    const int src = pair.value("src", 0), dst = pair.value("dst", 0);
    auto cell = [&](const char* key) -> std::optional<double> {
      if (!pair.contains(key) || pair[key].contains("error")) return std::nullopt;
      return pair[key].value("gbps", 0.0);
    };
    std::optional<double> with = cell("with_peer"), without = cell("without_peer");
    std::optional<double> reported = with ? with : without;
    if (reported) {
      best = std::max(best, *reported);
      result.Add({fmt::format("p2p.{}-{}.copy_gbps", src, dst), T(fmt::format("GPU{}→GPU{}", src, dst), fmt::format("GPU{}→GPU{}", src, dst)),
                  *reported, "GB/s", Text(with ? "cuMemcpyPeerAsync, peer access on, bytes copied, median"
                                               : "cuMemcpyPeerAsync, no peer access (staged via host), bytes copied, median")});
      result.measurements.back().spread = TimingSpread(*reported, pair[with ? "with_peer" : "without_peer"]);
    }
    copies.AddRow({Text(fmt::format("{} → {}", src, dst)), Text(with ? Figure(*with) : "—"), Text(without ? Figure(*without) : "—")});
  }
  copies.notes.push_back(T("Без P2P данные идут через память процессора и обычно не быстрее, чем CPU→GPU.",
                           "Without P2P the data goes through host memory and is usually no faster than CPU→GPU."));
  result.tables.push_back(copies);
  result.summary = T(fmt::format("P2P: {} из {} пар; до {} ГБ/с", peers, count * (count - 1), Figure(best)),
                     fmt::format("P2P: {} of {} pairs; up to {} GB/s", peers, count * (count - 1), Figure(best)));
  return result;
}

}  // namespace labcheck::gpu
