/* top_tags.c: go tool pprof's -tags (internal/report's printTags): the
 * labels of the samples, per key the total of the selected value over the
 * samples that carry it and the share of each of its values. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "top_private.h"

/* One (key, value) of the report: string ids, and the sum. */
struct tag {
	uint32_t key, val;
	int64_t sum;
};

struct tags {
	struct pprof_profile *p;
	struct tag *t;
	size_t n, cap;
	uint32_t *slots; /* tag + 1; 0: empty */
	size_t nslots;
};

static size_t tag_hash(uint32_t key, uint32_t val, size_t cap)
{
	return edge_hash(((uint64_t)key << 32) | val, cap);
}

/* Adds V to the tag KEY=VAL. */
static int tag_add(struct tags *T, uint32_t key, uint32_t val, int64_t v)
{
	size_t i = tag_hash(key, val, T->nslots);
	while (T->slots[i]) {
		struct tag *t = &T->t[T->slots[i] - 1];
		if (t->key == key && t->val == val) {
			if (__builtin_add_overflow(t->sum, v, &t->sum))
				return pp_error(T->p, PPROF_EINPUT,
						"sum of values leaves the 64-bit range");
			return PPROF_OK;
		}
		i = (i + 1) & (T->nslots - 1);
	}
	if (!pp_grow((void **)&T->t, &T->cap, T->n + 1, sizeof(*T->t)))
		return pp_nomem(T->p);
	T->t[T->n++] = (struct tag){key, val, v};
	T->slots[i] = (uint32_t)T->n;
	if (T->n * 2 > T->nslots) {
		size_t cap = T->nslots * 2;
		uint32_t *s = calloc(cap, sizeof(*s));
		if (!s)
			return pp_nomem(T->p);
		for (size_t k = 0; k < T->n; k++) {
			size_t j = tag_hash(T->t[k].key, T->t[k].val, cap);
			while (s[j])
				j = (j + 1) & (cap - 1);
			s[j] = (uint32_t)k + 1;
		}
		free(T->slots);
		T->slots = s;
		T->nslots = cap;
	}
	return PPROF_OK;
}

static const struct pprof_profile *sort_p;

/* By key name; within a key by |sum|, then value name (graph.SortTags). */
static int tag_cmp(const void *pa, const void *pb)
{
	const struct tag *a = pa, *b = pb;
	const struct pprof_profile *p = sort_p;
	if (a->key != b->key) {
		int c = name_cmp(pp_str(p, a->key), pp_strlen(p, a->key), pp_str(p, b->key),
				 pp_strlen(p, b->key));
		if (c)
			return c;
	}
	uint64_t x = mag(a->sum), y = mag(b->sum);
	if (a->sum != b->sum && x != y)
		return x > y ? -1 : 1;
	return name_cmp(pp_str(p, a->val), pp_strlen(p, a->val), pp_str(p, b->val),
			pp_strlen(p, b->val));
}

/* The unit of each numeric label key (profile.NumLabelUnits): the first
 * one a sample gives it, else bytes for alignment and request, else the
 * key's own name.  UNIT[key] receives a string id. */
static int num_units(struct pprof_profile *p, uint32_t *unit)
{
	for (uint32_t e = 0; e < p->nentries; e++) {
		uint32_t set = p->entries[e].labels;
		if (set == 0 || set >= p->nlabelsets)
			continue;
		for (uint32_t i = p->labelsets[set]; i < p->labelsets[set + 1]; i++) {
			const struct pp_label *l = &p->labels[i];
			if (!l->str && !unit[l->key] && l->unit && pp_strlen(p, l->unit))
				unit[l->key] = l->unit;
		}
	}
	for (uint32_t i = 0; i < p->nlabels; i++) {
		const struct pp_label *l = &p->labels[i];
		if (l->str || unit[l->key])
			continue;
		const char *k = pp_str(p, l->key);
		int s = strcmp(k, "alignment") == 0 || strcmp(k, "request") == 0
				? pp_intern_cstr(p, "bytes", &unit[l->key])
				: (unit[l->key] = l->key, PPROF_OK);
		if (s != PPROF_OK)
			return s;
	}
	return PPROF_OK;
}

