/* arena.c: bump allocation for the many small objects of a profile, and the
 * growable byte buffer. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf_private.h"

struct pp_arena_block {
	struct pp_arena_block *next;
	size_t cap;
	_Alignas(16) unsigned char data[];
};

void pp_arena_init(struct pp_arena *a)
{
	memset(a, 0, sizeof(*a));
}

void *pp_arena_alloc(struct pp_arena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (n == 0)
		n = 16;
	if (!a->head || a->cap - a->used < n) {
		/* Blocks double up to 16 MiB; a large object gets a block of its own. */
		size_t cap = a->head ? a->head->cap * 2 : 64 * 1024;
		if (cap > 16u << 20)
			cap = 16u << 20;
		if (cap < n)
			cap = n;
		struct pp_arena_block *b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->cap = cap;
		a->total += cap;
		if (a->head && cap == n && a->cap - a->used > 4096) {
			/* Keep filling the current block; chain the big one behind it. */
			b->next = a->head->next;
			a->head->next = b;
			return b->data;
		}
		b->next = a->head;
		a->head = b;
		a->used = 0;
		a->cap = cap;
	}
	void *p = a->head->data + a->used;
	a->used += n;
	return p;
}

void pp_arena_release(struct pp_arena *a)
{
	struct pp_arena_block *b = a->head;
	while (b) {
		struct pp_arena_block *next = b->next;
		free(b);
		b = next;
	}
	memset(a, 0, sizeof(*a));
}

bool pp_grow(void **a, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return true;
	size_t c = *cap ? *cap : 64;
	while (c < need) {
		if (c > SIZE_MAX / 2 / size)
			return false;
		c *= 2;
	}
	void *n = realloc(*a, c * size);
	if (!n)
		return false;
	*a = n;
	*cap = c;
	return true;
}

char pp_buf_empty[1];

void pp_buf_init(struct pp_buf *b)
{
	b->s = pp_buf_empty;
	b->len = 0;
	b->cap = 0;
}

bool pp_buf_grow(struct pp_buf *b, size_t extra)
{
	/* Checked first: LEN + EXTRA + 1 may wrap around to less than CAP. */
	if (extra > SIZE_MAX / 2 - b->len)
		return false;
	if (b->len + extra + 1 <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < b->len + extra + 1)
		cap *= 2;
	char *s = realloc(b->cap ? b->s : NULL, cap);
	if (!s)
		return false;
	if (!b->cap)
		s[0] = '\0';
	b->s = s;
	b->cap = cap;
	return true;
}

bool pp_buf_add(struct pp_buf *b, const void *p, size_t n)
{
	if (!pp_buf_grow(b, n))
		return false;
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
	return true;
}

bool pp_buf_addc(struct pp_buf *b, char c)
{
	if (!pp_buf_grow(b, 1))
		return false;
	b->s[b->len++] = c;
	b->s[b->len] = '\0';
	return true;
}

bool pp_buf_addf(struct pp_buf *b, const char *fmt, ...)
{
	va_list ap;
	char tmp[256];
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return false;
	if ((size_t)n < sizeof(tmp))
		return pp_buf_add(b, tmp, (size_t)n);
	if (!pp_buf_grow(b, (size_t)n))
		return false;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return true;
}

char *pp_buf_detach(struct pp_buf *b, size_t *len)
{
	if (!b->cap && !pp_buf_grow(b, 0))
		return NULL;
	char *s = b->s;
	if (len)
		*len = b->len;
	pp_buf_init(b);
	return s;
}

void pp_buf_release(struct pp_buf *b)
{
	if (b->cap)
		free(b->s);
	pp_buf_init(b);
}
