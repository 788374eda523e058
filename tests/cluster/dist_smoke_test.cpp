// `lab_check smoke-dist` on two "nodes" of this machine: two copies on 127.0.0.1 with --nnodes 2
// meet through torchrun's c10d rendezvous and train DDP over gloo; exactly one reports the
// comparison with one process, the other that its rank finished.
#include <gtest/gtest.h>

#include "../smoke/torch_python.h"
#include "cluster_run_support.h"
#include "platform/files.h"

namespace labcheck::cluster {
namespace {

using nlohmann::json;

TEST(DistSmoke, DdpAcrossTwoNodesOnGloo) {
  const std::string python = smoke::testing::TorchPython();
  if (python.empty()) GTEST_SKIP() << "no interpreter with torch";
  const std::string dir = *MakePrivateTempDir("lab_check_smoke_dist");
  const int port = testing::FreePortPair();
  std::vector<ChildSpec> specs(2);
  for (int node = 0; node < 2; ++node) {
    specs[node].argv = {LAB_CHECK_BINARY, "smoke-dist", "--test", "ddp", "--nnodes", "2", "--nproc-per-node", "1",
                        "--rdzv-endpoint", "127.0.0.1:" + std::to_string(port), "--rdzv-id", "t" + std::to_string(port),
                        "--python", python, "--json", "--lang", "en", "--timeout", "150",
                        "--out", dir + "/node" + std::to_string(node) + ".md"};
    specs[node].set_env = {{"LABCHECK_SMOKE_FORCE_CPU", "1"}};
    specs[node].timeout_s = 200;
  }
  std::vector<ChildOutcome> out = testing::RunTogether(specs);
  int reports = 0, elsewhere = 0;
  for (int node = 0; node < 2; ++node) {
    ASSERT_TRUE(out[node].exited_ok()) << out[node].Describe() << "\n" << out[node].Tail(40) << out[node].out;
    json j = testing::ReportJson(out[node].out);
    ASSERT_TRUE(j.is_object()) << out[node].out;
    if (j.value("elsewhere", false)) {
      ++elsewhere;
      EXPECT_EQ(j["world_size"], 2);
      continue;
    }
    ++reports;
    ASSERT_EQ(j["checks"].size(), 1u);
    const json& check = j["checks"][0];
    EXPECT_EQ(check["id"], "smoke.ddp");
    EXPECT_EQ(check["status"], "PASS") << check.dump(1);
    EXPECT_EQ(check["data"]["nnodes"], 2);
    EXPECT_EQ(check["data"]["world_size"], 2);
  }
  EXPECT_EQ(reports, 1);
  EXPECT_EQ(elsewhere, 1);
  RemoveTree(dir);
}

}  // namespace
}  // namespace labcheck::cluster
