// Lists folders with the stat fields of every entry, like listFolders() in stat-lister.ts, but in C on a
// libuv thread: a checkpoint of a large folder is almost all readdir and lstat, and here each lstat is
// one fstatat() relative to its folder instead of a JavaScript call resolving an absolute path.
//
// list(root, rels, recursive) -> Promise<Listing[]>, with Listing as in stat-lister.ts:
//   { rel, names (NUL-joined), kinds (Uint8Array), stats (Float64Array: size, mtimeMs, ctimeMs, ino, mode), error }
// Entries are sorted by strcmp, as Node's readdir returns them; kinds and times follow Node exactly
// (kinds: 0 folder, 1 file, 2 link, 3 other, 4 vanished; ms = sec * 1e3 + nsec / 1e6), so listings from
// either implementation compare equal. Symbolic links are never followed: each folder is opened relative
// to its parent's descriptor with O_NOFOLLOW|O_DIRECTORY (a job's folder by a walk of such opens from the
// root), so a folder swapped for a link while listing fails to open instead of listing what it points to.
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

#ifdef __APPLE__
#define MTIME(st) ((st).st_mtimespec)
#define CTIME(st) ((st).st_ctimespec)
#else
#define MTIME(st) ((st).st_mtim)
#define CTIME(st) ((st).st_ctim)
#endif

typedef struct {
  char *rel;
  char *names; // NUL-joined
  size_t names_len;
  uint8_t *kinds;
  double *stats;
  size_t n;
  char *error;
} listing_t;

typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  char *root;
  size_t njobs;
  char **job_rel;
  uint8_t *job_recursive;
  listing_t *out;
  size_t nout, cap;
  int oom;
} request_t;

static char *join_rel(const char *rel, const char *name) {
  size_t a = strlen(rel), b = strlen(name);
  char *s = malloc(a + b + 2);
  if (!s) return NULL;
  if (a == 0) {
    memcpy(s, name, b + 1);
  } else {
    memcpy(s, rel, a);
    s[a] = '/';
    memcpy(s + a + 1, name, b + 1);
  }
  return s;
}

static listing_t *push_listing(request_t *req) {
  if (req->nout == req->cap) {
    size_t cap = req->cap ? req->cap * 2 : 64;
    listing_t *grown = realloc(req->out, cap * sizeof(listing_t));
    if (!grown) return NULL;
    req->out = grown;
    req->cap = cap;
  }
  listing_t *l = &req->out[req->nout++];
  memset(l, 0, sizeof *l);
  return l;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static double ms(struct timespec t) { return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6; }

#define SUBDIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

// A job's folder: the root (its own path may go through links, the person chose it), then each folder on
// the way to rel opened relative to the one before, never following a link. -1 with errno on failure.
static int open_job(const char *root, const char *rel) {
  int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || rel[0] == 0) return fd;
  char *copy = strdup(rel);
  if (!copy) {
    close(fd);
    errno = ENOMEM;
    return -1;
  }
  for (char *part = copy; fd >= 0 && part;) {
    char *slash = strchr(part, '/');
    if (slash) *slash = 0;
    int next = (part[0] == 0 || strcmp(part, ".") == 0 || strcmp(part, "..") == 0) ? (errno = EXDEV, -1) : openat(fd, part, SUBDIR_FLAGS);
    int saved = errno;
    close(fd);
    errno = saved;
    fd = next;
    part = slash ? slash + 1 : NULL;
  }
  free(copy);
  return fd;
}

