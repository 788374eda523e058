// The published config.json copies under tests/calc/configs (cards.json names each one's source),
// read as the calculators read a user's file.
#pragma once
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "calc/hf_config.h"
#include "calc/model_input.h"

namespace labcheck::calc {

inline std::string PublishedConfigDir() { return std::string(LAB_CHECK_SOURCE_DIR) + "/tests/calc/configs/"; }

inline std::string ReadConfigText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// tests/calc/configs/NAME/config.json; a failure to parse is a test failure (and an empty model).
inline Architecture LoadPublishedConfig(const std::string& name) {
  const std::string path = PublishedConfigDir() + name + "/config.json";
  auto arch = ParseHfConfigText(ReadConfigText(path), path);
  EXPECT_TRUE(arch.ok()) << arch.status().message();
  return arch.ok() ? std::move(arch).value() : Architecture{};
}

inline ModelInput PublishedModelInput(const std::string& name) {
  ModelInput model;
  model.display_name = name;
  model.arch = LoadPublishedConfig(name);
  return model;
}

}  // namespace labcheck::calc
