// NVIDIA's own userspace driver (Debian non-free's libcuda1 and libnvidia-ml1, 535.x in Debian 12),
// downloaded and unpacked into the build folder by scripts/fetch-nvidia-userspace.sh on first use
// and never installed: the tests ask the real libraries, not a model of them, what they answer on
// this machine. A test skips with the script's reason where they cannot be had (not Debian, no
// network to the mirror), and where this machine has an NVIDIA kernel module loaded (then they
// answer for that module, not for a machine without one). Include as
// "../gpu/real_nvidia_userspace.h" from another test folder, as temp_tree.h.
#pragma once
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

namespace labcheck::testing {

struct RealNvidiaUserspace {
  std::string version;  // "535.261.03"
  std::string libdir;   // the folder with libcuda.so.1 and libnvidia-ml.so.1
  std::string skip;     // why not, when the others are empty
};

inline RealNvidiaUserspace FetchRealNvidiaUserspace() {
  RealNvidiaUserspace got;
  if (std::filesystem::exists("/proc/driver/nvidia/version")) {
    got.skip = "this machine has an NVIDIA kernel module loaded: NVIDIA's libraries would answer for it";
    return got;
  }
  const std::filesystem::path build = std::filesystem::path(LAB_CHECK_BINARY).parent_path();
  const std::string dest = (build / "nvidia-userspace").string();
  const std::string script = std::string(LAB_CHECK_SOURCE_DIR) + "/scripts/fetch-nvidia-userspace.sh";
  const std::string log = dest + ".log";
  const std::string command = "'" + script + "' '" + dest + "' >'" + log + "' 2>&1";
  const int status = std::system(command.c_str());
  std::ifstream complete(dest + "/complete");
  for (std::string line; std::getline(complete, line);) {
    if (line.rfind("version=", 0) == 0) got.version = line.substr(8);
    if (line.rfind("libdir=", 0) == 0) got.libdir = line.substr(7);
  }
  if (status == 0 && !got.version.empty() && !got.libdir.empty()) return got;
  std::ifstream said(log);
  std::string why((std::istreambuf_iterator<char>(said)), std::istreambuf_iterator<char>());
  got = {};
  got.skip = "NVIDIA's userspace driver could not be fetched: " + (why.empty() ? std::string("no reason given") : why);
  return got;
}

// Once per test binary: the first test that asks downloads (a few seconds), the others reuse it.
inline const RealNvidiaUserspace& RealUserspace() {
  static const RealNvidiaUserspace got = FetchRealNvidiaUserspace();
  return got;
}

}  // namespace labcheck::testing
