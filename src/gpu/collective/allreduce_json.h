// A sweep's sizes as the all-reduce child jobs print them (docs/report-schema.md,
// interconnect.allreduce and the rank blocks of cluster.allreduce): per size the event-timed
// figures (time_ms, algbw_gbps, busbw_gbps: the slowest local rank's CUDA-event time) and this
// process's host clock (host_time_us). When one process drives every rank of the communicator
// (one node, ncclCommInitAll), the figures as nccl-tests counts them follow from that clock
// alone (time_us_nccl_tests, algbw_gbps_nccl_tests, busbw_gbps_nccl_tests); across processes the
// merge averages the ranks' host_time_us first (src/cluster/cluster_merge.cpp).
#pragma once
#include <vector>

#include <nlohmann/json.hpp>

#include "gpu/collective/allreduce_bench.h"

namespace labcheck::gpu {

// `all_ranks_here`: this process drives the whole communicator of `world` ranks.
nlohmann::json SizesJson(const std::vector<SizeResult>& sizes, bool all_ranks_here, int world);

// The nccl-tests keys of one size (null figures when there is none), added to `size`.
void AddNcclTestsFigures(nlohmann::json& size, size_t bytes, const std::vector<double>& host_times_us, int world);

}  // namespace labcheck::gpu
