// The file system calls Node lacks, for touching a granted folder without ever following a path the
// sandbox could have swapped: a folder checked with lstat and then opened by path can be a symbolic link
// by the time it is opened. Everything here works on file descriptors:
//
//   openBeneath(rootFd, rel, flags, mode) -> fd   rel opened beneath rootFd: openat2() with RESOLVE_BENEATH,
//                                                 RESOLVE_NO_SYMLINKS and RESOLVE_NO_MAGICLINKS, or where the
//                                                 kernel lacks openat2 (ENOSYS, macOS) the walk below
//   walkBeneath(rootFd, rel, flags, mode) -> fd   the same by an O_NOFOLLOW|O_DIRECTORY openat() per folder
//                                                 (both in beneath-open.c)
//   openAt(dirFd, name, flags, mode) -> fd        one name in a folder, never following a link
//   mkdirAt / unlinkAt / renameAt / symlinkAt / chownAt(dirFd, name, ...)
//   statAt(dirFd, name) -> {mode, uid, gid, size, ino, dev} | null   (lstat of one name; null when absent)
//   readlinkAt(dirFd, name) -> Buffer
//   readNames(dirFd) -> string[]                  the names in a folder
//   handleAt(dirFd, name) -> {type, handle, ctimeSec, ctimeNsec} | null   an entry's kernel file handle
//                                                 (name_to_handle_at) and when it last changed
//
// rel is "a/b/c" ("" is the folder itself); a "..", "." or empty component, or a leading "/", is refused
// with EXDEV (the error openat2 gives for leaving the folder), a symbolic link on the way with ELOOP. A name
// is one component. O_NOFOLLOW and O_CLOEXEC are always added. Errors are thrown as Node's are: an Error
// with code ("ELOOP"), errno and syscall.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <node_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "beneath.h"

static const char *errno_code(int e) {
#define CODE(x) case x: return #x;
  switch (e) {
    CODE(ENOENT) CODE(ENOTDIR) CODE(ELOOP) CODE(EXDEV) CODE(EEXIST)
    CODE(EISDIR) CODE(ENOTEMPTY) CODE(EACCES) CODE(EPERM) CODE(EINVAL)
    CODE(ENOSPC) CODE(EROFS) CODE(EBADF) CODE(EBUSY) CODE(ENAMETOOLONG)
    CODE(EMFILE) CODE(ENOMEM) CODE(EIO) CODE(EDQUOT)
    default: return "EUNKNOWN";
  }
#undef CODE
}

static napi_value throw_errno(napi_env env, int e, const char *syscall, const char *path) {
  char message[1200];
  snprintf(message, sizeof message, "%s: %s, %s '%s'", errno_code(e), strerror(e), syscall, path ? path : "");
  napi_value code, msg, err, num, sys;
  napi_create_string_utf8(env, errno_code(e), NAPI_AUTO_LENGTH, &code);
  napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &msg);
  napi_create_error(env, code, msg, &err);
  napi_create_int32(env, -e, &num);
  napi_set_named_property(env, err, "errno", num);
  napi_create_string_utf8(env, syscall, NAPI_AUTO_LENGTH, &sys);
  napi_set_named_property(env, err, "syscall", sys);
  napi_throw(env, err);
  return NULL;
}

// ---- arguments -------------------------------------------------------------------------------------

typedef struct {
  napi_env env;
  napi_value argv[6];
  size_t argc;
  int bad;
} args_t;

static void get_args(napi_env env, napi_callback_info info, args_t *a, size_t want) {
  a->env = env;
  a->argc = 6;
  a->bad = napi_get_cb_info(env, info, &a->argc, a->argv, NULL, NULL) != napi_ok || a->argc < want;
}

static int32_t arg_int(args_t *a, size_t i) {
  int32_t v = 0;
  if (!a->bad && napi_get_value_int32(a->env, a->argv[i], &v) != napi_ok) a->bad = 1;
  return v;
}

static int arg_bool(args_t *a, size_t i) {
  bool v = false;
  if (!a->bad && napi_get_value_bool(a->env, a->argv[i], &v) != napi_ok) a->bad = 1;
  return v;
}

