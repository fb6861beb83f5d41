/*
 * parse.c: the JSON of a source map into a struct smap_map (ECMA-426
 * "Decoding source maps" and "Index source map").
 *
 * One pass of the pull parser; fields may come in any order, so each map
 * object is first gathered into a struct rawmap and judged when it ends.
 * A section of an index map is adopted as soon as its object ends, into
 * the one struct rawmap the parser reuses for every section: an index map
 * of a million sections costs a small record per section and its strings,
 * not a gathered map each.
 * What ECMA-426 calls an error (thrown or "optionally reported") is a
 * failure in strict mode and a skipped part otherwise; the strings that
 * survive are copied into the map's arena, the mappings and scopes
 * strings too.
 */
#include "smap_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

struct ignore_item {
	int64_t v;
	size_t at;
};

struct content {
	const char *s; /* NULL for null; raw: as the JSON text has it */
	size_t len;
	bool esc; /* S has escapes */
	bool nul; /* a NUL follows S (a copy) */
};

struct rawmap {
	size_t at; /* byte offset of its '{' */
	bool has_version, version_ok;
	const char *file;
	const char *root;
	bool has_sources, sources_ok;
	const char **sources;
	size_t nsources, capsources;
	struct content *contents;
	size_t ncontents, capcontents;
	const char **names;
	size_t nnames, capnames;
	bool has_mappings;
	const char *mappings; /* in the arena, or in the input (minplace) */
	size_t mlen, mat;
	bool mexact, minplace;
	bool has_ignore;
	struct ignore_item *ignore;
	size_t nignore, capignore;
	bool has_xignore;
	struct ignore_item *xignore;
	size_t nxignore, capxignore;
	const char *scopes; /* in the arena */
	size_t scopes_len, scopes_at;
	bool has_sections, sections_ok;
};

struct parser {
	struct smap_map *m;
	struct json j;
	const char *buf;
	size_t len, base;
	bool strict;
	/* inside sections[ctx - 1].map while ctx (the messages' prefix
	 * "sections[3].map.", written only when there is a message) */
	size_t ctx;
	bool esc;          /* the raw string just read has escapes */
	struct rawmap sec; /* the section's map being read, reused */
};

static void rawmap_release(struct rawmap *r)
{
	free(r->sources);
	free(r->contents);
	free(r->names);
	free(r->ignore);
	free(r->xignore);
	memset(r, 0, sizeof(*r));
}

/* Empties R for the next section, keeping its arrays. */
static void rawmap_reset(struct rawmap *r)
{
	struct rawmap k = *r;

	memset(r, 0, sizeof(*r));
	r->sources = k.sources;
	r->capsources = k.capsources;
	r->contents = k.contents;
	r->capcontents = k.capcontents;
	r->names = k.names;
	r->capnames = k.capnames;
	r->ignore = k.ignore;
	r->capignore = k.capignore;
	r->xignore = k.xignore;
	r->capxignore = k.capxignore;
}

static bool grow(void *vp, size_t *cap, size_t n, size_t size)
{
	void **v = vp;
	size_t nc;
	void *nv;

	if (n < *cap)
		return true;
	nc = *cap ? *cap * 2 : 16;
	if (nc > SIZE_MAX / size)
		return false;
	nv = realloc(*v, nc * size);
	if (!nv)
		return false;
	*v = nv;
	*cap = nc;
	return true;
}

static int nomem(struct parser *p)
{
	return pp_smap_fail(p->m, SMAP_ENOMEM, "out of memory");
}

static size_t here(struct parser *p)
{
	return json_offset(&p->j) + p->base;
}

/* Something ECMA-426 calls an error, at byte AT: the end in strict mode,
 * a warning otherwise. */
