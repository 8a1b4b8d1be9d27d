// Resolving a relative path beneath a folder's descriptor (beneath-open.c), used by beneath.c.
#ifndef POSTHOC_BENEATH_H
#define POSTHOC_BENEATH_H

/** One component: not empty, not "." or "..", no "/". */
int is_name(const char *s);
/** "" or names joined by single "/": nothing that could leave the folder lexically. */
int is_rel(const char *rel);
/** rel opened beneath root: openat2 (RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS|RESOLVE_NO_MAGICLINKS) or walk_beneath. */
int open_beneath(int root, const char *rel, int flags, int mode);
/** rel opened by an O_NOFOLLOW|O_DIRECTORY openat() per folder on the way. */
int walk_beneath(int root, const char *rel, int flags, int mode);
/** After ENOTDIR: ELOOP when a component of rel is a symbolic link, else ENOTDIR. */
int explain_enotdir(int root, const char *rel);

#endif
