/* read_pprof.c: the pprof reader (profile.proto, see FORMATS.md).
 *
 * The Profile message is never unpacked whole: its top-level fields are
 * walked by hand, a few times over (walking is cheap next to decoding), so
 * that memory stays near the size of the input.  First the string table,
 * the sample types and the scalars; then mappings and functions; then the
 * locations, each expanded once into its frames (root side first) with
 * drop_frames already applied; last the samples, streamed into the call
 * tree.  Go writes samples before locations, so the file order is never
 * relied on.  The submessages are small and decoded by hand too, which
 * also gives every error its byte offset.
 *
 * Validation follows what google/pprof's Parse and CheckValid reject, so
 * that a file go tool pprof refuses is refused here too, with two
 * deliberate differences: a Line without a function (function_id 0) is a
 * frame without a symbol rather than an error, and a location naming a
 * mapping that does not exist is an error (pprof silently drops the
 * mapping).  drop_frames follows google/pprof's current profile/prune.go;
 * Go 1.19's copy differs only on names that start with '(' or hold
 * "operator()" or "(anonymous namespace)". */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "read_pprof_private.h"

/* ---- growable arrays ---- */

static bool grow_to(void **arr, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return true;
	size_t ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / size)
			return false;
		ncap *= 2;
	}
	void *a = realloc(*arr, ncap * size);
	if (!a)
		return false;
	*arr = a;
	*cap = ncap;
	return true;
}

#define GROW(r, arr, cap, need)                                              \
	(grow_to((void **)&(arr), &(cap), (need), sizeof(*(arr))) ? PPROF_OK \
								     : pp_nomem((r)->p))

/* ---- wire format ---- */

static int varint_error(struct rd *r, int e, size_t off, const char *what)
{
	if (e == 1)
		return pp_error_at(r->p, PPROF_EINPUT, off, "truncated %s", what);
	return pp_error_at(r->p, PPROF_EINPUT, off, "varint overflow in %s", what);
}

/* Reads the field at *POS before END (the end of the enclosing message). */
int next_field(struct rd *r, size_t *pos, size_t end, struct field *f, const char *msg)
{
	uint64_t key;
	f->off = *pos;
	int e = get_varint(r->b, pos, end, &key);
	if (e)
		return varint_error(r, e, f->off, msg);
	f->num = key >> 3 > UINT32_MAX ? UINT32_MAX : (uint32_t)(key >> 3);
	f->wt = key & 7;
	switch (f->wt) {
	case WT_VARINT:
		e = get_varint(r->b, pos, end, &f->v);
		if (e)
			return varint_error(r, e, f->off, msg);
		return PPROF_OK;
	case WT_I64:
	case WT_I32: {
		size_t n = f->wt == WT_I64 ? 8 : 4;
		if (end - *pos < n)
			return pp_error_at(r->p, PPROF_EINPUT, f->off, "truncated %s", msg);
		f->v = 0;
		for (size_t k = 0; k < n; k++)
			f->v |= (uint64_t)r->b[*pos + k] << (8 * k);
		*pos += n;
		return PPROF_OK;
	}
	case WT_LEN: {
		uint64_t n;
		e = get_varint(r->b, pos, end, &n);
		if (e)
			return varint_error(r, e, f->off, msg);
		if (n > end - *pos)
			return pp_error_at(r->p, PPROF_EINPUT, f->off,
					   "truncated %s: field %u needs %llu bytes, %zu left", msg,
					   f->num, (unsigned long long)n, end - *pos);
		f->data = *pos;
		f->len = (size_t)n;
		*pos += (size_t)n;
		return PPROF_OK;
	}
	default:
		return pp_error_at(r->p, PPROF_EINPUT, f->off, "bad wire type %u in %s", f->wt, msg);
	}
}

static int want(struct rd *r, const struct field *f, uint32_t wt, const char *msg)
{
	if (f->wt == wt)
		return PPROF_OK;
	return pp_error_at(r->p, PPROF_EINPUT, f->off, "bad wire type %u for field %u of %s",
			   f->wt, f->num, msg);
}

/* Runs BODY with VAR set to each number of a repeated varint field, packed
 * or not. */
#define FOR_EACH_VARINT(r, f, msg, var, body)                                           \
	do {                                                                          \
		if ((f)->wt == WT_VARINT) {                                           \
			uint64_t var = (f)->v;                                          \
			body;                                                         \
		} else if ((f)->wt == WT_LEN) {                                       \
			size_t pos_ = (f)->data, end_ = (f)->data + (f)->len;         \
			while (pos_ < end_) {                                         \
				uint64_t var;                                           \
				int e_ = get_varint((r)->b, &pos_, end_, &var);         \
				if (e_)                                               \
					return varint_error((r), e_, pos_, (msg));    \
				body;                                                 \
			}                                                             \
		} else {                                                              \
			return want((r), (f), WT_VARINT, (msg));                      \
		}                                                                     \
	} while (0)

/* ---- strings ---- */

static int str_id(struct rd *r, int64_t idx, size_t off, uint32_t *id)
{
	if (idx < 0 || (uint64_t)idx >= r->nstr)
		return pp_error_at(r->p, PPROF_EINPUT, off,
				   "string index %lld out of range (the table has %zu strings)",
				   (long long)idx, r->nstr);
	*id = r->sids[idx];
	return PPROF_OK;
}

static int sref_id(struct rd *r, const struct sref *s, uint32_t *id)
{
	return str_id(r, s->idx, s->off, id);
}

/* ---- id maps ---- */

static void idmap_release(struct idmap *m)
{
	free(m->dense);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* Ids come from the input: hashed with a seed the input can't know, crafted
 * ids can't all fall into one slot (hash flooding: 200,000 locations whose
 * ids collided took 5 s, quadratically more with more). */
static uint64_t hash_seed(const void *addr)
{
	uint64_t s = (uint64_t)(uintptr_t)addr * 0x9e3779b97f4a7c15ull, r;
	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
		s ^= r;
	return s;
}

/* The offset of the Ith top-level field numbered NUM (the file was walked
 * whole before, so the walk can't fail), for a message. */
static size_t nth_field_offset(struct rd *r, uint32_t num, size_t i)
{
	size_t pos = 0;
	while (pos < r->len) {
		struct field f;
		if (next_field(r, &pos, r->len, &f, "profile"))
			break;
		if (f.num == num && i-- == 0)
			return f.off;
	}
	return 0;
}

/* Builds the map of N objects of SIZE bytes each starting with a uint64_t
 * id, the top-level fields numbered NUM in file order; WHAT names them in
 * messages. */
