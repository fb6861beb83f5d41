/* diff.c: two folded profiles side by side, as difffolded.pl writes them,
 * and a fast way to plain folded text that skips the model.
 *
 * Folded files of tens of megabytes are the usual input of a diff; building
 * the call tree only to fold it again costs more than the diff itself, so
 * plain text goes straight to sorted lines.  Whatever that shortcut is not
 * sure about goes to the ordinary reader, which has the last word. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "pprof_private.h"

/* The folded reader's whitespace. */
static bool is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int line_cmp(const void *pa, const void *pb)
{
	const struct pprof_folded_line *a = pa, *b = pb;
	int c = memcmp(a->stack, b->stack, a->len < b->len ? a->len : b->len);
	if (c)
		return c;
	return a->len < b->len ? -1 : a->len > b->len;
}

/* Sorts LINES when they are not in order yet (ORDER: 1 they are, 0 they
 * are not, -1 unknown), sums equal stacks and drops those that sum to 0;
 * *TOTAL gets the sum.  False when a sum leaves int64. */
static bool sort_merge(struct pprof_folded_line *l, size_t *np, int64_t *total, int order)
{
	size_t n = *np;
	bool sorted = order != 0;
	for (size_t i = 1; i < n && order < 0 && sorted; i++)
		sorted = line_cmp(&l[i - 1], &l[i]) <= 0;
	if (!sorted)
		qsort(l, n, sizeof(*l), line_cmp);
	size_t j = 0;
	for (size_t i = 0; i < n; i++) {
		if (j && l[j - 1].len == l[i].len && memcmp(l[j - 1].stack, l[i].stack, l[i].len) == 0) {
			if (__builtin_add_overflow(l[j - 1].value, l[i].value, &l[j - 1].value))
				return false;
		} else {
			l[j++] = l[i];
		}
	}
	int64_t t = 0;
	size_t k = 0;
	for (size_t i = 0; i < j; i++) {
		if (l[i].value == 0)
			continue;
		if (__builtin_add_overflow(t, l[i].value, &t))
			return false;
		l[k++] = l[i];
	}
	*np = k;
	*total = t;
	return true;
}

/* Whether [s, e) could be a count to the folded reader (a superset of what
 * it accepts: sign, digits, a fraction). */
static bool numeric(const char *s, const char *e)
{
	if (s < e && (*s == '-' || *s == '+'))
		s++;
	bool digit = false, dot = false;
	for (; s < e; s++) {
		if (*s >= '0' && *s <= '9')
			digit = true;
		else if (*s == '.' && !dot)
			dot = true;
		else
			return false;
	}
	return digit;
}

/* Bytes of X equal to C, as the high bit of each byte (exact, no carries
 * between bytes). */
static inline uint64_t eq_bytes(uint64_t x, uint64_t c)
{
	const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full;
	uint64_t t = x ^ (c * 0x0101010101010101ull);
	return ~(((t & lo7) + lo7) | t | lo7);
}

/* Whether a stack has neither an empty frame (";;") nor a CR, which the
 * reader and the namer would change.  Lines are long: 16 or 8 bytes at a
 * time. */
static bool clean_stack(const char *s, size_t n)
{
	bool prev = false; /* the byte before the block was ';' */
	size_t i = 0;
#ifdef __SSE2__
	const __m128i semi = _mm_set1_epi8(';'), cr = _mm_set1_epi8('\r');
	for (; i + 16 <= n; i += 16) {
		__m128i w = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		unsigned ms = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(w, semi));
		unsigned mc = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(w, cr));
		if (mc || (ms & ((ms << 1) | (prev ? 1u : 0u))))
			return false;
		prev = ms >> 15;
	}
#endif
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		uint64_t m = eq_bytes(w, ';');
		/* adjacent bytes of the word, in either byte order */
		if (eq_bytes(w, '\r') || (m & (m << 8)) || (prev && s[i] == ';'))
			return false;
		prev = s[i + 7] == ';';
	}
	for (; i < n; i++) {
		if (s[i] == '\r' || (s[i] == ';' && prev))
			return false;
		prev = s[i] == ';';
	}
	return true;
}

