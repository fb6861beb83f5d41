/* write_pprof.c: the model as a gzipped profile.proto.
 *
 * The Profile message is streamed field by field (protobuf allows a
 * message's fields in any order, and repeated fields one at a time), so
 * only one Sample, Location or Function is ever packed at once: protobuf-c
 * packs each submessage into a sink that deflates into the file.  Strings
 * are written by hand because protobuf-c's strings stop at a NUL byte.
 *
 * Locations are rebuilt from the tree: a frame not flagged inlined starts
 * one, and the inlined frames under it are its further Lines (innermost
 * first in the proto).  Equal runs of frames share one Location, and equal
 * (name, file, start line) one Function; strings are numbered in order of
 * first use, each once. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "model_private.h"
#include "profile.pb-c.h"

/* ---- a ProtobufCBuffer that deflates into a FILE ---- */

struct sink {
	ProtobufCBuffer base;
	z_stream z;
	FILE *out;
	unsigned char in[1 << 16];
	size_t inlen;
	unsigned char zout[1 << 16];
	bool failed;
	int err; /* errno of the failed write, 0 for a zlib failure */
};

static void sink_deflate(struct sink *s, int flush)
{
	if (s->failed)
		return;
	s->z.next_in = s->in;
	s->z.avail_in = (uInt)s->inlen;
	do {
		s->z.next_out = s->zout;
		s->z.avail_out = sizeof(s->zout);
		int rc = deflate(&s->z, flush);
		if (rc == Z_STREAM_ERROR) {
			s->failed = true;
			s->err = 0;
			return;
		}
		size_t n = sizeof(s->zout) - s->z.avail_out;
		if (n && fwrite(s->zout, 1, n, s->out) != n) {
			s->failed = true;
			s->err = errno ? errno : EIO;
			return;
		}
	} while (s->z.avail_out == 0 || (flush == Z_FINISH && s->z.avail_in));
	s->inlen = 0;
}

static void sink_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	struct sink *s = (struct sink *)b;
	while (len && !s->failed) {
		size_t room = sizeof(s->in) - s->inlen;
		size_t n = len < room ? len : room;
		memcpy(s->in + s->inlen, data, n);
		s->inlen += n;
		data += n;
		len -= n;
		if (s->inlen == sizeof(s->in))
			sink_deflate(s, Z_NO_FLUSH);
	}
}

static void put_varint(struct sink *s, uint64_t v)
{
	uint8_t b[10];
	size_t n = 0;
	while (v >= 0x80) {
		b[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b[n++] = (uint8_t)v;
	sink_append(&s->base, n, b);
}

/* A length-delimited field of the Profile: its key and length, then the
 * packed submessage. */
static void put_message(struct sink *s, unsigned field, const ProtobufCMessage *m)
{
	put_varint(s, (uint64_t)field << 3 | 2);
	put_varint(s, protobuf_c_message_get_packed_size(m));
	protobuf_c_message_pack_to_buffer(m, &s->base);
}

/* ---- a small map of fixed-size keys to dense ids ---- */

struct idhash {
	uint64_t *hashes;
	uint32_t *ids; /* id + 1, 0 = empty */
	size_t cap, n;
};

static uint64_t mix(const uint64_t *k, size_t n)
{
	uint64_t h = 0x9E3779B97F4A7C15ull;
	for (size_t i = 0; i < n; i++) {
		h ^= k[i] + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 33;
	}
	return h;
}

static bool idhash_grow(struct idhash *t)
{
	if (t->n * 2 < t->cap)
		return true;
	size_t cap = t->cap ? t->cap * 2 : 1024;
	uint64_t *h = calloc(cap, sizeof(*h));
	uint32_t *v = calloc(cap, sizeof(*v));
	if (!h || !v) {
		free(h);
		free(v);
		return false;
	}
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->ids[i])
			continue;
		size_t s = t->hashes[i] & (cap - 1);
		while (v[s])
			s = (s + 1) & (cap - 1);
		h[s] = t->hashes[i];
		v[s] = t->ids[i];
	}
	free(t->hashes);
	free(t->ids);
	t->hashes = h;
	t->ids = v;
	t->cap = cap;
	return true;
}

static void idhash_release(struct idhash *t)
{
	free(t->hashes);
	free(t->ids);
}

/* ---- the writer ---- */

