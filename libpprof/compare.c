/* compare.c: the warnings of comparisons across formats (issue 18): a
 * merge of inputs, or pprof-diff's two sides, whose values do not measure
 * the same thing.
 *
 * Two cases are told, from each input's format and samples, recorded as
 * the inputs are read (read.c calls pp_input_start() and pp_input_done();
 * model_private.h: in_formats, idle_formats, noidle_formats, wall_kinds):
 *   - wall time measured two ways: a .cpuprofile's or a trace's wall is the
 *     time between its samples' timestamps, a pprof file's is its samples
 *     times the period when every wall value is a multiple of the period
 *     (as @datadog/pprof writes it; pprof-convert's output of a V8 profile
 *     keeps the gaps, so it is not); and cpu time is not wall time.  In a
 *     merge a pprof input is judged on the profile so far, so it is told
 *     only when it comes before any V8 input;
 *   - samples one producer keeps and another leaves out: V8 has (idle) and
 *     (program) samples, @datadog/pprof drops them, Go has none.  Inputs of
 *     one format that differ in this are not warned about: that is a
 *     difference of the runs, not of the producers.  Told from the samples
 *     whose leaf is such a frame, so a single input costs nothing; a merge
 *     costs a pass over the samples per input after the first.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "folded_private.h"
#include "walk_private.h"

#define BIT(f) (1u << (unsigned)(f))
/* The formats whose wall comes from timestamps, and from samples x period. */
#define TIMESTAMPED (BIT(PPROF_FMT_CPUPROFILE) | BIT(PPROF_FMT_TRACE))
#define SAMPLED BIT(PPROF_FMT_PPROF)

bool pp_is_idle_name(const struct pprof_profile *p, uint32_t id)
{
	uint32_t n = pp_strlen(p, id);
	const char *s = pp_str(p, id);
	return (n == 6 && memcmp(s, "(idle)", 6) == 0) || (n == 9 && memcmp(s, "(program)", 9) == 0);
}

static bool time_unit(const char *u)
{
	static const char *const units[] = {"nanoseconds", "microseconds", "milliseconds",
					    "seconds", "ns", "us", "ms", "s"};
	for (size_t i = 0; i < sizeof(units) / sizeof(*units); i++)
		if (strcasecmp(u, units[i]) == 0)
			return true;
	return false;
}

/* Does P have a sample type of time (named NAME when NAME is not NULL)? */
static bool has_time_type(const struct pprof_profile *p, const char *name)
{
	for (uint32_t t = 0; t < p->ntypes; t++)
		if (time_unit(pp_str(p, p->types[t].unit)) &&
		    (!name || strcmp(pp_str(p, p->types[t].type), name) == 0))
			return true;
	return false;
}

/* Do the producers IDLE (inputs with idle samples) and NOIDLE (without)
 * hold two different ones, one on each side? */
static bool idle_differs(uint32_t idle, uint32_t noidle)
{
	if (!idle || !noidle)
		return false;
	/* the only way they do not: both are the same single producer */
	return !(idle == noidle && (idle & (idle - 1)) == 0);
}

static const char WALL_TWO_WAYS[] =
	"wall time measured two ways: a V8 profile's (.cpuprofile, trace) is the time between "
	"its samples, a pprof file's its samples times the period; totals differ for the "
	"same run";
static const char IDLE_LEFT_OUT[] =
	"(idle) or (program) samples in %s, none in %s (its producer leaves them out): "
	"totals differ by them (--drop-idle leaves them out of both)";

static bool idle_frame(const struct pprof_profile *p, uint32_t frame)
{
	uint32_t name = frame < p->nframes ? p->frames[frame].name : 0;
	return name && pp_is_idle_name(p, name);
}

static void add_mag(uint64_t *sum, const int64_t *v, uint32_t n)
{
	for (uint32_t t = 0; t < n; t++) {
		uint64_t m = v[t] < 0 ? 0 - (uint64_t)v[t] : (uint64_t)v[t];
		*sum = *sum > UINT64_MAX - m ? UINT64_MAX : *sum + m;
	}
}

/* The magnitude of P's values (all types) on stacks whose leaf is (idle)
 * or (program): in the tree, and in the samples kept out of it. */
static uint64_t idle_sum(const struct pprof_profile *p)
{
	uint64_t sum = 0;
	for (uint32_t e = 0; e < p->nentries; e++) {
		uint32_t node = p->entries[e].node;
		if (node < p->nnodes && idle_frame(p, p->nodes[node].frame))
			add_mag(&sum, p->values + (size_t)e * p->ntypes, p->ntypes);
	}
	const struct pp_deferred *d = p->deferred;
	if (!d)
		return sum;
	for (size_t i = 0; i < d->nsamples; i++) {
		const struct pp_dsample *x = &d->samples[i];
		if (!x->n)
			continue;
		uint32_t leaf;
		if (x->part == PP_DLIST) {
			leaf = d->stack[x->stack];
		} else {
			/* only the first id of the packed field: the leaf's */
			const struct pp_dpart *part = &d->parts[x->part];
			const unsigned char *b = (part->base ? part->base : d->bytes) + x->stack;
			uint64_t v = *b & 0x7f;
			for (unsigned shift = 7; *b++ & 0x80; shift += 7)
				if (shift < 64)
					v |= (uint64_t)(*b & 0x7f) << shift;
			leaf = part->locbase - 1 + (uint32_t)v;
		}
		if (leaf >= d->nlocs)
			continue;
		const struct pp_loc *l = &d->locs[leaf];
		if (l->n && idle_frame(p, d->frames[l->off + l->n - 1]))
			add_mag(&sum, d->values + i * p->ntypes, p->ntypes);
	}
	return sum;
}