/* The end of the line that starts at S (its '\n', or E), and in *BAD the
 * first CR or second ';' of a ";;" before it (E when none): the newline
 * search and clean_stack() in one pass over bytes that come from memory,
 * not from the cache. */
static const char *scan_line(const char *s, const char *e, const char **bad)
{
	const char *p = s;
	bool prev = false; /* the byte before P was ';' */
	*bad = e;
#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n'), semi = _mm_set1_epi8(';'),
		      cr = _mm_set1_epi8('\r');
	for (; e - p >= 16; p += 16) {
		__m128i w = _mm_loadu_si128((const __m128i *)(const void *)p);
		unsigned mn = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(w, nl));
		unsigned ms = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(w, semi));
		unsigned mc = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(w, cr));
		unsigned mb = mc | (ms & ((ms << 1) | (prev ? 1u : 0u)));
		if (mn)
			mb &= (mn & -mn) - 1; /* before the newline */
		if (mb && *bad == e)
			*bad = p + __builtin_ctz(mb);
		if (mn)
			return p + __builtin_ctz(mn);
		prev = ms >> 15;
	}
#endif
	for (; p < e; p++) {
		if (*p == '\n')
			return p;
		if (*bad == e && (*p == '\r' || (*p == ';' && prev)))
			*bad = p;
		prev = *p == ';';
	}
	return e;
}

enum { FAST_OK, FAST_BAIL, FAST_NOMEM };

/* Parses plain two-column folded text into *OUT (lines pointing into BUF).
 * FAST_BAIL for anything the folded reader would treat with more care, so
 * that the reader handles it, with its warnings and messages. */
static int fast_parse(const unsigned char *buf, size_t len, struct pprof_folded_line **out,
		      size_t *nout, int64_t *total)
{
	if (len == 0 || pp_is_gzip(buf, len) ||
	    (len >= 2 && ((buf[0] == 0xff && buf[1] == 0xfe) || (buf[0] == 0xfe && buf[1] == 0xff))))
		return FAST_BAIL;
	/* The readers' bids, as read.c weighs them: the folded reader, last in
	 * its list, must bid more than every other. */
	int fb = pp_reader_folded.bid(buf, len);
	if (fb <= 0 || pp_reader_pprof.bid(buf, len) >= fb ||
	    pp_reader_cpuprofile.bid(buf, len) >= fb || pp_reader_heapprofile.bid(buf, len) >= fb)
		return FAST_BAIL;
	size_t pos = len >= 3 && buf[0] == 0xef && buf[1] == 0xbb && buf[2] == 0xbf ? 3 : 0;
	const char *base = (const char *)buf;
	struct pprof_folded_line *l = NULL;
	size_t n = 0, cap = 0;
	bool sorted = true, merge = false; /* merge: equal stacks, zeros or overflow */
	int64_t sum = 0;
	while (pos < len) {
		const char *s = base + pos, *bad;
		const char *e = scan_line(s, base + len, &bad);
		pos = (size_t)(e - base) + 1;
		while (s < e && is_space((unsigned char)*s))
			s++;
		if (s == e || (*s == '#' && (s + 1 == e || s[1] == ' ' || s[1] == '#')))
			continue;
		while (e > s && is_space((unsigned char)e[-1]))
			e--;
		const char *f = e;
		while (f > s && !is_space((unsigned char)f[-1]))
			f--;
		if (f == s)
			goto bail;
		const char *d = f;
		bool neg = *d == '-';
		if (neg)
			d++;
		if (d == e)
			goto bail;
		uint64_t v = 0;
		for (; d < e; d++) {
			if (*d < '0' || *d > '9' || v > (UINT64_MAX - 9) / 10)
				goto bail;
			v = v * 10 + (uint64_t)(*d - '0');
		}
		if (v > (uint64_t)INT64_MAX)
			goto bail;
		const char *se = f;
		while (se > s && is_space((unsigned char)se[-1]))
			se--;
		/* A count before it would make three columns; a ';' in the
		 * field rules that out without a scan to the line's start. */
		const char *g = se;
		while (g > s && !is_space((unsigned char)g[-1]) && g[-1] != ';')
			g--;
		if (g != s && g[-1] != ';' && numeric(g, se))
			goto bail;
		size_t sl = (size_t)(se - s);
		/* A CR before S was white space: look again after it. */
		if (*s == ';' || se[-1] == ';' || (bad < se && (bad >= s || !clean_stack(s, sl))))
			goto bail;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 4096;
			struct pprof_folded_line *nl2 = realloc(l, nc * sizeof(*nl2));
			if (!nl2) {
				free(l);
				return FAST_NOMEM;
			}
			l = nl2;
			cap = nc;
		}
		int64_t val = neg ? -(int64_t)v : (int64_t)v;
		l[n++] = (struct pprof_folded_line){s, sl, val};
		/* compared while both lines are in the cache */
		if (sorted && n > 1) {
			int c = line_cmp(&l[n - 2], &l[n - 1]);
			sorted = c <= 0;
			merge |= c == 0;
		}
		merge |= val == 0 || __builtin_add_overflow(sum, val, &sum);
	}
	if (n == 0)
		goto bail;
	/* Sorted, each stack once, no zeros (the usual file): as it is,
	 * without another pass over the stacks. */
	if (sorted && !merge)
		*total = sum;
	else if (!sort_merge(l, &n, total, sorted ? 1 : 0))
		goto bail;
	*out = l;
	*nout = n;
	return FAST_OK;
