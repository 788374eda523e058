// The NCCL_DEBUG=INFO parser on log lines in the shapes NCCL 2.1x–2.2x prints them.
#include <gtest/gtest.h>

#include "gpu/collective/nccl_log.h"

namespace labcheck::gpu {
namespace {

constexpr const char* kTwoGpusP2P = R"(box:12345:12345 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>
box:12345:12345 [0] NCCL INFO cudaDriverVersion 12080
box:12345:12345 [0] NCCL INFO NCCL version 2.21.5+cuda12.4
box:12345:12399 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read
box:12345:12400 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/CUMEM/read
box:12345:12399 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/CUMEM/read
box:12345:12399 [0] NCCL INFO Connected all rings
box:12345:12399 [0] NCCL INFO comm 0x55d0c1a0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 commId 0x1 - Init COMPLETE
)";

TEST(NcclLog, ReadsVersionTransportAndCompletion) {
  NcclLogSummary s = ParseNcclLog(kTwoGpusP2P);
  EXPECT_EQ(s.version, "2.21.5+cuda12.4");
  EXPECT_EQ(s.transports.at("P2P"), 3);
  EXPECT_EQ(s.paths, (std::set<std::string>{"P2P/CUMEM/read"}));
  EXPECT_TRUE(s.init_complete);
  EXPECT_TRUE(s.warnings.empty());
  EXPECT_EQ(TransportSummary(s), "P2P");
}

TEST(NcclLog, SharedMemoryNetworkAndSendReceiveForms) {
  NcclLogSummary s = ParseNcclLog(
      "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct\r\n"
      "h:1:2 [1] NCCL INFO Channel 02/0 : 1[1] -> 3[1] [receive] via NET/IB/2/GDRDMA\n"
      "h:1:2 [1] NCCL INFO Channel 01/0 : 3[1] -> 1[1] [send] via NET/Socket/0\n"
      "h:1:2 [1] NCCL INFO Channel 00/0 : 3[1] -> 2[0] via P2P/IPC\n");
  EXPECT_EQ(s.transports.at("SHM"), 1);
  EXPECT_EQ(s.transports.at("NET"), 2);
  EXPECT_EQ(s.paths.count("NET/IB/2/GDRDMA"), 1u);
  EXPECT_EQ(s.paths.count("P2P/IPC"), 1u);
  EXPECT_EQ(TransportSummary(s), "P2P+SHM+NET");
  EXPECT_FALSE(s.init_complete);
}

TEST(NcclLog, WarningsAndTheLastLineOfAHang) {
  NcclLogSummary s = ParseNcclLog(
      "h:1:2 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1\n"
      "h:1:2 [0] NCCL WARN Error: failed to extend /dev/shm/nccl-abc to 9637892 bytes\n"
      "h:1:2 [0] NCCL INFO Channel 00/1 : 0[0] -> 1[1] via SHM/direct/direct\n\n");
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0], "Error: failed to extend /dev/shm/nccl-abc to 9637892 bytes");
  EXPECT_EQ(s.last_line, "h:1:2 [0] NCCL INFO Channel 00/1 : 0[0] -> 1[1] via SHM/direct/direct");
  EXPECT_EQ(s.lines, 3);
}

TEST(NcclLog, UnrelatedTextNamesNoTransport) {
  NcclLogSummary s = ParseNcclLog("some library printed via something -> else\nNCCL INFO Using network Socket\n");
  EXPECT_TRUE(s.transports.empty());
  EXPECT_EQ(TransportSummary(s), "unknown");
  EXPECT_EQ(TransportSummary(ParseNcclLog("")), "unknown");
}

}  // namespace
}  // namespace labcheck::gpu
