#include "cluster/host_list.h"

#include <gtest/gtest.h>

namespace labcheck::cluster {
namespace {

using Hosts = std::vector<std::string>;

TEST(HostList, PlainNamesAndRanges) {
  EXPECT_EQ(*ExpandHostList("login1"), Hosts{"login1"});
  EXPECT_EQ(*ExpandHostList("node[01-04,07]"), (Hosts{"node01", "node02", "node03", "node04", "node07"}));
  EXPECT_EQ(*ExpandHostList("a1,b[9-11],c"), (Hosts{"a1", "b9", "b10", "b11", "c"}));
  EXPECT_EQ(*ExpandHostList("gpu[008-010]-ib"), (Hosts{"gpu008-ib", "gpu009-ib", "gpu010-ib"}));
}

TEST(HostList, SeveralBracketGroupsMultiply) {
  EXPECT_EQ(*ExpandHostList("r[1-2]n[1-2]"), (Hosts{"r1n1", "r1n2", "r2n1", "r2n2"}));
}

TEST(HostList, FirstHost) {
  EXPECT_EQ(*FirstHost("gpu[03-04,01],cpu1"), "gpu03");
  EXPECT_EQ(*FirstHost("single"), "single");
}

TEST(HostList, MalformedListsSayWhat) {
  for (const char* bad : {"", "node[01-04", "node01]", "node[a-b]", "node[4-1]", "a,,b", "n[1-99999999]"}) {
    Result<Hosts> r = ExpandHostList(bad);
    EXPECT_FALSE(r.ok()) << bad;
  }
  EXPECT_NE(ExpandHostList("node[4-1]").status().message().find("backwards"), std::string::npos);
  EXPECT_FALSE(FirstHost("").ok());
}

}  // namespace
}  // namespace labcheck::cluster
