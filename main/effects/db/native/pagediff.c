// Compares two images of one SQLite file (sqlite3_serialize() before and after an action) table by table,
// in C: each table's B-tree is walked in both images in rowid order and every row whose stored record
// differs is named. This is how a SQLite action on a small file is captured without per-row triggers: the
// statements run exactly as they would alone, and the changed rows are found afterwards at the cost of a
// memory comparison (the row images themselves are read by SQLite, from the two images, when needed).
//
// diff(before, after, roots) -> Array<{ ops: Uint8Array, rowids: BigInt64Array }>
//   before, after: Uint8Arrays holding whole database images (the same page size)
//   roots: [rootBefore0, rootAfter0, rootBefore1, rootAfter1, ...], the root pages of rowid tables
//   ops[i] is 'd' (only before), 'u' (both, record differs) or 'i' (only after) for rowids[i], by rowid.
// sameTree(before, after, root) -> boolean: whether an index B-tree (a WITHOUT ROWID table) is unchanged.
// A damaged or unexpected image throws; the caller then captures with triggers instead.
// Format: https://www.sqlite.org/fileformat2.html (B-tree pages, varints, cell payloads and overflow).
#include <node_api.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

typedef struct {
  const uint8_t *buf;
  size_t len;
  uint32_t page_size;
  uint32_t usable;
  uint32_t pages;
} image_t;

typedef struct {
  const uint8_t *page;
  const uint8_t *hdr; // the B-tree header (offset 100 on page 1)
  int leaf;
  uint32_t n, i;
} level_t;

typedef struct {
  const image_t *im;
  level_t st[MAX_DEPTH];
  int depth;
  uint64_t visited; // pages entered, bounds a cycle in a damaged image
  int started;      // a row was read: rowids must rise from it
  // the current row
  int64_t rowid;
  const uint8_t *payload;
  uint64_t size;
  uint32_t local;
  uint32_t overflow;
} cursor_t;

static _Thread_local char error_text[160];

static uint32_t get2(const uint8_t *p) { return ((uint32_t)p[0] << 8) | p[1]; }
static uint32_t get4(const uint8_t *p) { return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3]; }

// SQLite's varint: big-endian, 7 bits per byte with the high bit saying "more", the ninth byte all 8 bits.
static const uint8_t *varint(const uint8_t *p, const uint8_t *end, uint64_t *out) {
  uint64_t v = 0;
  for (int i = 0; i < 9; i++) {
    if (p >= end) return NULL;
    if (i == 8) {
      *out = (v << 8) | *p;
      return p + 1;
    }
    v = (v << 7) | (*p & 0x7f);
    if (!(*p++ & 0x80)) {
      *out = v;
      return p;
    }
  }
  return NULL;
}

static int out_of_memory(void) {
  snprintf(error_text, sizeof error_text, "out of memory");
  return -1;
}

static int fail(const char *what, uint32_t pgno) {
  snprintf(error_text, sizeof error_text, "%s (page %u)", what, pgno);
  return -1;
}

static int image_open(image_t *im, const uint8_t *buf, size_t len, const char *which) {
  im->buf = buf;
  im->len = len;
  if (len < 512 || memcmp(buf, "SQLite format 3", 16) != 0) {
    snprintf(error_text, sizeof error_text, "the %s image is not a SQLite database", which);
    return -1;
  }
  uint32_t ps = get2(buf + 16);
  im->page_size = ps == 1 ? 65536 : ps;
  if (im->page_size < 512 || (im->page_size & (im->page_size - 1)) || len % im->page_size) {
    snprintf(error_text, sizeof error_text, "the %s image has an unexpected page size", which);
    return -1;
  }
  im->usable = im->page_size - buf[20];
  im->pages = (uint32_t)(len / im->page_size);
  if (im->usable < 480) {
    snprintf(error_text, sizeof error_text, "the %s image reserves too much of each page", which);
    return -1;
  }
  return 0;
}

static const uint8_t *page_of(const image_t *im, uint32_t pgno) {
  if (pgno < 1 || pgno > im->pages) return NULL;
  return im->buf + (size_t)(pgno - 1) * im->page_size;
}

