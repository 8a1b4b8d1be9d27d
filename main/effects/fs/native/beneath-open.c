// Opens a path beneath a folder's descriptor without following any link: openat2() where the kernel has
// it (Linux 5.6+), else a walk of O_NOFOLLOW|O_DIRECTORY openat() calls, one per folder on the way. Both
// refuse a link anywhere in the path (ELOOP); callers refuse "..", "." and empty components first (is_rel).
#define _GNU_SOURCE
#include "beneath.h"
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/openat2.h>
#include <sys/syscall.h>
#ifndef SYS_openat2
#define SYS_openat2 437 // the same number on every architecture
#endif
#endif

#ifdef O_PATH
#define DIR_WALK_FLAGS (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#else
#define DIR_WALK_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#endif

// One component: not empty, not "." or "..", no "/".
int is_name(const char *s) {
  return s[0] != 0 && strchr(s, '/') == NULL && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

// "" or names joined by single "/": nothing that could leave the folder lexically.
int is_rel(const char *rel) {
  if (rel[0] == 0) return 1;
  const char *p = rel;
  for (;;) {
    const char *slash = strchr(p, '/');
    size_t len = slash ? (size_t)(slash - p) : strlen(p);
    if (len == 0 || (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.')) return 0;
    if (!slash) return 1;
    p = slash + 1;
  }
}

// Each folder on the way opened relative to the one before with O_NOFOLLOW|O_DIRECTORY, so a link anywhere
// fails with ELOOP (or ENOTDIR) instead of being followed. Returns an fd or -1 with errno set.
int walk_beneath(int root, const char *rel, int flags, int mode) {
  if (rel[0] == 0) return openat(root, ".", flags, mode);
  char *copy = strdup(rel);
  if (!copy) return -1;
  int cur = root;
  char *part = copy;
  int fd = -1;
  for (;;) {
    char *slash = strchr(part, '/');
    if (!slash) {
      fd = openat(cur, part, flags, mode);
      break;
    }
    *slash = 0;
    int next = openat(cur, part, DIR_WALK_FLAGS);
    if (next < 0) break;
    if (cur != root) close(cur);
    cur = next;
    part = slash + 1;
  }
  int saved = errno;
  if (cur != root) close(cur);
  free(copy);
  errno = saved;
  return fd;
}

// O_DIRECTORY|O_NOFOLLOW on a link fails with ENOTDIR, as for a file: look again, so that a link on the way
// is always reported as ELOOP ("is a symbolic link") and a file on the way as ENOTDIR.
int explain_enotdir(int root, const char *rel) {
  char *copy = strdup(rel);
  if (!copy) return ENOTDIR;
  int cur = root, why = ENOTDIR;
  for (char *part = copy;;) {
    char *slash = strchr(part, '/');
    if (slash) *slash = 0;
    struct stat st;
    if (fstatat(cur, part, &st, AT_SYMLINK_NOFOLLOW) != 0) break;
    if (S_ISLNK(st.st_mode)) {
      why = ELOOP;
      break;
    }
    if (!slash) break;
    int next = openat(cur, part, DIR_WALK_FLAGS);
    if (next < 0) break;
    if (cur != root) close(cur);
    cur = next;
    part = slash + 1;
  }
  if (cur != root) close(cur);
  free(copy);
  return why;
}

int open_beneath(int root, const char *rel, int flags, int mode) {
#ifdef __linux__
  static int no_openat2 = 0;
  if (!no_openat2) {
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = (uint64_t)(unsigned)flags;
    how.mode = (flags & O_CREAT) ? (uint64_t)mode : 0;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    long fd = syscall(SYS_openat2, root, rel[0] ? rel : ".", &how, sizeof how);
    if (fd >= 0 || errno != ENOSYS) return (int)fd;
    no_openat2 = 1; // an old kernel, or a seccomp filter that answers ENOSYS
  }
#endif
  return walk_beneath(root, rel, flags, mode);
}
