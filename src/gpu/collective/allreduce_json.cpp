#include "gpu/collective/allreduce_json.h"

#include "gpu/collective/allreduce_math.h"

namespace labcheck::gpu {

namespace {

nlohmann::json OrNull(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

}  // namespace

void AddNcclTestsFigures(nlohmann::json& size, size_t bytes, const std::vector<double>& host_times_us, int world) {
  const std::optional<NcclTestsFigures> f = NcclTestsFiguresFor(bytes, host_times_us, world);
  size["time_us_nccl_tests"] = f ? nlohmann::json(f->time_us) : nlohmann::json(nullptr);
  size["algbw_gbps_nccl_tests"] = f ? nlohmann::json(f->algbw_gbps) : nlohmann::json(nullptr);
  size["busbw_gbps_nccl_tests"] = f ? OrNull(f->busbw_gbps) : nlohmann::json(nullptr);
}

nlohmann::json SizesJson(const std::vector<SizeResult>& sizes, bool all_ranks_here, int world) {
  nlohmann::json list = nlohmann::json::array();
  for (const SizeResult& s : sizes) {
    nlohmann::json size = {{"bytes", s.bytes},           {"time_ms", s.time_ms},
                           {"algbw_gbps", s.algbw_gbps}, {"busbw_gbps", OrNull(s.busbw_gbps)},
                           {"host_time_us", s.host_time_us}, {"correct", s.correct}};
    if (all_ranks_here) AddNcclTestsFigures(size, s.bytes, {s.host_time_us}, world);
    list.push_back(size);
  }
  return list;
}

}  // namespace labcheck::gpu