static int idmap_build(struct rd *r, struct idmap *m, const void *objs, size_t n, size_t size,
		       uint32_t num, const char *what)
{
	uint64_t max = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t id;
		memcpy(&id, (const char *)objs + i * size, sizeof(id));
		if (id == 0)
			return pp_error_at(r->p, PPROF_EINPUT, nth_field_offset(r, num, i),
					   "%s with reserved id 0", what);
		if (id > max)
			max = id;
	}
	if (n == 0)
		return PPROF_OK;
	if (max <= 2 * (uint64_t)n + 64) {
		m->ndense = max + 1;
		m->dense = calloc(m->ndense, sizeof(*m->dense));
		if (!m->dense)
			return pp_nomem(r->p);
	} else {
		size_t cap = 64;
		while (cap < 2 * n)
			cap *= 2;
		m->mask = cap - 1;
		m->keys = calloc(cap, sizeof(*m->keys));
		m->vals = calloc(cap, sizeof(*m->vals));
		if (!m->keys || !m->vals)
			return pp_nomem(r->p);
		m->seed = hash_seed(m->keys);
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t id;
		memcpy(&id, (const char *)objs + i * size, sizeof(id));
		uint32_t *slot;
		if (m->dense) {
			slot = &m->dense[id];
		} else {
			size_t s = idmap_slot(id, m->seed, m->mask);
			while (m->keys[s] != 0 && m->keys[s] != id)
				s = (s + 1) & m->mask;
			m->keys[s] = id;
			slot = &m->vals[s];
		}
		if (*slot)
			return pp_error_at(r->p, PPROF_EINPUT, nth_field_offset(r, num, i),
					   "several %ss with id %llu", what, (unsigned long long)id);
		*slot = (uint32_t)i + 1;
	}
	return PPROF_OK;
}

/* ---- pass 1: strings, sample types, scalars ---- */

static int decode_value_type(struct rd *r, const struct field *f, struct sref out[2])
{
	size_t pos = f->data, end = f->data + f->len;
	out[0].idx = out[1].idx = 0;
	out[0].off = out[1].off = f->off;
	while (pos < end) {
		struct field g;
		int s = next_field(r, &pos, end, &g, "value type");
		if (s)
			return s;
		if (g.num != 1 && g.num != 2)
			continue;
		if ((s = want(r, &g, WT_VARINT, "value type")))
			return s;
		out[g.num - 1].idx = (int64_t)g.v;
		out[g.num - 1].off = g.off;
	}
	return PPROF_OK;
}

static int scan_top(struct rd *r)
{
	size_t pos = 0;
	bool have_time = false;
	while (pos < r->len) {
		struct field f;
		int s = next_field(r, &pos, r->len, &f, "profile");
		if (s)
			return s;
		switch (f.num) {
		case F_SAMPLE_TYPE:
			if ((s = want(r, &f, WT_LEN, "profile")) ||
			    (s = GROW(r, r->types, r->captypes2, r->ntypes2 + 2)) ||
			    (s = decode_value_type(r, &f, r->types + r->ntypes2)))
				return s;
			r->ntypes2 += 2;
			break;
		case F_SAMPLE:
		case F_MAPPING:
		case F_LOCATION:
		case F_FUNCTION:
			if ((s = want(r, &f, WT_LEN, "profile")))
				return s;
			if (f.num == F_MAPPING)
				r->nmappings++;
			else if (f.num == F_LOCATION)
				r->nlocations++;
			else if (f.num == F_FUNCTION)
				r->nfunctions++;
			break;
		case F_STRING_TABLE: {
			if ((s = want(r, &f, WT_LEN, "profile")))
				return s;
			if (r->nstr == 0 && f.len != 0)
				return pp_error_at(r->p, PPROF_EINPUT, f.off,
						   "string_table[0] is not empty");
			if ((s = GROW(r, r->sids, r->capstr, r->nstr + 1)) ||
			    (s = pp_intern(r->p, (const char *)r->b + f.data, f.len,
					   &r->sids[r->nstr])))
				return s;
			r->nstr++;
			break;
		}
		case F_DROP_FRAMES:
		case F_KEEP_FRAMES:
		case F_DEFAULT_SAMPLE_TYPE:
		case F_DOC_URL: {
			if ((s = want(r, &f, WT_VARINT, "profile")))
				return s;
			struct sref *d = f.num == F_DROP_FRAMES   ? &r->drop
					 : f.num == F_KEEP_FRAMES ? &r->keep
					 : f.num == F_DOC_URL	  ? &r->doc_url
								  : &r->default_type;
			d->idx = (int64_t)f.v;
			d->off = f.off;
			break;
		}
		case F_TIME_NANOS:
			if ((s = want(r, &f, WT_VARINT, "profile")))
				return s;
			/* Two profiles written back to back merge field by
			 * field; a second time stamp is how pprof tells. */
			if (have_time && r->time_nanos != 0)
				return pp_error_at(r->p, PPROF_EINPUT, f.off,
						   "concatenated profiles detected");
			have_time = true;
			r->time_nanos = (int64_t)f.v;
			break;
		case F_DURATION_NANOS:
		case F_PERIOD:
			if ((s = want(r, &f, WT_VARINT, "profile")))
				return s;
			*(f.num == F_PERIOD ? &r->period : &r->duration_nanos) = (int64_t)f.v;
			break;
		case F_PERIOD_TYPE:
			if ((s = want(r, &f, WT_LEN, "profile")) ||
			    (s = decode_value_type(r, &f, r->period_type)))
				return s;
			break;
		case F_COMMENT:
			FOR_EACH_VARINT(r, &f, "profile", v, {
				if ((s = GROW(r, r->comments, r->capcomments, r->ncomments + 1)))
					return s;
				r->comments[r->ncomments].idx = (int64_t)v;
				r->comments[r->ncomments++].off = f.off;
			});
			break;
		default:
			break; /* unknown fields are skipped, as pprof does */
		}
	}
	if (r->nstr == 0)
		return pp_error_at(r->p, PPROF_EINPUT, 0, "no string table");
	return PPROF_OK;
}