static int bad(struct parser *p, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bad(struct parser *p, size_t at, const char *fmt, ...)
{
	char msg[400], pre[48] = "";
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p->ctx)
		snprintf(pre, sizeof(pre), "sections[%zu].map.", p->ctx - 1);
	if (p->strict)
		return pp_smap_fail(p->m, SMAP_EINPUT, "%s%s (at byte %zu)",
				    pre, msg, at);
	pp_smap_warn(p->m, "%s%s (at byte %zu)", pre, msg, at);
	return SMAP_OK;
}

static int next(struct parser *p, int *t)
{
	*t = json_next(&p->j);
	if (*t == JSON_ERROR)
		return pp_smap_fail(p->m, SMAP_EINPUT, "%s (at byte %zu)",
				    json_error(&p->j),
				    json_error_offset(&p->j) + p->base);
	return SMAP_OK;
}

static int skip(struct parser *p, int t)
{
	if (json_skip(&p->j, t) == JSON_ERROR)
		return pp_smap_fail(p->m, SMAP_EINPUT, "%s (at byte %zu)",
				    json_error(&p->j),
				    json_error_offset(&p->j) + p->base);
	return SMAP_OK;
}

static const char *copy_str(struct parser *p)
{
	return pp_smap_strndup(&p->m->arena, p->j.str, p->j.len);
}

/* Whether the current string is the input's own bytes (no escapes), so
 * that offsets inside it are offsets in the input. */
static bool str_exact(struct parser *p)
{
	return p->j.str >= p->buf && p->j.str < p->buf + p->len;
}

static const char *type_name(int t)
{
	switch (t) {
	case JSON_OBJECT_BEGIN:
		return "an object";
	case JSON_ARRAY_BEGIN:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_NUMBER:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	case JSON_NULL:
		return "null";
	}
	return "a value";
}

/* The value after KEY is a string or null: *OUT gets a copy or NULL. */
static int opt_string(struct parser *p, const char *key, const char **out)
{
	int t, rc;
	size_t at;

	if ((rc = next(p, &t)))
		return rc;
	at = here(p);
	*out = NULL;
	if (t == JSON_STRING) {
		if (!(*out = copy_str(p)))
			return nomem(p);
		return SMAP_OK;
	}
	if ((rc = skip(p, t)))
		return rc;
	return bad(p, at, "%s is %s, not a string", key, type_name(t));
}

static int ignore_list(struct parser *p, const char *key,
		       struct ignore_item **v, size_t *n, size_t *cap,
		       bool spec)
{
	int t, rc;
	size_t at, i = 0;

	*n = 0;
	if ((rc = next(p, &t)))
		return rc;
	at = here(p);
	if (t != JSON_ARRAY_BEGIN) {
		if ((rc = skip(p, t)))
			return rc;
		if (!spec) {
			/* not ECMA-426: strict mode has nothing to say */
			if (!p->strict)
				pp_smap_warn(p->m,
					     "%s is %s, not an array (at byte %zu)",
					     key, type_name(t), at);
			return SMAP_OK;
		}
		return bad(p, at, "%s is %s, not an array", key, type_name(t));
	}
	for (;; i++) {
		int64_t x;

		if ((rc = next(p, &t)))
			return rc;
		if (t == JSON_ARRAY_END)
			break;
		at = here(p);
		if (t == JSON_NUMBER && json_int64(&p->j, &x) && x >= 0) {
			if (!grow(v, cap, *n, sizeof(**v)))
				return nomem(p);
			(*v)[*n].v = x;
			(*v)[*n].at = at;
			(*n)++;
			continue;
		}
		if ((rc = skip(p, t)))
			return rc;
		if (!spec) {
			if (!p->strict)
				pp_smap_warn(p->m,
					     "%s[%zu] is not a source index (at byte %zu)",
					     key, i, at);
			continue;
		}
		if ((rc = bad(p, at, "%s[%zu] is not a source index", key, i)))
			return rc;
	}
	return SMAP_OK;
}

/* Stores element S (LEN bytes; NULL for a null or a bad element) of one
 * of the map's string arrays. */
