/* rules.c: the rules file (doc/rules.md), read with libyaml's document
 * loader and checked whole before anything is kept, so that a bad file
 * says where it is bad (libyaml's marks) and changes nothing.
 *
 * The schema has a fixed shape (a mapping of known keys, lists of
 * mappings of scalars), so the document is walked at fixed depth: nothing
 * here recurses on the file's nesting. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "filter_private.h"

struct pprof_rules *pprof_rules_new(void)
{
	struct pprof_rules *r = calloc(1, sizeof(*r));
	if (r)
		pp_buf_init(&r->error);
	return r;
}

static void rules_clear(struct pprof_rules *r)
{
	for (size_t i = 0; i < r->nrenames; i++) {
		pcre2_code_free(r->renames[i].re);
		free(r->renames[i].name);
		free(r->renames[i].file);
	}
	free(r->renames);
	r->renames = NULL;
	r->nrenames = 0;
	for (size_t i = 0; i < r->ndefaults; i++)
		free(r->defaults[i].value);
	free(r->defaults);
	r->defaults = NULL;
	r->ndefaults = 0;
	for (size_t i = 0; i < r->nmaps; i++) {
		free((char *)r->maps[i].url);
		free((char *)r->maps[i].map);
		pcre2_code_free(r->map_re[i]);
	}
	free(r->maps);
	free(r->map_re);
	r->maps = NULL;
	r->map_re = NULL;
	r->nmaps = 0;
}

void pprof_rules_free(struct pprof_rules *r)
{
	if (!r)
		return;
	rules_clear(r);
	pp_buf_release(&r->error);
	free(r);
}

const char *pprof_rules_error(const struct pprof_rules *r)
{
	return r->error.s;
}

const struct pprof_rules_sourcemap *pprof_rules_sourcemaps(const struct pprof_rules *r,
							   size_t *n)
{
	*n = r->nmaps;
	return r->maps;
}

int pprof_rules_sourcemap_for(const struct pprof_rules *r, const char *url, char **path)
{
	*path = NULL;
	pcre2_match_data *md = NULL;
	int st = PPROF_OK;
	for (size_t i = 0; i < r->nmaps; i++) {
		const struct pprof_rules_sourcemap *m = &r->maps[i];
		if (!m->is_regex) {
			if (strcmp(m->url, url) == 0) {
				*path = strdup(m->map);
				st = *path ? PPROF_OK : PPROF_ENOMEM;
				break;
			}
			continue;
		}
		if (!md && !(md = pcre2_match_data_create(1, NULL))) {
			st = PPROF_ENOMEM;
			break;
		}
		if (!pp_re_match(r->map_re[i], url, strlen(url), md))
			continue;
		struct pp_buf b;
		pp_buf_init(&b);
		int rc = pp_re_expand(r->map_re[i], url, strlen(url), m->map, &b);
		if (rc > 0 && b.cap) {
			*path = b.s; /* the buffer's malloc'd string is handed over */
		} else {
			pp_buf_release(&b);
			if (rc >= 0 && !(*path = strdup("")))
				rc = -1;
		}
		if (rc < 0)
			st = PPROF_ENOMEM;
		break;
	}
	pcre2_match_data_free(md);
	return st;
}

/* ---- loading ---- */

struct loader {
	struct pprof_rules *r;
	yaml_document_t *doc;
	const char *base; /* directory of the file, "" for none */
};