bail:
	free(l);
	return FAST_BAIL;
}

/* A regular file that is not gzipped, mapped whole: the lines point into
 * the page cache, with nothing copied or cleared.  False when the ordinary
 * loader should take it (errors included). */
static bool map_plain(const char *path, const struct pprof_read_options *o,
		      unsigned char **buf, size_t *len)
{
	if (!path || strcmp(path, "-") == 0)
		return false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat st;
	unsigned char magic[2];
	uint64_t max = o && o->max_input ? o->max_input : (uint64_t)4 << 30;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 2 ||
	    (uint64_t)st.st_size > max || (uint64_t)st.st_size >= SIZE_MAX / 2 ||
	    pread(fd, magic, 2, 0) != 2 || pp_is_gzip(magic, 2)) {
		close(fd);
		return false;
	}
	size_t n = (size_t)st.st_size;
	void *m = mmap(NULL, n, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return false;
	*buf = m;
	*len = n;
	return true;
}

/* The lines of a file read by pprof_read_file_folded(), and the mapping
 * they may point into. */
struct folded_file {
	struct pprof_folded f; /* first: its address is the struct's */
	void *map;
	size_t maplen;
};

void pprof_folded_file_free(struct pprof_folded *f)
{
	if (!f)
		return;
	struct folded_file *ff = (struct folded_file *)(void *)f;
	if (ff->map)
		munmap(ff->map, ff->maplen);
	free(f->lines);
	free(f->buf);
	free(ff);
}

int pprof_read_file_folded(struct pprof_profile *p, const char *path,
			   const struct pprof_read_options *o, struct pprof_folded **out)
{
	*out = NULL;
	unsigned char *buf;
	size_t len;
	bool mapped = map_plain(path, o, &buf, &len);
	if (!mapped) {
		/* standard input, gzip: a malloc'd buffer (or a mapping) */
		int s = pp_input_load(p, path, o, &buf, &len, &mapped);
		if (s != PPROF_OK)
			return s;
	}
	struct pprof_folded_line *l = NULL;
	size_t n = 0;
	int64_t total = 0;
	int s = PPROF_OK;
	int r = fast_parse(buf, len, &l, &n, &total);
	if (r == FAST_NOMEM) {
		s = pp_nomem(p);
	} else if (r == FAST_BAIL) {
		s = pprof_read_buffer(p, buf, len, o);
	} else {
		struct folded_file *ff = calloc(1, sizeof(*ff));
		if (!ff) {
			free(l);
			s = pp_nomem(p);
		} else {
			ff->f.lines = l;
			ff->f.n = n;
			ff->f.total = total;
			if (mapped) {
				ff->map = buf;
				ff->maplen = len;
			} else {
				ff->f.buf = (char *)buf;
				ff->f.buflen = len;
			}
			*out = &ff->f;
			return PPROF_OK; /* BUF now belongs to *OUT */
		}
	}
	if (mapped)
		munmap(buf, len);
	else
		free(buf);
	return s;
}