typedef int (*store_fn)(struct parser *p, struct rawmap *r, const char *s,
			size_t len);

static int store_source(struct parser *p, struct rawmap *r, const char *s,
			size_t len)
{
	(void)len;
	if (!grow(&r->sources, &r->capsources, r->nsources, sizeof(*r->sources)))
		return nomem(p);
	r->sources[r->nsources++] = s;
	return SMAP_OK;
}

/* sourcesContent is kept raw, unescaped only for a source a look-up
 * needs (pp_smap_content()): in the file's own mapping when the map was
 * loaded from one (smap_map_load_file() keeps it), else copied as it is. */
static int store_content(struct parser *p, struct rawmap *r, const char *s,
			 size_t len)
{
	struct content c = {s, s ? len : 0, s && p->esc, false};

	if (s && !(p->m->in_base && s >= p->m->in_base && s <= p->m->in_base + p->m->in_len)) {
		if (!(c.s = pp_smap_strndup(&p->m->arena, s, len)))
			return nomem(p);
		c.nul = true;
	} else if (s) {
		p->m->in_keep = true;
	}

	if (!grow(&r->contents, &r->capcontents, r->ncontents,
		  sizeof(*r->contents)))
		return nomem(p);
	r->contents[r->ncontents++] = c;
	return SMAP_OK;
}

static int store_name(struct parser *p, struct rawmap *r, const char *s,
		      size_t len)
{
	(void)len;
	if (!grow(&r->names, &r->capnames, r->nnames, sizeof(*r->names)))
		return nomem(p);
	r->names[r->nnames++] = s ? s : "";
	return SMAP_OK;
}

/* Reads the value of FIELD, an array of strings (and nulls where NULLS),
 * handing each element to STORE; a value that is not an array, and an
 * element of the wrong type, are what ECMA-426 calls errors (see bad()).
 * *IS_ARRAY tells whether the value was an array. */
static int string_array(struct parser *p, struct rawmap *r, const char *field, bool nulls,
			store_fn store, bool *is_array, bool raw)
{
	int t, rc;
	size_t at, i;

	if ((rc = next(p, &t)))
		return rc;
	at = here(p);
	*is_array = t == JSON_ARRAY_BEGIN;
	if (!*is_array) {
		if ((rc = skip(p, t)))
			return rc;
		return bad(p, at, "%s is %s, not an array", field, type_name(t));
	}
	for (i = 0;; i++) {
		const char *s = NULL;
		size_t len = 0;

		if (raw) {
			t = json_next_raw(&p->j, &p->esc);
			if (t == JSON_ERROR)
				return pp_smap_fail(p->m, SMAP_EINPUT, "%s (at byte %zu)",
						    json_error(&p->j),
						    json_error_offset(&p->j) + p->base);
		} else if ((rc = next(p, &t))) {
			return rc;
		}
		if (t == JSON_ARRAY_END)
			return SMAP_OK;
		at = here(p);
		if (t == JSON_STRING && raw) {
			s = p->j.str;
			len = p->j.len;
		} else if (t == JSON_STRING) {
			if (!(s = copy_str(p)))
				return nomem(p);
			len = p->j.len;
		} else if (t != JSON_NULL || !nulls) {
			if ((rc = skip(p, t)))
				return rc;
			if ((rc = bad(p, at, "%s[%zu] is %s, not a string%s",
				      field, i, type_name(t),
				      nulls ? " or null" : "")))
				return rc;
		}
		if ((rc = store(p, r, s, len)))
			return rc;
	}
}

static int parse_sections(struct parser *p, size_t at);

/* Gathers the map object whose '{' was just read.  NESTED: a section's
 * map, where "sections" is not allowed. */