// Lists the folder open as `dfd` (or records `open_errno` when it could not be opened), then, when
// recursive, each subfolder opened relative to it. Takes `dfd` over.
static void visit(request_t *req, const char *rel, int dfd, int open_errno, int recursive) {
  if (req->oom) {
    if (dfd >= 0) close(dfd);
    return;
  }
  listing_t *l = push_listing(req);
  char *own_rel = strdup(rel);
  if (!l || !own_rel) {
    free(own_rel);
    if (dfd >= 0) close(dfd);
    req->oom = 1;
    return;
  }
  l->rel = own_rel;
  // Reading the entries consumes a descriptor of its own: `dfd` stays open for the subfolders' openat().
  int rfd = dfd >= 0 ? openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
  DIR *dir = rfd >= 0 ? fdopendir(rfd) : NULL;
  if (!dir) {
    int err = dfd < 0 ? open_errno : errno;
    if (rfd >= 0) close(rfd);
    if (dfd >= 0) close(dfd);
    char *abs = rel[0] ? join_rel(req->root, rel) : strdup(req->root);
    if (!abs) {
      req->oom = 1;
      return;
    }
    const char *what = strerror(err);
    size_t len = strlen(what) + strlen(abs) + 32;
    l->error = malloc(len);
    if (l->error) snprintf(l->error, len, "%s, scandir '%s'", what, abs);
    else req->oom = 1;
    free(abs);
    return;
  }

  size_t n = 0, cap = 64;
  char **names = malloc(cap * sizeof(char *));
  struct dirent *d = NULL;
  while (names && (d = readdir(dir)) != NULL) {
    if (d->d_name[0] == '.' && (d->d_name[1] == 0 || (d->d_name[1] == '.' && d->d_name[2] == 0))) continue;
    if (n == cap) {
      cap *= 2;
      char **grown = realloc(names, cap * sizeof(char *));
      if (!grown) break;
      names = grown;
    }
    // The name and its d_type travel together: the type is stored in front of the name.
    size_t len = strlen(d->d_name);
    char *copy = malloc(len + 2);
    if (!copy) break;
    copy[0] = (char)d->d_type;
    memcpy(copy + 1, d->d_name, len + 1);
    names[n++] = copy + 1;
  }
  if (!names || (d != NULL)) req->oom = 1;
  qsort(names, n, sizeof(char *), by_name);

  l->n = n;
  l->kinds = calloc(n ? n : 1, 1);
  l->stats = calloc(n ? n * 5 : 1, sizeof(double));
  size_t total = 0;
  for (size_t i = 0; i < n; i++) total += strlen(names[i]) + 1;
  l->names = malloc(total ? total : 1);
  if (!l->kinds || !l->stats || !l->names) req->oom = 1;
  char **subdirs = malloc((n ? n : 1) * sizeof(char *));
  size_t nsub = 0;
  if (!subdirs) req->oom = 1;

  size_t at = 0;
  for (size_t i = 0; i < n && !req->oom; i++) {
    const char *name = names[i];
    unsigned char type = (unsigned char)name[-1];
    size_t len = strlen(name);
    memcpy(l->names + at, name, len);
    at += len;
    if (i + 1 < n) l->names[at++] = 0;
    uint8_t kind;
    if (type == DT_DIR) {
      kind = 0;
    } else if (type == DT_REG || type == DT_LNK || type == DT_UNKNOWN) {
      struct stat st;
      if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        kind = 4; // replaced or removed while listing
      } else {
        kind = S_ISDIR(st.st_mode) ? 0 : S_ISLNK(st.st_mode) ? 2 : S_ISREG(st.st_mode) ? 1 : 3;
        if (kind != 0 || type != DT_UNKNOWN) {
          double *s = l->stats + i * 5;
          s[0] = (double)st.st_size;
          s[1] = ms(MTIME(st));
          s[2] = ms(CTIME(st));
          s[3] = (double)st.st_ino;
          s[4] = (double)st.st_mode;
        }
      }
    } else {
      kind = 3;
    }
    l->kinds[i] = kind;
    if (kind == 0 && subdirs) {
      char *sub = join_rel(rel, name);
      if (!sub) req->oom = 1;
      else subdirs[nsub++] = sub;
    }
  }
  l->names_len = at;
  for (size_t i = 0; i < n; i++) free(names[i] - 1);
  free(names);
  closedir(dir);
  size_t skip = rel[0] ? strlen(rel) + 1 : 0; // subdirs[i] + skip is the subfolder's name
  for (size_t i = 0; i < nsub; i++) {
    if (recursive) {
      int child = openat(dfd, subdirs[i] + skip, SUBDIR_FLAGS);
      visit(req, subdirs[i], child, errno, 1);
    }
    free(subdirs[i]);
  }
  free(subdirs);
  close(dfd);
}

static void execute(napi_env env, void *data) {
  (void)env;
  request_t *req = data;
  for (size_t i = 0; i < req->njobs && !req->oom; i++) {
    int fd = open_job(req->root, req->job_rel[i]);
    visit(req, req->job_rel[i], fd, errno, req->job_recursive[i]);
  }
}

static void free_request(request_t *req) {
  for (size_t i = 0; i < req->nout; i++) {
    listing_t *l = &req->out[i];
    free(l->rel);
    free(l->names);
    free(l->kinds);
    free(l->stats);
    free(l->error);
  }
  free(req->out);
  for (size_t i = 0; i < req->njobs; i++) free(req->job_rel[i]);
  free(req->job_rel);
  free(req->job_recursive);
  free(req->root);
  free(req);
}

// A typed array over a fresh JavaScript ArrayBuffer holding a copy of `bytes` (Electron's V8 sandbox
// allows no external buffers, so the C buffers are copied and freed with the request).
static napi_status typed_copy(napi_env env, napi_typedarray_type type, const void *bytes, size_t size, size_t length, napi_value *out) {
  void *data = NULL;
  napi_value buf;
  napi_status s = napi_create_arraybuffer(env, size, &data, &buf);
  if (s != napi_ok) return s;
  if (size) memcpy(data, bytes, size);
  return napi_create_typedarray(env, type, length, buf, 0, out);
}