/* ---- strip hex ---- */

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int pprof_folded_strip_hex(struct pprof_profile *err, struct pprof_folded *f)
{
	/* "0x" + at least one digit always becomes "0x...", which is at most 2
	 * bytes longer; count to size the new buffer. */
	size_t size = 0;
	for (size_t i = 0; i < f->n; i++) {
		size += f->lines[i].len;
		const char *s = f->lines[i].stack, *e = s + f->lines[i].len;
		while ((s = memmem(s, (size_t)(e - s), "0x", 2))) {
			s += 2;
			if (s < e && is_hex(*s))
				size += 2;
		}
	}
	char *nb = malloc(size ? size : 1);
	if (!nb)
		return pp_nomem(err);
	char *at = nb;
	for (size_t i = 0; i < f->n; i++) {
		const char *s = f->lines[i].stack, *e = s + f->lines[i].len;
		char *start = at;
		while (s < e) {
			const char *x = memmem(s, (size_t)(e - s), "0x", 2);
			if (!x) {
				memcpy(at, s, (size_t)(e - s));
				at += e - s;
				break;
			}
			memcpy(at, s, (size_t)(x - s) + 2);
			at += x - s + 2;
			s = x + 2;
			if (s < e && is_hex(*s)) {
				while (s < e && is_hex(*s))
					s++;
				memcpy(at, "...", 3);
				at += 3;
			}
		}
		f->lines[i].stack = start;
		f->lines[i].len = (size_t)(at - start);
	}
	free(f->buf);
	f->buf = nb;
	f->buflen = (size_t)(at - nb);
	int64_t total;
	if (!sort_merge(f->lines, &f->n, &total, -1))
		return pp_error(err, PPROF_EINPUT, "sum of values leaves the 64-bit range");
	f->total = total;
	return PPROF_OK;
}

/* ---- the diff ---- */

/* difffolded.pl -n: int($v * $total2 / $total1) in Perl's arithmetic: an
 * integer product when it fits (unsigned 64 bits), an exact quotient when
 * it divides, else doubles; int() truncates toward zero. */
static bool normalize(int64_t v, int64_t t2, int64_t t1, int64_t *out)
{
	__int128 prod = (__int128)v * t2;
	double q;
	if (prod >= -((__int128)1 << 63) && prod < ((__int128)1 << 64)) {
		if (prod % t1 == 0) {
			__int128 r = prod / t1;
			if (r < INT64_MIN || r > INT64_MAX)
				return false;
			*out = (int64_t)r;
			return true;
		}
		q = (double)prod / (double)t1;
	} else {
		q = (double)v * (double)t2 / (double)t1;
	}
	q = trunc(q);
	if (!(q >= -9223372036854775808.0 && q < 9223372036854775808.0))
		return false;
	*out = (int64_t)q;
	return true;
}