// A string or a Buffer (names and link targets need not be UTF-8), copied and NUL-terminated; NULL when bad.
static char *arg_bytes(args_t *a, size_t i) {
  if (a->bad) return NULL;
  bool is_buffer = false;
  napi_is_buffer(a->env, a->argv[i], &is_buffer);
  char *s = NULL;
  if (is_buffer) {
    void *data;
    size_t len;
    if (napi_get_buffer_info(a->env, a->argv[i], &data, &len) == napi_ok && memchr(data, 0, len) == NULL && (s = malloc(len + 1))) {
      memcpy(s, data, len);
      s[len] = 0;
    }
  } else {
    size_t len = 0;
    if (napi_get_value_string_utf8(a->env, a->argv[i], NULL, 0, &len) == napi_ok && (s = malloc(len + 1))) {
      napi_get_value_string_utf8(a->env, a->argv[i], s, len + 1, &len);
      if (strlen(s) != len) { // an embedded NUL would silently shorten the name
        free(s);
        s = NULL;
      }
    }
  }
  if (!s) a->bad = 1;
  return s;
}

static napi_value bad_args(napi_env env, const char *usage) {
  napi_throw_type_error(env, NULL, usage);
  return NULL;
}

static napi_value int_value(napi_env env, int v) {
  napi_value out;
  napi_create_int32(env, v, &out);
  return out;
}

static napi_value undefined_value(napi_env env) {
  napi_value out;
  napi_get_undefined(env, &out);
  return out;
}

static napi_value open_common(napi_env env, napi_callback_info info, int walk_only) {
  args_t a;
  get_args(env, info, &a, 4);
  int root = arg_int(&a, 0);
  char *rel = arg_bytes(&a, 1);
  int flags = arg_int(&a, 2) | O_NOFOLLOW | O_CLOEXEC;
  int mode = arg_int(&a, 3);
  if (a.bad) {
    free(rel);
    return bad_args(env, "openBeneath(rootFd, rel, flags, mode)");
  }
  if (rel[0] == '/' || !is_rel(rel)) {
    napi_value r = throw_errno(env, EXDEV, walk_only ? "walkBeneath" : "openBeneath", rel);
    free(rel);
    return r;
  }
  int fd = walk_only ? walk_beneath(root, rel, flags, mode) : open_beneath(root, rel, flags, mode);
  if (fd < 0 && errno == ENOTDIR) errno = explain_enotdir(root, rel);
  napi_value out = fd < 0 ? throw_errno(env, errno, walk_only ? "walkBeneath" : "openBeneath", rel) : int_value(env, fd);
  free(rel);
  return out;
}

static napi_value js_open_beneath(napi_env env, napi_callback_info info) { return open_common(env, info, 0); }
static napi_value js_walk_beneath(napi_env env, napi_callback_info info) { return open_common(env, info, 1); }

// ---- calls on one name in a folder -----------------------------------------------------------------------

// Reads (dirFd, name) and checks the name; on failure has thrown and returns NULL.
static char *dir_and_name(napi_env env, args_t *a, int *dir, const char *usage) {
  *dir = arg_int(a, 0);
  char *name = arg_bytes(a, 1);
  if (a->bad) {
    free(name);
    bad_args(env, usage);
    return NULL;
  }
  if (!is_name(name)) {
    throw_errno(env, EXDEV, usage, name);
    free(name);
    return NULL;
  }
  return name;
}

static napi_value js_open_at(napi_env env, napi_callback_info info) {
  args_t a;
  int dir;
  get_args(env, info, &a, 4);
  int flags = arg_int(&a, 2) | O_NOFOLLOW | O_CLOEXEC;
  int mode = arg_int(&a, 3);
  char *name = dir_and_name(env, &a, &dir, "openAt(dirFd, name, flags, mode)");
  if (!name) return NULL;
  int fd = openat(dir, name, flags, mode);
  napi_value out = fd < 0 ? throw_errno(env, errno, "openat", name) : int_value(env, fd);
  free(name);
  return out;
}