/* Sample types, default type and metadata into the profile. */
static int begin(struct rd *r)
{
	struct pprof_profile *p = r->p;
	size_t n = r->ntypes2 / 2;
	struct pp_sample_type *t = malloc((n ? n : 1) * sizeof(*t));
	if (!t)
		return pp_nomem(p);
	int s = PPROF_OK;
	for (size_t i = 0; i < n && !s; i++)
		if (!(s = sref_id(r, &r->types[2 * i], &t[i].type)))
			s = sref_id(r, &r->types[2 * i + 1], &t[i].unit);
	uint32_t dflt = 0;
	if (!s)
		s = sref_id(r, &r->default_type, &dflt);
	int dindex = -1;
	for (size_t i = 0; i < n && dflt; i++)
		if (t[i].type == dflt) {
			dindex = (int)i;
			break;
		}
	if (!s)
		s = pp_begin_input(p, t, (uint32_t)n, dindex);
	free(t);
	if (s)
		return s;

	struct pp_sample_type pt = {0, 0};
	uint32_t doc = 0;
	if ((s = sref_id(r, &r->period_type[0], &pt.type)) ||
	    (s = sref_id(r, &r->period_type[1], &pt.unit)) || (s = sref_id(r, &r->doc_url, &doc)))
		return s;
	uint32_t *ids = malloc((r->ncomments ? r->ncomments : 1) * sizeof(*ids));
	if (!ids)
		return pp_nomem(p);
	for (size_t i = 0; i < r->ncomments; i++)
		if ((s = sref_id(r, &r->comments[i], &ids[i]))) {
			free(ids);
			return s;
		}
	/* With several inputs: the earliest start, the summed duration, the
	 * first period and URL, all comments (as pprof's merge does). */
	pp_input_times(p, r->time_nanos, r->duration_nanos, pt, r->period);
	if (!p->doc_url)
		p->doc_url = doc;
	if (r->ncomments) {
		if (p->ncomments > UINT32_MAX - r->ncomments) {
			free(ids);
			return pp_nomem(p);
		}
		uint32_t *c = realloc(p->comments, (p->ncomments + r->ncomments) * sizeof(*c));
		if (!c) {
			free(ids);
			return pp_nomem(p);
		}
		memcpy(c + p->ncomments, ids, r->ncomments * sizeof(*ids));
		p->comments = c;
		p->ncomments += (uint32_t)r->ncomments;
	}
	free(ids);
	return PPROF_OK;
}

/* ---- drop_frames / keep_frames ---- */

static int compile_re(struct rd *r, const struct sref *s, const char *what, pcre2_code **out)
{
	uint32_t id = 0;
	int st = sref_id(r, s, &id);
	if (st || !id)
		return st;
	struct pp_buf pat;
	pp_buf_init(&pat);
	/* Anchored as pprof anchors it. */
	if (!pp_buf_add(&pat, "^(", 2) ||
	    !pp_buf_add(&pat, pp_str(r->p, id), pp_strlen(r->p, id)) || !pp_buf_add(&pat, ")$", 2)) {
		pp_buf_release(&pat);
		return pp_nomem(r->p);
	}
	int err;
	PCRE2_SIZE eoff;
	*out = pcre2_compile((PCRE2_SPTR)pat.s, pat.len,
			     PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_DOLLAR_ENDONLY, &err,
			     &eoff, NULL);
	pp_buf_release(&pat);
	if (!*out) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(err, msg, sizeof(msg));
		return pp_error_at(r->p, PPROF_EINPUT, s->off, "bad %s regular expression: %s",
				   what, (const char *)msg);
	}
	return PPROF_OK;
}

/* drop_frames comes with the input: a pattern that backtracks
 * exponentially ("(a+)+$") must not hang the reader.  The matches of all
 * functions together get about RE_BUDGET backtracking steps (each at least
 * RE_STEPS_MIN, far more than a real pattern needs); a match that runs out
 * fails the read (re_status). */
#define RE_BUDGET 50000000u
#define RE_STEPS_MIN 10000u

static bool re_match(struct rd *r, pcre2_code *re, const char *s, size_t n)
{
	int rc = pcre2_match(re, (PCRE2_SPTR)s, n, 0, 0, r->md, r->mctx);
	if (rc < 0 && rc != PCRE2_ERROR_NOMATCH && !r->re_status)
		r->re_status = rc;
	return rc >= 0;
}

/* Whether function F matches drop_frames and not keep_frames.  The name is
 * simplified as google/pprof's profile/prune.go does: a leading '.' (PPC
 * ELF v1) goes, and an argument list from the first '(' past the start,
 * unless that '(' opens "(anonymous namespace)". */
static bool fn_dropped(struct rd *r, struct function *f)
{
	if (f->drop >= 0)
		return f->drop;
	f->drop = 0;
	if (!f->name)
		return false;
	const char *s = pp_str(r->p, f->name);
	size_t n = pp_strlen(r->p, f->name);
	if (n && s[0] == '.') {
		s++;
		n--;
	}
	const char *paren = memchr(s, '(', n);
	if (paren && paren > s) {
		static const char anon[] = "(anonymous namespace)";
		size_t rest = n - (size_t)(paren - s);
		if (!(rest >= sizeof(anon) - 1 && memcmp(paren, anon, sizeof(anon) - 1) == 0))
			n = (size_t)(paren - s);
	}
	if (re_match(r, r->drop_re, s, n) && !(r->keep_re && re_match(r, r->keep_re, s, n)))
		f->drop = 1;
	return f->drop;
}

/* ---- pass 2: mappings and functions ---- */

static int decode_mapping(struct rd *r, const struct field *f, struct mapping *m)
{
	size_t pos = f->data, end = f->data + f->len;
	struct sref file = {0, f->off}, build = {0, f->off};
	m->id = 0;
	m->base = 0;
	while (pos < end) {
		struct field g;
		int s = next_field(r, &pos, end, &g, "mapping");
		if (s)
			return s;
		if (g.num < 1 || g.num > 10)
			continue;
		if ((s = want(r, &g, WT_VARINT, "mapping")))
			return s;
		if (g.num == 1)
			m->id = g.v;
		else if (g.num == 5)
			file = (struct sref){(int64_t)g.v, g.off};
		else if (g.num == 6)
			build = (struct sref){(int64_t)g.v, g.off};
	}
	uint32_t fid = 0, bid = 0;
	int s;
	if ((s = sref_id(r, &file, &fid)) || (s = sref_id(r, &build, &bid)))
		return s;
	if (!fid)
		return PPROF_OK;
	/* The basename as Go's filepath.Base gives it. */
	const char *name = pp_str(r->p, fid);
	size_t n = pp_strlen(r->p, fid);
	while (n > 1 && name[n - 1] == '/')
		n--;
	size_t b = n;
	while (b > 0 && name[b - 1] != '/')
		b--;
	if (b == n) /* "/" */
		b = n - 1;
	/* Interned strings live in the arena, which never moves them. */
	return pp_intern(r->p, name + b, n - b, &m->base);
}

static int decode_function(struct rd *r, const struct field *f, struct function *fn)
{
	size_t pos = f->data, end = f->data + f->len;
	struct sref name = {0, f->off}, sys = {0, f->off}, file = {0, f->off};
	fn->id = 0;
	fn->drop = -1;
	while (pos < end) {
		struct field g;
		int s = next_field(r, &pos, end, &g, "function");
		if (s)
			return s;
		if (g.num < 1 || g.num > 5)
			continue;
		if ((s = want(r, &g, WT_VARINT, "function")))
			return s;
		struct sref ref = {(int64_t)g.v, g.off};
		if (g.num == 1)
			fn->id = g.v;
		else if (g.num == 2)
			name = ref;
		else if (g.num == 3)
			sys = ref;
		else if (g.num == 4)
			file = ref;
	}
	uint32_t sysid = 0;
	int s;
	if ((s = sref_id(r, &name, &fn->name)) || (s = sref_id(r, &sys, &sysid)) ||
	    (s = sref_id(r, &file, &fn->file)))
		return s;
	return PPROF_OK;
}