static int parse_object(struct parser *p, struct rawmap *r, bool nested)
{
	int t, rc;
	size_t at;

	r->at = here(p);
	for (;;) {
		if ((rc = next(p, &t)))
			return rc;
		if (t == JSON_OBJECT_END)
			return SMAP_OK;
		/* t is JSON_KEY */
		at = here(p);
		if (json_is(&p->j, "version")) {
			int64_t v;

			if ((rc = next(p, &t)))
				return rc;
			r->has_version = true;
			r->version_ok = t == JSON_NUMBER &&
					json_int64(&p->j, &v) && v == 3;
			if (t != JSON_NUMBER && (rc = skip(p, t)))
				return rc;
		} else if (json_is(&p->j, "file")) {
			if ((rc = opt_string(p, "file", &r->file)))
				return rc;
		} else if (json_is(&p->j, "sourceRoot")) {
			if ((rc = opt_string(p, "sourceRoot", &r->root)))
				return rc;
		} else if (json_is(&p->j, "sources")) {
			r->has_sources = true;
			r->nsources = 0;
			if ((rc = string_array(p, r, "sources", true, store_source, &r->sources_ok,
					       false)))
				return rc;
		} else if (json_is(&p->j, "sourcesContent")) {
			bool is_array;

			r->ncontents = 0;
			if ((rc = string_array(p, r, "sourcesContent", true, store_content,
					       &is_array, true)))
				return rc;
		} else if (json_is(&p->j, "names")) {
			bool is_array;

			r->nnames = 0;
			if ((rc = string_array(p, r, "names", false, store_name, &is_array, false)))
				return rc;
		} else if (json_is(&p->j, "mappings")) {
			if ((rc = next(p, &t)))
				return rc;
			at = here(p);
			r->mappings = NULL;
			r->mlen = 0;
			r->has_mappings = t == JSON_STRING;
			if (t != JSON_STRING) {
				if ((rc = skip(p, t)))
					return rc;
				if ((rc = bad(p, at, "mappings is %s, not a string",
					      type_name(t))))
					return rc;
				continue;
			}
			if (p->j.len >= UINT32_MAX)
				return pp_smap_fail(p->m, SMAP_ENOMEM,
						    "mappings longer than 4 GiB (at byte %zu)",
						    at);
			r->mexact = str_exact(p);
			/* without escapes, in the file's mapping the map keeps:
			 * not copied (ended by its '"', not a NUL) */
			r->minplace = r->mexact && p->m->in_base && p->j.str >= p->m->in_base &&
				      p->j.str + p->j.len < p->m->in_base + p->m->in_len;
			if (r->minplace) {
				r->mappings = p->j.str;
				p->m->in_keep = true;
			} else if (!(r->mappings = copy_str(p))) {
				return nomem(p);
			}
			r->mlen = p->j.len;
			r->mat = at + 1;
		} else if (json_is(&p->j, "ignoreList")) {
			r->has_ignore = true;
			if ((rc = ignore_list(p, "ignoreList", &r->ignore,
					      &r->nignore, &r->capignore, true)))
				return rc;
		} else if (json_is(&p->j, "x_google_ignoreList")) {
			r->has_xignore = true;
			if ((rc = ignore_list(p, "x_google_ignoreList",
					      &r->xignore, &r->nxignore,
					      &r->capxignore, false)))
				return rc;
		} else if (json_is(&p->j, "scopes")) {
			if ((rc = next(p, &t)))
				return rc;
			at = here(p);
			r->scopes = NULL;
			if (t != JSON_STRING) {
				/* A proposal, not ECMA-426: never fatal. */
				if ((rc = skip(p, t)))
					return rc;
				pp_smap_warn(p->m,
					     "scopes: the field is %s, not a string (at byte %zu)",
					     type_name(t), at);
				continue;
			}
			r->scopes = copy_str(p);
			if (!r->scopes)
				return nomem(p);
			r->scopes_len = p->j.len;
			r->scopes_at = at + 1;
		} else if (json_is(&p->j, "sections")) {
			r->has_sections = true;
			if (nested) {
				if ((rc = next(p, &t)) || (rc = skip(p, t)))
					return rc;
				continue;
			}
			if ((rc = parse_sections(p, at)))
				return rc;
			r->sections_ok = true;
		} else {
			/* Unknown fields are ignored (ECMA-426 "Extensions"). */
			if ((rc = next(p, &t)) || (rc = skip(p, t)))
				return rc;
		}
	}
}

