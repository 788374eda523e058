// The fleet table from many nodes' node-check JSONs: files, folders, JSON Lines as srun gathers
// them; sick nodes first with their slowest card and worst finding.
#include <sstream>

#include <gtest/gtest.h>

#include "node_check/outputs/node_fleet.h"
#include "node_check/outputs/node_report.h"
#include "platform/files.h"

namespace labcheck::node_check {
namespace {

using nlohmann::json;

json Report(const std::string& node, const std::string& verdict, std::vector<double> tflops, json findings = json::array()) {
  json gpus = json::array();
  for (size_t i = 0; i < tflops.size(); ++i) gpus.push_back({{"index", i}, {"matmul_tflops", tflops[i]}});
  return {{"kind", kNodeReportKind}, {"node", node}, {"verdict", verdict}, {"gpus", gpus}, {"findings", findings},
          {"line", verdict == "UNKNOWN" ? "UNKNOWN: no NVIDIA driver" : verdict}};
}

TEST(NodeFleet, SickNodesFirstWithTheirWorstFinding) {
  const json findings = json::array({{{"gpu", 5}, {"item", "persistence_mode"}, {"text", "GPU5 persistence mode off"}},
                                     {{"gpu", 3}, {"item", "remapped_rows"}, {"text", "GPU3 row remap failed"}}});
  const std::vector<FleetRow> rows = FleetRows(
      {Report("gpu02", "OK", {721, 715}), Report("gpu01", "FAIL", {720, 610}, findings), Report("gpu03", "UNKNOWN", {})},
      Lang::En);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].node, "gpu01");
  EXPECT_EQ(rows[0].slowest_card, "GPU1 610 TFLOPS");
  EXPECT_EQ(rows[0].worst, "GPU3 row remap failed (+1 more)");
  EXPECT_EQ(rows[1].node, "gpu03");
  EXPECT_EQ(rows[1].worst, "UNKNOWN: no NVIDIA driver");
  EXPECT_EQ(rows[2].worst, "—");
  const std::string table = FleetTable(rows, Lang::En);
  EXPECT_NE(table.find("Nodes: 3, FAIL: 1, unknown: 1, OK: 1"), std::string::npos) << table;
}

TEST(NodeFleet, CompareReadsFilesFoldersAndJsonLines) {
  const std::string dir = *MakePrivateTempDir("node_fleet_test");
  ASSERT_TRUE(WriteFileAtomically(dir + "/nodes/gpu01.json", Report("gpu01", "OK", {700}).dump(2)).ok());
  ASSERT_TRUE(WriteFileAtomically(dir + "/nodes/gpu02.json", Report("gpu02", "FAIL", {500}).dump(2)).ok());
  // srun's stdout: one object per line, with a line of its own between them.
  ASSERT_TRUE(WriteFileAtomically(dir + "/fleet.jsonl", Report("gpu03", "OK", {690}).dump() + "\nsrun: warning\n" +
                                                            Report("gpu04", "OK", {695}).dump() + "\n").ok());
  std::ostringstream out, err;
  std::optional<int> code = CompareFleet({dir + "/nodes", dir + "/fleet.jsonl"}, true, Lang::En, out, err);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 0) << err.str();
  const json rows = json::parse(out.str());
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0]["node"], "gpu02");
  // A glob the shell did not expand.
  std::ostringstream out2, err2;
  EXPECT_EQ(CompareFleet({dir + "/nodes/*.json"}, false, Lang::En, out2, err2), 0);
  EXPECT_NE(out2.str().find("gpu01"), std::string::npos);
  // Two lab reports are not ours: compare's own comparison takes them.
  ASSERT_TRUE(WriteFileAtomically(dir + "/a.json", R"({"checks": []})").ok());
  std::ostringstream out3, err3;
  EXPECT_FALSE(CompareFleet({dir + "/a.json", dir + "/a.json"}, false, Lang::En, out3, err3).has_value());
  // A node report then a file without one: an error naming the file.
  std::ostringstream out4, err4;
  EXPECT_EQ(CompareFleet({dir + "/nodes/gpu01.json", dir + "/a.json"}, false, Lang::En, out4, err4), 2);
  EXPECT_NE(err4.str().find("a.json"), std::string::npos);
  RemoveTree(dir);
}

}  // namespace
}  // namespace labcheck::node_check
