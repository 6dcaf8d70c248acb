// A shared library opened at its first use (dlopen) rather than at the process's start: for the
// libraries that only some runs need. Linked the usual way, cuBLAS (through cuBLASLt) runs its
// initialisers in every process, about 0.35 s on a 2-core machine, though a CPU run never calls
// it; NCCL is missing on machines where the tools must still start.
#pragma once

#include <mutex>
#include <string>

namespace mm {

class RuntimeLibrary {
 public:
  // SONAME ("libcublas.so.13") is searched as the dynamic linker searches for a library the
  // executable needs (LD_LIBRARY_PATH, the executable's RUNPATH, the system's cache), then in
  // FALLBACK_DIR ("" for none). WHAT names it in errors ("cuBLAS"); HINT, if not empty, ends
  // them ("use --comm mpi").
  RuntimeLibrary(std::string soname, std::string fallback_dir, std::string what,
                 std::string hint = {});
  RuntimeLibrary(const RuntimeLibrary&) = delete;
  RuntimeLibrary& operator=(const RuntimeLibrary&) = delete;
  // The library stays loaded to the process's end: the CUDA libraries and NCCL keep threads and
  // state that their handles' destructors, run at exit, still use.
  ~RuntimeLibrary() = default;

  // The address of the library's NAME, opening the library at the first call (thread-safe).
  // DeviceError (exit 4) where the library cannot be opened or lacks NAME.
  void* symbol(const char* name) const;

 private:
  std::string soname_, fallback_dir_, what_, hint_;
  mutable std::once_flag once_;
  mutable void* handle_ = nullptr;
  mutable std::string error_;  // why the library could not be opened
};

}  // namespace mm