static int push(cursor_t *c, uint32_t pgno) {
  const uint8_t *page = page_of(c->im, pgno);
  if (!page) return fail("a child page is outside the file", pgno);
  if (c->depth >= MAX_DEPTH || ++c->visited > (uint64_t)c->im->pages * 2 + 8) return fail("the tree is too deep or loops", pgno);
  const uint8_t *hdr = page + (pgno == 1 ? 100 : 0);
  level_t *l = &c->st[c->depth];
  if (hdr[0] == 0x0d) l->leaf = 1;
  else if (hdr[0] == 0x05) l->leaf = 0;
  else return fail("not a table B-tree page", pgno);
  l->page = page;
  l->hdr = hdr;
  l->n = get2(hdr + 3);
  l->i = 0;
  uint32_t cells_at = (uint32_t)(hdr - page) + (l->leaf ? 8 : 12);
  if (cells_at + 2 * l->n > c->im->usable) return fail("too many cells for the page", pgno);
  c->depth++;
  return 0;
}

static uint32_t page_number(const cursor_t *c, const level_t *l) {
  return (uint32_t)((l->page - c->im->buf) / c->im->page_size) + 1;
}

// How much of a cell's payload is on its page (the rest is in overflow pages): table leaves and index pages differ.
static int local_size(uint64_t size, uint32_t usable, int index) {
  uint32_t x = index ? ((usable - 12) * 64 / 255) - 23 : usable - 35, m = ((usable - 12) * 32 / 255) - 23;
  if (size <= x) return (int)size;
  uint32_t k = m + (uint32_t)((size - m) % (usable - 4));
  return (int)(k <= x ? k : m);
}

// Reads cell i of a leaf into the cursor's current row.
static int read_leaf_cell(cursor_t *c, const level_t *l, uint32_t i) {
  const image_t *im = c->im;
  uint32_t at = get2(l->hdr + 8 + 2 * i);
  const uint8_t *end = l->page + im->usable;
  if (at < (uint32_t)(l->hdr - l->page) + 8 + 2 * l->n || at >= im->usable) return fail("a cell is outside its page's content area", page_number(c, l));
  uint64_t size, rowid;
  const uint8_t *p = varint(l->page + at, end, &size);
  if (p) p = varint(p, end, &rowid);
  if (!p) return fail("a cell header is cut off", page_number(c, l));
  uint32_t local = (uint32_t)local_size(size, im->usable, 0);
  uint32_t tail = size > local ? 4 : 0;
  if ((size_t)(end - p) < (size_t)local + tail) return fail("a cell's payload is cut off", page_number(c, l));
  if (c->started && (int64_t)rowid <= c->rowid) return fail("rowids out of order", page_number(c, l));
  c->started = 1;
  c->rowid = (int64_t)rowid;
  c->payload = p;
  c->size = size;
  c->local = local;
  c->overflow = tail ? get4(p + local) : 0;
  return 0;
}

// 1: a row is current; 0: the tree is done; -1: damaged.
static int next_row(cursor_t *c) {
  while (c->depth > 0) {
    level_t *l = &c->st[c->depth - 1];
    if (l->leaf) {
      if (l->i < l->n) {
        if (read_leaf_cell(c, l, l->i++) < 0) return -1;
        return 1;
      }
      c->depth--;
      continue;
    }
    uint32_t child;
    if (l->i < l->n) {
      uint32_t at = get2(l->hdr + 12 + 2 * l->i);
      if (at < (uint32_t)(l->hdr - l->page) + 12 + 2 * l->n || at + 4 > c->im->usable) return fail("a cell is outside its page's content area", page_number(c, l));
      child = get4(l->page + at);
    } else if (l->i == l->n) {
      child = get4(l->hdr + 8);
    } else {
      c->depth--;
      continue;
    }
    l->i++;
    if (push(c, child) < 0) return -1;
  }
  return 0;
}

