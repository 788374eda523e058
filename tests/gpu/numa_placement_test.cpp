// Host buffers on the GPU's own NUMA node (bench/numa_placement.h): where the GPU's CPUs and node
// are read from, pinning the thread and giving its CPUs back, and one pool buffer per node.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <filesystem>
#include <fstream>

#include "fake_nvidia.h"
#include "gpu/bench/host_buffers.h"
#include "gpu/bench/numa_placement.h"
#include "platform/files.h"

namespace labcheck::gpu {
namespace {

namespace fs = std::filesystem;

std::vector<int> ThreadCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  pthread_getaffinity_np(pthread_self(), sizeof set, &set);
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus;
}

// A fake /sys: two nodes, CPU `a` on node 0 and CPU `b` on node 1, and one GPU's PCI entry.
struct FakeSys {
  std::string root;
  FakeSys(int a, int b) {
    root = *MakePrivateTempDir("labcheck_sys");
    Write("devices/system/node/node0/cpulist", std::to_string(a));
    Write("devices/system/node/node1/cpulist", std::to_string(b));
    Write("devices/system/node/online", "0-1");
  }
  ~FakeSys() { RemoveTree(root); }
  void Write(const std::string& path, const std::string& text) const {
    fs::create_directories(fs::path(root + "/" + path).parent_path());
    std::ofstream(root + "/" + path) << text << "\n";
  }
};

constexpr const char* kBus = "0000:3b:00.0";

TEST(NumaPlacement, SysfsGivesTheGpusCpusAndNode) {
  const std::vector<int> mine = ThreadCpus();
  ASSERT_FALSE(mine.empty());
  FakeSys sys(mine.front(), mine.back() + 1);
  sys.Write(std::string("bus/pci/devices/") + kBus + "/local_cpulist", std::to_string(mine.front()));
  sys.Write(std::string("bus/pci/devices/") + kBus + "/numa_node", "0");
  NumaPlacement p = FindNumaPlacement(nullptr, nullptr, kBus, sys.root);
  EXPECT_EQ(p.cpus, std::vector<int>{mine.front()});
  EXPECT_EQ(p.node, std::optional<int>(0));
  EXPECT_EQ(p.source, "sysfs");
  EXPECT_EQ(PlacementKey(p), "cpus " + std::to_string(mine.front()));
}

TEST(NumaPlacement, NvmlCpusFirstAndTheNodeFromTheCpuListsWhenTheDeviceHasNone) {
  const std::vector<int> mine = ThreadCpus();
  const int cpu = mine.back();
  FakeSys sys(cpu + 1, cpu);  // the thread's CPU is on node 1
  sys.Write(std::string("bus/pci/devices/") + kBus + "/numa_node", "-1");  // no NUMA information
  static int wanted;
  wanted = cpu;
  nvml::NvmlApi api;
  api.nvmlDeviceGetCpuAffinity = [](nvml::nvmlDevice_t, unsigned size, unsigned long* set) -> nvml::nvmlReturn_t {
    for (unsigned i = 0; i < size; ++i) set[i] = 0;
    set[wanted / 64] |= 1ul << (wanted % 64);
    return nvml::kSuccess;
  };
  std::unique_ptr<Nvml> nvml = Nvml::FromApi(api);
  NumaPlacement p = FindNumaPlacement(nvml.get(), reinterpret_cast<nvml::nvmlDevice_t>(1), kBus, sys.root);
  EXPECT_EQ(p.source, "nvml");
  EXPECT_EQ(p.cpus, std::vector<int>{cpu});
  EXPECT_EQ(p.node, std::optional<int>(1));
}

TEST(NumaPlacement, CpusThisProcessMayNotUseAreNotPinnedTo) {
  const std::vector<int> mine = ThreadCpus();
  FakeSys sys(0, 1);
  const int foreign = CPU_SETSIZE - 1;  // no test machine lets us run there
  ASSERT_EQ(std::count(mine.begin(), mine.end(), foreign), 0);
  sys.Write(std::string("bus/pci/devices/") + kBus + "/local_cpulist", std::to_string(foreign));
  NumaPlacement p = FindNumaPlacement(nullptr, nullptr, kBus, sys.root);
  EXPECT_TRUE(p.cpus.empty());
  EXPECT_NE(p.note.find("not among"), std::string::npos) << p.note;
  EXPECT_EQ(PlacementKey(p), "");

  NumaPlacement nothing = FindNumaPlacement(nullptr, nullptr, "0000:99:00.0", sys.root);
  EXPECT_TRUE(nothing.cpus.empty());
  EXPECT_FALSE(nothing.note.empty());
}

TEST(NumaPlacement, TheThreadIsPinnedAndGetsItsCpusBack) {
  const std::vector<int> before = ThreadCpus();
  {
    ScopedCpuAffinity pinned({before.back()});
    ASSERT_TRUE(pinned.status().ok()) << pinned.status().message();
    EXPECT_EQ(ThreadCpus(), std::vector<int>{before.back()});
  }
  EXPECT_EQ(ThreadCpus(), before);
  ScopedCpuAffinity nothing({});  // no CPUs known: the thread stays as it is
  EXPECT_EQ(ThreadCpus(), before);
}

TEST(NumaPlacement, ThePoolKeepsABufferPerNode) {
  fake::FakeMachine& m = fake::FakeMachine::Reset(1);
  std::unique_ptr<CudaDriver> driver = CudaDriver::FromApi(fake::FakeCudaApi(), 13000);
  HostBufferPool pool(*driver);
  void* near = nullptr;
  {
    Result<HostBufferPool::Lease> a = pool.Take(HostMemory::Pinned, 1 << 20, "cpus 0");
    ASSERT_TRUE(a.ok());
    near = a->get();
  }
  {
    Result<HostBufferPool::Lease> b = pool.Take(HostMemory::Pinned, 1 << 20, "cpus 1");
    ASSERT_TRUE(b.ok());
    EXPECT_NE(b->get(), near);  // another socket's GPU gets a buffer made on its own node
  }
  Result<HostBufferPool::Lease> again = pool.Take(HostMemory::Pinned, 1 << 20, "cpus 0");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->get(), near);
  EXPECT_EQ(m.Count("cuMemHostAlloc"), 2);
}

TEST(NumaPlacement, CpuListsAreWrittenAsTheKernelWritesThem) {
  EXPECT_EQ(CpuListText({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(CpuListText({}), "");
}

}  // namespace
}  // namespace labcheck::gpu