/* How a wall type was measured: from timestamps (V8), or as samples times
 * the period (a pprof file whose wall values all are multiples of its
 * period, as @datadog/pprof writes them; pprof-convert's output of a V8
 * profile keeps the gaps between samples, so it is not). */
enum { WALL_STAMPED = 1, WALL_SAMPLED = 2 };

static bool is_multiple(int64_t v, int64_t period)
{
	return v % period == 0;
}

/* Are all values of P's wall type multiples of P's period? */
static bool wall_sampled(const struct pprof_profile *p)
{
	uint32_t w = UINT32_MAX;
	for (uint32_t t = 0; t < p->ntypes && w == UINT32_MAX; t++)
		if (strcmp(pp_str(p, p->types[t].type), "wall") == 0 &&
		    time_unit(pp_str(p, p->types[t].unit)))
			w = t;
	if (w == UINT32_MAX || p->period <= 0 || !p->period_type.unit ||
	    strcmp(pp_str(p, p->period_type.unit), pp_str(p, p->types[w].unit)) != 0)
		return false;
	for (uint32_t e = 0; e < p->nentries; e++)
		if (!is_multiple(p->values[(size_t)e * p->ntypes + w], p->period))
			return false;
	const struct pp_deferred *d = p->deferred;
	for (size_t i = 0; d && i < d->nsamples; i++)
		if (!is_multiple(d->values[i * p->ntypes + w], p->period))
			return false;
	return true;
}

/* The wall kind of P's inputs of format F (P holds them alone, or the
 * pprof input was read last): a pprof file with a wall type that is not
 * samples times the period measured it as V8 does (pprof-convert's output
 * of a V8 profile); 0 when there is no wall to tell. */
static unsigned wall_kind(const struct pprof_profile *p, enum pprof_format f)
{
	if (BIT(f) & TIMESTAMPED)
		return WALL_STAMPED;
	if (f == PPROF_FMT_PPROF && has_time_type(p, "wall"))
		return wall_sampled(p) ? WALL_SAMPLED : WALL_STAMPED;
	return 0;
}

/* The producer of an input of format F whose wall kind is KIND, as a bit:
 * V8 (its own formats, and pprof files that keep its wall), a producer of
 * pprof files with samples times the period, or else by format. */
static uint32_t producer(enum pprof_format f, unsigned kind)
{
	return kind ? kind : BIT(f) << 4;
}

/* An input of format F and wall kind KIND had idle samples (IDLE) or not. */
static void classify(struct pprof_profile *p, enum pprof_format f, unsigned kind, bool idle)
{
	if (!(BIT(f) & (TIMESTAMPED | SAMPLED)) || !has_time_type(p, NULL))
		return;
	if (idle)
		p->idle_formats |= producer(f, kind);
	else
		p->noidle_formats |= producer(f, kind);
}

void pp_input_start(struct pprof_profile *p)
{
	if (p->nread == 0)
		return;
	p->idle_before = idle_sum(p);
	if (p->nread == 1) /* the first input, now that it has company */
		classify(p, p->first_format, p->first_wall, p->idle_before > 0);
}

void pp_input_done(struct pprof_profile *p)
{
	p->in_formats |= BIT(p->format);
	if (p->nread++ == 0) {
		p->first_format = p->format;
		p->first_wall = wall_kind(p, p->format);
		return;
	}
	/* a pprof input is judged with what came before it: its wall is
	 * told only when it comes first, or after other pprof files */
	unsigned kind = wall_kind(p, p->format);
	classify(p, p->format, kind, idle_sum(p) > p->idle_before);
	if (p->nread == 2)
		p->wall_kinds |= p->first_wall;
	p->wall_kinds |= kind;
	if ((p->wall_kinds & WALL_STAMPED) && (p->wall_kinds & WALL_SAMPLED))
		pp_warn(p, "merged inputs: %s", WALL_TWO_WAYS);
	if (idle_differs(p->idle_formats, p->noidle_formats))
		pp_warn(p, IDLE_LEFT_OUT, "some inputs", "the others");
}