// 1 when the two current rows hold the same record (local part and overflow chain), 0 if not, -1 damaged.
// `budget` is shared by every row of a table: overflow pages read in all, bounded by the images' pages (a
// damaged image whose rows share one long chain must not cost rows x chain).
static int same_record(const cursor_t *a, const cursor_t *b, uint64_t *budget) {
  if (a->size != b->size) return 0;
  if (memcmp(a->payload, b->payload, a->local) != 0) return 0;
  uint64_t left = a->size - a->local;
  uint32_t pa = a->overflow, pb = b->overflow, chunk = a->im->usable - 4;
  if (left > (uint64_t)a->im->pages * chunk) return fail("a payload is larger than the file", pa);
  while (left > 0) {
    const uint8_t *xa = page_of(a->im, pa), *xb = page_of(b->im, pb);
    if (!xa || !xb || *budget == 0) return fail("an overflow chain is broken or loops", xa ? pb : pa);
    --*budget;
    uint32_t n = left < chunk ? (uint32_t)left : chunk;
    if (memcmp(xa + 4, xb + 4, n) != 0) return 0;
    left -= n;
    pa = get4(xa);
    pb = get4(xb);
  }
  return 1;
}

typedef struct {
  uint8_t *ops;
  int64_t *rowids;
  size_t n, cap;
} changes_t;

static int add(changes_t *out, uint8_t op, int64_t rowid) {
  if (out->n == out->cap) {
    size_t cap = out->cap ? out->cap * 2 : 256;
    uint8_t *ops = realloc(out->ops, cap);
    if (!ops) return -1;
    out->ops = ops;
    int64_t *rowids = realloc(out->rowids, cap * sizeof(int64_t));
    if (!rowids) return -1;
    out->rowids = rowids;
    out->cap = cap;
  }
  out->ops[out->n] = op;
  out->rowids[out->n++] = rowid;
  return 0;
}

static int diff_table(const image_t *before, uint32_t root_before, const image_t *after, uint32_t root_after, changes_t *out) {
  cursor_t a = {.im = before}, b = {.im = after};
  uint64_t budget = (uint64_t)before->pages + after->pages;
  if (push(&a, root_before) < 0 || push(&b, root_after) < 0) return -1;
  int ha = next_row(&a), hb = next_row(&b);
  while (ha > 0 || hb > 0) {
    if (ha < 0 || hb < 0) return -1;
    int r;
    if (hb == 0 || (ha > 0 && a.rowid < b.rowid)) {
      if (add(out, 'd', a.rowid) < 0) return out_of_memory();
      ha = next_row(&a);
    } else if (ha == 0 || b.rowid < a.rowid) {
      if (add(out, 'i', b.rowid) < 0) return out_of_memory();
      hb = next_row(&b);
    } else {
      if ((r = same_record(&a, &b, &budget)) < 0) return -1;
      if (!r && add(out, 'u', a.rowid) < 0) return out_of_memory();
      ha = next_row(&a);
      hb = next_row(&b);
    }
  }
  return ha < 0 || hb < 0 ? -1 : 0;
}

// Index B-trees (WITHOUT ROWID tables): 1 when the tree rooted at `root` is the same in both images, page
// for page (interior, leaf and overflow pages), 0 when anything in it differs, -1 when damaged. Rows of such
// tables are not compared one by one: when one changed, the action is captured with triggers instead.
static int same_chain(const image_t *a, const image_t *b, uint32_t pgno, uint64_t left, uint64_t *budget) {
  while (left > 0) {
    const uint8_t *xa = page_of(a, pgno), *xb = page_of(b, pgno);
    if (!xa || !xb || (*budget)-- == 0) return fail("an overflow chain is broken", pgno);
    if (memcmp(xa, xb, a->page_size) != 0) return 0;
    uint32_t n = a->usable - 4;
    left = left > n ? left - n : 0;
    pgno = get4(xa);
  }
  return 1;
}