static int rerr(struct loader *L, const yaml_mark_t *m, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int rerr(struct loader *L, const yaml_mark_t *m, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	struct pp_buf *e = &L->r->error;
	pp_buf_reset(e);
	/* Keys and values quoted in messages may hold line breaks. */
	if (!pp_buf_add_line(e, tmp, strlen(tmp)) ||
	    (m && !pp_buf_addf(e, " (at line %lu, column %lu)", (unsigned long)m->line + 1,
			       (unsigned long)m->column + 1)))
		pp_buf_reset(e);
	return PPROF_EINPUT;
}

static int nomem(struct loader *L)
{
	return rerr(L, NULL, "out of memory");
}

static yaml_node_t *node(struct loader *L, int i)
{
	return yaml_document_get_node(L->doc, i);
}

static const char *scalar(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

/* A scalar as a C string; strings with NUL bytes are refused. */
static int want_scalar(struct loader *L, const yaml_node_t *n, const char *what,
		       const char **out)
{
	if (n->type != YAML_SCALAR_NODE)
		return rerr(L, &n->start_mark, "%s must be a string", what);
	if (strlen(scalar(n)) != n->data.scalar.length)
		return rerr(L, &n->start_mark, "%s holds a NUL byte", what);
	*out = scalar(n);
	return PPROF_OK;
}

static int want_bool(struct loader *L, const yaml_node_t *n, const char *what, bool *out)
{
	static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
	static const char *const no[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"};
	if (n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
		for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
			if (strcmp(scalar(n), yes[i]) == 0) {
				*out = true;
				return PPROF_OK;
			}
			if (strcmp(scalar(n), no[i]) == 0) {
				*out = false;
				return PPROF_OK;
			}
		}
	}
	return rerr(L, &n->start_mark, "%s must be true or false", what);
}

static int compile_at(struct loader *L, const yaml_node_t *n, const char *pat, const char *what,
		      pcre2_code **out)
{
	int err;
	size_t off;
	*out = pp_re_compile(pat, strlen(pat), &err, &off);
	if (*out)
		return PPROF_OK;
	if (err == PCRE2_ERROR_NOMEMORY)
		return nomem(L);
	PCRE2_UCHAR msg[256];
	pcre2_get_error_message(err, msg, sizeof(msg));
	return rerr(L, &n->start_mark, "bad %s regular expression '%s': %s at offset %zu", what, pat,
		    (const char *)msg, off);
}

static int template_at(struct loader *L, const yaml_node_t *n, const pcre2_code *re,
		       const char *t)
{
	char msg[512];
	if (!pp_re_template_ok(re, t, msg, sizeof(msg)))
		return rerr(L, &n->start_mark, "%s", msg);
	return PPROF_OK;
}

static bool grow_n(void **a, size_t n, size_t size)
{
	void *x = realloc(*a, (n + 1) * size);
	if (!x)
		return false;
	*a = x;
	return true;
}

/* ---- rename: a list of {match, in, name, file, group} ---- */

static int load_rename(struct loader *L, yaml_node_t *list)
{
	struct pprof_rules *r = L->r;
	if (list->type != YAML_SEQUENCE_NODE)
		return rerr(L, &list->start_mark, "rename must be a list of rules");
	for (yaml_node_item_t *it = list->data.sequence.items.start;
	     it < list->data.sequence.items.top; it++) {
		yaml_node_t *m = node(L, *it);
		if (m->type != YAML_MAPPING_NODE)
			return rerr(L, &m->start_mark,
				    "a rename rule must be a mapping (match, in, name, file, group)");
		if (!grow_n((void **)&r->renames, r->nrenames, sizeof(*r->renames)))
			return nomem(L);
		struct pp_rename *rn = &r->renames[r->nrenames++];
		memset(rn, 0, sizeof(*rn));
		yaml_node_t *name_node = NULL, *file_node = NULL;
		const char *name = NULL, *file = NULL;
		for (yaml_node_pair_t *pr = m->data.mapping.pairs.start; pr < m->data.mapping.pairs.top;
		     pr++) {
			yaml_node_t *k = node(L, pr->key), *v = node(L, pr->value);
			const char *key;
			int st = want_scalar(L, k, "a key", &key);
			if (st)
				return st;
			if (strcmp(key, "match") == 0) {
				const char *pat;
				if ((st = want_scalar(L, v, "match", &pat)))
					return st;
				if (rn->re)
					return rerr(L, &k->start_mark, "match given twice");
				if ((st = compile_at(L, v, pat, "match", &rn->re)))
					return st;
			} else if (strcmp(key, "in") == 0) {
				const char *in;
				if ((st = want_scalar(L, v, "in", &in)))
					return st;
				if (strcmp(in, "name") == 0)
					rn->in_file = false;
				else if (strcmp(in, "file") == 0)
					rn->in_file = true;
				else
					return rerr(L, &v->start_mark,
						    "in must be 'name' or 'file', not '%s'", in);
			} else if (strcmp(key, "name") == 0) {
				if ((st = want_scalar(L, v, "name", &name)))
					return st;
				name_node = v;
			} else if (strcmp(key, "file") == 0) {
				if ((st = want_scalar(L, v, "file", &file)))
					return st;
				file_node = v;
			} else if (strcmp(key, "group") == 0) {
				if ((st = want_bool(L, v, "group", &rn->group)))
					return st;
			} else {
				return rerr(L, &k->start_mark,
					    "unknown key '%s' in a rename rule (match, in, name, file, group)",
					    key);
			}
		}
		if (!rn->re)
			return rerr(L, &m->start_mark, "a rename rule needs 'match'");
		if (!name && !file && !rn->group)
			return rerr(L, &m->start_mark,
				    "a rename rule needs 'name', 'file' or 'group: true'");
		int st;
		if (name && (st = template_at(L, name_node, rn->re, name)))
			return st;
		if (file && (st = template_at(L, file_node, rn->re, file)))
			return st;
		if ((name && !(rn->name = strdup(name))) || (file && !(rn->file = strdup(file))))
			return nomem(L);
	}
	return PPROF_OK;
}

/* ---- filters: a mapping of option names to a value or a list ---- */

static int add_default(struct loader *L, enum pprof_filter_option o, const yaml_node_t *v,
		       const char *value)
{
	struct pprof_rules *r = L->r;
	if (!grow_n((void **)&r->defaults, r->ndefaults, sizeof(*r->defaults)))
		return nomem(L);
	struct pp_rule_default *d = &r->defaults[r->ndefaults];
	d->opt = o;
	d->line = (unsigned long)v->start_mark.line + 1;
	d->column = (unsigned long)v->start_mark.column + 1;
	if (!(d->value = strdup(value)))
		return nomem(L);
	r->ndefaults++;
	return PPROF_OK;
}

static int load_filters(struct loader *L, yaml_node_t *m)
{
	if (m->type != YAML_MAPPING_NODE)
		return rerr(L, &m->start_mark, "filters must be a mapping of option names to values");
	/* Each value is checked by the filter code itself, so that what is
	 * accepted here is exactly what the command line accepts. */
	struct pprof_filter *check = pprof_filter_new();
	if (!check)
		return nomem(L);
	int st = PPROF_OK;
	for (yaml_node_pair_t *pr = m->data.mapping.pairs.start;
	     pr < m->data.mapping.pairs.top && !st; pr++) {
		yaml_node_t *k = node(L, pr->key), *v = node(L, pr->value);
		const char *key;
		if ((st = want_scalar(L, k, "a key", &key)))
			break;
		int o = pprof_filter_option_parse(key);
		if (o < 0) {
			st = rerr(L, &k->start_mark, "unknown filter '%s'", key);
			break;
		}
		if (o == PPROF_FILTER_COLLAPSE_RECURSION || o == PPROF_FILTER_DROP_IDLE) {
			bool b;
			if (!(st = want_bool(L, v, key, &b)) && b)
				st = add_default(L, (enum pprof_filter_option)o, v, "true");
			continue;
		}
		yaml_node_t *one = v;
		yaml_node_item_t *it = NULL, *end = NULL;
		if (v->type == YAML_SEQUENCE_NODE) {
			it = v->data.sequence.items.start;
			end = v->data.sequence.items.top;
			one = it < end ? node(L, *it) : NULL;
		}
		while (one) {
			const char *val;
			if ((st = want_scalar(L, one, key, &val)))
				break;
			if (pprof_filter_add(check, (enum pprof_filter_option)o, val) != PPROF_OK) {
				st = rerr(L, &one->start_mark, "%s", pprof_filter_error(check));
				break;
			}
			if ((st = add_default(L, (enum pprof_filter_option)o, one, val)))
				break;
			one = it && ++it < end ? node(L, *it) : NULL;
		}
	}
	pprof_filter_free(check);
	return st;
}

/* ---- sourcemaps: a list of {url | url-regex, map} ---- */

static bool is_absolute(const char *s)
{
	if (s[0] == '/')
		return true;
	/* a URL ("file:///...", "https://...") is left alone */
	const char *c = strstr(s, "://");
	if (!c || c == s)
		return false;
	for (const char *q = s; q < c; q++)
		if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
		      (*q >= '0' && *q <= '9') || *q == '+' || *q == '-' || *q == '.'))
			return false;
	return true;
}