// Builds the listings in JavaScript.
static napi_status build_result(napi_env env, request_t *req, napi_value *result) {
  napi_status s = napi_create_array_with_length(env, req->nout, result);
  if (s != napi_ok) return s;
  for (size_t i = 0; i < req->nout; i++) {
    listing_t *l = &req->out[i];
    napi_value obj, v;
    size_t n = l->error ? 0 : l->n;
    if ((s = napi_create_object(env, &obj)) != napi_ok) return s;
    if ((s = napi_create_string_utf8(env, l->rel, NAPI_AUTO_LENGTH, &v)) != napi_ok) return s;
    if ((s = napi_set_named_property(env, obj, "rel", v)) != napi_ok) return s;
    if ((s = napi_create_string_utf8(env, n ? l->names : "", n ? l->names_len : 0, &v)) != napi_ok) return s;
    if ((s = napi_set_named_property(env, obj, "names", v)) != napi_ok) return s;
    if ((s = typed_copy(env, napi_uint8_array, l->kinds, n, n, &v)) != napi_ok) return s;
    if ((s = napi_set_named_property(env, obj, "kinds", v)) != napi_ok) return s;
    if ((s = typed_copy(env, napi_float64_array, l->stats, n * 5 * sizeof(double), n * 5, &v)) != napi_ok) return s;
    if ((s = napi_set_named_property(env, obj, "stats", v)) != napi_ok) return s;
    if (l->error) {
      if ((s = napi_create_string_utf8(env, l->error, NAPI_AUTO_LENGTH, &v)) != napi_ok) return s;
    } else if ((s = napi_get_null(env, &v)) != napi_ok) {
      return s;
    }
    if ((s = napi_set_named_property(env, obj, "error", v)) != napi_ok) return s;
    if ((s = napi_set_element(env, *result, (uint32_t)i, obj)) != napi_ok) return s;
  }
  return napi_ok;
}

static void complete(napi_env env, napi_status status, void *data) {
  request_t *req = data;
  napi_value result, err, msg;
  if (status == napi_ok && !req->oom && build_result(env, req, &result) == napi_ok) {
    napi_resolve_deferred(env, req->deferred, result);
  } else {
    napi_create_string_utf8(env, req->oom ? "out of memory while listing a folder" : "listing a folder failed", NAPI_AUTO_LENGTH, &msg);
    napi_create_error(env, NULL, msg, &err);
    napi_reject_deferred(env, req->deferred, err);
  }
  napi_delete_async_work(env, req->work);
  free_request(req);
}

static char *get_string(napi_env env, napi_value v) {
  size_t len = 0;
  if (napi_get_value_string_utf8(env, v, NULL, 0, &len) != napi_ok) return NULL;
  char *s = malloc(len + 1);
  if (!s) return NULL;
  if (napi_get_value_string_utf8(env, v, s, len + 1, &len) != napi_ok) {
    free(s);
    return NULL;
  }
  return s;
}

// list(root: string, rels: string[], recursive: boolean[]): Promise<Listing[]>
static napi_value list(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3], promise;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  uint32_t njobs = 0, nrec = 0;
  if (argc < 3 || napi_get_array_length(env, argv[1], &njobs) != napi_ok || napi_get_array_length(env, argv[2], &nrec) != napi_ok || nrec != njobs) {
    napi_throw_type_error(env, NULL, "list(root, rels, recursive): root is a string, rels and recursive arrays of the same length");
    return NULL;
  }
  request_t *req = calloc(1, sizeof *req);
  if (!req) {
    napi_throw_error(env, NULL, "out of memory");
    return NULL;
  }
  req->root = get_string(env, argv[0]);
  req->job_rel = calloc(njobs ? njobs : 1, sizeof(char *));
  req->job_recursive = calloc(njobs ? njobs : 1, 1);
  int ok = req->root && req->job_rel && req->job_recursive;
  for (uint32_t i = 0; ok && i < njobs; i++) {
    napi_value rel, rec;
    bool b = false;
    ok = napi_get_element(env, argv[1], i, &rel) == napi_ok && napi_get_element(env, argv[2], i, &rec) == napi_ok &&
         napi_get_value_bool(env, rec, &b) == napi_ok && (req->job_rel[i] = get_string(env, rel)) != NULL;
    req->job_recursive[i] = b;
    if (ok) req->njobs = i + 1;
  }
  if (!ok) {
    free_request(req);
    napi_throw_type_error(env, NULL, "list(root, rels, recursive): root and rels must be strings, recursive booleans");
    return NULL;
  }
  napi_value name;
  napi_create_string_utf8(env, "posthoc.list", NAPI_AUTO_LENGTH, &name);
  if (napi_create_promise(env, &req->deferred, &promise) != napi_ok || napi_create_async_work(env, NULL, name, execute, complete, req, &req->work) != napi_ok ||
      napi_queue_async_work(env, req->work) != napi_ok) {
    free_request(req);
    napi_throw_error(env, NULL, "could not start listing");
    return NULL;
  }
  return promise;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "list", NAPI_AUTO_LENGTH, list, NULL, &fn);
  napi_set_named_property(env, exports, "list", fn);
  return exports;
}
