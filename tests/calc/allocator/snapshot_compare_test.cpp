// vram --compare-snapshot FILE sets the replay's segments after the last step against a memory
// snapshot of a real run (torch.cuda.memory._snapshot(), as scripts/device/measure_vram_peak.py
// writes it). No real snapshot is committed yet (no GPU has been lent to this project: see
// docs/gpu-results.md); these tests write their own file in the snapshot's format from the replay
// itself (self-written, not a measurement), to hold the reading and the comparison: the same
// segments compare equal, an extra segment on another stream shows where it is.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <unistd.h>
#include <fstream>

#include <nlohmann/json.hpp>

#include "../calc_cli.h"
#include "../catalog_model.h"
#include "calc/allocator/replay.h"
#include "calc/allocator/training_trace.h"
#include "calc/calc_constants.h"

namespace labcheck::calc::allocator {
namespace {

const std::vector<std::string> kArgs = {"vram", "qwen3-0.6b", "--method", "lora", "--seq", "1024", "--no-checkpointing"};

// The replay's own segments, written as torch.cuda.memory._snapshot()'s "segments" (self-written).
nlohmann::json SnapshotOfTheReplay() {
  TrainingSettings s;
  s.method = Method::Lora;
  s.seq = 1024;
  const auto trace = TrainingTrace(testing::CatalogModel("qwen3-0.6b"), s, CalcConstants::Builtin());
  EXPECT_TRUE(trace.ok());
  ReplayLimits limits;
  limits.snapshot = true;
  const ReplayResult run = Replay(*trace, AllocatorConfig::Defaults(AllocatorConstants::Builtin()), limits);
  nlohmann::json segments = nlohmann::json::array();
  for (const SegmentInfo& seg : run.segments_at_end) {
    segments.push_back({{"address", seg.address}, {"total_size", seg.total_size}, {"allocated_size", seg.allocated_size},
                        {"stream", seg.stream}, {"segment_type", seg.is_large ? "large" : "small"}});
  }
  return {{"self_written", "lab_check's own replay in the snapshot's format, not a run"},
          {"segments", segments},
          {"max_memory_reserved_bytes", run.reserved_peak},
          {"max_memory_allocated_bytes", run.allocated_peak}};
}

std::string WriteFile(const nlohmann::json& j, const std::string& name) {
  const std::string path = (std::filesystem::temp_directory_path() / (name + std::to_string(::getpid()) + ".json")).string();
  std::ofstream(path) << j.dump();
  return path;
}

nlohmann::json Compare(const std::string& path) {
  std::vector<std::string> args = kArgs;
  args.insert(args.end(), {"--compare-snapshot", path, "--json"});
  const testing::CliRun run = testing::RunCalc(args, Lang::En);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return nlohmann::json::parse(run.out).at("memory").at("replay").at("snapshot_comparison");
}

TEST(SnapshotCompareTest, TheReplaysOwnSegmentsCompareEqual) {
  const std::string path = WriteFile(SnapshotOfTheReplay(), "lab_check_snapshot_same_");
  const nlohmann::json c = Compare(path);
  EXPECT_DOUBLE_EQ(c.at("reserved_ratio").get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(c.at("max_reserved_ratio").get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(c.at("allocated_ratio").get<double>(), 1.0);
  EXPECT_EQ(c.at("replay").at("segments_large"), c.at("measured").at("segments_large"));
  EXPECT_EQ(c.at("replay").at("largest_segments_bytes"), c.at("measured").at("largest_segments_bytes"));
  std::remove(path.c_str());
}

TEST(SnapshotCompareTest, AnExtraSegmentShowsInItsPoolAndStream) {
  nlohmann::json snapshot = SnapshotOfTheReplay();
  const uint64_t extra = uint64_t{100} << 20;
  snapshot.at("segments").push_back({{"total_size", extra}, {"allocated_size", 0}, {"stream", 94000000}, {"segment_type", "large"}});
  const std::string path = WriteFile(snapshot, "lab_check_snapshot_extra_");
  const nlohmann::json c = Compare(path);
  EXPECT_LT(c.at("reserved_ratio").get<double>(), 1.0);
  EXPECT_EQ(c.at("measured").at("reserved_other_streams_bytes").get<uint64_t>(),
            c.at("replay").at("reserved_other_streams_bytes").get<uint64_t>() + extra);
  EXPECT_EQ(c.at("measured").at("segments_large").get<int>(), c.at("replay").at("segments_large").get<int>() + 1);
  std::remove(path.c_str());
}

TEST(SnapshotCompareTest, AFileThatIsNoSnapshotIsRefusedWithWhatIsWrong) {
  const std::string path = WriteFile({{"blocks", nlohmann::json::array()}}, "lab_check_snapshot_bad_");
  std::vector<std::string> args = kArgs;
  args.insert(args.end(), {"--compare-snapshot", path});
  const testing::CliRun run = testing::RunCalc(args, Lang::En);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("no \"segments\" list"), std::string::npos) << run.err;
  std::remove(path.c_str());
  args.back() = "/nonexistent/snapshot.json";
  EXPECT_NE(testing::RunCalc(args, Lang::En).err.find("cannot read the file"), std::string::npos);
  EXPECT_NE(testing::RunCalc(args, Lang::Ru).err.find("файл не прочитать"), std::string::npos);
}

// A segment whose size is not a count (a hand-edited or foreign file) is refused, not a crash of
// the JSON reader.
TEST(SnapshotCompareTest, ASegmentWithoutACountForItsSizeIsRefused) {
  for (const nlohmann::json& segment : {nlohmann::json{{"total_size", "20971520"}, {"segment_type", "large"}},
                                        nlohmann::json{{"total_size", 20971520}, {"segment_type", "large"}, {"allocated_size", -1}},
                                        nlohmann::json{{"segment_type", "small"}}}) {
    nlohmann::json snapshot;
    snapshot["segments"] = nlohmann::json::array({segment});
    const auto read = ReadSnapshot(snapshot);
    ASSERT_FALSE(read.ok()) << segment.dump();
    EXPECT_NE(read.status().message().find("a segment without total_size"), std::string::npos) << read.status().message();
  }
  nlohmann::json good;
  good["segments"] = nlohmann::json::array({nlohmann::json{{"total_size", 20971520}, {"segment_type", "large"}, {"stream", 0}}});
  EXPECT_TRUE(ReadSnapshot(good).ok()) << ReadSnapshot(good).status().message();
}

}  // namespace
}  // namespace labcheck::calc::allocator