static int load_sourcemaps(struct loader *L, yaml_node_t *list)
{
	struct pprof_rules *r = L->r;
	if (list->type != YAML_SEQUENCE_NODE)
		return rerr(L, &list->start_mark, "sourcemaps must be a list");
	for (yaml_node_item_t *it = list->data.sequence.items.start;
	     it < list->data.sequence.items.top; it++) {
		yaml_node_t *m = node(L, *it);
		if (m->type != YAML_MAPPING_NODE)
			return rerr(L, &m->start_mark,
				    "a sourcemaps entry must be a mapping (url or url-regex, map)");
		const char *url = NULL, *map = NULL;
		yaml_node_t *map_node = NULL;
		bool regex = false;
		for (yaml_node_pair_t *pr = m->data.mapping.pairs.start; pr < m->data.mapping.pairs.top;
		     pr++) {
			yaml_node_t *k = node(L, pr->key), *v = node(L, pr->value);
			const char *key;
			int st = want_scalar(L, k, "a key", &key);
			if (st)
				return st;
			if (strcmp(key, "url") == 0 || strcmp(key, "url-regex") == 0 ||
			    strcmp(key, "url_regex") == 0) {
				if (url)
					return rerr(L, &k->start_mark,
						    "give one of 'url' and 'url-regex'");
				if ((st = want_scalar(L, v, key, &url)))
					return st;
				regex = strcmp(key, "url") != 0;
			} else if (strcmp(key, "map") == 0) {
				if ((st = want_scalar(L, v, "map", &map)))
					return st;
				map_node = v;
			} else {
				return rerr(L, &k->start_mark,
					    "unknown key '%s' in a sourcemaps entry (url, url-regex, map)",
					    key);
			}
		}
		if (!url || !map)
			return rerr(L, &m->start_mark, "a sourcemaps entry needs 'url' (or 'url-regex') and 'map'");
		if (!*map)
			return rerr(L, &map_node->start_mark, "map is empty");
		if (!grow_n((void **)&r->maps, r->nmaps, sizeof(*r->maps)) ||
		    !grow_n((void **)&r->map_re, r->nmaps, sizeof(*r->map_re)))
			return nomem(L);
		struct pprof_rules_sourcemap *sm = &r->maps[r->nmaps];
		pcre2_code **re = &r->map_re[r->nmaps];
		memset(sm, 0, sizeof(*sm));
		*re = NULL;
		r->nmaps++;
		sm->is_regex = regex;
		if (!(sm->url = strdup(url)))
			return nomem(L);
		int st;
		if (regex && (st = compile_at(L, node(L, *it), url, "url-regex", re)))
			return st;
		if (regex && (st = template_at(L, map_node, *re, map)))
			return st;
		/* Relative paths are relative to the rules file; in a
		 * template the directory's own '$' must stay literal. */
		struct pp_buf b;
		pp_buf_init(&b);
		bool ok = true;
		if (!is_absolute(map) && *L->base) {
			for (const char *q = L->base; *q && ok; q++)
				ok = (regex && *q == '$') ? pp_buf_add(&b, "$$", 2) : pp_buf_addc(&b, *q);
			if (ok && L->base[strlen(L->base) - 1] != '/')
				ok = pp_buf_addc(&b, '/');
		}
		ok = ok && pp_buf_add(&b, map, strlen(map));
		if (!ok) {
			pp_buf_release(&b);
			return nomem(L);
		}
		if (!(sm->map = pp_buf_detach(&b, NULL)))
			return nomem(L);
	}
	return PPROF_OK;
}

