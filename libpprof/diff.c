/* diff.c: two folded profiles side by side, as difffolded.pl writes them.
 *
 * Folded files of tens of megabytes are the usual input of a diff: their
 * lines come from pprof_fold() as the folded reader read them, pointing into
 * the inputs, without a call tree (read_folded.c). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "folded_private.h"

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
	return pp_folded_adopt(err, f, nb, (size_t)(at - nb));
}

/* ---- fold vanished functions ---- */

/* The functions of both sides: a name, and which sides have it. */
struct vname {
	const char *s;
	size_t len;
	uint64_t hash;
	unsigned sides; /* 1: A, 2: B */
};

struct vset {
	struct vname *v;
	size_t cap, n;
	uint64_t seed;
};

static struct vname *vset_find(struct vset *t, const char *s, size_t len)
{
	uint64_t h = pp_hash_bytes(s, len, t->seed);
	size_t i = (size_t)h & (t->cap - 1);
	while (t->v[i].s &&
	       !(t->v[i].hash == h && t->v[i].len == len && memcmp(t->v[i].s, s, len) == 0))
		i = (i + 1) & (t->cap - 1);
	if (!t->v[i].s)
		t->v[i] = (struct vname){s, len, h, 0};
	return &t->v[i];
}

/* Adds the names of F's stacks for SIDE; false when out of memory. */
static bool vset_add(struct vset *t, const struct pprof_folded *f, unsigned side)
{
	for (size_t k = 0; k < f->n; k++) {
		const char *p = f->lines[k].stack, *end = p + f->lines[k].len;
		for (;;) {
			const char *semi = memchr(p, ';', (size_t)(end - p));
			const char *fe = semi ? semi : end;
			if ((t->n + 1) * 2 > t->cap) {
				struct vname *old = t->v;
				size_t oc = t->cap;
				t->cap = oc ? oc * 2 : 1024;
				t->v = calloc(t->cap, sizeof(*t->v));
				if (!t->v) {
					t->v = old;
					t->cap = oc;
					return false;
				}
				for (size_t j = 0; j < oc; j++) {
					if (!old[j].s)
						continue;
					size_t x = (size_t)old[j].hash & (t->cap - 1);
					while (t->v[x].s)
						x = (x + 1) & (t->cap - 1);
					t->v[x] = old[j];
				}
				free(old);
			}
			struct vname *v = vset_find(t, p, (size_t)(fe - p));
			if (!v->sides)
				t->n++;
			v->sides |= side;
			if (!semi)
				break;
			p = semi + 1;
		}
	}
	return true;
}

/* Rewrites F's stacks without the frames that are not in both sides
 * (but a stack's root), then sorts and merges them again. */
static int fold_side(struct pprof_profile *err, struct vset *t, struct pprof_folded *f, char **old)
{
	size_t size = 0;
	for (size_t k = 0; k < f->n; k++)
		size += f->lines[k].len;
	char *nb = malloc(size ? size : 1), *at = nb;
	if (!nb)
		return pp_nomem(err);
	for (size_t k = 0; k < f->n; k++) {
		const char *p = f->lines[k].stack, *end = p + f->lines[k].len;
		char *start = at;
		for (bool root = true;; root = false) {
			const char *semi = memchr(p, ';', (size_t)(end - p));
			const char *fe = semi ? semi : end;
			size_t len = (size_t)(fe - p);
			if (root || vset_find(t, p, len)->sides == 3) {
				if (at > start)
					*at++ = ';';
				memcpy(at, p, len);
				at += len;
			}
			if (!semi)
				break;
			p = semi + 1;
		}
		f->lines[k].stack = start;
		f->lines[k].len = (size_t)(at - start);
	}
	*old = f->buf;
	return pp_folded_adopt(err, f, nb, (size_t)(at - nb));
}

int pprof_folded_fold_vanished(struct pprof_profile *err, struct pprof_folded *a,
			       struct pprof_folded *b)
{
	struct vset t = {NULL, 0, 0, 0};
	t.seed = (uint64_t)(uintptr_t)&t * 0x9E3779B97F4A7C15ull;
	if (getrandom(&t.seed, sizeof(t.seed), GRND_NONBLOCK) != (ssize_t)sizeof(t.seed))
		t.seed ^= (uint64_t)time(NULL);
	int s = PPROF_OK;
	if (!vset_add(&t, a, 1) || !vset_add(&t, b, 2))
		s = pp_nomem(err);
	/* the names point into the old lines: their buffers are freed last */
	char *oa = NULL, *ob = NULL;
	if (s == PPROF_OK)
		s = fold_side(err, &t, b, &ob);
	if (s == PPROF_OK)
		s = fold_side(err, &t, a, &oa);
	free(oa);
	free(ob);
	free(t.v);
	return s;
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
			c = pp_folded_line_cmp(&before->lines[i], &after->lines[j]);
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
