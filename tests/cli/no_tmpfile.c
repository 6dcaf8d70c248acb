/* LD_PRELOAD shim for tests/cli/output.sh: open() with O_TMPFILE fails with EOPNOTSUPP, as on
 * a filesystem without it, so the real binaries take OutputStream's named-temporary fallback. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>

typedef int (*open_fn)(const char*, int, ...);
typedef int (*openat_fn)(int, const char*, int, ...);

static int refused(int flags) {
  if ((flags & O_TMPFILE) != O_TMPFILE) return 0;
  errno = EOPNOTSUPP;
  return 1;
}

static mode_t mode_of(int flags, va_list ap) {
  return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, mode_t) : 0;
}

#define SHIM_OPEN(name)                                 \
  int name(const char* path, int flags, ...) {          \
    va_list ap;                                         \
    va_start(ap, flags);                                \
    const mode_t mode = mode_of(flags, ap);             \
    va_end(ap);                                         \
    if (refused(flags)) return -1;                      \
    static open_fn next;                                \
    if (!next) next = (open_fn)dlsym(RTLD_NEXT, #name); \
    return next(path, flags, mode);                     \
  }

#define SHIM_OPENAT(name)                                 \
  int name(int dir, const char* path, int flags, ...) {   \
    va_list ap;                                           \
    va_start(ap, flags);                                  \
    const mode_t mode = mode_of(flags, ap);               \
    va_end(ap);                                           \
    if (refused(flags)) return -1;                        \
    static openat_fn next;                                \
    if (!next) next = (openat_fn)dlsym(RTLD_NEXT, #name); \
    return next(dir, path, flags, mode);                  \
  }

SHIM_OPEN(open)
SHIM_OPEN(open64)
SHIM_OPENAT(openat)
SHIM_OPENAT(openat64)