static int scan_mappings_functions(struct rd *r)
{
	r->mappings = malloc((r->nmappings ? r->nmappings : 1) * sizeof(*r->mappings));
	r->functions = malloc((r->nfunctions ? r->nfunctions : 1) * sizeof(*r->functions));
	if (!r->mappings || !r->functions)
		return pp_nomem(r->p);
	size_t pos = 0;
	while (pos < r->len) {
		struct field f;
		int s = next_field(r, &pos, r->len, &f, "profile");
		if (s)
			return s;
		if (f.num == F_MAPPING)
			s = decode_mapping(r, &f, &r->mappings[r->nm++]);
		else if (f.num == F_FUNCTION)
			s = decode_function(r, &f, &r->functions[r->nf++]);
		if (s)
			return s;
	}
	int s;
	if ((s = idmap_build(r, &r->mapmap, r->mappings, r->nm, sizeof(*r->mappings), F_MAPPING,
				 "mapping")) ||
	    (s = idmap_build(r, &r->funmap, r->functions, r->nf, sizeof(*r->functions),
			     F_FUNCTION, "function")))
		return s;
	return PPROF_OK;
}

/* ---- pass 3: locations ---- */

static int push_frame(struct rd *r, const struct pp_frame *fr)
{
	int s = GROW(r, r->frames, r->capframes, r->nframes + 1);
	if (s)
		return s;
	if (r->nframes >= UINT32_MAX)
		return pp_nomem(r->p);
	/* Where no line is printed (skip_lines), a frame with a function
	 * prints its name, its file, or without a file its mapping
	 * (pp_frame_name()): the lines, addresses and inlined calls of one
	 * function are one frame, and a sample's walk merges them as the
	 * fold would after it (the bench pprof's 349k frames are 5k, its
	 * tree smaller by as many lines of a function as a caller reaches).
	 * A frame without a function is kept as it is. */
	struct pp_frame fn;
	if (r->by_function && !(fr->flags & PP_FRAME_NO_SYMBOL)) {
		fn = (struct pp_frame){.name = fr->name, .file = fr->file, .mapping = fr->mapping};
		fr = &fn;
	}
	return pp_frame_intern(r->p, fr, &r->frames[r->nframes++]);
}

static int decode_location(struct rd *r, const struct field *f, struct pp_loc *loc,
			   uint64_t *id)
{
	size_t pos = f->data, end = f->data + f->len;
	uint64_t mapping_id = 0, address = 0;
	size_t nlines = 0, mapoff = f->off;
	int s;
	memset(loc, 0, sizeof(*loc));
	*id = 0;
	while (pos < end) {
		struct field g;
		if ((s = next_field(r, &pos, end, &g, "location")))
			return s;
		if (g.num == 4) {
			if ((s = want(r, &g, WT_LEN, "location")) ||
			    (s = GROW(r, r->lines, r->caplines, nlines + 1)))
				return s;
			struct line *ln = &r->lines[nlines++];
			memset(ln, 0, sizeof(*ln));
			ln->off = g.off;
			size_t lp = g.data, le = g.data + g.len;
			while (lp < le) {
				struct field h;
				if ((s = next_field(r, &lp, le, &h, "line")))
					return s;
				if (h.num < 1 || h.num > 3)
					continue;
				if ((s = want(r, &h, WT_VARINT, "line")))
					return s;
				if (h.num == 1)
					ln->function_id = h.v;
				else if (h.num == 2)
					ln->line = (int64_t)h.v;
				else
					ln->column = (int64_t)h.v;
			}
			continue;
		}
		if (g.num < 1 || g.num > 5)
			continue;
		if ((s = want(r, &g, WT_VARINT, "location")))
			return s;
		if (g.num == 1)
			*id = g.v;
		else if (g.num == 2) {
			mapping_id = g.v;
			mapoff = g.off;
		} else if (g.num == 3)
			address = g.v;
	}

	uint32_t base = 0;
	if (mapping_id) {
		uint32_t m = idmap_get(&r->mapmap, mapping_id);
		if (!m)
			return pp_error_at(r->p, PPROF_EINPUT, mapoff,
					   "location %llu refers to missing mapping %llu",
					   (unsigned long long)*id,
					   (unsigned long long)mapping_id);
		base = r->mappings[m - 1].base;
	}
	struct pp_frame fr;
	memset(&fr, 0, sizeof(fr));
	fr.mapping = base;
	fr.address = address;
	fr.flags = address ? PP_FRAME_HAS_ADDRESS : 0;

	/* Every line's function must exist, kept or not. */
	size_t keep_from = 0; /* lines [keep_from, nlines) stay */
	for (size_t i = 0; i < nlines; i++) {
		uint64_t fid = r->lines[i].function_id;
		if (fid && !idmap_get(&r->funmap, fid))
			return pp_error_at(r->p, PPROF_EINPUT, r->lines[i].off,
					   "location %llu refers to missing function %llu",
					   (unsigned long long)*id, (unsigned long long)fid);
	}
	if (r->drop_re) {
		/* As prune.go: the outermost line that matches decides; a
		 * match on the outermost line prunes the whole location,
		 * one further in keeps only the lines outside it. */
		for (size_t k = nlines; k-- > 0;) {
			uint64_t fid = r->lines[k].function_id;
			if (!fid)
				continue;
			struct function *fn = &r->functions[idmap_get(&r->funmap, fid) - 1];
			bool dropped = fn_dropped(r, fn);
			if (r->re_status) {
				PCRE2_UCHAR msg[256];
				pcre2_get_error_message(r->re_status, msg, sizeof(msg));
				return pp_error_at(r->p, PPROF_EINPUT, r->lines[k].off,
						   "drop_frames or keep_frames on function %llu: %s",
						   (unsigned long long)fid, (const char *)msg);
			}
			if (dropped) {
				loc->flags = PRUNE_BENEATH;
				if (k == nlines - 1)
					loc->flags = PRUNE_BENEATH | PRUNE_ALL;
				else
					keep_from = k + 1;
				break;
			}
		}
	}

	if (r->nframes > UINT32_MAX)
		return pp_nomem(r->p);
	loc->off = (uint32_t)r->nframes;
	if (nlines == 0) {
		fr.flags |= PP_FRAME_NO_SYMBOL;
		if ((s = push_frame(r, &fr)))
			return s;
	}
	/* Root side first: the outermost (last) line, then the inlined ones. */
	for (size_t k = nlines; k-- > keep_from;) {
		const struct line *ln = &r->lines[k];
		fr.flags &= PP_FRAME_HAS_ADDRESS;
		fr.name = fr.file = 0;
		fr.line = ln->line;
		fr.column = ln->column;
		if (k != nlines - 1)
			fr.flags |= PP_FRAME_INLINED;
		if (ln->function_id) {
			const struct function *fn =
				&r->functions[idmap_get(&r->funmap, ln->function_id) - 1];
			fr.name = fn->name;
			fr.file = fn->file;
		}
		if (!fr.name)
			fr.flags |= PP_FRAME_NO_SYMBOL;
		if ((s = push_frame(r, &fr)))
			return s;
	}
	if (r->nframes - loc->off >= (1u << 30))
		return pp_error_at(r->p, PPROF_EINPUT, f->off, "location with too many lines");
	loc->n = (uint32_t)(r->nframes - loc->off) & ((1u << 30) - 1);
	return PPROF_OK;
}