/* The width of S in runes, as text/tabwriter counts it. */
static size_t runes(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* One key's lines, aligned as pprof's tabwriter (AlignRight, padding 1). */
static void write_key(const struct pprof_profile *p, const struct tag *t, size_t n,
		      const char *from, const char *to, FILE *out)
{
	int64_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += t[i].sum; /* each within the magnitudes' sum */
	const char *u;
	char head[64], (*cell)[128] = malloc((n ? n : 1) * sizeof(*cell));
	double f = pp_unit_scale(total, from, to, &u);
	snprintf(head, sizeof(head), " Total %.1f%s", f, u);
	size_t w0 = runes(pp_str(p, t[0].key)) + 1, w1 = 0;
	for (size_t i = 0; cell && i < n; i++) {
		char pct[32];
		f = pp_unit_scale(t[i].sum, from, to, &u);
		pp_percentage(pct, sizeof(pct), t[i].sum, total);
		if (total > 0)
			snprintf(cell[i], sizeof(cell[i]), "%.1f%s (%s):", f, u, pct);
		else
			snprintf(cell[i], sizeof(cell[i]), "%.1f%s:", f, u);
		if (runes(cell[i]) > w1)
			w1 = runes(cell[i]);
	}
	fprintf(out, "%*s%s:%s\n", (int)(w0 + 1 - runes(pp_str(p, t[0].key)) - 1), "",
		pp_str(p, t[0].key), head);
	for (size_t i = 0; cell && i < n; i++)
		fprintf(out, "%*s %*s%s %s\n", (int)w0, "", (int)(w1 + 1 - runes(cell[i])), "",
			cell[i], pp_str(p, t[i].val));
	fputc('\n', out);
	free(cell);
}

int pprof_tags_write(struct pprof_profile *p, int sample_index, const char *unit, FILE *out)
{
	if (sample_index < 0 || (uint32_t)sample_index >= p->ntypes)
		return pp_error(p, PPROF_EUSAGE, "no sample type selected");
	int s = pp_settle(p);
	if (s != PPROF_OK)
		return s;
	uint32_t sel = (uint32_t)sample_index;
	const char *to = unit ? unit : "minimum";
	struct tags T = {p, NULL, 0, 0, calloc(1024, sizeof(uint32_t)), 1024};
	uint32_t *units = calloc(p->nstrs ? p->nstrs : 1, sizeof(*units));
	if (!T.slots || !units) {
		s = pp_nomem(p);
		goto out;
	}
	if ((s = num_units(p, units)) != PPROF_OK)
		goto out;
	for (uint32_t e = 0; e < p->nentries && s == PPROF_OK; e++) {
		uint32_t set = p->entries[e].labels;
		/* go tool pprof leaves the samples with an empty stack out */
		if (set == 0 || set >= p->nlabelsets || p->entries[e].node == 0)
			continue;
		int64_t v = p->values[(size_t)e * p->ntypes + sel];
		for (uint32_t i = p->labelsets[set]; i < p->labelsets[set + 1] && s == PPROF_OK;
		     i++) {
			const struct pp_label *l = &p->labels[i];
			uint32_t val = l->str;
			if (!val) {
				/* a number as a label in its key's unit */
				char num[160];
				pprof_value_label(num, sizeof(num), l->num,
						  pp_str(p, units[l->key]), to);
				if ((s = pp_intern_cstr(p, num, &val)) != PPROF_OK)
					break;
			}
			s = tag_add(&T, l->key, val, v);
		}
	}
	if (s != PPROF_OK)
		goto out;
	sort_p = p;
	if (T.n)
		qsort(T.t, T.n, sizeof(*T.t), tag_cmp);
	errno = 0;
	const char *from = pp_str(p, p->types[sel].unit);
	for (size_t i = 0, j; i < T.n; i = j) {
		for (j = i + 1; j < T.n && T.t[j].key == T.t[i].key; j++)
			;
		write_key(p, T.t + i, j - i, from, to, out);
	}
	s = pp_write_status(out);
out:
	free(units);
	free(T.t);
	free(T.slots);
	return s;
}