/* Reads an offset's line or column. */
static int offset_field(struct parser *p, size_t idx, const char *key,
			uint32_t *out, bool *seen)
{
	int t, rc;
	int64_t v;
	size_t at;

	if ((rc = next(p, &t)))
		return rc;
	at = here(p);
	*seen = true;
	if (t == JSON_NUMBER && json_int64(&p->j, &v) && v >= 0 &&
	    v <= UINT32_MAX) {
		*out = (uint32_t)v;
		return SMAP_OK;
	}
	if (t != JSON_NUMBER && (rc = skip(p, t)))
		return rc;
	*out = 0;
	return bad(p, at, "sections[%zu].offset.%s is not a non-negative integer",
		   idx, key);
}

static int take_section(struct parser *p, size_t idx, uint32_t line,
			uint32_t col);

/* Reads the section whose '{' was just read into p->sec, and adopts it
 * when it is usable. */
static int parse_section(struct parser *p, size_t idx)
{
	int t, rc;
	size_t at, sat = here(p);
	uint32_t line = 0, col = 0;
	bool has_offset = false, has_map = false, seen_line = false,
	     seen_col = false, offset_ok = false, usable;

	for (;;) {
		if ((rc = next(p, &t)))
			return rc;
		if (t == JSON_OBJECT_END)
			break;
		at = here(p);
		if (json_is(&p->j, "offset")) {
			has_offset = true;
			if ((rc = next(p, &t)))
				return rc;
			at = here(p);
			if (t != JSON_OBJECT_BEGIN) {
				if ((rc = skip(p, t)))
					return rc;
				if ((rc = bad(p, at,
					      "sections[%zu].offset is %s, not an object",
					      idx, type_name(t))))
					return rc;
				continue;
			}
			offset_ok = true;
			for (;;) {
				if ((rc = next(p, &t)))
					return rc;
				if (t == JSON_OBJECT_END)
					break;
				if (json_is(&p->j, "line")) {
					if ((rc = offset_field(p, idx, "line", &line,
							       &seen_line)))
						return rc;
				} else if (json_is(&p->j, "column")) {
					if ((rc = offset_field(p, idx, "column",
							       &col, &seen_col)))
						return rc;
				} else if ((rc = next(p, &t)) ||
					   (rc = skip(p, t))) {
					return rc;
				}
			}
			if (!seen_line &&
			    (rc = bad(p, at, "sections[%zu].offset has no line",
				      idx)))
				return rc;
			if (!seen_col &&
			    (rc = bad(p, at, "sections[%zu].offset has no column",
				      idx)))
				return rc;
		} else if (json_is(&p->j, "map")) {
			if ((rc = next(p, &t)))
				return rc;
			at = here(p);
			if (t != JSON_OBJECT_BEGIN) {
				if ((rc = skip(p, t)))
					return rc;
				if ((rc = bad(p, at,
					      "sections[%zu].map is %s, not an object",
					      idx, type_name(t))))
					return rc;
				continue;
			}
			rawmap_reset(&p->sec);
			has_map = true;
			p->ctx = idx + 1;
			rc = parse_object(p, &p->sec, true);
			p->ctx = 0;
			if (rc)
				return rc;
		} else if ((rc = next(p, &t)) || (rc = skip(p, t))) {
			return rc;
		}
	}
	if (!has_offset &&
	    (rc = bad(p, sat, "sections[%zu] has no offset", idx)))
		return rc;
	if (!has_map && (rc = bad(p, sat, "sections[%zu] has no map", idx)))
		return rc;
	usable = offset_ok && has_map;
	if (has_map && p->sec.has_sections) {
		usable = false;
		if ((rc = bad(p, p->sec.at,
			      "sections[%zu].map is an index map (nested sections are not supported)",
			      idx)))
			return rc;
	}
	return usable ? take_section(p, idx, line, col) : SMAP_OK;
}

