// The hint catalog: one entry per row of the course's table «Если тест не прошёл», both languages.
#include "reference/hints.h"

#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace labcheck::hint {
namespace {

TEST(Hints, EveryIdHasBothLanguagesForSymptomAndAction) {
  for (Id id : All()) {
    const Text action = Action(id);
    const Text symptom = Symptom(id);
    EXPECT_FALSE(action.ru.empty()) << Key(id);
    EXPECT_FALSE(action.en.empty()) << Key(id);
    EXPECT_FALSE(symptom.ru.empty()) << Key(id);
    EXPECT_FALSE(symptom.en.empty()) << Key(id);
  }
  EXPECT_EQ(All().size(), 10u);  // the course table has ten rows
}

TEST(Hints, KeysRoundTripAndAreUnique) {
  std::set<std::string_view> keys;
  for (Id id : All()) {
    EXPECT_EQ(FromKey(Key(id)), id);
    keys.insert(Key(id));
  }
  EXPECT_EQ(keys.size(), All().size());
  EXPECT_FALSE(FromKey("no_such_hint").has_value());
}

TEST(Hints, TextsAreTheCourseRows) {
  EXPECT_NE(Action(kNcclHang).ru.find("NCCL_P2P_DISABLE=1"), std::string::npos);
  EXPECT_NE(Action(kWrongSum).ru.find("обучение будет ломаться без ошибок"), std::string::npos);
  EXPECT_NE(Action(kMatmulSlow).ru.find("nvidia-smi -q -d PERFORMANCE"), std::string::npos);
  EXPECT_NE(Action(kPcieGen3).en.find("riser"), std::string::npos);
  EXPECT_EQ(Action(kTritonCompiler).ru, "sudo apt install build-essential python3-dev");
  EXPECT_EQ(Symptom(kVllmSkip).ru, "vLLM — SKIP");
}

TEST(Hints, DataFileHasNoEntryWithoutAnId) {
  std::ifstream in(std::string(LAB_CHECK_SOURCE_DIR) + "/data/hints.json");
  std::stringstream s;
  s << in.rdbuf();
  const auto root = nlohmann::json::parse(s.str());
  ASSERT_EQ(root["hints"].size(), static_cast<size_t>(kCount));
  for (const auto& h : root["hints"]) EXPECT_TRUE(FromKey(h.value("id", "")).has_value()) << h.dump();
}

}  // namespace
}  // namespace labcheck::hint
