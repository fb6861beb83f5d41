/* top_tree.c: go tool pprof's -tree and -peek (internal/report's
 * printTree): each row of the table with the calls into it and out of it,
 * from the edges of the graph pprof builds over the kept functions. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "filter_private.h"
#include "top_private.h"

/* An edge as it is sorted: by |weight|, then the caller's name, then the
 * callee's (graph.EdgeMap.Sort). */
struct sedge {
	struct pprof_top_call c;
	const char *from, *to;
};

static int sedge_cmp(const void *pa, const void *pb)
{
	const struct sedge *a = pa, *b = pb;
	uint64_t x = mag(a->c.weight), y = mag(b->c.weight);
	if (a->c.weight != b->c.weight && x != y)
		return x > y ? -1 : 1;
	int c = strcmp(a->from, b->from);
	return c ? c : strcmp(a->to, b->to);
}

/* Marks the rows whose name matches PEEK (all when PEEK is NULL). */
static int peek_rows(struct pprof_profile *p, struct pprof_top *tab, const char *peek)
{
	if (!peek) {
		for (size_t i = 0; i < tab->n; i++)
			tab->rows[i].shown = 1;
		return PPROF_OK;
	}
	int err = 0;
	size_t off = 0;
	pcre2_code *re = pp_re_compile(peek, strlen(peek), &err, &off);
	if (!re) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(err, msg, sizeof(msg));
		return pp_error(p, PPROF_EUSAGE, "--peek: bad regex '%s': %s (at offset %zu)", peek,
				(const char *)msg, off);
	}
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	if (!md) {
		pcre2_code_free(re);
		return pp_nomem(p);
	}
	size_t matched = 0;
	for (size_t i = 0; i < tab->n; i++) {
		const char *name = tab->rows[i].name;
		tab->rows[i].shown = pp_re_match(re, name, strlen(name), md);
		matched += tab->rows[i].shown != 0;
	}
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	if (!matched)
		return pp_error(p, PPROF_EINPUT, "no matches found for regexp: %s", peek);
	return PPROF_OK;
}

int pp_top_calls(struct pprof_profile *p, struct pprof_top *tab, const struct edges *e,
		 const uint32_t *rowof, const char *peek)
{
	tab->tree = 1;
	int s = peek_rows(p, tab, peek);
	if (s != PPROF_OK)
		return s;
	/* Each edge is a callee of one row and a caller of another. */
	size_t n = 0;
	for (size_t i = 0; i < e->cap; i++)
		if (e->flags && e->flags[i] && rowof[(uint32_t)(e->keys[i] >> 32)] &&
		    rowof[(uint32_t)e->keys[i]])
			n++;
	size_t *nin = calloc(tab->n + 1, sizeof(*nin)), *nout = calloc(tab->n + 1, sizeof(*nout));
	struct sedge *se = malloc((n ? n : 1) * 2 * sizeof(*se));
	tab->calls = malloc((n ? n : 1) * 2 * sizeof(*tab->calls));
	if (!nin || !nout || !se || !tab->calls) {
		s = pp_nomem(p);
		goto out;
	}
	for (size_t i = 0; i < e->cap; i++) {
		if (!e->flags || !e->flags[i])
			continue;
		uint32_t from = rowof[(uint32_t)(e->keys[i] >> 32)],
			 to = rowof[(uint32_t)e->keys[i]];
		if (from && to) {
			nout[from - 1]++;
			nin[to - 1]++;
		}
	}
	/* The rows' callers first, then their callees: offsets into se. */
	size_t at = 0;
	for (size_t r = 0; r < tab->n; r++) {
		size_t k = nin[r];
		nin[r] = at;
		at += k;
	}
	for (size_t r = 0; r < tab->n; r++) {
		size_t k = nout[r];
		nout[r] = at;
		at += k;
	}
	for (size_t i = 0; i < e->cap; i++) {
		if (!e->flags || !e->flags[i])
			continue;
		uint32_t from = rowof[(uint32_t)(e->keys[i] >> 32)],
			 to = rowof[(uint32_t)e->keys[i]];
		if (!from || !to)
			continue;
		struct pprof_top_call c = {0, e->weight[i], !(e->flags[i] & 2)};
		const char *fn = tab->rows[from - 1].name, *tn = tab->rows[to - 1].name;
		c.row = from - 1;
		se[nin[to - 1]++] = (struct sedge){c, fn, tn};
		c.row = to - 1;
		se[nout[from - 1]++] = (struct sedge){c, fn, tn};
	}
	/* nin[r], nout[r] now end the lists; the lists follow each other */
	size_t start = 0;
	for (size_t r = 0; r < tab->n; r++) {
		struct pprof_top_row *row = &tab->rows[r];
		row->ncallers = nin[r] - start;
		qsort(se + start, row->ncallers, sizeof(*se), sedge_cmp);
		start = nin[r];
	}
	for (size_t r = 0; r < tab->n; r++) {
		struct pprof_top_row *row = &tab->rows[r];
		row->ncallees = nout[r] - start;
		qsort(se + start, row->ncallees, sizeof(*se), sedge_cmp);
		start = nout[r];
	}
	for (size_t i = 0; i < 2 * n; i++)
		tab->calls[i] = se[i].c;
	start = 0;
	for (size_t r = 0; r < tab->n; r++) {
		tab->rows[r].callers = tab->calls + start;
		start += tab->rows[r].ncallers;
	}
	for (size_t r = 0; r < tab->n; r++) {
		tab->rows[r].callees = tab->calls + start;
		start += tab->rows[r].ncallees;
	}
out:
	free(nin);
	free(nout);
	free(se);
	return s;
}

static void call_line(const struct pprof_top *t, const struct pprof_top_call *c, int64_t cum,
		      const char *unit, FILE *out)
{
	char v[160], pct[32];
	pprof_value_label(v, sizeof(v), c->weight, t->unit, unit);
	pp_percentage(pct, sizeof(pct), c->weight, cum);
	fprintf(out, "%50s %s |   %s%s\n", v, pct, t->rows[c->row].name,
		c->inlined ? " (inline)" : "");
}

void pp_top_tree_text(const struct pprof_top *t, FILE *out)
{
	static const char sep[] =
		"----------------------------------------------------------+-------------\n";
	char unit[64];
	struct pp_top_cells c;
	pp_top_unit(t, unit, sizeof(unit));
	pp_top_header(t, unit, out);
	fputs(sep, out);
	fputs("      flat  flat%   sum%        cum   cum%   calls calls% + context \t \t \n", out);
	int64_t sum = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct pprof_top_row *r = &t->rows[i];
		if (!r->shown)
			continue;
		fputs(sep, out);
		for (size_t k = 0; k < r->ncallers; k++)
			call_line(t, &r->callers[k], r->cum, unit, out);
		sum += r->flat;
		pp_top_cells(t, r, sum, unit, &c);
		fprintf(out, "%10s %s %s %10s %s                | %s\n", c.flat, c.flatp, c.sump,
			c.cum, c.cump, r->name);
		for (size_t k = 0; k < r->ncallees; k++)
			call_line(t, &r->callees[k], r->cum, unit, out);
	}
	if (t->n > 0)
		fputs(sep, out);
}