int pprof_diff_folded(struct pprof_profile *err, const struct pprof_folded *before,
		      const struct pprof_folded *after, const struct pprof_diff_options *o,
		      struct pprof_diff **out)
{
	*out = NULL;
	struct pprof_diff *d = calloc(1, sizeof(*d));
	size_t cap = before->n + after->n;
	if (d)
		d->lines = malloc((cap ? cap : 1) * sizeof(*d->lines));
	if (!d || !d->lines) {
		pprof_diff_free(d);
		return pp_nomem(err);
	}
	d->total_before = before->total;
	d->total_after = after->total;
	bool scale = o && o->normalize && before->total != after->total && before->total != 0;
	d->normalized = scale;
	size_t i = 0, j = 0, n = 0;
	int64_t sum = 0;
	while (i < before->n || j < after->n) {
		int c;
		if (i == before->n)
			c = 1;
		else if (j == after->n)
			c = -1;
		else
			c = line_cmp(&before->lines[i], &after->lines[j]);
		struct pprof_diff_line *l = &d->lines[n++];
		if (c <= 0) {
			l->stack = before->lines[i].stack;
			l->len = before->lines[i].len;
			l->before = before->lines[i++].value;
		} else {
			l->stack = after->lines[j].stack;
			l->len = after->lines[j].len;
			l->before = 0;
		}
		l->after = c >= 0 ? after->lines[j++].value : 0;
		if (scale && !normalize(l->before, after->total, before->total, &l->before)) {
			pprof_diff_free(d);
			return pp_error(err, PPROF_EINPUT, "a scaled value leaves the 64-bit range");
		}
		if (__builtin_add_overflow(sum, l->before, &sum)) {
			pprof_diff_free(d);
			return pp_error(err, PPROF_EINPUT, "sum of values leaves the 64-bit range");
		}
	}
	int64_t delta;
	if (__builtin_sub_overflow(after->total, sum, &delta)) {
		/* the tables print it */
		pprof_diff_free(d);
		return pp_error(err, PPROF_EINPUT, "the difference of the totals leaves the 64-bit range");
	}
	d->n = n;
	d->total_before_scaled = sum;
	*out = d;
	return PPROF_OK;
}

void pprof_diff_free(struct pprof_diff *d)
{
	if (!d)
		return;
	free(d->lines);
	free(d);
}

/* Decimal digits of V at the end of BUF (24 bytes); returns the start. */
static char *i64_dec(char *end, int64_t v)
{
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	do {
		*--end = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--end = '-';
	return end;
}

/* " BEFORE AFTER\n" of L, ending at END; returns its start. */
static char *diff_numbers(char *end, const struct pprof_diff_line *l)
{
	*--end = '\n';
	char *s = i64_dec(end, l->after);
	*--s = ' ';
	s = i64_dec(s, l->before);
	*--s = ' ';
	return s;
}

static int write_stdio(const struct pprof_diff *d, FILE *out)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct pprof_diff_line *l = &d->lines[i];
		char num[64];
		char *s = diff_numbers(num + sizeof(num), l);
		size_t nl = (size_t)(num + sizeof(num) - s);
		if (fwrite(l->stack, 1, l->len, out) != l->len || fwrite(s, 1, nl, out) != nl) {
			if (!errno)
				errno = EIO;
			return PPROF_EIO;
		}
	}
	return PPROF_OK;
}

/* writev() of all of IOV (N entries), which it may change; -1 on error. */
static int writev_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = writev(fd, iov, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

/* Lines per writev(): two entries each, within IOV_MAX (1024 on Linux). */
#define WRITE_BATCH 256

int pprof_diff_write(const struct pprof_diff *d, FILE *out)
{
	errno = 0;
	/* The stacks go to the file descriptor straight from where they are
	 * (the mapped inputs): through stdio each was copied once more, and
	 * on 2 x 63 MB of folded text that copy was a sixth of the time. */
	int fd = fileno(out);
	if (fd < 0)
		return write_stdio(d, out);
	if (fflush(out) != 0) {
		if (!errno)
			errno = EIO;
		return PPROF_EIO;
	}
	struct iovec iov[2 * WRITE_BATCH];
	char num[WRITE_BATCH][48];
	for (size_t i = 0; i < d->n;) {
		int k = 0;
		for (size_t b = 0; b < WRITE_BATCH && i < d->n; b++, i++) {
			const struct pprof_diff_line *l = &d->lines[i];
			char *s = diff_numbers(num[b] + sizeof(num[b]), l);
			iov[k].iov_base = (void *)(uintptr_t)l->stack;
			iov[k++].iov_len = l->len;
			iov[k].iov_base = s;
			iov[k++].iov_len = (size_t)(num[b] + sizeof(num[b]) - s);
		}
		if (writev_all(fd, iov, k) != 0) {
			if (!errno)
				errno = EIO;
			return PPROF_EIO;
		}
	}
	return PPROF_OK;
}
