/* lines.c: line-level costs, a leaf frame per line where samples fell (see
 * lines.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lines.h"

int pp_node_at_line(struct pprof_profile *p, uint32_t node, int64_t line, uint32_t *out)
{
	*out = node;
	if (node == 0 || line <= 0)
		return PPROF_OK;
	struct pp_frame f = p->frames[p->nodes[node].frame];
	uint32_t frame;
	f.at_line = line;
	int s = pp_frame_intern(p, &f, &frame);
	if (s != PPROF_OK)
		return s;
	return pp_node_child(p, p->nodes[node].parent, frame, out);
}

static int cmp_line(const void *a, const void *b)
{
	const struct pp_line_ticks *x = a, *y = b;
	return x->line < y->line ? -1 : x->line > y->line;
}

struct share {
	unsigned __int128 rem;
	size_t i; /* the line's index: lines are in order */
};

/* Largest remainder first, then the smaller line. */
static int cmp_share(const void *a, const void *b)
{
	const struct share *x = a, *y = b;
	if (x->rem != y->rem)
		return x->rem > y->rem ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* A node's lines are a handful: insertion sorts below this many, without
 * qsort's calls through a pointer; the orders are total, so the result is
 * the same. */
#define FEW 24

static void sort_lines(struct pp_line_ticks *t, size_t n)
{
	if (n > FEW) {
		qsort(t, n, sizeof(*t), cmp_line);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		struct pp_line_ticks x = t[i];
		size_t j = i;
		for (; j > 0 && t[j - 1].line > x.line; j--)
			t[j] = t[j - 1];
		t[j] = x;
	}
}

static void sort_shares(struct share *sh, size_t m)
{
	if (m > FEW) {
		qsort(sh, m, sizeof(*sh), cmp_share);
		return;
	}
	for (size_t i = 1; i < m; i++) {
		struct share x = sh[i];
		size_t j = i;
		for (; j > 0 && cmp_share(&sh[j - 1], &x) > 0; j--)
			sh[j] = sh[j - 1];
		sh[j] = x;
	}
}

int pp_add_sample_lines(struct pprof_profile *p, uint32_t node, const int64_t *values,
			struct pp_line_ticks *t, size_t n, uint64_t offset)
{
	uint32_t nt = p->ntypes;
	int64_t total = 0;
	size_t m = 0;

	/* One entry per line, in line order, without the lines never ticked. */
	sort_lines(t, n);
	for (size_t i = 0; i < n; i++) {
		if (t[i].ticks == 0)
			continue;
		if (__builtin_add_overflow(total, t[i].ticks, &total))
			return pp_error_at(p, PPROF_EINPUT, offset,
					   "the positionTicks of a node leave the 64-bit range");
		if (m && t[m - 1].line == t[i].line)
			t[m - 1].ticks += t[i].ticks;
		else
			t[m++] = t[i];
	}
	if (total == 0 || node == 0)
		return pp_add_sample(p, node, 0, values, offset);

	/* On the stack for the usual few lines. */
	int64_t part_few[FEW * 2];
	struct share sh_few[FEW];
	size_t np = (size_t)m * (nt ? nt : 1);
	bool few = m <= FEW && np <= FEW * 2;
	int64_t *part = few ? part_few : calloc(np, sizeof(*part));
	struct share *sh = few ? sh_few : malloc((size_t)m * sizeof(*sh));
	int s = PPROF_OK;
	if (few)
		memset(part_few, 0, np * sizeof(*part));
	if (!part || !sh) {
		s = pp_nomem(p);
		goto out;
	}
	for (uint32_t k = 0; k < nt; k++) {
		/* On |v|, the sign put back after, so that -v splits as v does. */
		int64_t v = values[k];
		unsigned __int128 a = v < 0 ? (unsigned __int128)(-(v + 1)) + 1 : (unsigned __int128)v;
		unsigned __int128 given = 0;
		for (size_t i = 0; i < m; i++) {
			unsigned __int128 x = a * (unsigned __int128)t[i].ticks, q;
			uint64_t x64;
			/* the same quotient and remainder in 64 bits when the
			 * product fits, which it nearly always does */
			if (!__builtin_mul_overflow((uint64_t)a, (uint64_t)t[i].ticks, &x64) &&
			    (a >> 64) == 0) {
				q = x64 / (uint64_t)total;
				sh[i].rem = x64 % (uint64_t)total;
			} else {
				q = x / (unsigned __int128)total;
				sh[i].rem = x % (unsigned __int128)total;
			}
			sh[i].i = i;
			part[i * nt + k] = (int64_t)q;
			given += q;
		}
		/* Fewer than m units are left (each line lost less than one). */
		size_t left = (size_t)(a - given);
		if (left) {
			sort_shares(sh, m);
			for (size_t g = 0; g < left; g++)
				part[sh[g].i * nt + k]++;
		}
		if (v < 0)
			for (size_t i = 0; i < m; i++)
				part[i * nt + k] = -part[i * nt + k];
	}
	for (size_t i = 0; i < m && s == PPROF_OK; i++) {
		uint32_t at;
		bool any = false;
		for (uint32_t k = 0; k < nt; k++)
			any |= part[i * nt + k] != 0;
		if (!any)
			continue;
		s = pp_node_at_line(p, node, t[i].line, &at);
		if (s == PPROF_OK)
			s = pp_add_sample(p, at, 0, part + i * nt, offset);
	}
out:
	if (!few) {
		free(part);
		free(sh);
	}
	return s;
}
