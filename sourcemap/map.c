/*
 * map.c: the map object: life cycle, messages, loading, accessors.
 */
#include "smap_private.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"

struct pp_smap_chunk {
	struct pp_smap_chunk *next;
	max_align_t data[];
};

#define CHUNK_SIZE (64 * 1024)

/* N bytes at alignment AL (a power of two, at most max_align_t's). */
static void *arena_alloc(struct pp_smap_arena *a, size_t n, size_t al)
{
	struct pp_smap_chunk *c;
	size_t at;

	if (n == 0)
		n = 1;
	if (a->head) {
		at = (a->used + al - 1) & ~(al - 1);
		if (at <= a->cap && a->cap - at >= n) {
			a->used = at + n;
			return (char *)a->head->data + at;
		}
	}
	if (n > CHUNK_SIZE / 4) {
		/* A big block gets a chunk of its own, kept behind the head so
		 * the head's free space is not wasted. */
		if (n > SIZE_MAX - sizeof(*c))
			return NULL;
		c = malloc(sizeof(*c) + n);
		if (!c)
			return NULL;
		if (a->head) {
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = NULL;
			a->head = c;
			a->used = a->cap = n;
		}
		return c->data;
	}
	c = malloc(sizeof(*c) + CHUNK_SIZE);
	if (!c)
		return NULL;
	c->next = a->head;
	a->head = c;
	a->cap = CHUNK_SIZE;
	a->used = n;
	return c->data;
}

void *pp_smap_alloc(struct pp_smap_arena *a, size_t n)
{
	return arena_alloc(a, n, sizeof(max_align_t));
}

char *pp_smap_strndup(struct pp_smap_arena *a, const char *s, size_t n)
{
	char *p;

	if (n == SIZE_MAX)
		return NULL;
	p = arena_alloc(a, n + 1, 1);
	if (!p)
		return NULL;
	if (n)
		memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

struct pp_smap_mark pp_smap_arena_mark(const struct pp_smap_arena *a)
{
	struct pp_smap_mark k = { a->head, a->used };
	return k;
}

void pp_smap_arena_rewind(struct pp_smap_arena *a, struct pp_smap_mark k)
{
	if (k.head && a->head == k.head && k.used <= a->used)
		a->used = k.used;
}

void pp_smap_arena_release(struct pp_smap_arena *a)
{
	struct pp_smap_chunk *c = a->head, *next;

	for (; c; c = next) {
		next = c->next;
		free(c);
	}
	a->head = NULL;
	a->used = a->cap = 0;
}

struct smap_map *smap_map_new(void)
{
	return calloc(1, sizeof(struct smap_map));
}

static void section_release(struct pp_smap_section *s)
{
	pp_smap_lines_release(s);
	if (s->sx && s->sx->dec) {
		free(s->sx->dec->scopes);
		free(s->sx->dec->root);
		free(s->sx->dec->ranges);
		free(s->sx->dec);
	}
}

void smap_map_free(struct smap_map *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nsec; i++)
		section_release(&m->sec[i]);
	free(m->sec);
	free(m->src);
	free(m->warn_first);
	free(m->warn_text);
	pp_smap_names_free(m->names);
	pp_js_heap_release(&m->heap);
	pp_smap_arena_release(&m->arena);
	if (m->keep_base)
		munmap(m->keep_base, m->keep_len);
	free(m);
}

int pp_smap_fail(struct smap_map *m, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->err, sizeof(m->err), fmt, ap);
	va_end(ap);
	return code;
}

void pp_smap_vwarn(struct smap_map *m, const char *fmt, va_list ap)
{
	if (m->nwarn++ == 0 && !m->warn_first) {
		char buf[512];

		vsnprintf(buf, sizeof(buf), fmt, ap);
		m->warn_first = strdup(buf); /* NULL is survivable */
	}
}

void pp_smap_warn(struct smap_map *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pp_smap_vwarn(m, fmt, ap);
	va_end(ap);
}

const char *smap_map_error(const struct smap_map *m)
{
	return m ? m->err : "";
}

const char *smap_map_warning(struct smap_map *m)
{
	size_t n;
	char *t;

	if (!m || m->nwarn == 0)
		return NULL;
	if (!m->warn_first)
		return "out of memory";
	if (m->nwarn == 1)
		return m->warn_first;
	n = strlen(m->warn_first) + 48;
	t = malloc(n);
	if (!t)
		return m->warn_first;
	snprintf(t, n, "%s (and %zu more)", m->warn_first, m->nwarn - 1);
	free(m->warn_text);
	m->warn_text = t;
	return t;
}

int smap_map_parse(struct smap_map *m, const void *buf, size_t len,
		   unsigned flags)
{
	const char *p = buf;
	size_t skip = 0;
	int rc;

	if (m->parsed)
		return pp_smap_fail(m, SMAP_EUSAGE, "map already parsed");
	m->parsed = true;
	m->flags = flags;
	m->err[0] = '\0';
	/* A first line starting with )]}' is an old guard against JSON
	 * hijacking; ECMA-426 drops it. */
	if (len >= 4 && memcmp(p, ")]}'", 4) == 0) {
		while (skip < len && p[skip] != '\n' && p[skip] != '\r')
			skip++;
	}
	rc = pp_smap_parse_json(m, p + skip, len - skip, skip, flags);
	return rc;
}

