/* top_diff.c: the by-function table of a diff (pprof-diff --top) and its
 * regression gate. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "pprof_private.h"
#include "top_private.h"

struct dfun {
	const char *name;
	uint32_t len;
	uint64_t hash;
	size_t mark; /* the last line (+1) that counted it in total */
	int64_t sb, sa, tb, ta;
};

struct dtab {
	struct pprof_profile *err;
	struct dfun *fn;
	uint32_t nfn, capfn;
	uint32_t *slots; /* function + 1, 0 = empty */
	size_t cap;
	/* Names come from the input: hashed with a seed it can't know, they
	 * can't be crafted to share one slot (hash flooding). */
	uint64_t seed;
};

static int dtab_find(struct dtab *t, const char *s, size_t n, uint32_t *id)
{
	if (n > UINT32_MAX)
		return pp_error(t->err, PPROF_EINPUT, "frame name longer than 4 GiB");
	uint64_t h = pp_hash_bytes(s, n, t->seed);
	size_t i = (size_t)h & (t->cap - 1);
	while (t->slots[i]) {
		struct dfun *f = &t->fn[t->slots[i] - 1];
		if (f->hash == h && f->len == n && memcmp(f->name, s, n) == 0) {
			*id = t->slots[i] - 1;
			return PPROF_OK;
		}
		i = (i + 1) & (t->cap - 1);
	}
	if (t->nfn == t->capfn) {
		uint32_t cap = t->capfn ? t->capfn * 2 : 1024;
		if (cap < t->capfn)
			return pp_nomem(t->err);
		struct dfun *nf = realloc(t->fn, (size_t)cap * sizeof(*nf));
		if (!nf)
			return pp_nomem(t->err);
		t->fn = nf;
		t->capfn = cap;
	}
	*id = t->nfn;
	t->fn[t->nfn++] = (struct dfun){s, (uint32_t)n, h, 0, 0, 0, 0, 0};
	t->slots[i] = t->nfn;
	if ((size_t)t->nfn * 2 > t->cap) {
		size_t cap = t->cap * 2;
		uint32_t *ns = calloc(cap, sizeof(*ns));
		if (!ns)
			return pp_nomem(t->err);
		for (uint32_t k = 0; k < t->nfn; k++) {
			size_t j = (size_t)t->fn[k].hash & (cap - 1);
			while (ns[j])
				j = (j + 1) & (cap - 1);
			ns[j] = k + 1;
		}
		free(t->slots);
		t->slots = ns;
		t->cap = cap;
	}
	return PPROF_OK;
}

struct drow {
	const struct dfun *f;
	int64_t ds, dt;
};

static int drow_cmp_self(const void *pa, const void *pb)
{
	const struct drow *a = pa, *b = pb;
	uint64_t x = mag(a->ds), y = mag(b->ds);
	if (x != y)
		return x > y ? -1 : 1;
	int c = name_cmp(a->f->name, a->f->len, b->f->name, b->f->len);
	if (c)
		return c;
	x = mag(a->dt);
	y = mag(b->dt);
	return x != y ? (x > y ? -1 : 1) : 0;
}

static int drow_cmp_total(const void *pa, const void *pb)
{
	const struct drow *a = pa, *b = pb;
	uint64_t x = mag(a->dt), y = mag(b->dt);
	if (x != y)
		return x > y ? -1 : 1;
	int c = name_cmp(a->f->name, a->f->len, b->f->name, b->f->len);
	if (c)
		return c;
	x = mag(a->ds);
	y = mag(b->ds);
	return x != y ? (x > y ? -1 : 1) : 0;
}

static bool add_to(int64_t *dst, int64_t v)
{
	return !__builtin_add_overflow(*dst, v, dst);
}

