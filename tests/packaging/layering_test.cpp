// The folders at the bottom of src/ depend only downwards (docs/development.md, "Where things are"): core on
// nothing, platform on core (like leveldb's port/), runner on both, report on the three. Every
// other folder sits above them and may include any of them; none of the four may include a folder
// above it. The guard is a scan of the #include lines: an arrow running back up fails here with
// the file and the line.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>

#include "core/regex_instances.h"  // <regex>, its code generated once

namespace labcheck {
namespace {

namespace fs = std::filesystem;

// The layer order, written once: a folder may include itself and the folders before it.
const std::vector<std::string> kLayers = {"core", "platform", "runner", "report"};

int LayerOf(const std::string& folder) {
  for (size_t i = 0; i < kLayers.size(); ++i)
    if (kLayers[i] == folder) return static_cast<int>(i);
  return static_cast<int>(kLayers.size());  // above the layers
}

// "src/<from>/x.cpp:12 includes <to>/y.h" for every include that runs back up.
std::string ArrowsBackUp(const fs::path& src) {
  const std::regex include(R"(^\s*#\s*include\s+"([a-z_0-9]+)/[^"]+")");
  std::ostringstream out;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(src)) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".h")) continue;
    const fs::path relative = fs::relative(entry.path(), src);
    if (relative.begin() == relative.end() || std::next(relative.begin()) == relative.end()) continue;  // src/main.cpp
    const std::string from = relative.begin()->string();
    const int from_layer = LayerOf(from);
    if (from_layer == static_cast<int>(kLayers.size())) continue;
    std::ifstream in(entry.path());
    std::string line;
    std::smatch m;
    for (int number = 1; std::getline(in, line); ++number) {
      if (!std::regex_search(line, m, include)) continue;
      const std::string to = m[1].str();
      if (LayerOf(to) > from_layer) out << "src/" << relative.string() << ":" << number << " includes " << to << "/\n";
    }
  }
  return out.str();
}

TEST(Layering, NoIncludeRunsBackUpTheLayers) {
  const fs::path src = fs::path(LAB_CHECK_SOURCE_DIR) / "src";
  ASSERT_TRUE(fs::is_directory(src / "core")) << src;
  EXPECT_EQ(ArrowsBackUp(src), "") << "core ← platform ← runner ← report ← the rest: move the code to the layer it needs";
}

// The scan itself: a tree with one arrow back up is caught, one without is clean.
TEST(Layering, TheScanCatchesAnArrowBackUp) {
  const fs::path dir = fs::temp_directory_path() / ("lab_check_layering_" + std::to_string(::getpid()));
  fs::create_directories(dir / "runner");
  fs::create_directories(dir / "gpu");
  std::ofstream(dir / "runner" / "a.cpp") << "#include \"core/status.h\"\n#include \"runner/a.h\"\n";
  std::ofstream(dir / "gpu" / "b.cpp") << "#include \"report/report.h\"\n";
  EXPECT_EQ(ArrowsBackUp(dir), "");
  std::ofstream(dir / "runner" / "c.cpp") << "// progress\n#include \"report/terminal_writer.h\"\n";
  EXPECT_EQ(ArrowsBackUp(dir), "src/runner/c.cpp:2 includes report/\n");
  fs::remove_all(dir);
}

// Inside a module split into rooms (src/node_check/README.md), the same rule one level down: a
// room may include itself and the rooms listed before it; the module's own top-level files (the
// command) sit above every room, so no room includes one of them.
const std::vector<std::pair<std::string, std::vector<std::string>>> kRoomsOfModule = {
    {"node_check", {"verdict", "scan", "findings", "slurm", "outputs"}},
};

// "src/node_check/scan/x.cpp:3 includes node_check/findings/" for every include within `module`
// that runs back up its rooms.
std::string RoomArrowsBackUp(const fs::path& src, const std::string& module, const std::vector<std::string>& rooms) {
  auto room_of = [&](const std::string& room) {
    for (size_t i = 0; i < rooms.size(); ++i)
      if (rooms[i] == room) return static_cast<int>(i);
    return static_cast<int>(rooms.size());  // the module's top level, above every room
  };
  const std::regex include("^\\s*#\\s*include\\s+\"" + module + "/([^\"]+)\"");
  std::ostringstream out;
  if (!fs::is_directory(src / module)) return "";
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(src / module)) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".h")) continue;
    const fs::path relative = fs::relative(entry.path(), src / module);
    if (std::next(relative.begin()) == relative.end()) continue;  // a top-level file may include any room
    const int from = room_of(relative.begin()->string());
    std::ifstream in(entry.path());
    std::string line;
    std::smatch m;
    for (int number = 1; std::getline(in, line); ++number) {
      if (!std::regex_search(line, m, include)) continue;
      const fs::path target(m[1].str());
      const bool top_level = std::next(target.begin()) == target.end();
      const int to = top_level ? static_cast<int>(rooms.size()) : room_of(target.begin()->string());
      if (to > from)
        out << "src/" << module << "/" << relative.string() << ":" << number << " includes " << module << "/"
            << (top_level ? target.string() : target.begin()->string() + "/") << "\n";
    }
  }
  return out.str();
}

TEST(Layering, NoIncludeRunsBackUpAModulesRooms) {
  const fs::path src = fs::path(LAB_CHECK_SOURCE_DIR) / "src";
  for (const auto& [module, rooms] : kRoomsOfModule) {
    for (const std::string& room : rooms) EXPECT_TRUE(fs::is_directory(src / module / room)) << module << "/" << room;
    EXPECT_EQ(RoomArrowsBackUp(src, module, rooms), "")
        << "src/" << module << "/README.md lists its rooms lowest first: move the code to the room it needs";
  }
}

// Every room says in one file what lives there and what it may include.
TEST(Layering, EveryRoomSaysWhatLivesThere) {
  const fs::path src = fs::path(LAB_CHECK_SOURCE_DIR) / "src";
  for (const auto& [module, rooms] : kRoomsOfModule)
    for (const std::string& room : rooms) EXPECT_TRUE(fs::is_regular_file(src / module / room / "README.md")) << module << "/" << room;
}

TEST(Layering, TheRoomScanCatchesAnArrowBackUp) {
  const fs::path dir = fs::temp_directory_path() / ("lab_check_rooms_" + std::to_string(::getpid()));
  fs::create_directories(dir / "m" / "low");
  fs::create_directories(dir / "m" / "high");
  std::ofstream(dir / "m" / "top.cpp") << "#include \"m/high/h.h\"\n#include \"m/low/l.h\"\n";
  std::ofstream(dir / "m" / "high" / "h.cpp") << "#include \"m/low/l.h\"\n#include \"m/high/h.h\"\n";
  EXPECT_EQ(RoomArrowsBackUp(dir, "m", {"low", "high"}), "");
  std::ofstream(dir / "m" / "low" / "l.cpp") << "// x\n#include \"m/high/h.h\"\n#include \"m/top.h\"\n";
  EXPECT_EQ(RoomArrowsBackUp(dir, "m", {"low", "high"}), "src/m/low/l.cpp:2 includes m/high/\nsrc/m/low/l.cpp:3 includes m/top.h\n");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace labcheck