static int scan_locations(struct rd *r)
{
	int s;
	if ((s = compile_re(r, &r->drop, "drop_frames", &r->drop_re)))
		return s;
	if (r->drop_re) {
		/* keep_frames counts only with drop_frames. */
		if ((s = compile_re(r, &r->keep, "keep_frames", &r->keep_re)))
			return s;
		r->md = pcre2_match_data_create(1, NULL);
		r->mctx = pcre2_match_context_create(NULL);
		if (!r->md || !r->mctx)
			return pp_nomem(r->p);
		size_t per = RE_BUDGET / (r->nfunctions ? r->nfunctions : 1);
		pcre2_set_match_limit(r->mctx, per < RE_STEPS_MIN ? RE_STEPS_MIN : (uint32_t)per);
	} else {
		uint32_t id = 0;
		if ((s = sref_id(r, &r->keep, &id)))
			return s;
	}
	size_t lb = (r->nlocations ? r->nlocations : 1) * sizeof(*r->locations);
	size_t ib = (r->nlocations ? r->nlocations : 1) * sizeof(*r->locids);
	r->locations = pp_huge_alloc(&lb);
	r->locids = pp_huge_alloc(&ib);
	if (!r->locations || !r->locids)
		return pp_nomem(r->p);
	size_t pos = 0;
	while (pos < r->len) {
		struct field f;
		if ((s = next_field(r, &pos, r->len, &f, "profile")))
			return s;
		if (f.num == F_LOCATION) {
			if ((s = decode_location(r, &f, &r->locations[r->nl], &r->locids[r->nl])))
				return s;
			r->nl++;
		}
	}
	/* Go numbers its locations 1, 2, ... in the order it writes them:
	 * then a sample's location ids need no look-up. */
	r->loc_identity = true;
	for (size_t i = 0; i < r->nl && r->loc_identity; i++)
		r->loc_identity = r->locids[i] == i + 1;
	return idmap_build(r, &r->locmap, r->locids, r->nl, sizeof(*r->locids), F_LOCATION,
			   "location");
}

/* ---- pass 4: samples ---- */

static int label_cmp(const void *a, const void *b)
{
	const struct pp_label *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->str != y->str)
		return x->str < y->str ? -1 : 1;
	if (x->num != y->num)
		return x->num < y->num ? -1 : 1;
	if (x->unit != y->unit)
		return x->unit < y->unit ? -1 : 1;
	return 0;
}

static int decode_label(struct rd *r, const struct field *f, struct pp_label *l, bool *used)
{
	size_t pos = f->data, end = f->data + f->len;
	int64_t v[5] = {0, 0, 0, 0, 0};
	size_t off[5] = {f->off, f->off, f->off, f->off, f->off};
	int s;
	while (pos < end) {
		struct field g;
		if ((s = next_field(r, &pos, end, &g, "label")))
			return s;
		if (g.num < 1 || g.num > 4)
			continue;
		if ((s = want(r, &g, WT_VARINT, "label")))
			return s;
		v[g.num] = (int64_t)g.v;
		off[g.num] = g.off;
	}
	memset(l, 0, sizeof(*l));
	if ((s = str_id(r, v[1], off[1], &l->key)))
		return s;
	/* As pprof: a string label when str is set, else a numeric one when
	 * num or its unit is set, else nothing. */
	*used = true;
	if (v[2])
		return str_id(r, v[2], off[2], &l->str);
	if (!v[3] && !v[4]) {
		*used = false;
		return PPROF_OK;
	}
	l->num = v[3];
	if (v[4])
		return str_id(r, v[4], off[4], &l->unit);
	return PPROF_OK;
}

/* Deferred samples: this input's locations and frames join those of
 * p->deferred, once, before its first sample. */
static int defer_begin(struct rd *r)
{
	struct pprof_profile *p = r->p;
	struct pp_deferred *d = p->deferred;
	if (!d) {
		if (!(d = p->deferred = calloc(1, sizeof(*d))) ||
		    !(d->magsum = calloc(p->ntypes ? p->ntypes : 1, sizeof(*d->magsum))))
			return pp_nomem(p);
	}
	if (d->nframes + r->nframes > UINT32_MAX || d->nlocs + r->nl > UINT32_MAX ||
	    !pp_grow((void **)&d->frames, &d->capframes, d->nframes + r->nframes,
		     sizeof(*d->frames)) ||
	    !pp_grow((void **)&d->locs, &d->caplocs, d->nlocs + r->nl, sizeof(*d->locs)) ||
	    /* never NULL: samples without locations point into it too */
	    !pp_grow((void **)&d->stack, &d->capstack, 1, sizeof(*d->stack)) ||
	    !pp_grow((void **)&d->parts, &d->capparts, d->nparts + 1, sizeof(*d->parts)))
		return pp_nomem(p);
	/* The packed ids point into the buffer read when it may be kept (it
	 * is taken at the end, when some sample does), unless it is a file's
	 * mapping: another program may write the file. */
	r->part = (uint32_t)d->nparts;
	r->npacked = 0;
	d->parts[d->nparts++] = (struct pp_dpart){
		p->hold && p->hold->ptr == (const void *)r->b && !p->hold->mapped ? r->b : NULL,
		(uint32_t)d->nlocs, {NULL, 0, false}};
	size_t framebase = d->nframes;
	r->locbase = d->nlocs;
	if (r->nframes) /* d->frames is NULL before the first frames */
		memcpy(d->frames + d->nframes, r->frames, r->nframes * sizeof(*r->frames));
	d->nframes += r->nframes;
	for (size_t i = 0; i < r->nl; i++) {
		struct pp_loc *l = &d->locs[d->nlocs++];
		memset(l, 0, sizeof(*l));
		l->off = (uint32_t)(framebase + r->locations[i].off);
		l->n = r->locations[i].n;
		if (l->n > r->maxlocn)
			r->maxlocn = l->n;
	}
	r->firstsample = d->nsamples;
	return PPROF_OK;
}

