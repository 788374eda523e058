// `node-check --prometheus FILE`: the text format on a hand-made verdict (escapes, zero-filled XID
// classes), then the real binary's file on a simulated machine checked by Prometheus' own tools
// where they are installed (scripts/install-deps.sh --with-tests): `promtool check metrics`
// accepts it, and Debian's prometheus-node-exporter, started on 127.0.0.1 with its textfile
// collector on the file's folder, serves the metrics on a scrape.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "cluster_run_support.h"
#include "core/build_commit.h"
#include "daemon_support.h"
#include "node_check/outputs/prometheus_metrics.h"
#include "node_check_run.h"
#include "platform/files.h"
#include "runner/cancel.h"

namespace labcheck::node_check {
namespace {

using nlohmann::json;

bool Has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// The value of the sample whose name and labels are `series` ("name{labels}"), or -1.
double Sample(const std::string& text, const std::string& series) {
  const size_t at = text.find("\n" + series + " ");
  return at == std::string::npos ? -1 : std::stod(text.substr(at + series.size() + 2));
}

TEST(PrometheusMetrics, EscapesLabelsAndGivesEveryXidClassASample) {
  NodeVerdict v;
  v.gpus = json::array({{{"index", 0}, {"name", R"(Card "X" \ 1)"}, {"matmul_tflops", 700.5}, {"copy_gbps", 2900.0}}});
  v.xids = json::array({{{"gpu", 0}, {"xid", 48}, {"class", "reset"}, {"source", "kernel_log"}, {"fails", true}}});
  v.findings.push_back({0, "xid_kernel_log", Text("XID 48")});
  v.state = NodeState::Unhealthy;
  v.timings["total_s"] = 4.5;
  const json payload = {{"inventory", {{"gpus", {{{"uuid", "GPU-1234"}}}}}}};
  const std::string text = PrometheusText(v, payload, 1765000000);
  EXPECT_TRUE(Has(text, "# TYPE lab_check_node_healthy gauge\nlab_check_node_healthy 0\n")) << text;
  EXPECT_TRUE(Has(text, "lab_check_node_simulated 0\n")) << text;
  EXPECT_TRUE(Has(text, std::string("lab_check_build_info{version=\"") + LAB_CHECK_VERSION + "\",commit=\"" +
                            std::string(BuildCommit()) + "\"} 1\n"))
      << text;
  EXPECT_EQ(Sample(text, "lab_check_node_check_duration_seconds"), 4.5) << text;
  const std::string labels = R"(gpu="0",uuid="GPU-1234",model="Card \"X\" \\ 1")";
  EXPECT_EQ(Sample(text, "lab_check_gpu_matmul_flops_per_second{" + labels + "}"), 700.5e12) << text;
  EXPECT_EQ(Sample(text, "lab_check_gpu_device_copy_bytes_per_second{" + labels + "}"), 2900e9) << text;
  EXPECT_TRUE(Has(text, "lab_check_gpu_xids{" + labels + R"(,class="reset",source="kernel_log"} 1)")) << text;
  EXPECT_TRUE(Has(text, "lab_check_gpu_xids{" + labels + R"(,class="reboot",source="during_check"} 0)")) << text;
  EXPECT_TRUE(Has(text, "lab_check_gpu_xids_failing{" + labels + R"(,class="reset"} 1)")) << text;
  EXPECT_FALSE(Has(text, "lab_check_gpu_nvlinks_active")) << "no NVLink figure, no family";
  EXPECT_FALSE(WritePrometheusFile("/tmp/metrics.txt", text).ok());
}

// Issue 44: each finding by code, card and severity (held or not), and the node's findings per
// severity with every severity sampled; only failing findings count as keeping the node out.
TEST(PrometheusMetrics, FindingsByCodeAndSeverity) {
  NodeVerdict v;
  v.gpus = json::array({{{"index", 0}, {"name", "H100"}, {"uuid", "GPU-1"}}});
  v.findings.push_back({0, "remapped_rows_pending", Text("row remap pending a reset")});
  v.findings.push_back({0, "ecc_corrected", Text("many corrected errors")});
  for (const char* device : {"mlx5_1", "mlx5_2"}) {
    Finding port{-1, "network_port", Text(std::string(device) + " port 1 (compute): down")};
    port.pci_bus_id = device == std::string("mlx5_1") ? "0000:29:00.0" : "0000:29:00.1";
    port.device = device;
    port.port = 1;
    v.findings.push_back(port);
  }
  Classify(v, {"LC108"});
  const std::string text = PrometheusText(v, json::object(), 0);
  EXPECT_EQ(Sample(text, R"(lab_check_finding{code="LC204",severity="reset",gpu="0",uuid="GPU-1",held="false",pci_bus_id="",device="",port=""})"), 1) << text;
  EXPECT_EQ(Sample(text, R"(lab_check_finding{code="LC208",severity="monitor",gpu="0",uuid="GPU-1",held="false",pci_bus_id="",device="",port=""})"), 1) << text;
  // Issue 53: each port's finding names its card, device and port.
  EXPECT_EQ(Sample(text, R"(lab_check_finding{code="LC108",severity="isolate",gpu="",uuid="",held="true",pci_bus_id="0000:29:00.0",device="mlx5_1",port="1"})"),
            1)
      << text;
  EXPECT_EQ(Sample(text, R"(lab_check_finding{code="LC108",severity="isolate",gpu="",uuid="",held="true",pci_bus_id="0000:29:00.1",device="mlx5_2",port="1"})"),
            1)
      << text;
  EXPECT_EQ(Sample(text, R"(lab_check_node_findings_by_severity{severity="isolate"})"), 2) << text;
  EXPECT_EQ(Sample(text, R"(lab_check_node_findings_by_severity{severity="config"})"), 0) << text;
  EXPECT_EQ(Sample(text, "lab_check_node_findings"), 1) << "only the pending remap keeps the node out: " << text;
}

// What --drain did, one sample with the action: an alert can fire on a drain the cap held back or a
// drain that failed; nothing when --drain was not asked.
TEST(PrometheusMetrics, TheDrainDecision) {
  NodeVerdict v;
  EXPECT_FALSE(Has(PrometheusText(v, json::object(), 0), "lab_check_node_drain"));
  const std::string held = PrometheusText(v, json::object(), 0, {{"action", "held_by_cap"}, {"ran", false}, {"ok", false}});
  EXPECT_EQ(Sample(held, R"(lab_check_node_drain{action="held_by_cap",ok="true"})"), 1) << held;
  const std::string failed = PrometheusText(v, json::object(), 0, {{"action", "drained"}, {"ran", true}, {"ok", false}});
  EXPECT_EQ(Sample(failed, R"(lab_check_node_drain{action="drained",ok="false"})"), 1) << failed;
  const std::string none = PrometheusText(v, json::object(), 0, {{"action", "no_slurm"}, {"ran", false}, {"ok", false}});
  EXPECT_EQ(Sample(none, R"(lab_check_node_drain{action="no_slurm",ok="false"})"), 1) << none;
}

// Issue 45's figures: the driver's recovery action per card, the GPUs on the bus (not for a run
// given some cards), each InfiniBand port's state and rate.
TEST(PrometheusMetrics, RecoveryActionBusAndPorts) {
  NodeVerdict v;
  v.gpus = json::array({{{"index", 0}, {"name", "H100"}}});
  json payload = {{"inventory", {{"gpus", {{{"uuid", "GPU-1"}}}}}},
                  {"health", {{"gpus", {{{"facts", {{"recovery_action", "gpu_reset"}}}}}}}},
                  {"pci_bus", {{"gpus", {"0000:18:00.0", "0000:2a:00.0"}}, {"nvswitches", json::array()}}},
                  {"network_ports", {{{"device", "mlx5_0"}, {"port", 1}, {"state", "ACTIVE"}, {"phys_state", "LinkUp"}, {"rate_gbit", 400.0},
                                      {"pci_bus_id", "0000:18:00.0"}, {"role", "compute"}},
                                     {{"device", "mlx5_1"}, {"port", 1}, {"state", "DOWN"}, {"phys_state", "Disabled"}, {"rate_gbit", 10.0},
                                      {"pci_bus_id", nullptr}}}}};
  std::string text = PrometheusText(v, payload, 0);
  EXPECT_EQ(Sample(text, R"(lab_check_gpu_recovery_action{gpu="0",uuid="GPU-1",model="H100",action="gpu_reset"})"), 1) << text;
  EXPECT_EQ(Sample(text, "lab_check_node_gpus_on_pci_bus"), 2) << text;
  EXPECT_EQ(Sample(text, R"(lab_check_network_port_up{device="mlx5_0",port="1",pci_bus_id="0000:18:00.0",role="compute"})"), 1) << text;
  EXPECT_EQ(Sample(text, R"(lab_check_network_port_up{device="mlx5_1",port="1",pci_bus_id="",role=""})"), 0) << text;
  EXPECT_EQ(Sample(text, R"(lab_check_network_port_rate_bytes_per_second{device="mlx5_0",port="1",pci_bus_id="0000:18:00.0",role="compute"})"),
            50e9)
      << text;
  payload["pci_bus"]["partial"] = "CUDA_VISIBLE_DEVICES=0";
  payload["health"]["gpus"][0]["facts"]["recovery_action"] = {{"na", "old driver"}};
  text = PrometheusText(v, payload, 0);
  EXPECT_FALSE(Has(text, "lab_check_node_gpus_on_pci_bus")) << text;
  EXPECT_FALSE(Has(text, "lab_check_gpu_recovery_action")) << "no field, no sample";
}

// GET http://127.0.0.1:port/metrics; "" when nothing answers.
std::string Scrape(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string body;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    const std::string request = "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      char buffer[65536];
      for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0;) body.append(buffer, static_cast<size_t>(n));
    }
  }
  close(fd);
  return body;
}

