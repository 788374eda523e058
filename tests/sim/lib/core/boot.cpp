#include "core/boot.h"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace nvsim {

double MsSinceSimulatedBoot() {
  std::ifstream stat("/proc/" + std::to_string(getppid()) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return 0;
  // proc(5): field 2 is the command in parentheses and may hold spaces; starttime is field 22,
  // the 20th after the closing parenthesis.
  std::istringstream rest(line.substr(line.rfind(')') + 1));
  std::string field;
  for (int i = 0; i < 20 && rest >> field;) ++i;
  double uptime_s = 0;
  std::ifstream("/proc/uptime") >> uptime_s;
  const double started_s = std::stod(field) / static_cast<double>(sysconf(_SC_CLK_TCK));
  return uptime_s > started_s ? (uptime_s - started_s) * 1000 : 0;
}

bool InitErrorHolds(const Machine& m) {
  const json* until = m.At("cuda/init_error_until_ms");
  return until == nullptr || !until->is_number() || MsSinceSimulatedBoot() < until->get<double>();
}

}  // namespace nvsim
