/*
 * read_cpuprofile.c: V8 .cpuprofile (Chrome DevTools Protocol
 * Profiler.Profile), and Node's old format with a nested "head".
 *
 * Sample types: samples/count and wall/nanoseconds, default wall.  A
 * sample's timestamp is startTime plus the running sum of timeDeltas (old
 * format: its entry in "timestamps"); samples are put in timestamp order (a
 * stable sort: deltas can be negative) and each stands for the gap to the
 * next one, the last for the gap to endTime (old format: to the extra
 * timestamp after the last sample, else 0).  Every sample is also kept in
 * time order for flame charts.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "v8.h"

/* A number that may be written with a fraction (old startTime/endTime). */
struct num {
	bool set;
	bool integer;
	int64_t i;
	double d;
};

struct cpu {
	struct pprof_profile *p;
	struct json j;
	struct pp_v8 v;
	const unsigned char *buf;
	size_t len;
	uint32_t max_depth;
	bool have_nodes, have_head, have_samples, have_deltas, have_stamps;
	struct num start, end;
	int64_t *samples, *deltas, *stamps;
	size_t nsamples, capsamples, ndeltas, capdeltas, nstamps, capstamps;
};

static int read_num(struct cpu *c, int t, const char *what, struct num *n)
{
	if (t == JSON_ERROR)
		return pp_v8_json_error(c->p, &c->j);
	if (t != JSON_NUMBER)
		return pp_error_at(c->p, PPROF_EINPUT, json_offset(&c->j), "%s is not a number",
				   what);
	n->set = true;
	n->integer = json_int64(&c->j, &n->i);
	if (!n->integer && (!json_double(&c->j, &n->d) || !isfinite(n->d)))
		return pp_error_at(c->p, PPROF_EINPUT, json_offset(&c->j), "%s is out of range",
				   what);
	return PPROF_OK;
}

/* N in microseconds, from a value in SCALE microseconds (1 or 1,000,000). */
static bool num_us(const struct num *n, int64_t scale, int64_t *out)
{
	if (n->integer)
		return !__builtin_mul_overflow(n->i, scale, out);
	{
		double d = n->d * (double)scale;

		/* Well inside int64, so that rounding cannot leave it. */
		if (!(d > -9.2e18 && d < 9.2e18))
			return false;
		*out = (int64_t)(d < 0 ? d - 0.5 : d + 0.5);
		return true;
	}
}

static int top_level(struct cpu *c)
{
	struct json *j = &c->j;
	int t = json_next(j), s = PPROF_OK;

	if (t == JSON_ERROR)
		return pp_v8_json_error(c->p, j);
	if (t != JSON_OBJECT_BEGIN)
		return pp_error_at(c->p, PPROF_EINPUT, json_offset(j),
				   "a cpuprofile is a JSON object");
	for (;;) {
		bool *seen = NULL;
		size_t keypos;

		t = json_next(j);
		if (t == JSON_OBJECT_END)
			break;
		if (t == JSON_ERROR)
			return pp_v8_json_error(c->p, j);
		keypos = json_offset(j);
		if (json_is(j, "nodes")) {
			seen = &c->have_nodes;
		} else if (json_is(j, "head")) {
			seen = &c->have_head;
		} else if (json_is(j, "samples")) {
			seen = &c->have_samples;
		} else if (json_is(j, "timeDeltas")) {
			seen = &c->have_deltas;
		} else if (json_is(j, "timestamps")) {
			seen = &c->have_stamps;
		} else if (json_is(j, "startTime")) {
			if (c->start.set)
				return pp_error_at(c->p, PPROF_EINPUT, keypos,
						   "duplicate key \"startTime\"");
			s = read_num(c, json_next(j), "startTime", &c->start);
		} else if (json_is(j, "endTime")) {
			if (c->end.set)
				return pp_error_at(c->p, PPROF_EINPUT, keypos,
						   "duplicate key \"endTime\"");
			s = read_num(c, json_next(j), "endTime", &c->end);
		} else {
			t = json_next(j);
			if (t == JSON_ERROR || json_skip(j, t) == JSON_ERROR)
				return pp_v8_json_error(c->p, j);
		}
		if (s != PPROF_OK)
			return s;
		if (!seen)
			continue;
		if (*seen)
			return pp_error_at(c->p, PPROF_EINPUT, keypos, "duplicate key \"%.*s\"",
					   (int)j->len, j->str);
		*seen = true;
		if (seen == &c->have_nodes) {
			t = json_next(j);
			if (t == JSON_ERROR)
				return pp_v8_json_error(c->p, j);
			if (t != JSON_ARRAY_BEGIN)
				return pp_error_at(c->p, PPROF_EINPUT, json_offset(j),
						   "nodes is not an array");
			for (;;) {
				t = json_next(j);
				if (t == JSON_ARRAY_END)
					break;
				if (t == JSON_ERROR)
					return pp_v8_json_error(c->p, j);
				if (t != JSON_OBJECT_BEGIN)
					return pp_error_at(c->p, PPROF_EINPUT, json_offset(j),
							   "a node is not an object");
				s = pp_v8_read_node(&c->v);
				if (s != PPROF_OK)
					return s;
			}
		} else if (seen == &c->have_head) {
			t = json_next(j);
			if (t == JSON_ERROR)
				return pp_v8_json_error(c->p, j);
			if (t != JSON_OBJECT_BEGIN)
				return pp_error_at(c->p, PPROF_EINPUT, json_offset(j),
						   "head is not an object");
			s = pp_v8_read_node(&c->v);
		} else if (seen == &c->have_samples) {
			s = pp_v8_int_array(c->p, j, json_next(j), "samples", &c->samples,
					    &c->nsamples, &c->capsamples);
		} else if (seen == &c->have_deltas) {
			s = pp_v8_int_array(c->p, j, json_next(j), "timeDeltas", &c->deltas,
					    &c->ndeltas, &c->capdeltas);
		} else {
			s = pp_v8_int_array(c->p, j, json_next(j), "timestamps", &c->stamps,
					    &c->nstamps, &c->capstamps);
		}
		if (s != PPROF_OK)
			return s;
	}
	t = json_next(j);
	if (t != JSON_END)
		return pp_v8_json_error(c->p, j);
	return PPROF_OK;
}