/* Whether the sample's values keep the sums of magnitudes of all deferred
 * samples within int64 (then counts them in).  When they don't, the tree
 * takes over: the tree's sums check each step, with the sample's byte. */
static bool defer_fits(struct rd *r)
{
	const struct pprof_profile *p = r->p;
	uint64_t *sum = p->deferred->magsum;
	for (uint32_t k = 0; k < p->ntypes; k++) {
		int64_t v = r->vals[k];
		uint64_t m = v < 0 ? 0 - (uint64_t)v : (uint64_t)v, t;
		if (__builtin_add_overflow(sum[p->typemap ? p->typemap[k] : k], m, &t) ||
		    t > INT64_MAX)
			return false;
	}
	for (uint32_t k = 0; k < p->ntypes; k++) {
		int64_t v = r->vals[k];
		sum[p->typemap ? p->typemap[k] : k] += v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	}
	return true;
}

/* Keeps a sample out of the tree: its locations STACK[0 .. n) (leaf first)
 * and its values, in the profile's type order.  PACKED: the field of its
 * location ids, 1 .. the locations, when they are one packed field, or
 * NULL. */
static int defer_sample(struct rd *r, const uint32_t *stack, size_t n, uint32_t labels,
			size_t off, const struct field *packed)
{
	struct pprof_profile *p = r->p;
	struct pp_deferred *d = p->deferred;
	r->locsteps += n;
	if (n > UINT32_MAX ||
	    !pp_grow((void **)&d->samples, &d->capsamples, d->nsamples + 1, sizeof(*d->samples)) ||
	    !pp_grow((void **)&d->values, &d->capvalues, (d->nsamples + 1) * p->ntypes,
		     sizeof(*d->values)))
		return pp_nomem(p);
	struct pp_dsample *x = &d->samples[d->nsamples];
	x->n = (uint32_t)n;
	x->labels = labels;
	x->off = off;
	if (packed && d->parts[r->part].base) {
		/* as it is, in the buffer */
		x->part = r->part;
		x->stack = packed->data;
		r->npacked++;
	} else if (packed) {
		if (!pp_grow((void **)&d->bytes, &d->capbytes, d->nbytes + packed->len, 1))
			return pp_nomem(p);
		x->part = r->part;
		x->stack = d->nbytes;
		if (packed->len) /* d->bytes is NULL before the first */
			memcpy(d->bytes + d->nbytes, r->b + packed->data, packed->len);
		d->nbytes += packed->len;
	} else {
		if (!pp_grow((void **)&d->stack, &d->capstack, d->nstack + n, sizeof(*d->stack)))
			return pp_nomem(p);
		x->part = PP_DLIST;
		x->stack = d->nstack;
		for (size_t i = 0; i < n; i++)
			d->stack[d->nstack++] = (uint32_t)(r->locbase + stack[i]);
	}
	d->nsteps += n;
	int64_t *v = d->values + d->nsamples * p->ntypes;
	for (uint32_t k = 0; k < p->ntypes; k++)
		v[p->typemap ? p->typemap[k] : k] = r->vals[k];
	d->nsamples++;
	return PPROF_OK;
}

/* The bound on the frames the stacks expand to (see pprof_read): a reader
 * of deferred samples walks every frame of every one.  Counted exactly
 * only when the quick product of steps and the longest location passes
 * it, to name the sample where it does. */
static int defer_check(struct rd *r)
{
	const struct pp_deferred *d = r->p->deferred;
	if (r->locsteps <= r->walk.maxsteps / (r->maxlocn ? r->maxlocn : 1))
		return PPROF_OK;
	uint64_t steps = 0;
	uint32_t *scratch = NULL;
	size_t cap = 0;
	int s = PPROF_OK;
	for (size_t i = r->firstsample; i < d->nsamples && s == PPROF_OK; i++) {
		const struct pp_dsample *x = &d->samples[i];
		const uint32_t *locs = pp_dsample_locs(d, x, &scratch, &cap);
		if (!locs) {
			s = pp_nomem(r->p);
			break;
		}
		for (uint32_t j = 0; j < x->n; j++)
			steps += d->locs[locs[j]].n;
		if (steps > r->walk.maxsteps)
			s = pp_steps_exceeded(r->p, x->off, r->walk.maxsteps, r->len);
	}
	free(scratch);
	return s;
}

/* The end of an input read with deferred samples, whether it failed or
 * not: its buffer is kept with them when some point into it. */
static void defer_keep(struct rd *r)
{
	struct pprof_profile *p = r->p;
	if (!r->defer || !r->npacked || !p->deferred || !p->hold || p->hold->ptr != r->b)
		return;
	p->deferred->parts[r->part].hold = *p->hold;
	p->hold->ptr = NULL;
}

/* The number of packed location ids in [POS, END) when each is 1 .. MAX
 * in at most three bytes (ids 1 .. n in order, up to two million: every
 * writer we know); false sends the field to the general path, which says
 * what is wrong if anything is. */
static inline bool count_ids(const unsigned char *b, size_t pos, size_t end, uint64_t max,
			     size_t *n)
{
	size_t k = 0;
	while (pos < end) {
		uint64_t v = b[pos];
		if (v < 0x80) {
			pos++;
		} else {
			if (pos + 1 >= end)
				return false;
			uint64_t c = b[pos + 1];
			v = (v & 0x7f) | (c & 0x7f) << 7;
			if (c < 0x80) {
				pos += 2;
			} else {
				if (pos + 2 >= end || b[pos + 2] >= 0x80)
					return false;
				v |= (uint64_t)b[pos + 2] << 14;
				pos += 3;
			}
		}
		if (v - 1 >= max)
			return false;
		k++;
	}
	*n = k;
	return true;
}

/* The indexes of a packed field of location ids that count_ids() took,
 * into r->locs. */
static int fill_ids(struct rd *r, const struct field *g)
{
	size_t n = 0;
	int s = GROW(r, r->locs, r->caplocs, g->len);
	if (s)
		return s;
	for (size_t pos = g->data, end = g->data + g->len; pos < end;) {
		uint64_t v = 0;
		get_varint(r->b, &pos, end, &v);
		r->locs[n++] = (uint32_t)v - 1;
	}
	return PPROF_OK;
}

/* What sample_head() read of a sample: NLOCS locations in r->locs (leaf
 * first) of which the first LO are dropped, the values in r->vals, the
 * label set; UNFILLED: the locations are counted, not in r->locs, but in
 * LOCFIELD, the last of NLOCFIELDS fields of them. */
struct sample_head {
	size_t nlocs, lo, nlocfields;
	struct field locfield;
	bool unfilled;
	uint32_t labelset;
};

/* The first part of decode_sample(): the sample read and checked, its
 * label set interned and its frames dropped. */