static int errno_fail(struct smap_map *m, const char *what, int e)
{
	char msg[128];

	snprintf(msg, sizeof(msg), "%s", strerror(e));
	if (msg[0] && msg[1] && !isupper((unsigned char)msg[1]))
		msg[0] = (char)tolower((unsigned char)msg[0]);
	errno = e;
	return pp_smap_fail(m, SMAP_EIO, "%s: %s", what, msg);
}

void pp_smap_input_done(struct smap_map *m, size_t upto)
{
#ifdef MADV_DONTNEED
	const size_t step = (size_t)8 << 20, keep = (size_t)64 << 10;
	long pg = sysconf(_SC_PAGESIZE);

	if (!m->in_base || pg <= 0 || upto > m->in_len || upto < keep ||
	    upto - keep < m->in_dropped + step)
		return;
	size_t to = (upto - keep) / (size_t)pg * (size_t)pg;
	if (to > m->in_dropped &&
	    madvise((void *)(m->in_base + m->in_dropped), to - m->in_dropped,
		    MADV_DONTNEED) == 0)
		m->in_dropped = to;
#else
	(void)m;
	(void)upto;
#endif
}

int smap_map_load_file(struct smap_map *m, const char *path, unsigned flags)
{
	struct stat st;
	int fd, rc, e;
	void *p;
	char *buf;
	size_t len, cap, got;
	ssize_t r;

	if (m->parsed)
		return pp_smap_fail(m, SMAP_EUSAGE, "map already parsed");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno_fail(m, "cannot open", errno);
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size < SIZE_MAX) {
		len = (size_t)st.st_size;
		p = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
		if (p != MAP_FAILED) {
			close(fd);
			m->in_base = p;
			m->in_len = len;
			m->in_dropped = 0;
			m->in_keep = false;
			rc = smap_map_parse(m, p, len, flags);
			m->in_base = NULL;
			if (m->in_keep) {
				m->keep_base = p;
				m->keep_len = len;
			} else {
				munmap(p, len);
			}
			return rc;
		}
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return errno_fail(m, "cannot read", EISDIR);
	}
	/* Not mappable (a pipe, an empty or special file): read it. */
	cap = 1 << 16;
	got = 0;
	buf = malloc(cap);
	if (!buf) {
		close(fd);
		return pp_smap_fail(m, SMAP_ENOMEM, "out of memory");
	}
	for (;;) {
		if (got == cap) {
			char *nb;

			if (cap > SIZE_MAX / 2) {
				free(buf);
				close(fd);
				return pp_smap_fail(m, SMAP_ENOMEM, "file too large");
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				close(fd);
				return pp_smap_fail(m, SMAP_ENOMEM, "out of memory");
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + got, cap - got);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			free(buf);
			close(fd);
			return errno_fail(m, "cannot read", e);
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	rc = smap_map_parse(m, buf, got, flags);
	free(buf);
	return rc;
}

const char *smap_map_file(const struct smap_map *m)
{
	return m->file;
}

bool smap_map_is_index(const struct smap_map *m)
{
	return m->index;
}

size_t smap_map_source_count(const struct smap_map *m)
{
	return m->nsrc;
}

const char *smap_map_source(const struct smap_map *m, size_t i)
{
	return i < m->nsrc ? m->src[i].resolved : NULL;
}

const char *smap_map_source_raw(const struct smap_map *m, size_t i)
{
	return i < m->nsrc ? m->src[i].raw : NULL;
}

const char *pp_smap_content(const struct smap_map *cm, size_t i, size_t *len, bool nul)
{
	return pp_smap_content_in(cm, i, len, nul, &((struct smap_map *)cm)->heap);
}

const char *pp_smap_content_in(const struct smap_map *cm, size_t i, size_t *len, bool nul,
			       struct pp_js_heap *h)
{
	/* the decoded text is the map's cache: it is filled under const */
	struct smap_map *m = (struct smap_map *)cm;
	struct pp_smap_source *s;

	*len = 0;
	if (i >= m->nsrc || !m->src[i].craw)
		return NULL;
	s = &m->src[i];
	if (!s->content && !s->cesc && !nul) {
		*len = s->craw_len;
		return s->craw;
	}
	if (!s->content) {
		char *d = pp_js_heap_alloc(h, s->craw_len + 1);
		size_t n;

		if (!d)
			return NULL;
		if (s->cesc) {
			n = json_unescape(s->craw, s->craw_len, d);
		} else {
			memcpy(d, s->craw, s->craw_len);
			n = s->craw_len;
		}
		d[n] = '\0';
		pp_js_heap_shrink(h, d, n + 1);
		s->content = d;
		s->content_len = n;
	}
	*len = s->content_len;
	return s->content;
}

const char *smap_map_source_content(const struct smap_map *m, size_t i, size_t *len)
{
	size_t n;
	const char *c = pp_smap_content(m, i, &n, true);

	if (len)
		*len = n;
	return c;
}

bool smap_map_has_source_content(const struct smap_map *m, size_t i)
{
	return i < m->nsrc && m->src[i].craw;
}

bool smap_map_source_ignored(const struct smap_map *m, size_t i)
{
	return i < m->nsrc && m->src[i].ignored;
}

const char *smap_version(void)
{
	return "0.1.0";
}