static napi_value js_mkdir_at(napi_env env, napi_callback_info info) {
  args_t a;
  int dir;
  get_args(env, info, &a, 3);
  int mode = arg_int(&a, 2);
  char *name = dir_and_name(env, &a, &dir, "mkdirAt(dirFd, name, mode)");
  if (!name) return NULL;
  napi_value out = mkdirat(dir, name, (mode_t)mode) != 0 ? throw_errno(env, errno, "mkdirat", name) : undefined_value(env);
  free(name);
  return out;
}

static napi_value js_unlink_at(napi_env env, napi_callback_info info) {
  args_t a;
  int dir;
  get_args(env, info, &a, 3);
  int is_dir = arg_bool(&a, 2);
  char *name = dir_and_name(env, &a, &dir, "unlinkAt(dirFd, name, isDir)");
  if (!name) return NULL;
  napi_value out = unlinkat(dir, name, is_dir ? AT_REMOVEDIR : 0) != 0 ? throw_errno(env, errno, "unlinkat", name) : undefined_value(env);
  free(name);
  return out;
}

// Both names in the same folder: a restore renames its temporary file over the name it replaces.
static napi_value js_rename_at(napi_env env, napi_callback_info info) {
  args_t a;
  int dir;
  get_args(env, info, &a, 3);
  char *to = arg_bytes(&a, 2);
  char *from = dir_and_name(env, &a, &dir, "renameAt(dirFd, from, to)");
  if (!from) {
    free(to);
    return NULL;
  }
  napi_value out;
  if (!is_name(to)) out = throw_errno(env, EXDEV, "renameat", to);
  else out = renameat(dir, from, dir, to) != 0 ? throw_errno(env, errno, "renameat", to) : undefined_value(env);
  free(from);
  free(to);
  return out;
}

static napi_value js_symlink_at(napi_env env, napi_callback_info info) {
  args_t a;
  get_args(env, info, &a, 3);
  char *target = arg_bytes(&a, 0);
  int dir = arg_int(&a, 1);
  char *name = arg_bytes(&a, 2);
  napi_value out;
  if (a.bad) out = bad_args(env, "symlinkAt(target, dirFd, name)");
  else if (!is_name(name)) out = throw_errno(env, EXDEV, "symlinkat", name);
  else out = symlinkat(target, dir, name) != 0 ? throw_errno(env, errno, "symlinkat", name) : undefined_value(env);
  free(target);
  free(name);
  return out;
}

static napi_value js_chown_at(napi_env env, napi_callback_info info) {
  args_t a;
  int dir;
  get_args(env, info, &a, 4);
  int uid = arg_int(&a, 2), gid = arg_int(&a, 3);
  char *name = dir_and_name(env, &a, &dir, "chownAt(dirFd, name, uid, gid)");
  if (!name) return NULL;
  napi_value out = fchownat(dir, name, (uid_t)uid, (gid_t)gid, AT_SYMLINK_NOFOLLOW) != 0 ? throw_errno(env, errno, "fchownat", name) : undefined_value(env);
  free(name);
  return out;
}

static void set_number(napi_env env, napi_value obj, const char *key, double v) {
  napi_value n;
  napi_create_double(env, v, &n);
  napi_set_named_property(env, obj, key, n);
}

static napi_value js_stat_at(napi_env env, napi_callback_info info) {
  args_t a;
  int dir;
  get_args(env, info, &a, 2);
  char *name = dir_and_name(env, &a, &dir, "statAt(dirFd, name)");
  if (!name) return NULL;
  struct stat st;
  napi_value out;
  if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) napi_get_null(env, &out);
    else out = throw_errno(env, errno, "fstatat", name);
  } else {
    napi_create_object(env, &out);
    set_number(env, out, "mode", st.st_mode);
    set_number(env, out, "uid", st.st_uid);
    set_number(env, out, "gid", st.st_gid);
    set_number(env, out, "size", (double)st.st_size);
    set_number(env, out, "ino", (double)st.st_ino);
    set_number(env, out, "dev", (double)st.st_dev);
  }
  free(name);
  return out;
}