static int sample_head(struct rd *r, const struct field *f, uint32_t ntypes, struct sample_head *h)
{
	size_t pos = f->data, end = f->data + f->len;
	size_t nlocs = 0, nvals = 0, nlabels = 0;
	size_t nlocfields = 0;
	struct field locfield = {0};
	bool unfilled = false; /* locfield is counted, not in r->locs */
	int s;
	while (pos < end) {
		struct field g;
		if ((s = next_field(r, &pos, end, &g, "sample")))
			return s;
		switch (g.num) {
		case 1:
			/* A deferred sample keeps its packed ids as they are:
			 * they are only checked here. */
			if (g.wt == WT_LEN && !nlocfields && r->defer && r->loc_identity &&
			    !r->drop_re && count_ids(r->b, g.data, g.data + g.len, r->nl, &nlocs)) {
				nlocfields = 1;
				locfield = g;
				unfilled = true;
				break;
			}
			if (unfilled) {
				if ((s = fill_ids(r, &locfield)))
					return s;
				unfilled = false;
			}
			if (g.wt == WT_LEN && (s = GROW(r, r->locs, r->caplocs, nlocs + g.len)))
				return s;
			nlocfields++;
			locfield = g;
			FOR_EACH_VARINT(r, &g, "sample", id, {
				if (nlocs == r->caplocs &&
				    (s = GROW(r, r->locs, r->caplocs, nlocs + 1)))
					return s;
				uint32_t li = !r->loc_identity ? idmap_get(&r->locmap, id)
						: id <= r->nl ? (uint32_t)id : 0;
				if (!li)
					return pp_error_at(r->p, PPROF_EINPUT, g.off,
							   "sample refers to missing location %llu",
							   (unsigned long long)id);
				r->locs[nlocs++] = li - 1;
			});
			break;
		case 2:
			if (g.wt == WT_LEN && (s = GROW(r, r->vals, r->capvals, nvals + g.len)))
				return s;
			FOR_EACH_VARINT(r, &g, "sample", v, {
				if (nvals == r->capvals &&
				    (s = GROW(r, r->vals, r->capvals, nvals + 1)))
					return s;
				r->vals[nvals++] = (int64_t)v;
			});
			break;
		case 3: {
			bool used;
			if ((s = want(r, &g, WT_LEN, "sample")) ||
			    (s = GROW(r, r->labels, r->caplabels, nlabels + 1)) ||
			    (s = decode_label(r, &g, &r->labels[nlabels], &used)))
				return s;
			nlabels += used;
			break;
		}
		default:
			break;
		}
	}
	if (ntypes == 0)
		return pp_error_at(r->p, PPROF_EINPUT, f->off,
				   "sample without sample types in the profile");
	if (nvals != ntypes)
		return pp_error_at(r->p, PPROF_EINPUT, f->off,
				   "sample has %zu values for %u sample types", nvals, ntypes);

	/* Labels: sorted, so that equal sets intern as one; the previous
	 * sample's set is reused when equal. */
	uint32_t labelset = 0;
	if (nlabels) {
		if (nlabels > 1)
			qsort(r->labels, nlabels, sizeof(*r->labels), label_cmp);
		if (nlabels == r->nprevlabels &&
		    memcmp(r->labels, r->prevlabels, nlabels * sizeof(*r->labels)) == 0) {
			labelset = r->prevlabelset;
		} else {
			if ((s = pp_labelset_intern(r->p, r->labels, (uint32_t)nlabels, &labelset)) ||
			    (s = GROW(r, r->prevlabels, r->capprevlabels, nlabels)))
				return s;
			memcpy(r->prevlabels, r->labels, nlabels * sizeof(*r->labels));
			r->nprevlabels = nlabels;
			r->prevlabelset = labelset;
		}
	}

	/* drop_frames, as prune.go: from the root toward the leaf, the first
	 * pruned location after a kept one cuts the stack there. */
	size_t lo = 0;
	if (r->drop_re) {
		bool user = false;
		for (size_t i = nlocs; i-- > 0;) {
			uint8_t pr = r->locations[r->locs[i]].flags;
			if (!pr) {
				user = true;
				continue;
			}
			if (!user)
				continue;
			lo = (pr & PRUNE_ALL) ? i + 1 : i;
			break;
		}
	}
	*h = (struct sample_head){nlocs, lo, nlocfields, locfield, unfilled, labelset};
	return PPROF_OK;
}

int read_sample(struct rd *r, const struct field *f, uint32_t ntypes, size_t *nlocs,
		uint32_t *labelset)
{
	struct sample_head h;
	int s = sample_head(r, f, ntypes, &h);
	if (s)
		return s;
	*nlocs = h.nlocs;
	*labelset = h.labelset;
	return PPROF_OK;
}

int decode_sample(struct rd *r, const struct field *f, uint32_t ntypes)
{
	struct sample_head h;
	int s = sample_head(r, f, ntypes, &h);
	if (s)
		return s;
	size_t nlocs = h.nlocs, lo = h.lo;
	bool unfilled = h.unfilled;
	uint32_t labelset = h.labelset;
	struct field locfield = h.locfield;
	size_t nlocfields = h.nlocfields;

	/* r->locs is NULL when no sample had locations yet, and unfilled
	 * when count_ids() took them */
	const uint32_t *stack = nlocs > lo && !unfilled ? r->locs + lo : NULL;
	if (r->defer && !defer_fits(r)) {
		/* all deferred samples so far sum within int64: settling them
		 * can't fail on a sum (nor pass the bound, checked first) */
		if ((s = defer_check(r)) || (s = pp_settle(r->p)))
			return s;
		r->defer = false;
	}
	if (r->defer) {
		bool packed = nlocfields == 1 && locfield.wt == WT_LEN && r->loc_identity && lo == 0;
		return defer_sample(r, stack, nlocs - lo, labelset, f->off, packed ? &locfield : NULL);
	}
	if (unfilled) { /* settled above: the tree takes the indexes */
		if ((s = fill_ids(r, &locfield)))
			return s;
		stack = nlocs ? r->locs : NULL;
	}
	uint32_t node;
	if ((s = pp_locwalk_node(r->p, &r->walk, stack, nlocs - lo, f->off, &node)))
		return s;
	return pp_add_sample(r->p, node, labelset, r->vals, f->off);
}

/* Big inputs give back the pages of samples walked, RELEASE_STEP at a time. */
#define RELEASE_MIN ((size_t)16 << 20)
#define RELEASE_STEP ((size_t)4 << 20)

