/*
 * buf_private.h: the memory helpers of libpprof: an arena, a growable byte
 * buffer, array growth and a hash.  They know nothing of profiles.  Not
 * installed; not for the tools.
 */
#ifndef PPROF_BUF_PRIVATE_H
#define PPROF_BUF_PRIVATE_H

#ifndef PPROF_INTERNAL
#error "buf_private.h is private to libpprof"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- arena: many small objects freed at once ---- */
struct pp_arena_block;
struct pp_arena {
	struct pp_arena_block *head;
	size_t used, cap; /* in the head block */
	size_t total;     /* bytes held, for bounds */
};
void pp_arena_init(struct pp_arena *a);
/* NULL when out of memory.  Aligned for any scalar. */
void *pp_arena_alloc(struct pp_arena *a, size_t n);
void pp_arena_release(struct pp_arena *a);

/* ---- growable byte buffer ----
 *
 * A pp_buf holds LEN bytes at S, which may contain NULs; the invariants,
 * which every function below keeps and callers may rely on:
 *
 *  1. S is never NULL once the buffer is initialized (pp_buf_init(), or
 *     PP_BUF_INIT), and S[LEN] is always '\0': S can be passed to any C
 *     string function, even for an empty buffer.
 *  2. CAP is the size of the allocation at S, or 0 when nothing is
 *     allocated: then S points to a shared static "" that must not be
 *     written or freed, and LEN is 0.  When CAP > 0, LEN < CAP.
 *  3. S may move whenever the buffer grows (pp_buf_grow() and every
 *     pp_buf_add*()): do not keep pointers into it across them.
 *  4. S is owned by the buffer: do not free it, nor keep it past
 *     pp_buf_release() or pp_buf_reset().  pp_buf_detach() is how a caller
 *     takes the bytes, leaving the buffer empty and valid.
 *  5. Out of memory, the functions return false and leave the buffer as it
 *     was (still valid, still NUL-terminated); the caller decides.
 *
 * To shorten the contents, set LEN lower and S[LEN] = '\0' (pp_buf_setlen());
 * never set LEN above what was written.
 */
struct pp_buf {
	char *s;
	size_t len, cap;
};
extern char pp_buf_empty[1];
#define PP_BUF_INIT {pp_buf_empty, 0, 0}
/* An empty buffer that holds no memory. */
void pp_buf_init(struct pp_buf *b);
/* Makes room for EXTRA more bytes (and the NUL) without moving S again;
 * false when out of memory or when the size would overflow. */
bool pp_buf_grow(struct pp_buf *b, size_t extra);
/* Appends N bytes at P (which may hold NULs; P must not point into B). */
bool pp_buf_add(struct pp_buf *b, const void *p, size_t n);
bool pp_buf_addc(struct pp_buf *b, char c);
/* Appends printf-style text. */
bool pp_buf_addf(struct pp_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Cuts the contents to LEN bytes (LEN <= b->len), keeping the allocation. */
static inline void pp_buf_setlen(struct pp_buf *b, size_t len)
{
	b->len = len;
	if (b->cap) /* else LEN is 0 and S the static "" */
		b->s[len] = '\0';
}
/* Empties the buffer, keeping its allocation for reuse. */
static inline void pp_buf_reset(struct pp_buf *b)
{
	pp_buf_setlen(b, 0);
}
/* Hands the contents to the caller: a malloc'd NUL-terminated string
 * (free() it), never the static "", even when empty; *LEN (when LEN is not
 * NULL) receives its length.  The buffer is left empty, as after
 * pp_buf_init().  NULL when out of memory (an empty buffer that held
 * nothing needs one byte); then the buffer is unchanged. */
char *pp_buf_detach(struct pp_buf *b, size_t *len);
/* Frees the memory and leaves the buffer empty, as after pp_buf_init(). */
void pp_buf_release(struct pp_buf *b);

/* A 64-bit hash of N bytes. */
uint64_t pp_hash_bytes(const void *p, size_t n, uint64_t seed);
/* Grows *A (of *CAP elements of SIZE bytes) to hold NEED, doubling;
 * false when out of memory (then *A is unchanged). */
bool pp_grow(void **a, size_t *cap, size_t need, size_t size);

#endif /* PPROF_BUF_PRIVATE_H */