class PrometheusSim : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::SimPresent()) GTEST_SKIP() << "no simulated NVIDIA libraries in " << testing::SimDir();
    dir_ = *MakePrivateTempDir("lab_check_prom");
    chmod(dir_.c_str(), 0755);
  }
  void TearDown() override {
    testing::Stop(exporter_);
    if (!dir_.empty()) RemoveTree(dir_);
  }
  std::string dir_;
  pid_t exporter_ = -1;
};

TEST_F(PrometheusSim, PromtoolAcceptsTheFileAndNodeExporterServesIt) {
  const std::string file = dir_ + "/lab_check.prom";
  testing::Run run = testing::NodeCheck("course-4x4080.json", {"--prometheus", file});
  ASSERT_EQ(run.outcome.exit_code, 0) << run.outcome.out << run.outcome.err;
  Result<std::string> text = ReadFile(file);
  ASSERT_TRUE(text.ok());
  EXPECT_TRUE(Has(*text, "lab_check_node_healthy 1\n")) << *text;
  EXPECT_TRUE(Has(*text, "lab_check_node_simulated 1\n")) << *text;
  EXPECT_TRUE(Has(*text, R"(lab_check_gpu_pcie_link_generation{gpu="3",uuid=")")) << *text;
  for (const auto& entry : std::filesystem::directory_iterator(dir_))
    EXPECT_EQ(entry.path().filename(), "lab_check.prom") << "the temporary file is renamed, not left beside it";

  const std::string promtool = testing::Which("promtool");
  if (promtool.empty()) GTEST_SKIP() << "no promtool: install Debian's prometheus (scripts/install-deps.sh --with-tests)";
  ChildSpec check;
  check.argv = {"/bin/sh", "-c", "exec \"$0\" check metrics < \"$1\"", promtool, file};
  check.timeout_s = 30;
  const ChildOutcome lint = RunChild(check, CancelToken::Never());
  EXPECT_TRUE(lint.exited_ok()) << lint.Describe() << "\n" << lint.out << lint.err;

  const std::string exporter = testing::Which("prometheus-node-exporter");
  if (exporter.empty()) GTEST_SKIP() << "no prometheus-node-exporter (scripts/install-deps.sh --with-tests)";
  const int port = cluster::testing::FreePortPair();
  exporter_ = testing::Spawn({testing::Which("timeout"), "60", exporter, "--web.listen-address=127.0.0.1:" + std::to_string(port),
                              "--collector.disable-defaults", "--collector.textfile", "--collector.textfile.directory=" + dir_},
                             dir_ + "/node_exporter.log", {});
  std::string scraped;
  for (int i = 0; i < 100 && !Has(scraped, "lab_check_node_healthy"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    scraped = Scrape(port);
  }
  Result<std::string> log = ReadFile(dir_ + "/node_exporter.log");
  EXPECT_TRUE(Has(scraped, "lab_check_node_healthy 1")) << scraped.substr(0, 2000) << (log.ok() ? *log : "");
  EXPECT_TRUE(Has(scraped, R"(lab_check_gpu_matmul_flops_per_second{gpu="0")")) << scraped.substr(0, 2000);
  EXPECT_TRUE(Has(scraped, "node_textfile_scrape_error 0")) << scraped.substr(0, 2000);
}

}  // namespace
}  // namespace labcheck::node_check