static int same_index_tree(const image_t *a, const image_t *b, uint32_t pgno, int depth, uint64_t *budget) {
  const uint8_t *pa = page_of(a, pgno), *pb = page_of(b, pgno);
  if (!pa || !pb || depth > MAX_DEPTH || (*budget)-- == 0) return fail("a page of an index tree is outside the file or loops", pgno);
  if (memcmp(pa, pb, a->page_size) != 0) return 0;
  const uint8_t *hdr = pa + (pgno == 1 ? 100 : 0);
  int leaf;
  if (hdr[0] == 0x0a) leaf = 1;
  else if (hdr[0] == 0x02) leaf = 0;
  else return fail("not an index B-tree page", pgno);
  uint32_t n = get2(hdr + 3), cells = (uint32_t)(hdr - pa) + (leaf ? 8 : 12);
  if (cells + 2 * n > a->usable) return fail("too many cells for the page", pgno);
  const uint8_t *end = pa + a->usable;
  for (uint32_t i = 0; i <= n; i++) {
    if (!leaf) {
      uint32_t child = i < n ? 0 : get4(hdr + 8);
      if (i < n) {
        uint32_t at = get2(pa + cells + 2 * i);
        if (at < cells + 2 * n || at + 4 > a->usable) return fail("a cell is outside its page's content area", pgno);
        child = get4(pa + at);
      }
      int r = same_index_tree(a, b, child, depth + 1, budget);
      if (r <= 0) return r;
    }
    if (i == n) break;
    uint32_t at = get2(pa + cells + 2 * i);
    if (at < cells + 2 * n || at + (leaf ? 0 : 4) >= a->usable) return fail("a cell is outside its page's content area", pgno);
    uint64_t size;
    const uint8_t *p = varint(pa + at + (leaf ? 0 : 4), end, &size);
    if (!p) return fail("a cell header is cut off", pgno);
    int local = local_size(size, a->usable, 1);
    if (size > (uint64_t)local) {
      if ((size_t)(end - p) < (size_t)local + 4) return fail("a cell's payload is cut off", pgno);
      int r = same_chain(a, b, get4(p + local), size - local, budget);
      if (r <= 0) return r;
    }
  }
  return 1;
}

#define CHECK(call)                                                          \
  do {                                                                       \
    if ((call) != napi_ok) {                                                 \
      bool pending = false;                                                  \
      napi_is_exception_pending(env, &pending);                              \
      if (!pending) napi_throw_error(env, NULL, "pagediff: a Node-API call failed"); \
      goto done;                                                             \
    }                                                                        \
  } while (0)

static int bytes_of(napi_env env, napi_value v, const uint8_t **data, size_t *len) {
  napi_typedarray_type type;
  size_t length, offset;
  void *p;
  napi_value ab;
  if (napi_get_typedarray_info(env, v, &type, &length, &p, &ab, &offset) != napi_ok || type != napi_uint8_array) return -1;
  *data = p;
  *len = length;
  return 0;
}

// Both images, checked to be databases of the same page layout; -1 with a JavaScript error thrown.
static int open_pair(napi_env env, const uint8_t *bb, size_t bl, const uint8_t *ab, size_t al, image_t *before, image_t *after) {
  if (image_open(before, bb, bl, "before") < 0 || image_open(after, ab, al, "after") < 0) {
    napi_throw_error(env, NULL, error_text);
    return -1;
  }
  if (before->page_size != after->page_size || before->usable != after->usable) {
    napi_throw_error(env, NULL, "the two images have different page sizes");
    return -1;
  }
  return 0;
}

// A root page number: an integer from 1 to 2^32 - 1 (nothing is coerced).
static int root_of(napi_env env, napi_value v, uint32_t *out) {
  double d;
  if (napi_get_value_double(env, v, &d) != napi_ok || !(d >= 1 && d <= 4294967295.0) || d != (double)(uint32_t)d) return -1;
  *out = (uint32_t)d;
  return 0;
}

