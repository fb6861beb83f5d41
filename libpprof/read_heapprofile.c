/*
 * read_heapprofile.c: V8 .heapprofile (HeapProfiler.SamplingHeapProfile):
 * a nested "head" tree of nodes with selfSize, and optionally "samples",
 * [{size, nodeId, ordinal}].
 *
 * Sample types: objects/count (the node's entries in samples, 0 where there
 * are none) and space/bytes (the node's selfSize, as DevTools shows it),
 * default space.  A sample naming a node that is not in the tree counts
 * nowhere, with one warning giving their number.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "v8.h"

struct heap {
	struct pprof_profile *p;
	struct json j;
	struct pp_v8 v;
	bool have_head, have_samples;
	int64_t *ids; /* nodeId of each sample, in file order */
	size_t nids, capids;
};

/* One {size, nodeId, ordinal} entry: only nodeId counts. */
static int read_sample(struct heap *h)
{
	struct json *j = &h->j;
	size_t at = json_offset(j);
	bool have_id = false;
	int64_t id = 0;
	int t, s;

	for (;;) {
		t = json_next(j);
		if (t == JSON_OBJECT_END)
			break;
		if (t == JSON_ERROR)
			return pp_v8_json_error(h->p, j);
		if (KEY_IS(j, "nodeId")) {
			t = json_next(j);
			if (t == JSON_ERROR)
				return pp_v8_json_error(h->p, j);
			if (t != JSON_NUMBER)
				return pp_error_at(h->p, PPROF_EINPUT, json_offset(j),
						   "nodeId is not a number");
			s = pp_v8_int(h->p, j, "nodeId", &id);
			if (s != PPROF_OK)
				return s;
			have_id = true;
		} else {
			t = json_next(j);
			if (t == JSON_ERROR || json_skip(j, t) == JSON_ERROR)
				return pp_v8_json_error(h->p, j);
		}
	}
	if (!have_id)
		return pp_error_at(h->p, PPROF_EINPUT, at, "sample without a nodeId");
	if (h->nids == h->capids) {
		size_t c = h->capids ? h->capids * 2 : 1024;
		int64_t *b = realloc(h->ids, c * sizeof(*b));

		if (!b)
			return pp_nomem(h->p);
		h->ids = b;
		h->capids = c;
	}
	h->ids[h->nids++] = id;
	return PPROF_OK;
}

static int top_level(struct heap *h)
{
	struct json *j = &h->j;
	int t = json_next(j), s = PPROF_OK;

	if (t == JSON_ERROR)
		return pp_v8_json_error(h->p, j);
	if (t != JSON_OBJECT_BEGIN)
		return pp_error_at(h->p, PPROF_EINPUT, json_offset(j),
				   "a heapprofile is a JSON object");
	for (;;) {
		size_t keypos;

		t = json_next(j);
		if (t == JSON_OBJECT_END)
			break;
		if (t == JSON_ERROR)
			return pp_v8_json_error(h->p, j);
		keypos = json_offset(j);
		if (KEY_IS(j, "head")) {
			if (h->have_head)
				return pp_error_at(h->p, PPROF_EINPUT, keypos,
						   "duplicate key \"head\"");
			h->have_head = true;
			t = json_next(j);
			if (t == JSON_ERROR)
				return pp_v8_json_error(h->p, j);
			if (t != JSON_OBJECT_BEGIN)
				return pp_error_at(h->p, PPROF_EINPUT, json_offset(j),
						   "head is not an object");
			s = pp_v8_read_node(&h->v);
		} else if (KEY_IS(j, "samples")) {
			if (h->have_samples)
				return pp_error_at(h->p, PPROF_EINPUT, keypos,
						   "duplicate key \"samples\"");
			h->have_samples = true;
			t = json_next(j);
			if (t == JSON_ERROR)
				return pp_v8_json_error(h->p, j);
			if (t != JSON_ARRAY_BEGIN)
				return pp_error_at(h->p, PPROF_EINPUT, json_offset(j),
						   "samples is not an array");
			for (;;) {
				t = json_next(j);
				if (t == JSON_ARRAY_END)
					break;
				if (t == JSON_ERROR)
					return pp_v8_json_error(h->p, j);
				if (t != JSON_OBJECT_BEGIN)
					return pp_error_at(h->p, PPROF_EINPUT, json_offset(j),
							   "a sample is not an object");
				s = read_sample(h);
				if (s != PPROF_OK)
					return s;
			}
		} else {
			t = json_next(j);
			if (t == JSON_ERROR || json_skip(j, t) == JSON_ERROR)
				return pp_v8_json_error(h->p, j);
		}
		if (s != PPROF_OK)
			return s;
	}
	t = json_next(j);
	if (t != JSON_END)
		return pp_v8_json_error(h->p, j);
	return PPROF_OK;
}