struct run {
	uint32_t prev;  /* the run it extends (0: none), so frames are prev's + frame */
	uint32_t frame; /* its innermost frame */
	uint32_t loc;   /* location id, 0 when no sample ends a location here */
};

struct function {
	uint32_t name, file; /* output string indexes */
	int64_t start_line;
};

struct mapping {
	uint32_t base; /* output string index of the basename */
	bool symbols;
};

struct writer {
	struct pprof_profile *p;
	struct sink *s;
	uint32_t *sidx; /* model string id -> output index (0: not yet) */
	uint32_t *strs; /* output index -> model string id */
	size_t nstrs, capstrs;

	struct run *runs; /* runs[0] unused */
	size_t nruns, capruns;
	struct idhash runhash;
	uint32_t *noderun; /* per node: its run */
	uint32_t *nodehead; /* per node: the node where its run starts */

	struct function *funcs; /* funcs[0] unused */
	size_t nfuncs, capfuncs;
	struct idhash funchash;
	uint32_t *framefunc; /* per frame: function id + 1 */

	struct mapping *maps; /* maps[0] unused */
	size_t nmaps, capmaps;
	uint32_t *mapof; /* per model string id of a basename: mapping id */

	uint32_t nlocs;
	uint32_t *locrun; /* location id -> run */
};

/* The output index of model string ID, numbered on first use. */
static int str(struct writer *w, uint32_t id, int64_t *out)
{
	if (id == 0) {
		*out = 0;
		return PPROF_OK;
	}
	if (!w->sidx[id]) {
		if (!pp_grow((void **)&w->strs, &w->capstrs, w->nstrs + 1, sizeof(*w->strs)))
			return pp_nomem(w->p);
		w->strs[w->nstrs] = id;
		w->sidx[id] = (uint32_t)++w->nstrs; /* index 0 is "" */
	}
	*out = w->sidx[id];
	return PPROF_OK;
}

/* Whether runs of the model start a new location at frame F. */
static bool is_inlined(const struct pprof_profile *p, uint32_t f)
{
	return (p->frames[f].flags & PP_FRAME_INLINED) != 0;
}

/* Runs: run(node) = (run(parent) if the node's frame is inlined, else
 * none) + frame, interned.  Nodes come after their parents. */
static int build_runs(struct writer *w)
{
	struct pprof_profile *p = w->p;
	w->noderun = calloc(p->nnodes, sizeof(*w->noderun));
	w->nodehead = calloc(p->nnodes, sizeof(*w->nodehead));
	if (!w->noderun || !w->nodehead || !pp_grow((void **)&w->runs, &w->capruns, 1, sizeof(*w->runs)))
		return pp_nomem(p);
	w->nruns = 1;
	for (uint32_t n = 1; n < p->nnodes; n++) {
		uint32_t parent = p->nodes[n].parent, f = p->nodes[n].frame;
		bool inl = parent != 0 && is_inlined(p, f);
		uint32_t prev = inl ? w->noderun[parent] : 0;
		w->nodehead[n] = inl ? w->nodehead[parent] : n;
		uint64_t key[2] = {prev, f};
		uint64_t h = mix(key, 2);
		if (!idhash_grow(&w->runhash))
			return pp_nomem(p);
		struct idhash *t = &w->runhash;
		size_t s = h & (t->cap - 1);
		uint32_t id = 0;
		while (t->ids[s]) {
			uint32_t c = t->ids[s] - 1;
			if (t->hashes[s] == h && w->runs[c].prev == prev && w->runs[c].frame == f) {
				id = c;
				break;
			}
			s = (s + 1) & (t->cap - 1);
		}
		if (!t->ids[s]) {
			if (!pp_grow((void **)&w->runs, &w->capruns, w->nruns + 1, sizeof(*w->runs)))
				return pp_nomem(p);
			id = (uint32_t)w->nruns++;
			w->runs[id] = (struct run){prev, f, 0};
			t->hashes[s] = h;
			t->ids[s] = id + 1;
			t->n++;
		}
		w->noderun[n] = id;
	}
	return PPROF_OK;
}

static int use_run(struct writer *w, uint32_t run)
{
	if (w->runs[run].loc)
		return PPROF_OK;
	if (!w->locrun) {
		w->locrun = malloc((w->nruns + 1) * sizeof(*w->locrun));
		if (!w->locrun)
			return pp_nomem(w->p);
	}
	w->runs[run].loc = ++w->nlocs;
	w->locrun[w->nlocs] = run;
	return PPROF_OK;
}

