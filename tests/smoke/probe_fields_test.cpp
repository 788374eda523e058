#include "smoke/probe_fields.h"

#include <cmath>

#include <gtest/gtest.h>

namespace labcheck::smoke {
namespace {

TEST(ProbeFields, ReadsTypedFields) {
  const auto j = nlohmann::json::parse(R"({"n": 1.5, "i": 3, "s": "x", "b": true, "o": {"k": 1}})");
  ProbeFields f(j);
  EXPECT_EQ(f.Number("n"), 1.5);
  EXPECT_EQ(f.Number("i"), 3.0);  // an integer is a number too
  EXPECT_EQ(f.Integer("i"), 3);
  EXPECT_EQ(f.String("s"), "x");
  EXPECT_TRUE(f.Bool("b"));
  EXPECT_EQ(f.Object("o")["k"], 1);
  EXPECT_EQ(f.OptionalNumber("absent"), std::nullopt);
  EXPECT_TRUE(f.ok()) << f.problem();
}

TEST(ProbeFields, TheFirstMissingFieldIsNamed) {
  const auto j = nlohmann::json::parse(R"({"a": 1, "nulled": null})");
  ProbeFields f(j);
  f.Number("a");
  EXPECT_TRUE(std::isnan(f.Number("max_abs_diff")));
  f.String("also_missing");
  EXPECT_FALSE(f.ok());
  EXPECT_EQ(f.problem(), "field 'max_abs_diff' is missing");
  ProbeFields g(j);
  g.Integer("nulled");
  EXPECT_EQ(g.problem(), "field 'nulled' is missing");
}

TEST(ProbeFields, AWrongTypeIsNamedWithWhatItWas) {
  const auto j = nlohmann::json::parse(R"({"loss": "high", "steps": 2.5, "v": {"x": 1}})");
  ProbeFields f(j, "variants.sdpa_flash.");
  f.Number("loss");
  EXPECT_EQ(f.problem(), "field 'variants.sdpa_flash.loss' is string, expected a number");
  ProbeFields g(j);
  g.Integer("steps");
  EXPECT_EQ(g.problem(), "field 'steps' is number, expected an integer");
  ProbeFields h(j);
  h.String("v");
  EXPECT_EQ(h.problem(), "field 'v' is object, expected a string");
}

TEST(ProbeFields, NonFiniteNumbersArriveAsStrings) {
  const auto j = nlohmann::json::parse(R"({"loss": "nan", "big": "inf", "small": "-inf"})");
  ProbeFields f(j);
  EXPECT_TRUE(std::isnan(f.Number("loss")));
  EXPECT_EQ(f.Number("big"), INFINITY);
  EXPECT_EQ(f.Number("small"), -INFINITY);
  EXPECT_TRUE(f.ok()) << f.problem();
}

TEST(ProbeFields, ANonObjectIsAProblem) {
  const auto j = nlohmann::json::parse("[1]");
  ProbeFields f(j);
  EXPECT_FALSE(f.ok());
  EXPECT_EQ(f.String("x"), "");
}

}  // namespace
}  // namespace labcheck::smoke