static int scan_samples(struct rd *r)
{
	uint32_t ntypes = (uint32_t)(r->ntypes2 / 2);
	size_t pos = 0;
	r->walk.locs = r->locations;
	r->walk.frames = r->frames;
	if (r->defer) {
		int s = defer_begin(r);
		if (s)
			return s;
	}
	/* The last pass over the input: when the buffer is the reader's to
	 * let go (p->hold) and no sample keeps its bytes, the pages behind
	 * the samples walked are given back as the tree grows, so that the
	 * input and the tree are not both whole in memory at once (Go writes
	 * the samples first: most of a big profile).  Nothing reads them
	 * again; the buffer is freed as usual afterwards. */
	const struct pp_hold *h = r->p->hold;
	bool give_back = !r->defer && h && h->ptr == r->b && r->len >= RELEASE_MIN;
	uintptr_t given = 0;
	size_t next_give = RELEASE_STEP;
	/* the samples intern no frame: the frame index goes while the tree
	 * grows, as the input's pages do */
	if (give_back)
		pp_drop_frame_index(r->p);
	bool tried;
	int ss = scan_shares(r, give_back, &tried);
	if (tried)
		return ss;
	while (pos < r->len) {
		struct field f;
		int s = next_field(r, &pos, r->len, &f, "profile");
		if (s)
			return s;
		if (f.num == F_SAMPLE && (s = decode_sample(r, &f, ntypes)))
			return s;
		if (give_back && pos >= next_give) {
			pp_give_back(r->b, pos, &given);
			next_give = pos + RELEASE_STEP;
		}
	}
	return r->defer ? defer_check(r) : PPROF_OK;
}

static void rd_release(struct rd *r)
{
	free(r->sids);
	free(r->types);
	free(r->comments);
	free(r->mappings);
	free(r->functions);
	free(r->locations);
	free(r->locids);
	idmap_release(&r->mapmap);
	idmap_release(&r->funmap);
	idmap_release(&r->locmap);
	free(r->frames);
	pcre2_code_free(r->drop_re);
	pcre2_code_free(r->keep_re);
	pcre2_match_data_free(r->md);
	pcre2_match_context_free(r->mctx);
	free(r->lines);
	free(r->locs);
	free(r->vals);
	free(r->labels);
	free(r->prevlabels);
	pp_locwalk_release(&r->walk);
}

static int pprof_read(struct pprof_profile *p, const unsigned char *buf, size_t len,
		      const struct pprof_read_options *o)
{
	struct rd r;
	memset(&r, 0, sizeof(r));
	r.p = p;
	r.b = buf;
	r.len = len;
	/* A location of L inlined lines repeated R times in a sample is R * L
	 * frames from about R + 4 L bytes: a 15 KB file made a 9-million-frame
	 * stack (750 MB, 8 s).  Real profiles walk far less than a frame per
	 * byte (the memo and the previous path absorb most steps). */
	r.walk.maxsteps = STEPS_BASE + STEPS_PER_BYTE * (uint64_t)len;
	r.walk.inlen = len;
	r.defer = o && o->defer_tree;
	r.by_function = o && o->skip_lines;
	int s = scan_top(&r);
	if (!s)
		s = begin(&r);
	if (!s)
		s = scan_mappings_functions(&r);
	if (!s)
		s = scan_locations(&r);
	if (!s)
		s = scan_samples(&r);
	defer_keep(&r);
	rd_release(&r);
	return s;
}

/* ---- bid ---- */

/* Wire type of each Profile field (13, comment, may also be packed). */
static const signed char top_wt[16] = {
	-1, WT_LEN, WT_LEN, WT_LEN, WT_LEN, WT_LEN, WT_LEN, WT_VARINT,
	WT_VARINT, WT_VARINT, WT_VARINT, WT_LEN, WT_VARINT, WT_VARINT, WT_VARINT, WT_VARINT,
};

static bool plausible_key(uint64_t key)
{
	uint64_t num = key >> 3;
	unsigned wt = key & 7;
	if (num < 1 || num > 15)
		return false;
	return wt == (unsigned)top_wt[num] || (num == F_COMMENT && wt == WT_LEN);
}

/* Printable ASCII and white space only, in the first bytes: text that
 * happened to start like a protobuf field ("hello" is field 13). */
static bool looks_like_text(const unsigned char *buf, size_t len)
{
	size_t n = len < 512 ? len : 512;
	for (size_t i = 0; i < n; i++)
		if ((buf[i] < 0x20 && buf[i] != '\n' && buf[i] != '\r' && buf[i] != '\t') ||
		    buf[i] > 0x7e)
			return false;
	return true;
}

/* Whether B[0 .. n) parses as the fields of some message: keys of field
 * numbers from 1 and wire types 0, 1, 2 or 5, each value within it. */
static bool plausible_message(const unsigned char *b, size_t n)
{
	size_t pos = 0;
	while (pos < n) {
		uint64_t key, v;
		if (get_varint(b, &pos, n, &key) || key >> 3 == 0 || key >> 3 > UINT32_MAX)
			return false;
		switch (key & 7) {
		case WT_VARINT:
			if (get_varint(b, &pos, n, &v))
				return false;
			break;
		case WT_I64:
			if (n - pos < 8)
				return false;
			pos += 8;
			break;
		case WT_I32:
			if (n - pos < 4)
				return false;
			pos += 4;
			break;
		case WT_LEN:
			if (get_varint(b, &pos, n, &v) || v > n - pos)
				return false;
			pos += (size_t)v;
			break;
		default:
			return false;
		}
	}
	return true;
}

/* The size of the prefix of a pipe that input.c asks the bids about: a
 * first field longer than that is no profile's. */
#define BID_PREFIX ((size_t)64 << 10)

/* A protobuf Profile starts with a known field of the right wire type.
 * Text can look like that by chance ("Z", "j", "2", "\n"), so the bid is
 * low, and lower still when the fields after the first don't parse.
 * Random bytes start like a field one time in twenty or so: the first
 * field's message must parse too (each of the Profile's messages is small:
 * the repeated fields are one field each), so that garbage is refused on
 * its first bytes rather than read whole. */
static int pprof_bid(const unsigned char *buf, size_t len)
{
	size_t pos = 0;
	if (len == 0)
		return 0;
	for (int i = 0; i < 8 && pos < len; i++) {
		uint64_t key, v;
		if (get_varint(buf, &pos, len, &key) || !plausible_key(key) ||
		    get_varint(buf, &pos, len, &v))
			return i == 0 || looks_like_text(buf, len) ? 0 : 1;
		if ((key & 7) == WT_LEN) {
			if (v > len - pos)
				return i == 0 && len >= BID_PREFIX ? 0 : 10; /* can't tell more */
			uint64_t num = key >> 3;
			if (i == 0 && num != F_STRING_TABLE && num != F_COMMENT &&
			    !plausible_message(buf + pos, (size_t)v))
				return 0;
			pos += (size_t)v;
		}
	}
	return 10;
}

const struct pp_reader pp_reader_pprof = {
	.format = PPROF_FMT_PPROF,
	.name = "pprof",
	.bid = pprof_bid,
	.read = pprof_read,
};
