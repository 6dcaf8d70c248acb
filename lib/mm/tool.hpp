// The main() wrapper every tool uses: errors to "tool: message" and exit codes.
#pragma once

#include <functional>

namespace mm {

// Runs BODY; maps mm::Error to its exit code, a closed output pipe to a quiet exit 0,
// bad_alloc to 4 ("out of memory ... (--max-memory to change)"), any other exception to 1
// ("internal error"). Also sets up signal handling so an interrupted tool leaves no temporary file
// behind.
int run_tool(const char* name, int argc, char** argv, const std::function<int(int, char**)>& body);

}  // namespace mm