/* Locations: the run at a node is complete where a sample ends or a new
 * location starts below it. */
static int mark_locations(struct writer *w)
{
	struct pprof_profile *p = w->p;
	int st;
	for (uint32_t e = 0; e < p->nentries; e++) {
		uint32_t n = p->entries[e].node;
		if (n && (st = use_run(w, w->noderun[n])))
			return st;
	}
	for (uint32_t n = 1; n < p->nnodes; n++) {
		uint32_t parent = p->nodes[n].parent;
		if (parent && w->nodehead[n] == n && (st = use_run(w, w->noderun[parent])))
			return st;
	}
	return PPROF_OK;
}

/* A location with no Line: pprof names it after its mapping. */
static bool lineless(const struct writer *w, uint32_t run)
{
	const struct run *r = &w->runs[run];
	const struct pp_frame *f = &w->p->frames[r->frame];
	return r->prev == 0 && !f->name && !f->file && !f->line && !f->column;
}

static int function_of(struct writer *w, uint32_t frame, uint32_t *id)
{
	struct pprof_profile *p = w->p;
	if (w->framefunc[frame]) {
		*id = w->framefunc[frame] - 1;
		return PPROF_OK;
	}
	const struct pp_frame *f = &p->frames[frame];
	struct function fn;
	int64_t x;
	int st;
	if ((st = str(w, f->name, &x)))
		return st;
	fn.name = (uint32_t)x;
	if ((st = str(w, f->file, &x)))
		return st;
	fn.file = (uint32_t)x;
	/* V8 positions are the function's own start; pprof's are not. */
	fn.start_line = p->format == PPROF_FMT_CPUPROFILE || p->format == PPROF_FMT_HEAPPROFILE
				? f->line
				: 0;
	uint64_t key[3] = {fn.name, fn.file, (uint64_t)fn.start_line};
	uint64_t h = mix(key, 3);
	if (!idhash_grow(&w->funchash))
		return pp_nomem(p);
	struct idhash *t = &w->funchash;
	size_t s = h & (t->cap - 1);
	while (t->ids[s]) {
		const struct function *c = &w->funcs[t->ids[s] - 1];
		if (t->hashes[s] == h && c->name == fn.name && c->file == fn.file &&
		    c->start_line == fn.start_line) {
			*id = t->ids[s] - 1;
			w->framefunc[frame] = *id + 1;
			return PPROF_OK;
		}
		s = (s + 1) & (t->cap - 1);
	}
	if (!pp_grow((void **)&w->funcs, &w->capfuncs, w->nfuncs + 1, sizeof(*w->funcs)))
		return pp_nomem(p);
	*id = (uint32_t)w->nfuncs++;
	w->funcs[*id] = fn;
	t->hashes[s] = h;
	t->ids[s] = *id + 1;
	t->n++;
	w->framefunc[frame] = *id + 1;
	return PPROF_OK;
}

static int mapping_of(struct writer *w, uint32_t frame, bool symbols, uint64_t *id)
{
	uint32_t b = w->p->frames[frame].mapping;
	*id = 0;
	if (!b)
		return PPROF_OK;
	if (!w->mapof[b]) {
		int64_t x;
		int st = str(w, b, &x);
		if (st)
			return st;
		if (!pp_grow((void **)&w->maps, &w->capmaps, w->nmaps + 1, sizeof(*w->maps)))
			return pp_nomem(w->p);
		w->maps[w->nmaps] = (struct mapping){(uint32_t)x, false};
		w->mapof[b] = (uint32_t)w->nmaps++;
	}
	if (symbols)
		w->maps[w->mapof[b]].symbols = true;
	*id = w->mapof[b];
	return PPROF_OK;
}