static napi_value diff(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3], result = NULL;
  uint32_t nroots = 0, *roots = NULL;
  changes_t *tables = NULL;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  if (argc < 3 || napi_get_array_length(env, argv[2], &nroots) != napi_ok || nroots % 2) goto usage;
  // The roots are read first: reading an array element may run JavaScript, which must not run once the
  // images' memory is in hand.
  roots = malloc((nroots ? nroots : 1) * sizeof *roots);
  tables = calloc(nroots / 2 + 1, sizeof *tables);
  if (!roots || !tables) {
    napi_throw_error(env, NULL, "pagediff: out of memory");
    goto done;
  }
  for (uint32_t i = 0; i < nroots; i++) {
    napi_value v;
    if (napi_get_element(env, argv[2], i, &v) != napi_ok || root_of(env, v, &roots[i]) < 0) goto usage;
  }
  const uint8_t *bb, *ab;
  size_t bl, al;
  if (bytes_of(env, argv[0], &bb, &bl) < 0 || bytes_of(env, argv[1], &ab, &al) < 0) goto usage;
  image_t before, after;
  if (open_pair(env, bb, bl, ab, al, &before, &after) < 0) goto done;
  for (uint32_t t = 0; t < nroots / 2; t++) {
    if (diff_table(&before, roots[2 * t], &after, roots[2 * t + 1], &tables[t]) < 0) {
      napi_throw_error(env, NULL, error_text);
      goto done;
    }
  }
  // Only now JavaScript values are made (the images are no longer read).
  napi_value out;
  CHECK(napi_create_array_with_length(env, nroots / 2, &out));
  for (uint32_t t = 0; t < nroots / 2; t++) {
    changes_t *ch = &tables[t];
    napi_value entry, ops_buf, ops, rowid_buf, rowids;
    void *p;
    CHECK(napi_create_arraybuffer(env, ch->n, &p, &ops_buf));
    if (ch->n) memcpy(p, ch->ops, ch->n);
    CHECK(napi_create_typedarray(env, napi_uint8_array, ch->n, ops_buf, 0, &ops));
    CHECK(napi_create_arraybuffer(env, ch->n * sizeof(int64_t), &p, &rowid_buf));
    if (ch->n) memcpy(p, ch->rowids, ch->n * sizeof(int64_t));
    CHECK(napi_create_typedarray(env, napi_bigint64_array, ch->n, rowid_buf, 0, &rowids));
    CHECK(napi_create_object(env, &entry));
    CHECK(napi_set_named_property(env, entry, "ops", ops));
    CHECK(napi_set_named_property(env, entry, "rowids", rowids));
    CHECK(napi_set_element(env, out, t, entry));
  }
  result = out;
  goto done;
usage:
  napi_throw_type_error(env, NULL, "diff(before: Uint8Array, after: Uint8Array, roots: page numbers, in pairs)");
done:
  if (tables) {
    for (uint32_t t = 0; t < nroots / 2; t++) {
      free(tables[t].ops);
      free(tables[t].rowids);
    }
  }
  free(tables);
  free(roots);
  return result;
}

static napi_value same_tree(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3], result;
  const uint8_t *bb, *ab;
  size_t bl, al;
  uint32_t root;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 3 || root_of(env, argv[2], &root) < 0 || bytes_of(env, argv[0], &bb, &bl) < 0 ||
      bytes_of(env, argv[1], &ab, &al) < 0) {
    napi_throw_type_error(env, NULL, "sameTree(before: Uint8Array, after: Uint8Array, root: number)");
    return NULL;
  }
  image_t before, after;
  if (open_pair(env, bb, bl, ab, al, &before, &after) < 0) return NULL;
  uint64_t budget = (uint64_t)before.pages + 8;
  int r = same_index_tree(&before, &after, root, 0, &budget);
  if (r < 0) {
    napi_throw_error(env, NULL, error_text);
    return NULL;
  }
  if (napi_get_boolean(env, r == 1, &result) != napi_ok) return NULL;
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "diff", NAPI_AUTO_LENGTH, diff, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "diff", fn) != napi_ok) return NULL;
  if (napi_create_function(env, "sameTree", NAPI_AUTO_LENGTH, same_tree, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "sameTree", fn) != napi_ok) return NULL;
  return exports;
}
