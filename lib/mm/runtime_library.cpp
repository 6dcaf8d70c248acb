#include "mm/runtime_library.hpp"

#include <dlfcn.h>

#include <utility>

#include "mm/error.hpp"

namespace mm {

RuntimeLibrary::RuntimeLibrary(std::string soname, std::string fallback_dir, std::string what,
                               std::string hint)
    : soname_(std::move(soname)),
      fallback_dir_(std::move(fallback_dir)),
      what_(std::move(what)),
      hint_(std::move(hint)) {}

void* RuntimeLibrary::symbol(const char* name) const {
  std::call_once(once_, [this] {
    void* h = dlopen(soname_.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      error_ = dlerror();
      if (!fallback_dir_.empty()) {
        h = dlopen((fallback_dir_ + "/" + soname_).c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!h) error_ += std::string("; ") + dlerror();
      }
    }
    if (h) error_.clear();
    handle_ = h;  // published to every caller by call_once
  });
  const std::string tail = hint_.empty() ? std::string() : "; " + hint_;
  if (!handle_) throw DeviceError("cannot load " + what_ + " (" + error_ + ")" + tail);
  dlerror();  // a symbol's value may be null: dlerror() tells a missing one
  void* f = dlsym(handle_, name);
  if (const char* e = dlerror())
    throw DeviceError(what_ + " (" + soname_ + ") has no " + name + ": " + e + tail);
  return f;
}

}  // namespace mm
