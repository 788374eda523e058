// The whole program behind main(): command line, subcommands, exit code.
#pragma once

namespace labcheck {

// Exit codes: 0 nothing failed, 1 a check failed, 2 bad usage or input, 130 interrupted before any
// report could be written.
int RunApp(int argc, char** argv);

}  // namespace labcheck