struct stamp {
	int64_t t;
	uint32_t i; /* index in file order, for a stable sort */
};

static int cmp_stamp(const void *a, const void *b)
{
	const struct stamp *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int range_error(struct cpu *c)
{
	return pp_error(c->p, PPROF_EINPUT, "a time in nanoseconds leaves the 64-bit range");
}

/* Per node of the input: samples and wall time. */
struct acc {
	int64_t count, wall;
};

static int samples_to_model(struct cpu *c, struct acc *acc)
{
	size_t n = c->nsamples, i;
	bool old = !c->have_nodes;
	struct stamp *st = NULL;
	uint32_t *node = NULL;
	int64_t base = 0, endt = 0, cum;
	bool have_end = false, sorted = true, have_times;
	int s = PPROF_OK;

	if (n > UINT32_MAX)
		return pp_error(c->p, PPROF_ENOMEM, "more than 2^32 samples");
	st = malloc((n ? n : 1) * sizeof(*st));
	node = malloc((n ? n : 1) * sizeof(*node));
	if (!st || !node) {
		s = pp_nomem(c->p);
		goto out;
	}
	for (i = 0; i < n; i++) {
		uint32_t k = pp_v8_find(&c->v, c->samples[i]);

		if (k == PP_V8_NONE) {
			s = pp_error_at(c->p, PPROF_EINPUT,
					pp_v8_element_offset(c->buf, c->len, c->max_depth,
							     "samples", i),
					"sample %zu: node %lld does not exist", i,
					(long long)c->samples[i]);
			goto out;
		}
		node[i] = k;
	}

	/* Timestamps in microseconds. */
	have_times = old ? c->have_stamps : c->have_deltas;
	if (!old && c->have_deltas && c->ndeltas != n) {
		s = pp_error(c->p, PPROF_EINPUT, "samples has %zu entries but timeDeltas %zu", n,
			     c->ndeltas);
		goto out;
	}
	if (old && c->have_stamps && c->nstamps != n && c->nstamps != n + 1) {
		s = pp_error(c->p, PPROF_EINPUT, "samples has %zu entries but timestamps %zu", n,
			     c->nstamps);
		goto out;
	}
	if (!have_times && n)
		pp_warn(c->p, "no %s: wall times are 0", old ? "timestamps" : "timeDeltas");
	if (old) {
		/* startTime and endTime are in seconds there; the timestamps in
		 * microseconds. */
		if (c->start.set && !num_us(&c->start, 1000000, &base)) {
			s = range_error(c);
			goto out;
		}
		if (have_times && c->nstamps == n + 1) {
			have_end = true;
			endt = c->stamps[n];
		}
		/* Whole seconds can lie after the first timestamp. */
		for (i = 0; i < n; i++) {
			st[i].t = have_times ? c->stamps[i] : base;
			if ((!c->start.set && i == 0) || st[i].t < base)
				base = st[i].t;
		}
	} else {
		if (c->start.set && !num_us(&c->start, 1, &base)) {
			s = range_error(c);
			goto out;
		}
		if (c->end.set) {
			if (!num_us(&c->end, 1, &endt)) {
				s = range_error(c);
				goto out;
			}
			have_end = true;
		}
		cum = base;
		for (i = 0; i < n; i++) {
			if (have_times && __builtin_add_overflow(cum, c->deltas[i], &cum)) {
				s = pp_error_at(c->p, PPROF_EINPUT,
						pp_v8_element_offset(c->buf, c->len, c->max_depth,
								     "timeDeltas", i),
						"timestamp leaves the 64-bit range");
				goto out;
			}
			st[i].t = cum;
		}
	}
	for (i = 0; i < n; i++) {
		st[i].i = (uint32_t)i;
		if (i && st[i].t < st[i - 1].t)
			sorted = false;
	}
	if (!sorted)
		qsort(st, n, sizeof(*st), cmp_stamp);

	for (i = 0; i < n; i++) {
		uint32_t k = node[st[i].i];
		int64_t next = 0, gap = 0, wall, time;
		bool has_next = i + 1 < n || have_end;

		if (i + 1 < n)
			next = st[i + 1].t;
		else if (have_end)
			next = endt;
		if (have_times && has_next && next > st[i].t &&
		    __builtin_sub_overflow(next, st[i].t, &gap)) {
			s = range_error(c);
			goto out;
		}
		if (__builtin_mul_overflow(gap, 1000, &wall) ||
		    __builtin_sub_overflow(st[i].t, base, &time) ||
		    __builtin_mul_overflow(time, 1000, &time)) {
			s = range_error(c);
			goto out;
		}
		acc[k].count++;
		if (__builtin_add_overflow(acc[k].wall, wall, &acc[k].wall)) {
			s = pp_error(c->p, PPROF_EINPUT, "sum of wall values leaves the 64-bit range");
			goto out;
		}
		s = pp_seq_push(c->p, c->v.nodes[k].model, time, wall);
		if (s != PPROF_OK)
			goto out;
	}
out:
	free(st);
	free(node);
	return s;
}

static int cpu_read(struct pprof_profile *p, const unsigned char *buf, size_t len,
		    const struct pprof_read_options *o)
{
	struct cpu c;
	struct pp_sample_type types[2];
	struct acc *acc = NULL;
	int s, default_type = 1;
	uint32_t i;

	memset(&c, 0, sizeof(c));
	c.p = p;
	c.buf = buf;
	c.len = len;
	c.max_depth = o ? o->max_depth : 0;
	json_init(&c.j, buf, len, c.max_depth);
	pp_v8_init(&c.v, p, &c.j);

	s = top_level(&c);
	if (s != PPROF_OK)
		goto out;
	if (c.have_nodes && c.have_head) {
		s = pp_error(p, PPROF_EINPUT, "a cpuprofile with both nodes and head");
		goto out;
	}
	if (!c.have_nodes && !c.have_head) {
		s = pp_error(p, PPROF_EINPUT, "not a cpuprofile: no nodes");
		goto out;
	}
	s = pp_v8_build(&c.v);
	if (s != PPROF_OK)
		goto out;

	/*
	 * Without a samples array there is nothing to time: the counts come
	 * from hitCount, wall is 0 throughout, and samples becomes the default
	 * type so that the profile does not read as empty.
	 */
	if (!c.have_samples)
		default_type = 0;
	if ((s = pp_intern_cstr(p, "samples", &types[0].type)) != PPROF_OK ||
	    (s = pp_intern_cstr(p, "count", &types[0].unit)) != PPROF_OK ||
	    (s = pp_intern_cstr(p, "wall", &types[1].type)) != PPROF_OK ||
	    (s = pp_intern_cstr(p, "nanoseconds", &types[1].unit)) != PPROF_OK ||
	    (s = pp_begin_input(p, types, 2, default_type)) != PPROF_OK)
		goto out;

	acc = calloc((size_t)c.v.n + 1, sizeof(*acc));
	if (!acc) {
		s = pp_nomem(p);
		goto out;
	}
	if (c.have_samples) {
		s = samples_to_model(&c, acc);
		if (s != PPROF_OK)
			goto out;
	} else {
		for (i = 0; i < c.v.n; i++)
			acc[i].count = c.v.nodes[i].hitcount;
	}
	/* A sample at the (root) node itself has an empty stack: left out of
	 * the tree (it stays in the time sequence). */
	for (i = 0; i < c.v.n; i++) {
		int64_t vals[2] = { acc[i].count, acc[i].wall };

		if (c.v.nodes[i].model == 0 || (vals[0] == 0 && vals[1] == 0))
			continue;
		s = pp_add_sample(p, c.v.nodes[i].model, 0, vals, c.v.nodes[i].offset);
		if (s != PPROF_OK)
			goto out;
	}
	s = PPROF_OK;
out:
	free(acc);
	free(c.samples);
	free(c.deltas);
	free(c.stamps);
	pp_v8_release(&c.v);
	json_release(&c.j);
	return s;
}

static int cpu_bid(const unsigned char *buf, size_t len)
{
	unsigned k = pp_v8_sniff(buf, len);

	if (!(k & PP_V8_OBJECT))
		return 0;
	if (k & PP_V8_CPU)
		return k & PP_V8_HEAP ? 40 : 60;
	/* A V8-looking object without the telling keys (in the first 64
	 * KiB): the heap reader bids a little higher. */
	if (k & PP_V8_ANY)
		return 25;
	return 0;
}

const struct pp_reader pp_reader_cpuprofile = {
	.format = PPROF_FMT_CPUPROFILE,
	.name = "cpuprofile",
	.bid = cpu_bid,
	.read = cpu_read,
};
