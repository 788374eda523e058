#include "cpu_bench/machine_load.h"

#include <charconv>
#include <string>

#include <fmt/format.h>

#include "env/sysfs.h"

namespace labcheck::cpu_bench {

std::optional<double> ParseLoadAverage(std::string_view loadavg) {
  std::string text = env::Trim(loadavg);
  size_t space = text.find(' ');
  std::string first = text.substr(0, space);
  try {
    size_t used = 0;
    double load = std::stod(first, &used);
    if (used != first.size() || load < 0) return std::nullopt;
    return load;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

Text MachineLoad::Note() const {
  if (!busy()) return {};
  return T(fmt::format("Машина была занята: средняя нагрузка за минуту {:.1f} при {} CPU. Цифры "
                       "занижены; закройте тяжёлые программы (htop) и повторите.",
                       *load_1min, cpus),
           fmt::format("The machine was busy: 1-minute load average {:.1f} on {} CPUs. The figures "
                       "are low; close heavy programs (htop) and run again.",
                       *load_1min, cpus));
}

MachineLoad MachineLoad::Now(int cpus) {
  MachineLoad load;
  load.cpus = cpus;
  if (auto text = env::ReadFirstLine("/proc/loadavg"); text.ok()) load.load_1min = ParseLoadAverage(*text);
  return load;
}

}  // namespace labcheck::cpu_bench