static int load_root(struct loader *L, yaml_node_t *root)
{
	if (!root)
		return rerr(L, NULL, "empty rules file: it needs at least 'version: 1'");
	if (root->type != YAML_MAPPING_NODE)
		return rerr(L, &root->start_mark,
			    "a rules file is a mapping (version, rename, filters, sourcemaps)");
	yaml_node_t *version = NULL;
	for (yaml_node_pair_t *pr = root->data.mapping.pairs.start;
	     pr < root->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = node(L, pr->key);
		const char *key;
		int st = want_scalar(L, k, "a key", &key);
		if (st)
			return st;
		if (strcmp(key, "version") == 0)
			version = node(L, pr->value);
	}
	if (!version)
		return rerr(L, &root->start_mark, "missing 'version: 1'");
	const char *v;
	int st = want_scalar(L, version, "version", &v);
	if (st)
		return st;
	if (strcmp(v, "1") != 0)
		return rerr(L, &version->start_mark,
			    "unsupported rules version '%s' (this program reads version 1)", v);
	bool seen[4] = {false, false, false, false};
	for (yaml_node_pair_t *pr = root->data.mapping.pairs.start;
	     pr < root->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = node(L, pr->key), *val = node(L, pr->value);
		const char *key = scalar(k);
		int which = strcmp(key, "version") == 0	   ? 0
			    : strcmp(key, "rename") == 0   ? 1
			    : strcmp(key, "filters") == 0  ? 2
			    : strcmp(key, "sourcemaps") == 0 ? 3
							     : -1;
		if (which < 0)
			return rerr(L, &k->start_mark,
				    "unknown key '%s' (version, rename, filters, sourcemaps)", key);
		if (seen[which])
			return rerr(L, &k->start_mark, "'%s' given twice", key);
		seen[which] = true;
		if (which == 1)
			st = load_rename(L, val);
		else if (which == 2)
			st = load_filters(L, val);
		else if (which == 3)
			st = load_sourcemaps(L, val);
		if (st)
			return st;
	}
	return PPROF_OK;
}