static int parse_sections(struct parser *p, size_t kat)
{
	int t, rc;
	size_t at, i;

	/* a second "sections" replaces the first (nothing of a section is
	 * decoded while parsing: its record and arena strings are all) */
	p->m->nsec = 0;
	p->m->nsrc = 0;
	if ((rc = next(p, &t)))
		return rc;
	at = here(p);
	if (t != JSON_ARRAY_BEGIN) {
		if ((rc = skip(p, t)))
			return rc;
		return bad(p, at, "sections is %s, not an array", type_name(t));
	}
	for (i = 0;; i++) {
		if ((rc = next(p, &t)))
			return rc;
		if (t == JSON_ARRAY_END)
			break;
		at = here(p);
		if (t != JSON_OBJECT_BEGIN) {
			if ((rc = skip(p, t)))
				return rc;
			if ((rc = bad(p, at, "sections[%zu] is %s, not an object",
				      i, type_name(t))))
				return rc;
			continue;
		}
		if ((rc = parse_section(p, i)))
			return rc;
		pp_smap_input_done(p->m, here(p));
	}
	(void)kat;
	return SMAP_OK;
}

/* Checks what a regular map (or a section's map) must have, once its
 * object is complete. */
static int judge_regular(struct parser *p, struct rawmap *r)
{
	int rc;

	if (!r->has_version || !r->version_ok)
		if ((rc = bad(p, r->at, "version is %s",
			      r->has_version ? "not 3" : "missing")))
			return rc;
	if (!r->has_mappings && !r->mappings)
		if ((rc = bad(p, r->at, "mappings is missing")))
			return rc;
	if (!r->has_sources)
		if ((rc = bad(p, r->at, "sources is missing")))
			return rc;
	return SMAP_OK;
}

/* Moves a gathered map into section S and its sources into the map. */
/* ARR (USED elements of SIZE) with room for N more, or NULL.  The
 * capacity is kept at the power of two at or above USED, so that adding one
 * section or source at a time stays linear: a realloc to one more element
 * copies the whole array under ASan (100,000 sections took minutes). */
static void *grow_pow2(void *arr, size_t used, size_t n, size_t size)
{
	size_t cap = used ? 1 : 0, need = used + n;
	while (cap < used)
		cap *= 2;
	if (need <= cap)
		return arr;
	if (!cap)
		cap = 1;
	while (cap < need) {
		if (cap > SIZE_MAX / 2 / size)
			return NULL;
		cap *= 2;
	}
	return realloc(arr, cap * size);
}

