// The names platform/machine_arch.h gives this processor are the ones this machine's own files use.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdio>
#include <string>

#include "platform/machine_arch.h"

namespace labcheck {
namespace {

TEST(MachineArch, MultiarchTripletIsTheFolderOfThisProcesssLibc) {
  // Debian (CI) keeps libc in /lib/<triplet> (= /usr/lib/<triplet>); the triplet must be in its path.
  Dl_info info{};
  ASSERT_NE(dladdr(reinterpret_cast<const void*>(&std::fputs), &info), 0);
  EXPECT_NE(std::string(info.dli_fname).find(std::string("/") + MultiarchTriplet() + "/"), std::string::npos)
      << info.dli_fname;
}

TEST(MachineArch, CudaTargetsAreThisProcessorsOwn) {
  ASSERT_FALSE(CudaTargetNames().empty());
#if defined(__x86_64__)
  EXPECT_EQ(CudaTargetNames(), std::vector<std::string>{"x86_64-linux"});
#else
  EXPECT_EQ(CudaTargetNames().front(), "sbsa-linux");
#endif
}

}  // namespace
}  // namespace labcheck