// handleAt(dirFd, name) -> {type, handle: Buffer} | null: the kernel's file handle of one entry (not following a
// link: name_to_handle_at follows none without AT_SYMLINK_FOLLOW; "" is the folder itself), as fanotify reports it (image/posthoc-watch.c); null when it is gone or the
// file system has no handles.
static napi_value js_handle_at(napi_env env, napi_callback_info info) {
  args_t a;
  get_args(env, info, &a, 2);
  int dir = arg_int(&a, 0);
  char *name = arg_bytes(&a, 1);
  if (a.bad) {
    free(name);
    return bad_args(env, "handleAt(dirFd, name)");
  }
  if (name[0] != 0 && !is_name(name)) {
    napi_value r = throw_errno(env, EXDEV, "handleAt", name);
    free(name);
    return r;
  }
  struct {
    struct file_handle fh;
    unsigned char room[MAX_HANDLE_SZ];
  } h;
  h.fh.handle_bytes = MAX_HANDLE_SZ;
  int mount_id;
  napi_value out;
  if (name_to_handle_at(dir, name, &h.fh, &mount_id, name[0] ? 0 : AT_EMPTY_PATH) != 0) {
    int e = errno;
    if (e == ENOENT || e == ENOTDIR || e == EOPNOTSUPP || e == EOVERFLOW) napi_get_null(env, &out);
    else out = throw_errno(env, e, "name_to_handle_at", name);
  } else {
    napi_value buf;
    void *data;
    struct stat st;
    napi_create_object(env, &out);
    set_number(env, out, "type", h.fh.handle_type);
    napi_create_buffer_copy(env, h.fh.handle_bytes, h.fh.f_handle, &data, &buf);
    napi_set_named_property(env, out, "handle", buf);
    // When it last changed (any write, chmod, chown, rename of it): a change after an action ended is someone else's.
    if (fstatat(dir, name, &st, name[0] ? AT_SYMLINK_NOFOLLOW : AT_EMPTY_PATH) == 0) {
      set_number(env, out, "ctimeSec", (double)st.st_ctim.tv_sec);
      set_number(env, out, "ctimeNsec", (double)st.st_ctim.tv_nsec);
    }
  }
  free(name);
  return out;
}

static napi_value js_readlink_at(napi_env env, napi_callback_info info) {
  args_t a;
  int dir;
  get_args(env, info, &a, 2);
  char *name = dir_and_name(env, &a, &dir, "readlinkAt(dirFd, name)");
  if (!name) return NULL;
  char buf[4096];
  ssize_t n = readlinkat(dir, name, buf, sizeof buf);
  napi_value out;
  if (n < 0) out = throw_errno(env, errno, "readlinkat", name);
  else if ((size_t)n == sizeof buf) out = throw_errno(env, ENAMETOOLONG, "readlinkat", name);
  else {
    void *data;
    napi_create_buffer_copy(env, (size_t)n, buf, &data, &out);
  }
  free(name);
  return out;
}

static napi_value js_read_names(napi_env env, napi_callback_info info) {
  args_t a;
  get_args(env, info, &a, 1);
  int dir = arg_int(&a, 0);
  if (a.bad) return bad_args(env, "readNames(dirFd)");
  // fdopendir takes the fd over; a fresh one keeps the caller's open.
  int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d) {
    int e = errno;
    if (fd >= 0) close(fd);
    return throw_errno(env, e, "readdir", ".");
  }
  napi_value out;
  napi_create_array(env, &out);
  uint32_t i = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    napi_value s;
    napi_create_string_utf8(env, e->d_name, NAPI_AUTO_LENGTH, &s);
    napi_set_element(env, out, i++, s);
  }
  closedir(d);
  return out;
}

NAPI_MODULE_INIT() {
  static const struct {
    const char *name;
    napi_callback fn;
  } fns[] = {
      {"openBeneath", js_open_beneath}, {"walkBeneath", js_walk_beneath}, {"openAt", js_open_at},     {"mkdirAt", js_mkdir_at},
      {"unlinkAt", js_unlink_at},       {"renameAt", js_rename_at},       {"symlinkAt", js_symlink_at}, {"chownAt", js_chown_at},
      {"statAt", js_stat_at},           {"readlinkAt", js_readlink_at},   {"readNames", js_read_names}, {"handleAt", js_handle_at},
  };
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
    napi_value f;
    napi_create_function(env, fns[i].name, NAPI_AUTO_LENGTH, fns[i].fn, NULL, &f);
    napi_set_named_property(env, exports, fns[i].name, f);
  }
  return exports;
}