static int write_samples(struct writer *w)
{
	struct pprof_profile *p = w->p;
	uint64_t *locs = NULL;
	size_t caplocs = 0;
	Perftools__Profiles__Label *labels = NULL, **lp = NULL;
	size_t caplabels = 0, caplp = 0;
	int st = PPROF_OK;
	for (uint32_t e = 0; e < p->nentries && !st; e++) {
		Perftools__Profiles__Sample sm = PERFTOOLS__PROFILES__SAMPLE__INIT;
		size_t n = 0;
		for (uint32_t node = p->entries[e].node; node;
		     node = p->nodes[w->nodehead[node]].parent) {
			if (!pp_grow((void **)&locs, &caplocs, n + 1, sizeof(*locs))) {
				st = pp_nomem(p);
				break;
			}
			locs[n++] = w->runs[w->noderun[node]].loc;
		}
		uint32_t ls = p->entries[e].labels;
		uint32_t nl = p->labelsets[ls + 1] - p->labelsets[ls];
		if (!st && nl && (!pp_grow((void **)&labels, &caplabels, nl, sizeof(*labels)) ||
				  !pp_grow((void **)&lp, &caplp, nl, sizeof(*lp))))
			st = pp_nomem(p);
		for (uint32_t i = 0; i < nl && !st; i++) {
			const struct pp_label *l = &p->labels[p->labelsets[ls] + i];
			Perftools__Profiles__Label lab = PERFTOOLS__PROFILES__LABEL__INIT;
			if (!(st = str(w, l->key, &lab.key)) && !(st = str(w, l->str, &lab.str)))
				st = str(w, l->unit, &lab.num_unit);
			lab.num = l->str ? 0 : l->num;
			labels[i] = lab;
			lp[i] = &labels[i];
		}
		if (st)
			break;
		sm.n_location_id = n;
		sm.location_id = locs;
		sm.n_value = p->ntypes;
		sm.value = p->values + (size_t)e * p->ntypes;
		sm.n_label = nl;
		sm.label = lp;
		put_message(w->s, 2, &sm.base);
	}
	free(locs);
	free(labels);
	free(lp);
	return st;
}

static int write_locations(struct writer *w)
{
	struct pprof_profile *p = w->p;
	Perftools__Profiles__Line *lines = NULL, **lp = NULL;
	size_t caplines = 0, caplp = 0;
	int st = PPROF_OK;
	for (uint32_t id = 1; id <= w->nlocs && !st; id++) {
		uint32_t run = w->locrun[id];
		Perftools__Profiles__Location loc = PERFTOOLS__PROFILES__LOCATION__INIT;
		loc.id = id;
		bool none = lineless(w, run);
		size_t n = 0;
		uint32_t head = 0;
		for (uint32_t r = run; r && !none; r = w->runs[r].prev) {
			if (!pp_grow((void **)&lines, &caplines, n + 1, sizeof(*lines)) ||
			    !pp_grow((void **)&lp, &caplp, n + 1, sizeof(*lp))) {
				st = pp_nomem(p);
				break;
			}
			uint32_t f = w->runs[r].frame, fid = 0;
			if ((st = function_of(w, f, &fid)))
				break;
			Perftools__Profiles__Line ln = PERFTOOLS__PROFILES__LINE__INIT;
			ln.function_id = fid;
			/* a leaf's sampled line (lines.h) has no column */
			ln.line = p->frames[f].at_line ? p->frames[f].at_line : p->frames[f].line;
			ln.column = p->frames[f].at_line ? 0 : p->frames[f].column;
			lines[n] = ln;
			n++;
		}
		if (st)
			break;
		for (size_t i = 0; i < n; i++)
			lp[i] = &lines[i];
		for (uint32_t r = run; r; r = w->runs[r].prev)
			head = w->runs[r].frame;
		const struct pp_frame *hf = &p->frames[head];
		if ((st = mapping_of(w, head, !none, &loc.mapping_id)))
			break;
		if (hf->flags & PP_FRAME_HAS_ADDRESS)
			loc.address = hf->address;
		loc.n_line = n;
		loc.line = lp;
		put_message(w->s, 4, &loc.base);
	}
	free(lines);
	free(lp);
	return st;
}

static void write_functions_mappings(struct writer *w)
{
	for (size_t i = 1; i < w->nfuncs; i++) {
		Perftools__Profiles__Function fn = PERFTOOLS__PROFILES__FUNCTION__INIT;
		fn.id = i;
		fn.name = w->funcs[i].name;
		/* The model keeps one name per function. */
		fn.system_name = w->funcs[i].name;
		fn.filename = w->funcs[i].file;
		fn.start_line = w->funcs[i].start_line;
		put_message(w->s, 5, &fn.base);
	}
	for (size_t i = 1; i < w->nmaps; i++) {
		Perftools__Profiles__Mapping m = PERFTOOLS__PROFILES__MAPPING__INIT;
		m.id = i;
		m.filename = w->maps[i].base;
		m.has_functions = w->maps[i].symbols;
		m.has_filenames = w->maps[i].symbols;
		m.has_line_numbers = w->maps[i].symbols;
		m.has_inline_frames = w->maps[i].symbols;
		put_message(w->s, 3, &m.base);
	}
}