static int adopt(struct parser *p, struct rawmap *r, struct pp_smap_section *s)
{
	struct smap_map *m = p->m;
	size_t i, n = r->nsources;
	struct pp_smap_source *src;
	int rc;

	s->mappings = r->mappings;
	s->mlen = (uint32_t)r->mlen;
	s->mat = r->mat;
	s->mexact = r->mexact;
	s->minplace = r->minplace;
	if (r->scopes) {
		s->sx = pp_smap_alloc(&m->arena, sizeof(*s->sx));
		if (!s->sx)
			return nomem(p);
		memset(s->sx, 0, sizeof(*s->sx));
		s->sx->text = r->scopes;
		s->sx->len = r->scopes_len;
		s->sx->at = r->scopes_at;
	}
	if (n > UINT32_MAX - m->nsrc || r->nnames > UINT32_MAX)
		return pp_smap_fail(m, SMAP_ENOMEM, "too many sources or names");
	s->nsrc = (uint32_t)n;
	s->nnames = (uint32_t)r->nnames;
	if (r->nnames) {
		s->names = pp_smap_alloc(&m->arena, r->nnames * sizeof(char *));
		if (!s->names)
			return nomem(p);
		memcpy(s->names, r->names, r->nnames * sizeof(char *));
	}
	s->src_base = (uint32_t)m->nsrc;
	if (n) {
		src = grow_pow2(m->src, m->nsrc, n, sizeof(*src));
		if (!src)
			return nomem(p);
		m->src = src;
		src += m->nsrc;
		memset(src, 0, n * sizeof(*src));
		for (i = 0; i < n; i++) {
			src[i].raw = r->sources[i];
			src[i].root = r->root;
			if (r->sources[i]) {
				struct pp_smap_mark k = pp_smap_arena_mark(&m->arena);

				src[i].resolved = pp_smap_resolve(&m->arena, r->root,
								  r->sources[i]);
				if (!src[i].resolved)
					return nomem(p);
				/* mostly the name as written: no second copy */
				if (strcmp(src[i].resolved, r->sources[i]) == 0) {
					pp_smap_arena_rewind(&m->arena, k);
					src[i].resolved = r->sources[i];
				}
			}
			if (i < r->ncontents && r->contents[i].s) {
				src[i].craw = r->contents[i].s;
				src[i].craw_len = r->contents[i].len;
				src[i].cesc = r->contents[i].esc;
				if (!src[i].cesc && r->contents[i].nul) {
					src[i].content = src[i].craw;
					src[i].content_len = src[i].craw_len;
				}
			}
		}
		m->nsrc += n;
	}
	/* ignoreList wins over the older x_google_ignoreList. */
	if (r->has_ignore) {
		for (i = 0; i < r->nignore; i++) {
			if (r->ignore[i].v >= (int64_t)n) {
				if ((rc = bad(p, r->ignore[i].at,
					      "ignoreList[%zu] is %lld, past the %zu sources",
					      i, (long long)r->ignore[i].v, n)))
					return rc;
				continue;
			}
			m->src[s->src_base + (size_t)r->ignore[i].v].ignored = true;
		}
	} else if (r->has_xignore) {
		for (i = 0; i < r->nxignore; i++) {
			if (r->xignore[i].v >= (int64_t)n) {
				if (!p->strict)
					pp_smap_warn(m,
						     "x_google_ignoreList[%zu] is past the sources (at byte %zu)",
						     i, r->xignore[i].at);
				continue;
			}
			m->src[s->src_base + (size_t)r->xignore[i].v].ignored = true;
		}
	}
	return SMAP_OK;
}

static int add_section(struct parser *p, struct pp_smap_section **out)
{
	struct smap_map *m = p->m;
	struct pp_smap_section *v;

	v = grow_pow2(m->sec, m->nsec, 1, sizeof(*v));
	if (!v)
		return nomem(p);
	m->sec = v;
	*out = &v[m->nsec++];
	memset(*out, 0, sizeof(**out));
	return SMAP_OK;
}

static int cmp_pos(uint32_t l1, uint32_t c1, uint32_t l2, uint32_t c2)
{
	if (l1 != l2)
		return l1 < l2 ? -1 : 1;
	if (c1 != c2)
		return c1 < c2 ? -1 : 1;
	return 0;
}