int pprof_diff_table(struct pprof_profile *err, const struct pprof_diff *d, int cum,
		     struct pprof_diff_table **out)
{
	*out = NULL;
	struct dtab t = {err, NULL, 0, 0, NULL, 1024, 0};
	t.seed = (uint64_t)(uintptr_t)&t * 0x9E3779B97F4A7C15ull;
	if (getrandom(&t.seed, sizeof(t.seed), GRND_NONBLOCK) != (ssize_t)sizeof(t.seed))
		t.seed ^= (uint64_t)time(NULL);
	struct drow *rows = NULL;
	struct pprof_diff_table *tab = NULL;
	int s = PPROF_OK;
	t.slots = calloc(t.cap, sizeof(*t.slots));
	if (!t.slots) {
		s = pp_nomem(err);
		goto out;
	}
	for (size_t i = 0; i < d->n; i++) {
		const struct pprof_diff_line *l = &d->lines[i];
		const char *p = l->stack, *end = l->stack + l->len;
		for (;;) {
			const char *semi = memchr(p, ';', (size_t)(end - p));
			const char *fe = semi ? semi : end;
			uint32_t id = 0;
			s = dtab_find(&t, p, (size_t)(fe - p), &id);
			if (s != PPROF_OK)
				goto out;
			struct dfun *f = &t.fn[id];
			if (f->mark != i + 1) {
				f->mark = i + 1;
				if (!add_to(&f->tb, l->before) || !add_to(&f->ta, l->after))
					goto overflow;
			}
			if (!semi) {
				if (!add_to(&f->sb, l->before) || !add_to(&f->sa, l->after))
					goto overflow;
				break;
			}
			p = semi + 1;
		}
	}
	rows = malloc((size_t)(t.nfn ? t.nfn : 1) * sizeof(*rows));
	if (!rows) {
		s = pp_nomem(err);
		goto out;
	}
	size_t n = 0, size = 0;
	for (uint32_t k = 0; k < t.nfn; k++) {
		struct dfun *f = &t.fn[k];
		int64_t ds, dt;
		if (__builtin_sub_overflow(f->sa, f->sb, &ds) || __builtin_sub_overflow(f->ta, f->tb, &dt))
			goto overflow;
		if (ds || dt) {
			rows[n++] = (struct drow){f, ds, dt};
			size += (size_t)f->len + 1;
		}
	}
	qsort(rows, n, sizeof(*rows), cum ? drow_cmp_total : drow_cmp_self);
	tab = calloc(1, sizeof(*tab));
	if (tab) {
		tab->rows = malloc((n ? n : 1) * sizeof(*tab->rows));
		tab->buf = malloc(size ? size : 1);
	}
	if (!tab || !tab->rows || !tab->buf) {
		s = pp_nomem(err);
		goto out;
	}
	char *at = tab->buf;
	for (size_t i = 0; i < n; i++) {
		const struct dfun *f = rows[i].f;
		memcpy(at, f->name, f->len);
		at[f->len] = '\0';
		tab->rows[i] = (struct pprof_diff_row){at, f->sb, f->sa, f->tb, f->ta};
		at += f->len + 1;
	}
	tab->n = n;
	*out = tab;
	tab = NULL;
	goto out;
overflow:
	s = pp_error(err, PPROF_EINPUT, "sum of values leaves the 64-bit range");
out:
	pprof_diff_table_free(tab);
	free(rows);
	free(t.fn);
	free(t.slots);
	return s;
}

void pprof_diff_table_free(struct pprof_diff_table *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t->buf);
	free(t);
}

/* A signed label: "+" before growth. */
static void signed_label(char *buf, size_t size, int64_t v, const char *from, const char *unit)
{
	if (v > 0) {
		buf[0] = '+';
		pprof_value_label(buf + 1, size - 1, v, from, unit);
	} else {
		pprof_value_label(buf, size, v, from, unit);
	}
}

static void signed_pct(char *buf, size_t size, int64_t v, int64_t base)
{
	if (base == 0)
		snprintf(buf, size, v ? "n/a" : "0%%");
	else
		snprintf(buf, size, "%+.2f%%", (double)v / (double)base * 100);
}

/* Cells of one text row, for measuring and printing. */
#define DCOLS 8
struct dcells {
	char c[DCOLS][96];
};

