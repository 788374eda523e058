#include "app/app.h"

#include <cstdio>

namespace labcheck {

int RunApp(int argc, char** argv) {
  (void)argc;
  (void)argv;
  std::printf("lab_check %s\n", LAB_CHECK_VERSION);
  return 0;
}

}  // namespace labcheck