static int parse_error(struct loader *L, yaml_parser_t *ps)
{
	if (ps->error == YAML_MEMORY_ERROR)
		return nomem(L);
	const char *what = ps->problem ? ps->problem : "malformed YAML";
	if (ps->context)
		return rerr(L, &ps->problem_mark, "%s %s", ps->context, what);
	return rerr(L, &ps->problem_mark, "%s", what);
}

/* libyaml's scanner takes time in proportion to the nesting depth for each
 * token, so a file nested 200,000 deep took six minutes to load.  The
 * schema is four levels deep: the events are read once first, and a file
 * nested past MAX_DEPTH is refused before the loader sees it. */
#define MAX_DEPTH 64

static int check_depth(struct loader *L, const char *text, size_t len)
{
	yaml_parser_t ps;
	yaml_event_t ev;
	int depth = 0, st = PPROF_OK;
	if (!yaml_parser_initialize(&ps))
		return nomem(L);
	yaml_parser_set_input_string(&ps, (const unsigned char *)text, len);
	for (;;) {
		if (!yaml_parser_parse(&ps, &ev))
			break; /* the loader says what is wrong */
		yaml_event_type_t t = ev.type;
		if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) {
			if (++depth > MAX_DEPTH)
				st = rerr(L, &ev.start_mark, "nested deeper than %d levels",
					  MAX_DEPTH);
		} else if (t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT) {
			depth--;
		}
		yaml_event_delete(&ev);
		if (st || t == YAML_STREAM_END_EVENT)
			break;
	}
	yaml_parser_delete(&ps);
	return st;
}

int pprof_rules_read_buffer(struct pprof_rules *r, const char *text, size_t len,
			    const char *base_dir)
{
	rules_clear(r);
	pp_buf_reset(&r->error);
	struct loader L = {r, NULL, base_dir ? base_dir : ""};
	yaml_parser_t ps;
	yaml_document_t doc;
	int depth_st = check_depth(&L, text, len);
	if (depth_st)
		return depth_st;
	if (!yaml_parser_initialize(&ps))
		return nomem(&L);
	yaml_parser_set_input_string(&ps, (const unsigned char *)text, len);
	int st;
	if (!yaml_parser_load(&ps, &doc)) {
		st = parse_error(&L, &ps);
		yaml_parser_delete(&ps);
		rules_clear(r);
		return st;
	}
	L.doc = &doc;
	st = load_root(&L, yaml_document_get_root_node(&doc));
	yaml_document_delete(&doc);
	if (!st) {
		/* One document only: a second one would be silently ignored. */
		yaml_document_t more;
		if (!yaml_parser_load(&ps, &more)) {
			st = parse_error(&L, &ps);
		} else {
			yaml_node_t *root = yaml_document_get_root_node(&more);
			if (root)
				st = rerr(&L, &root->start_mark, "more than one YAML document");
			yaml_document_delete(&more);
		}
	}
	yaml_parser_delete(&ps);
	if (st)
		rules_clear(r);
	return st;
}

int pprof_rules_read_file(struct pprof_rules *r, const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		pp_buf_reset(&r->error);
		pp_buf_addf(&r->error, "%s", strerror(errno));
		return PPROF_EIO;
	}
	struct pp_buf text;
	pp_buf_init(&text);
	char chunk[65536];
	size_t n;
	bool ok = true;
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0 && ok) {
		ok = pp_buf_add(&text, chunk, n);
		/* A rules file is small; this bound keeps a wrong path (a
		 * profile, a device) from being read whole. */
		if (text.len > (64u << 20)) {
			fclose(fp);
			pp_buf_release(&text);
			pp_buf_reset(&r->error);
			pp_buf_addf(&r->error, "rules file larger than 64 MiB");
			return PPROF_EINPUT;
		}
	}
	int rd_err = ferror(fp);
	fclose(fp);
	if (!ok || rd_err) {
		pp_buf_release(&text);
		pp_buf_reset(&r->error);
		pp_buf_addf(&r->error, "%s", ok ? strerror(errno) : "out of memory");
		return ok ? PPROF_EIO : PPROF_ENOMEM;
	}
	const char *slash = strrchr(path, '/');
	char *base = slash ? strndup(path, (size_t)(slash - path + 1)) : strdup("");
	if (!base) {
		pp_buf_release(&text);
		return PPROF_ENOMEM;
	}
	int st = pprof_rules_read_buffer(r, text.s, text.len, base);
	free(base);
	pp_buf_release(&text);
	return st;
}