static void diff_cells(struct dcells *x, const struct pprof_diff_row *r, const char *from,
		       const char *unit, int64_t base)
{
	int64_t ds = r->self_after - r->self_before, dt = r->total_after - r->total_before;
	pprof_value_label(x->c[0], sizeof(x->c[0]), r->self_before, from, unit);
	pprof_value_label(x->c[1], sizeof(x->c[1]), r->self_after, from, unit);
	signed_label(x->c[2], sizeof(x->c[2]), ds, from, unit);
	signed_pct(x->c[3], sizeof(x->c[3]), ds, base);
	pprof_value_label(x->c[4], sizeof(x->c[4]), r->total_before, from, unit);
	pprof_value_label(x->c[5], sizeof(x->c[5]), r->total_after, from, unit);
	signed_label(x->c[6], sizeof(x->c[6]), dt, from, unit);
	signed_pct(x->c[7], sizeof(x->c[7]), dt, base);
}

static void diff_text(const struct pprof_diff_table *t, const struct pprof_diff *d,
		      const struct pprof_diff_info *info, size_t n, FILE *out)
{
	static const char *const head[DCOLS] = {"before", "after", "delta", "delta%",
						"before", "after", "delta", "delta%"};
	int64_t base = d->total_before_scaled;
	int64_t max = base > d->total_after ? base : d->total_after;
	int64_t min = 0;
	for (size_t i = 0; i < n; i++) {
		const struct pprof_diff_row *r = &t->rows[i];
		uint64_t m = mag(r->self_after - r->self_before);
		if (m == 0)
			m = mag(r->total_after - r->total_before);
		if (m > 0 && (min == 0 || m < (uint64_t)min))
			min = (int64_t)m;
	}
	char unit[64], a[128], pct[64];
	if (info->output_unit && strcmp(info->output_unit, "minimum") != 0)
		snprintf(unit, sizeof(unit), "%s", info->output_unit);
	else
		pprof_output_unit(unit, sizeof(unit), min, max, info->unit);

	fprintf(out, "Type: %s (%s)\n", info->type, info->unit);
	pprof_value_label(a, sizeof(a), d->total_before, info->unit, unit);
	fprintf(out, "Before: %s, total %s\n", info->before, a);
	pprof_value_label(a, sizeof(a), d->total_after, info->unit, unit);
	fprintf(out, "After: %s, total %s\n", info->after, a);
	if (d->normalized) {
		pprof_value_label(a, sizeof(a), d->total_before_scaled, info->unit, unit);
		fprintf(out,
			"Normalized: before values x %.6g (after's total / before's), "
			"truncated; before total now %s\n",
			(double)d->total_after / (double)d->total_before, a);
	} else {
		fprintf(out, "Normalized: no\n");
	}
	signed_label(a, sizeof(a), d->total_after - base, info->unit, unit);
	signed_pct(pct, sizeof(pct), d->total_after - base, base);
	fprintf(out, "Total delta: %s (%s of before)\n", a, pct);
	fprintf(out, "Showing %zu of %zu functions that changed; delta%% is of the before total\n",
		n, t->n);

	/* Column widths from the cells. */
	size_t w[DCOLS];
	for (int k = 0; k < DCOLS; k++)
		w[k] = strlen(head[k]);
	struct dcells x;
	for (size_t i = 0; i < n; i++) {
		diff_cells(&x, &t->rows[i], info->unit, unit, base);
		for (int k = 0; k < DCOLS; k++)
			if (strlen(x.c[k]) > w[k])
				w[k] = strlen(x.c[k]);
	}
	/* "self" over the first four columns, "total" over the next four */
	size_t self_w = w[0] + w[1] + w[2] + w[3] + 3 * 2 + 4;
	fprintf(out, "%-*s%s\n", (int)self_w, "self", "total");
	for (int k = 0; k < DCOLS; k++)
		fprintf(out, "%*s%s", (int)w[k], head[k], k == 3 ? "    " : "  ");
	fputs("function\n", out);
	for (size_t i = 0; i < n; i++) {
		diff_cells(&x, &t->rows[i], info->unit, unit, base);
		for (int k = 0; k < DCOLS; k++)
			fprintf(out, "%*s%s", (int)w[k], x.c[k], k == 3 ? "    " : "  ");
		fprintf(out, "%s\n", t->rows[i].name);
	}
}

static void json_side(FILE *out, const char *key, int64_t b, int64_t a, int64_t base)
{
	fprintf(out,
		",\"%s\":{\"before\":%" PRId64 ",\"after\":%" PRId64 ",\"delta\":%" PRId64
		",\"delta_pct\":%.4f}",
		key, b, a, a - b, pct_of(a - b, base));
}