void pprof_compare_warn(const struct pprof_profile *before, size_t bi,
			struct pprof_profile *after, size_t ai, int idle_dropped)
{
	if (bi >= before->ntypes || ai >= after->ntypes)
		return;
	const char *tb = pp_str(before, before->types[bi].type);
	const char *ta = pp_str(after, after->types[ai].type);
	if (!time_unit(pp_str(before, before->types[bi].unit)) ||
	    !time_unit(pp_str(after, after->types[ai].unit)))
		return;
	uint32_t fb = before->in_formats, fa = after->in_formats;
	/* folded text says nothing of how it was measured */
	if (!(fb & (TIMESTAMPED | SAMPLED)) || !(fa & (TIMESTAMPED | SAMPLED)))
		return;
	if (strcmp(tb, ta) != 0)
		pp_warn(after, "before's %s and after's %s are not the same quantity", tb, ta);
	else if (strcmp(tb, "wall") == 0) {
		unsigned kb = before->nread == 1 ? before->first_wall : before->wall_kinds;
		unsigned ka = after->nread == 1 ? after->first_wall : after->wall_kinds;
		if ((kb | ka) == (WALL_STAMPED | WALL_SAMPLED) && kb != ka)
			pp_warn(after, "before and after: %s", WALL_TWO_WAYS);
	}
	if (idle_dropped)
		return;
	/* each side's own: a side of one input has not classified it */
	uint32_t ib = before->idle_formats, nb = before->noidle_formats;
	uint32_t ia = after->idle_formats, na = after->noidle_formats;
	if (before->nread == 1) {
		uint32_t who = producer(before->first_format, before->first_wall);
		bool idle = idle_sum(before) > 0;
		ib = idle ? who : 0;
		nb = idle ? 0 : who;
	}
	if (after->nread == 1) {
		uint32_t who = producer(after->first_format, after->first_wall);
		bool idle = idle_sum(after) > 0;
		ia = idle ? who : 0;
		na = idle ? 0 : who;
	}
	if (ib && !ia && idle_differs(ib, na))
		pp_warn(after, IDLE_LEFT_OUT, "before", "after");
	else if (ia && !ib && idle_differs(ia, nb))
		pp_warn(after, IDLE_LEFT_OUT, "after", "before");
}

/* ---- synonyms between producers (pprof-diff only) ----
 *
 * Stack prefixes that name one thing in two producers' output: V8's
 * (garbage collector) node under the root (v8/src/profiler's CodeEntry::
 * kGarbageCollectorEntryName) is renamed "Garbage Collection" and put
 * under a top-level "Node.js" node by @datadog/pprof
 * (ts/src/profile-serializer.ts, updateTimeProfile()).  man/pprof-diff.1
 * lists them. */
static const char *const SYNONYMS[][2] = {
	{"(garbage collector)", "Node.js;Garbage Collection"},
};

/* Does a line of F begin with the frames PRE (the whole stack, or PRE and
 * a ';')? */
static bool has_prefix(const struct pprof_folded_line *l, const char *pre, size_t n)
{
	return l->len >= n && memcmp(l->stack, pre, n) == 0 && (l->len == n || l->stack[n] == ';');
}

static bool uses(const struct pprof_folded *f, const char *pre)
{
	size_t n = strlen(pre);
	for (size_t i = 0; i < f->n; i++)
		if (has_prefix(&f->lines[i], pre, n))
			return true;
	return false;
}

int pprof_folded_synonyms(struct pprof_profile *err, const struct pprof_folded *before,
			  struct pprof_folded *after, size_t *nmatched)
{
	*nmatched = 0;
	const size_t ng = sizeof(SYNONYMS) / sizeof(*SYNONYMS);
	/* for each group, AFTER's spelling to rewrite and BEFORE's to write */
	const char *from[sizeof(SYNONYMS) / sizeof(*SYNONYMS)], *to[sizeof(from) / sizeof(*from)];
	size_t grow = 0;
	bool any = false;
	for (size_t g = 0; g < ng; g++) {
		from[g] = to[g] = NULL;
		for (int k = 0; k < 2 && !from[g]; k++) {
			const char *b = SYNONYMS[g][k], *a = SYNONYMS[g][1 - k];
			/* each side with its own spelling only: two producers */
			if (uses(before, b) && !uses(before, a) && uses(after, a) && !uses(after, b)) {
				from[g] = a;
				to[g] = b;
				any = true;
				if (strlen(b) > strlen(a) && strlen(b) - strlen(a) > grow)
					grow = strlen(b) - strlen(a);
			}
		}
	}
	if (!any)
		return PPROF_OK;
	size_t size = 0;
	for (size_t i = 0; i < after->n; i++)
		size += after->lines[i].len + grow;
	char *nb = malloc(size ? size : 1), *at = nb;
	if (!nb)
		return pp_nomem(err);
	for (size_t i = 0; i < after->n; i++) {
		struct pprof_folded_line *l = &after->lines[i];
		char *start = at;
		size_t skip = 0;
		for (size_t g = 0; g < ng && !skip; g++) {
			if (!from[g] || !has_prefix(l, from[g], strlen(from[g])))
				continue;
			skip = strlen(from[g]);
			memcpy(at, to[g], strlen(to[g]));
			at += strlen(to[g]);
			(*nmatched)++;
		}
		memcpy(at, l->stack + skip, l->len - skip);
		at += l->len - skip;
		l->stack = start;
		l->len = (size_t)(at - start);
	}
	free(after->buf);
	return pp_folded_adopt(err, after, nb, (size_t)(at - nb));
}
