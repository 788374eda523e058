// Machine profiles (lib/core/profile.h): every one starts from lib/core/profile_defaults.json, and a
// key the defaults do not list refuses the profile, naming the key and the file, so that a typo
// cannot quietly become a default and a scenario test less than it says. Links libnvsim-core to
// load profiles in this process; the drivers' refusal is seen through build/sim-nvidia's libcuda
// and NVML in a child process.
#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/profile.h"

namespace labcheck::sim {
namespace {

namespace fs = std::filesystem;

const fs::path kMachines = fs::path(LAB_CHECK_SOURCE_DIR) / "tests/sim/machines";

// A fresh folder for temporary profiles, removed with it.
class TempFolder {
 public:
  TempFolder() {
    char pattern[] = "/tmp/nvsim-profile-XXXXXX";
    path_ = mkdtemp(pattern);
  }
  ~TempFolder() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }
  fs::path Write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name) << text;
    return path_ / name;
  }

 private:
  fs::path path_;
};

TEST(SimProfile, EveryCommittedProfileLoads) {
  int profiles = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(kMachines)) {
    if (entry.path().extension() != ".json") continue;
    ++profiles;
    const nvsim::Machine m = nvsim::LoadMachine(entry.path().string());
    EXPECT_TRUE(m.loaded) << m.error;
    EXPECT_FALSE(m.gpus.empty()) << entry.path();
  }
  EXPECT_GT(profiles, 30);
}

// The defaults fill what a profile leaves out; keys absent by default stay absent; an optional
// object or list entry a profile gives gets the defaults of the keys it omits.
TEST(SimProfile, AProfileStartsFromTheDefaults) {
  TempFolder folder;
  const fs::path path = folder.Write("bare.json", R"({
    "gpus": [{"health": {"mig": {"current": true}}, "nvlink": [{"to": "nvswitch"}]}]})");
  const nvsim::Machine m = nvsim::LoadMachine(path.string());
  ASSERT_TRUE(m.loaded) << m.error;
  EXPECT_EQ(m.String("cuda_driver_version"), "13.0");
  EXPECT_EQ(m.Number("pacing/matmul"), 0.02);
  EXPECT_EQ(m.At("numa/nodes"), nullptr);
  ASSERT_EQ(m.gpus.size(), 1u);
  const nvsim::Gpu& g = m.gpus[0];
  EXPECT_EQ(g.Number("perf/device_copy_gbps"), 500);
  EXPECT_EQ(g.bus_id, "0000:01:00.0");
  EXPECT_EQ(g.cc_major, 8);
  EXPECT_EQ(g.At("perf/kernel_copy_gbps"), nullptr);
  EXPECT_EQ(g.NumberOr("perf/kernel_copy_gbps", 7), 7);
  EXPECT_EQ(g.At("health/remapped_rows"), nullptr);  // optional: absent unless given
  EXPECT_TRUE(g.Flag("health/mig/current"));
  EXPECT_FALSE(g.Flag("health/mig/pending"));  // given: the object's other keys from the defaults
  ASSERT_NE(g.At("nvlink"), nullptr);
  EXPECT_EQ(g.At("nvlink")->at(0).at("count"), 1);
}

// A typo anywhere in the "base" chain is named with its path and the file it is in.
TEST(SimProfile, AnUnknownKeyIsRefusedNamingItAndItsFile) {
  TempFolder folder;
  folder.Write("base.json", R"({"gpu_defaults": {"perf": {"h2d_pinned_gpbs": 30}}, "gpus": [{}]})");
  const fs::path child = folder.Write("child.json", R"({"base": "base.json", "description": "fine"})");
  nvsim::Machine m = nvsim::LoadMachine(child.string());
  EXPECT_FALSE(m.loaded);
  const std::string named = "unknown key \"gpu_defaults/perf/h2d_pinned_gpbs\" in " + (folder.path() / "base.json").string();
  EXPECT_NE(m.error.find(named), std::string::npos) << m.error;

  const fs::path typos = folder.Write("typos.json", R"({"base": ")" + (kMachines / "course-4x4080.json").string() +
                                                        R"(", "pacing": {"matmull": 1.0},
      "gpus": [{}, {"helth": {"xid_events": [79]}}, {"nvlink": [{"to": "gpu", "peer": 0, "cuont": 4}]}]})");
  m = nvsim::LoadMachine(typos.string());
  EXPECT_FALSE(m.loaded);
  for (const char* key : {"\"pacing/matmull\"", "\"gpus[1]/helth\"", "\"gpus[2]/nvlink[0]/cuont\"", "typos.json"})
    EXPECT_NE(m.error.find(key), std::string::npos) << key << " in " << m.error;
}

// The drivers refuse a broken profile loudly: cuInit and nvmlInit fail with their UNKNOWN error
// (not NO_DEVICE, which lab_check rightly skips) and the reason is on stderr.
TEST(SimProfile, TheDriversRefuseABrokenProfileAndSayWhy) {
  TempFolder folder;
  const fs::path profile = folder.Write("typo.json", R"({"base": ")" + (kMachines / "single-h200.json").string() +
                                                         R"(", "allreduce": {"hangs": "always"}})");
  const fs::path err = folder.Write("stderr.txt", "");
  const fs::path sim = fs::path(LAB_CHECK_BINARY).parent_path() / "sim-nvidia";
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = open(err.c_str(), O_WRONLY | O_TRUNC);
    dup2(fd, 2);
    setenv("LABCHECK_SIM_MACHINE", profile.c_str(), 1);
    void* cuda = dlopen((sim / "libcuda.so.1").c_str(), RTLD_NOW | RTLD_LOCAL);
    void* nvml = dlopen((sim / "libnvidia-ml.so.1").c_str(), RTLD_NOW | RTLD_LOCAL);
    if (cuda == nullptr || nvml == nullptr) _exit(10);
    auto cuInit = reinterpret_cast<int (*)(unsigned)>(dlsym(cuda, "cuInit"));
    auto nvmlInit = reinterpret_cast<int (*)()>(dlsym(nvml, "nvmlInit_v2"));
    if (cuInit == nullptr || nvmlInit == nullptr) _exit(11);
    if (cuInit(0) != 999) _exit(12);    // CUDA_ERROR_UNKNOWN
    if (nvmlInit() != 999) _exit(13);   // NVML_ERROR_UNKNOWN
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  std::stringstream text;
  text << std::ifstream(err).rdbuf();
  ASSERT_TRUE(WIFEXITED(status)) << text.str();
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10 load, 11 symbols, 12 cuInit, 13 nvmlInit\n" << text.str();
  EXPECT_NE(text.str().find("unknown key \"allreduce/hangs\" in " + profile.string()), std::string::npos) << text.str();
}

}  // namespace
}  // namespace labcheck::sim