/* Adopts the section just read (p->sec), sections[IDX] at LINE:COL. */
static int take_section(struct parser *p, size_t idx, uint32_t line,
			uint32_t col)
{
	struct smap_map *m = p->m;
	struct pp_smap_section *s;
	int rc;

	p->ctx = idx + 1;
	rc = judge_regular(p, &p->sec);
	p->ctx = 0;
	if (rc)
		return rc;
	if (m->nsec) {
		struct pp_smap_section *prev = &m->sec[m->nsec - 1];

		if (cmp_pos(line, col, prev->off_line, prev->off_col) < 0)
			/* lenient: dropped */
			return bad(p, p->sec.at,
				   "sections[%zu] starts before the section before it",
				   idx);
	}
	if (idx > UINT32_MAX)
		return pp_smap_fail(m, SMAP_ENOMEM, "too many sections");
	if ((rc = add_section(p, &s)))
		return rc;
	s->off_line = line;
	s->off_col = col;
	s->label = (uint32_t)idx;
	p->ctx = idx + 1;
	rc = adopt(p, &p->sec, s);
	p->ctx = 0;
	return rc;
}

static int build(struct parser *p, struct rawmap *top)
{
	struct smap_map *m = p->m;
	struct pp_smap_section *s;
	size_t i;
	int rc;

	m->file = top->file;
	if (!top->has_sections) {
		if ((rc = judge_regular(p, top)))
			return rc;
		if ((rc = add_section(p, &s)))
			return rc;
		if ((rc = adopt(p, top, s)))
			return rc;
		if (p->strict && (rc = pp_smap_check_mappings(m, s)))
			return rc;
		return SMAP_OK;
	}
	m->index = true;
	if (!top->has_version || !top->version_ok)
		if ((rc = bad(p, top->at, "version is %s",
			      top->has_version ? "not 3" : "missing")))
			return rc;
	if (top->has_mappings || top->mappings)
		if ((rc = bad(p, top->at,
			      "an index map has a mappings field besides sections")))
			return rc;
	if (!p->strict)
		return SMAP_OK;
	/* Strict: every section valid, and none starting at or before the
	 * last mapping of the sections before it (ECMA-426 asks "not
	 * lesser"; two sections at one mapped position overlap too). */
	{
		bool have_last = false;
		uint64_t ll = 0, lc = 0;

		for (i = 0; i < m->nsec; i++) {
			s = &m->sec[i];
			if ((rc = pp_smap_check_mappings(m, s)))
				return rc;
			/* what the check decoded is made again when a look-up
			 * needs it: a million sections are not all kept decoded */
			pp_smap_lines_release(s);
			if (have_last &&
			    (s->off_line < ll ||
			     (s->off_line == ll && s->off_col <= lc)))
				return pp_smap_fail(m, SMAP_EINPUT,
						    "sections[%u] (offset %u:%u) overlaps the mappings before it, which reach %llu:%llu",
						    s->label, s->off_line, s->off_col,
						    (unsigned long long)ll,
						    (unsigned long long)lc);
			if (s->has_last) {
				have_last = true;
				ll = (uint64_t)s->off_line + s->last_line;
				lc = s->last_line == 0 ?
					     (uint64_t)s->off_col + s->last_col :
					     s->last_col;
			}
		}
	}
	return SMAP_OK;
}

int pp_smap_parse_json(struct smap_map *m, const char *buf, size_t len,
		       size_t base, unsigned flags)
{
	struct parser p;
	struct rawmap top;
	int t, rc;

	memset(&p, 0, sizeof(p));
	memset(&top, 0, sizeof(top));
	p.m = m;
	p.buf = buf;
	p.len = len;
	p.base = base;
	p.strict = flags & SMAP_STRICT;
	json_init(&p.j, buf, len, 0);
	if ((rc = next(&p, &t)))
		goto out;
	if (t != JSON_OBJECT_BEGIN) {
		rc = pp_smap_fail(m, SMAP_EINPUT,
				  "not a source map: the JSON text is %s, not an object",
				  type_name(t));
		goto out;
	}
	if ((rc = parse_object(&p, &top, false)))
		goto out;
	if ((rc = next(&p, &t)))
		goto out;
	rc = build(&p, &top);
out:
	json_release(&p.j);
	rawmap_release(&top);
	rawmap_release(&p.sec);
	return rc;
}
