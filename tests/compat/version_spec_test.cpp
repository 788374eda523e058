#include <gtest/gtest.h>

#include "compat/version_spec.h"

namespace labcheck::compat {
namespace {

TEST(VersionSpec, ComparesReleasesNumericallyAndPreReleasesBelow) {
  EXPECT_LT(Compare(*Version::Parse("2.9.1"), *Version::Parse("2.10.0")), 0);
  EXPECT_EQ(Compare(*Version::Parse("2.4.0+cu121"), *Version::Parse("2.4")), 0);
  EXPECT_LT(Compare(*Version::Parse("2.5.0a0+git1234"), *Version::Parse("2.5.0")), 0);
  EXPECT_FALSE(Version::Parse("abc").has_value());
}

TEST(VersionSpec, Specifiers) {
  EXPECT_EQ(Satisfies("2.4.0+cu121", "==2.4.0"), true);
  EXPECT_EQ(Satisfies("2.5.1", "==2.4.0"), false);
  EXPECT_EQ(Satisfies("2.3.1", ">=2.2,<3"), true);
  EXPECT_EQ(Satisfies("3.0.0", ">=2.2,<3"), false);
  EXPECT_EQ(Satisfies("2.4.7", "==2.4.*"), true);
  EXPECT_EQ(Satisfies("2.5.0", "==2.4.*"), false);
  EXPECT_EQ(Satisfies("2.3.5", "~=2.3.1"), true);
  EXPECT_EQ(Satisfies("2.4.0", "~=2.3.1"), false);
  EXPECT_EQ(Satisfies("2.0.1", "!=2.0.1"), false);
  EXPECT_FALSE(Satisfies("2.0", "=>2").has_value());
}

TEST(VersionSpec, Requirements) {
  auto r = ParseRequirement("torch==2.4.0");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->name, "torch");
  EXPECT_EQ(r->specifier, "==2.4.0");
  r = ParseRequirement("Torch (>=1.10, <3)");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->name, "torch");
  EXPECT_EQ(r->specifier, ">=1.10,<3");
  r = ParseRequirement("pytorch_triton==3.1.0; platform_system == \"Linux\"");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->name, "pytorch-triton");
  EXPECT_EQ(r->specifier, "==3.1.0");
  EXPECT_EQ(CudaNumber("12.8"), 128);
  EXPECT_EQ(CudaNumber("13.0"), 130);
}

}  // namespace
}  // namespace labcheck::compat