static int write_all(struct writer *w)
{
	struct pprof_profile *p = w->p;
	int st;
	if ((st = build_runs(w)) || (st = mark_locations(w)))
		return st;
	w->framefunc = calloc(p->nframes, sizeof(*w->framefunc));
	w->mapof = calloc(p->nstrs, sizeof(*w->mapof));
	if (!w->framefunc || !w->mapof)
		return pp_nomem(p);

	/* sample types first, so that the type names lead the string table */
	for (uint32_t i = 0; i < p->ntypes; i++) {
		Perftools__Profiles__ValueType vt = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
		if ((st = str(w, p->types[i].type, &vt.type)) ||
		    (st = str(w, p->types[i].unit, &vt.unit)))
			return st;
		put_message(w->s, 1, &vt.base);
	}
	if ((st = write_samples(w)) || (st = write_locations(w)))
		return st;
	write_functions_mappings(w);

	/* the scalars, and period_type and comments, as one more Profile */
	Perftools__Profiles__Profile top = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__ValueType pt = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	int64_t *comments = malloc((p->ncomments ? p->ncomments : 1) * sizeof(*comments));
	if (!comments)
		return pp_nomem(p);
	for (uint32_t i = 0; i < p->ncomments && !st; i++)
		st = str(w, p->comments[i], &comments[i]);
	if (!st && p->default_type >= 0 && (uint32_t)p->default_type < p->ntypes)
		st = str(w, p->types[p->default_type].type, &top.default_sample_type);
	if (!st && (p->period_type.type || p->period_type.unit)) {
		if (!(st = str(w, p->period_type.type, &pt.type)) &&
		    !(st = str(w, p->period_type.unit, &pt.unit)))
			top.period_type = &pt;
	}
	if (!st)
		st = str(w, p->doc_url, &top.doc_url);
	if (st) {
		free(comments);
		return st;
	}
	top.time_nanos = p->time_nanos;
	top.duration_nanos = p->duration_nanos;
	top.period = p->period;
	top.n_comment = p->ncomments;
	top.comment = comments;
	protobuf_c_message_pack_to_buffer(&top.base, &w->s->base);
	free(comments);

	/* the string table, last (as Go writes it) */
	put_varint(w->s, 6 << 3 | 2);
	put_varint(w->s, 0);
	for (size_t i = 0; i < w->nstrs; i++) {
		uint32_t id = w->strs[i];
		put_varint(w->s, 6 << 3 | 2);
		put_varint(w->s, pp_strlen(p, id));
		sink_append(&w->s->base, pp_strlen(p, id), (const uint8_t *)pp_str(p, id));
	}
	return PPROF_OK;
}

int pprof_write_pprof(struct pprof_profile *p, FILE *out)
{
	int settled = pp_settle(p);
	if (settled != PPROF_OK)
		return settled;
	struct writer w;
	memset(&w, 0, sizeof(w));
	w.p = p;
	w.nfuncs = 1; /* ids 0 are reserved */
	w.nmaps = 1;
	struct sink *s = calloc(1, sizeof(*s));
	w.sidx = calloc(p->nstrs ? p->nstrs : 1, sizeof(*w.sidx));
	if (!s || !w.sidx) {
		free(s);
		free(w.sidx);
		return pp_nomem(p);
	}
	s->base.append = sink_append;
	s->out = out;
	w.s = s;
	int st = PPROF_OK;
	/* gzip wrapping (15 + 16), no file name and no time: reproducible */
	if (deflateInit2(&s->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		free(s);
		free(w.sidx);
		return pp_nomem(p);
	}
	st = write_all(&w);
	if (!st) {
		sink_deflate(s, Z_FINISH);
		if (s->failed) {
			errno = s->err ? s->err : EIO;
			st = pp_error(p, PPROF_EIO, "write error: %s",
				      s->err ? strerror(s->err) : "compression failed");
		}
	}
	deflateEnd(&s->z);
	free(s);
	free(w.sidx);
	free(w.strs);
	free(w.runs);
	idhash_release(&w.runhash);
	free(w.noderun);
	free(w.nodehead);
	free(w.funcs);
	idhash_release(&w.funchash);
	free(w.framefunc);
	free(w.maps);
	free(w.mapof);
	free(w.locrun);
	return st;
}
