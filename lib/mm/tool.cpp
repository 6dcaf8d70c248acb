// main() wrapper: error messages as "tool: message" and the exit-code contract.
#include "mm/tool.hpp"

#include <iostream>
#include <new>

#include "mm/error.hpp"
#include "mm/io.hpp"
#include "mm/memory.hpp"

namespace mm {

int run_tool(const char* name, int argc, char** argv, const std::function<int(int, char**)>& body) {
  install_signal_cleanup();
  try {
    return body(argc, argv);
  } catch (const BrokenPipe&) {
    return 0;  // the reader of our output went away: end quietly
  } catch (const Error& e) {
    std::cerr << name << ": " << e.what() << "\n";
    return static_cast<int>(e.code());
  } catch (const std::bad_alloc&) {
    std::cerr << name << ": " << out_of_memory_message() << "\n";
    return static_cast<int>(ExitCode::device);
  } catch (const std::exception& e) {
    std::cerr << name << ": internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace mm