static int heap_read(struct pprof_profile *p, const unsigned char *buf, size_t len,
		     const struct pprof_read_options *o)
{
	struct heap h;
	struct pp_sample_type types[2];
	int64_t *objects = NULL;
	uint32_t max_depth = o ? o->max_depth : 0, i;
	size_t k, missing = 0;
	int s;

	memset(&h, 0, sizeof(h));
	h.p = p;
	json_init(&h.j, buf, len, max_depth);
	pp_v8_init(&h.v, p, &h.j);

	s = top_level(&h);
	if (s != PPROF_OK)
		goto out;
	if (!h.have_head) {
		s = pp_error(p, PPROF_EINPUT, "not a heapprofile: no head");
		goto out;
	}
	s = pp_v8_build(&h.v);
	if (s != PPROF_OK)
		goto out;
	if ((s = pp_intern_cstr(p, "objects", &types[0].type)) != PPROF_OK ||
	    (s = pp_intern_cstr(p, "count", &types[0].unit)) != PPROF_OK ||
	    (s = pp_intern_cstr(p, "space", &types[1].type)) != PPROF_OK ||
	    (s = pp_intern_cstr(p, "bytes", &types[1].unit)) != PPROF_OK ||
	    (s = pp_begin_input(p, types, 2, 1)) != PPROF_OK)
		goto out;

	objects = calloc((size_t)h.v.n + 1, sizeof(*objects));
	if (!objects) {
		s = pp_nomem(p);
		goto out;
	}
	/* Node 20's --heap-prof writes samples whose node is not in the tree
	 * (in every capture tried); DevTools counts them nowhere, and so do
	 * we, saying how many. */
	for (k = 0; k < h.nids; k++) {
		uint32_t n = pp_v8_find(&h.v, h.ids[k]);

		if (n == PP_V8_NONE)
			missing++;
		else
			objects[n]++;
	}
	if (missing)
		pp_warn(p, "%zu of %zu samples name a node that is not in the tree: counted nowhere",
			missing, h.nids);
	/* The (root) node's own bytes have an empty stack: left out. */
	for (i = 0; i < h.v.n; i++) {
		int64_t vals[2] = { objects[i], h.v.nodes[i].selfsize };

		if (h.v.nodes[i].model == 0 || (vals[0] == 0 && vals[1] == 0))
			continue;
		s = pp_add_sample(p, h.v.nodes[i].model, 0, vals, h.v.nodes[i].offset);
		if (s != PPROF_OK)
			goto out;
	}
	s = PPROF_OK;
out:
	free(objects);
	free(h.ids);
	pp_v8_release(&h.v);
	json_release(&h.j);
	return s;
}

static int heap_bid(const unsigned char *buf, size_t len)
{
	unsigned k = pp_v8_sniff(buf, len);

	if (!(k & PP_V8_OBJECT))
		return 0;
	if (k & PP_V8_HEAP)
		return 60;
	if (k & PP_V8_CPU)
		return 0;
	if (k & PP_V8_ANY)
		return 30;
	return 0;
}

const struct pp_reader pp_reader_heapprofile = {
	.format = PPROF_FMT_HEAPPROFILE,
	.name = "heapprofile",
	.bid = heap_bid,
	.read = heap_read,
};