int pprof_diff_table_write(const struct pprof_diff_table *t, const struct pprof_diff *d,
			   const struct pprof_diff_info *info, enum pprof_table_format fmt,
			   size_t limit, FILE *out)
{
	errno = 0;
	size_t n = limit && limit < t->n ? limit : t->n;
	int64_t base = d->total_before_scaled;
	switch (fmt) {
	case PPROF_TABLE_TEXT:
		diff_text(t, d, info, n, out);
		break;
	case PPROF_TABLE_TSV:
		fputs("# type\t", out);
		pp_tsv_str(out, info->type);
		putc('\t', out);
		pp_tsv_str(out, info->unit);
		fputs("\n# before\t", out);
		pp_tsv_str(out, info->before);
		fprintf(out, "\t%" PRId64 "\t%" PRId64 "\n# after\t", d->total_before,
			d->total_before_scaled);
		pp_tsv_str(out, info->after);
		fprintf(out, "\t%" PRId64 "\n# normalized\t%d\n# rows\t%zu\t%zu\n", d->total_after,
			d->normalized ? 1 : 0, n, t->n);
		fputs("self_before\tself_after\tself_delta\tself_delta%\ttotal_before\ttotal_after\t"
		      "total_delta\ttotal_delta%\tfunction\n",
		      out);
		for (size_t i = 0; i < n; i++) {
			const struct pprof_diff_row *r = &t->rows[i];
			int64_t ds = r->self_after - r->self_before, dt = r->total_after - r->total_before;
			fprintf(out,
				"%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%.4f\t%" PRId64 "\t%" PRId64
				"\t%" PRId64 "\t%.4f\t",
				r->self_before, r->self_after, ds, pct_of(ds, base), r->total_before,
				r->total_after, dt, pct_of(dt, base));
			pp_tsv_str(out, r->name);
			putc('\n', out);
		}
		break;
	case PPROF_TABLE_JSON:
		fputs("{\"type\":", out);
		pp_json_str(out, info->type);
		fputs(",\"unit\":", out);
		pp_json_str(out, info->unit);
		fputs(",\"before\":{\"name\":", out);
		pp_json_str(out, info->before);
		fprintf(out, ",\"total\":%" PRId64 ",\"total_scaled\":%" PRId64 "},\"after\":{\"name\":",
			d->total_before, d->total_before_scaled);
		pp_json_str(out, info->after);
		fprintf(out,
			",\"total\":%" PRId64 "},\"normalized\":%s,\"delta\":%" PRId64
			",\"delta_pct\":%.4f,\"rows_total\":%zu,\"rows\":[",
			d->total_after, d->normalized ? "true" : "false", d->total_after - base,
			pct_of(d->total_after - base, base), t->n);
		for (size_t i = 0; i < n; i++) {
			const struct pprof_diff_row *r = &t->rows[i];
			fputs(i ? ",\n{\"function\":" : "\n{\"function\":", out);
			pp_json_str(out, r->name);
			json_side(out, "self", r->self_before, r->self_after, base);
			json_side(out, "total", r->total_before, r->total_after, base);
			putc('}', out);
		}
		fputs("]}\n", out);
		break;
	}
	return pp_write_status(out);
}

int pprof_diff_regressed(const struct pprof_diff_table *t, const struct pprof_diff *d, double pct,
			 int64_t min_delta, const struct pprof_diff_row **worst, size_t *nover)
{
	int64_t base = d->total_before_scaled;
	*worst = NULL;
	*nover = 0;
	/* growth > pct% of base, in long double so big values stay exact enough */
	long double limit = (long double)pct / 100 * (long double)base;
	int64_t best = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct pprof_diff_row *r = &t->rows[i];
		int64_t g = r->total_after - r->total_before;
		if (g <= 0)
			continue;
		if (g > best) {
			best = g;
			*worst = r;
		}
		if ((base <= 0 || (long double)g > limit) && g >= min_delta)
			(*nover)++;
	}
	int64_t g = d->total_after - base;
	bool total_over = g > 0 && (base <= 0 || (long double)g > limit) && g >= min_delta;
	return total_over || *nover > 0;
}
