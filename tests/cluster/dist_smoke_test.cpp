// `lab_check smoke-dist` on two "nodes" of this machine: two copies on 127.0.0.1 with --nnodes 2
// meet through torchrun's c10d rendezvous and train DDP over gloo; exactly one reports the
// comparison with one process, the other that its rank finished.
#include <gtest/gtest.h>

#include <filesystem>

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

// smoke-dist publishes through report/publish.h as every command does. Before, its own copy wrote
// the failure in English only ("cannot write ..."), printed no JSON for a report it could not write
// and no "Report:" line for one it wrote. An interpreter without torch (python3 -S) makes the run
// end at once with a verdict, so this needs no torch.
class DistSmokePublish : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = *MakePrivateTempDir("lab_check_smoke_publish");
    python_ = dir_ + "/python-without-torch";
    ASSERT_TRUE(WriteFileAtomically(python_, "#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n").ok());
    std::filesystem::permissions(python_, std::filesystem::perms::owner_all);
  }
  void TearDown() override { RemoveTree(dir_); }
  ChildOutcome Run(const std::vector<std::string>& extra) {
    ChildSpec spec;
    spec.argv = {LAB_CHECK_BINARY, "smoke-dist", "--test", "ddp", "--nnodes", "1", "--nproc-per-node", "1", "--python", python_, "--timeout", "60"};
    spec.argv.insert(spec.argv.end(), extra.begin(), extra.end());
    spec.set_env = {{"LABCHECK_SMOKE_FORCE_CPU", "1"}};
    spec.timeout_s = 120;
    return RunChild(spec, CancelToken::Never());
  }
  std::string dir_, python_;
};

TEST_F(DistSmokePublish, AReportItCannotWriteIsNamedInRussianExitsThreeAndStillPrintsTheJson) {
  if (!std::filesystem::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  ASSERT_TRUE(WriteFileAtomically(dir_ + "/a-file", "not a folder\n").ok());
  ChildOutcome out = Run({"--out", dir_ + "/a-file/cluster-ddp.md"});
  ASSERT_TRUE(out.started) << out.start_error;
  EXPECT_EQ(out.exit_code, 3) << out.Describe() << out.err;
  EXPECT_NE(out.err.find("lab_check smoke-dist: не удалось записать отчёт"), std::string::npos) << out.err;
  EXPECT_EQ(out.err.find("cannot write"), std::string::npos) << out.err;
  // The JSON first, then the terminal view (as the full check does).
  const size_t end = out.out.find("\n}\n");
  ASSERT_EQ(out.out.rfind("{\n  \"checks\"", 0), 0u) << out.out;
  ASSERT_NE(end, std::string::npos) << out.out;
  json j = json::parse(out.out.substr(0, end + 3), nullptr, false);
  ASSERT_TRUE(j.is_object()) << out.out;
  EXPECT_EQ(j["checks"][0]["id"], "smoke.ddp");
}

TEST_F(DistSmokePublish, AWrittenReportEndsWithTheReportLine) {
  if (!std::filesystem::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  const std::string md = dir_ + "/cluster-ddp.md";
  ChildOutcome out = Run({"--out", md, "--lang", "en"});
  ASSERT_TRUE(out.started) << out.start_error;
  EXPECT_TRUE(out.exit_code == 0 || out.exit_code == 1) << out.Describe() << out.err;
  EXPECT_TRUE(std::filesystem::exists(md));
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/cluster-ddp.json"));
  EXPECT_NE(out.out.find("Report: "), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("cluster-ddp.md, "), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("cluster-ddp.json"), std::string::npos) << out.out;
}

}  // namespace
}  // namespace labcheck::cluster
