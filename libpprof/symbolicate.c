/* symbolicate.c: put frames of generated JavaScript back on the original
 * source through source maps, one look-up per unique frame.
 *
 * A frame's position is its function's start (V8) or a Line's line and
 * column (pprof).  The original file and line come from the map; the name
 * from libsourcemap's smap_function_at() (scopes, the generated script's
 * naming token, the original source's tokens), else V8's own name. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "json.h"
#include "model_private.h"
#include "sourcemap.h"

/* A map file loaded ahead (pprof_sourcemaps_start()), as script_map()
 * would have loaded it: the results of each step, for script_map() to act
 * on them as if it had taken them itself. */
struct early {
	char *map_path;
	char *script_path;        /* the script beside it, or NULL */
	struct smap_map *m;       /* NULL when smap_map_new() failed, or taken */
	int load, srcdir, script; /* smap_map_load_file(), ..._set_source_dir(),
				   * smap_map_load_script() (SMAP_OK when not done) */
	bool taken;
	/* the map of the thread's second round: M's script is tokenized
	 * (smap_map_prepare_script()) after every map is loaded, while the
	 * profile's positions are being prepared; NULL when nothing to do */
	struct smap_map *work;
	bool ready, script_done; /* under the mutex */
};

struct pprof_sourcemaps {
	struct early *e;
	size_t n;
	char *source_path;
	pthread_t th;
	bool running; /* the thread is to be joined */
	bool sync;    /* MU and CV were made */
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

struct script {
	char *key;         /* the script's name as frames may carry it (basename) */
	char *script_path; /* the generated script, or NULL */
	char *map_path;    /* the map file, or NULL with map_text */
	char *map_text;    /* a map from a data: URL */
	size_t map_len;
	struct smap_map *map;
	bool tried; /* loading was attempted */
	char *text; /* the script's text, once read */
	size_t textlen;
	bool text_tried;
	/* sampled lines (map_at_line()): 1 when one on a function's first
	 * line did not map, 2 on another line; whether the mapped frames'
	 * functions start on more than one generated line (else fn_line) */
	unsigned lines_lost;
	int64_t fn_line;
	bool fn_lines;
	bool checked, unfit; /* the map was checked against the profile */
	/* the map's segments start at the script's tokens at the profile's
	 * other functions: a function off every head with segments inside
	 * its tokens is where a later build's code moved (moved()) */
	bool clean;
	/* frames left unmapped where the map fits but the script and map
	 * are another build's (smap_function's foreign), and V8's name of
	 * the first */
	unsigned foreign;
	const char *foreign_name;
	/* the map was loaded early and its script may still be tokenized
	 * there: settle() before asking functions of it or freeing it */
	struct early *early;
};

/* A frame's position in a script, for the fit check. */
struct fpos {
	struct script *s;
	uint32_t line, col; /* 0-based */
	uint32_t name;      /* V8's name */
};

struct symb {
	struct pprof_profile *p;
	const struct pprof_rules *rules;
	const struct pprof_symbolicate_options *o;
	struct script *s;
	size_t n, cap;
};

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct pp_buf b;
	pp_buf_init(&b);
	char tmp[65536];
	size_t n;
	bool ok = true;
	while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0)
		if (!pp_buf_add(&b, tmp, n)) {
			ok = false;
			break;
		}
	if (ferror(f))
		ok = false;
	fclose(f);
	if (!ok) {
		pp_buf_release(&b);
		return NULL;
	}
	return pp_buf_detach(&b, len);
}

static const char *base_name(const char *s)
{
	const char *b = strrchr(s, '/');
	return b ? b + 1 : s;
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && strcmp(s + n - m, suf) == 0;
}

static struct script *add_script(struct symb *y, const char *key)
{
	for (size_t i = 0; i < y->n; i++)
		if (strcmp(y->s[i].key, key) == 0)
			return &y->s[i];
	if (y->n == y->cap) {
		size_t cap = y->cap ? y->cap * 2 : 16;
		struct script *s = realloc(y->s, cap * sizeof(*s));
		if (!s)
			return NULL;
		y->s = s;
		y->cap = cap;
	}
	struct script *s = &y->s[y->n];
	memset(s, 0, sizeof(*s));
	if (!(s->key = strdup(key)))
		return NULL;
	y->n++;
	return s;
}

static char *join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s/%s", dir, name);
	return s;
}

/* Whether pprof_sourcemaps_start() loads MAP_PATH with the script
 * SCRIPT_PATH beside it (the same paths, as the directory's scan makes
 * them). */
static bool prefetched(const struct symb *y, const char *map_path, const char *script_path)
{
	const struct pprof_sourcemaps *ps = y->o->prefetch;
	for (size_t i = 0; ps && i < ps->n; i++)
		if (!ps->e[i].taken && ps->e[i].script_path &&
		    strcmp(ps->e[i].map_path, map_path) == 0 &&
		    strcmp(ps->e[i].script_path, script_path) == 0)
			return true;
	return false;
}

/* A script in a searched directory: its sourceMappingURL, else NAME.map. */
static int add_script_file(struct symb *y, const char *path)
{
	/* The first script of a name wins: directories are searched breadth
	 * first, so the one nearest the top. */
	for (size_t i = 0; i < y->n; i++)
		if (strcmp(y->s[i].key, base_name(path)) == 0)
			return PPROF_OK;
	size_t len;
	char *text = read_file(path, &len);
	if (!text)
		return PPROF_OK;
	struct script *s = NULL;
	size_t ulen;
	const char *url = smap_script_find_url(text, len, &ulen);
	if (url && smap_url_is_data(url, ulen)) {
		char *map;
		size_t mlen;
		if (smap_data_url_decode(url, ulen, &map, &mlen) == SMAP_OK) {
			if (!(s = add_script(y, base_name(path)))) {
				free(map);
				free(text);
				return pp_nomem(y->p);
			}
			free(s->map_text);
			s->map_text = map;
			s->map_len = mlen;
		}
	} else {
		char *mp = url ? smap_url_to_path(path, url, ulen) : NULL;
		if (!mp) {
			size_t n = strlen(path);
			mp = malloc(n + 5);
			if (mp)
				snprintf(mp, n + 5, "%s.map", path);
		}
		struct stat st;
		if (mp && stat(mp, &st) == 0 && S_ISREG(st.st_mode)) {
			if (!(s = add_script(y, base_name(path)))) {
				free(mp);
				free(text);
				return pp_nomem(y->p);
			}
			free(s->map_path);
			s->map_path = mp;
			mp = NULL;
		}
		free(mp);
	}
	if (s) {
		free(s->script_path);
		s->script_path = strdup(path);
		free(s->text);
		/* the same file, mapped by the map loaded early for it */
		bool early = s->map_path && prefetched(y, s->map_path, path);
		if (early)
			free(text);
		s->text = early ? NULL : text;
		s->textlen = early ? 0 : len;
		s->text_tried = !early;
	} else {
		free(text);
	}
	return PPROF_OK;
}

/* A map file given with -m, or found in a directory: it serves the script
 * named by its "file" field, and NAME for NAME.map. */
static int add_map_file(struct symb *y, const char *path)
{
	char key[4096];
	const char *b = base_name(path);
	size_t n = strlen(b);
	if (n >= sizeof(key))
		return PPROF_OK;
	memcpy(key, b, n + 1);
	if (has_suffix(key, ".map"))
		key[n - 4] = '\0';
	struct script *s = NULL;
	for (size_t i = 0; i < y->n; i++)
		if (y->s[i].map_path && strcmp(y->s[i].map_path, path) == 0)
			return PPROF_OK; /* already found through its script */
	if (!(s = add_script(y, key)))
		return pp_nomem(y->p);
	if (!s->map_path && !s->map_text && !(s->map_path = strdup(path)))
		return pp_nomem(y->p);
	/* The script beside the map, for the '(' rule. */
	if (!s->script_path && has_suffix(path, ".map")) {
		char *sp = strdup(path);
		if (sp) {
			sp[strlen(sp) - 4] = '\0';
			struct stat st;
			if (stat(sp, &st) == 0 && S_ISREG(st.st_mode))
				s->script_path = sp;
			else
				free(sp);
		}
	}
	return PPROF_OK;
}

static int scan_dir(struct symb *y, const char *dir)
{
	/* Breadth-first over at most a few levels, no recursion. */
	char **queue = NULL;
	size_t qn = 0, qcap = 0, qi = 0;
	int status = PPROF_OK;
	char *first = strdup(dir);
	if (!first)
		return pp_nomem(y->p);
	queue = malloc(sizeof(*queue) * 8);
	if (!queue) {
		free(first);
		return pp_nomem(y->p);
	}
	qcap = 8;
	queue[qn++] = first;
	char **maps = NULL;
	size_t nmaps = 0;
	while (qi < qn && qi < 256 && status == PPROF_OK) {
		char *d = queue[qi++];
		DIR *dh = opendir(d);
		if (!dh)
			continue;
		struct dirent *de;
		while ((de = readdir(dh)) && status == PPROF_OK) {
			if (de->d_name[0] == '.' || strcmp(de->d_name, "node_modules") == 0)
				continue;
			char *path = join(d, de->d_name);
			if (!path) {
				status = pp_nomem(y->p);
				break;
			}
			struct stat st;
			if (stat(path, &st) != 0) {
				free(path);
				continue;
			}
			if (S_ISDIR(st.st_mode)) {
				if (qn == qcap) {
					char **q = realloc(queue, qcap * 2 * sizeof(*q));
					if (!q) {
						free(path);
						status = pp_nomem(y->p);
						break;
					}
					queue = q;
					qcap *= 2;
				}
				queue[qn++] = path;
				continue;
			}
			if (has_suffix(path, ".js") || has_suffix(path, ".mjs") ||
			    has_suffix(path, ".cjs")) {
				status = add_script_file(y, path);
			} else if (has_suffix(path, ".map")) {
				char **m = realloc(maps, (nmaps + 1) * sizeof(*m));
				if (m) {
					maps = m;
					maps[nmaps++] = path;
					path = NULL;
				} else {
					status = pp_nomem(y->p);
				}
			}
			free(path);
		}
		closedir(dh);
	}
	/* Maps last, so that those a script names are not added twice. */
	for (size_t i = 0; i < nmaps; i++) {
		if (status == PPROF_OK)
			status = add_map_file(y, maps[i]);
		free(maps[i]);
	}
	free(maps);
	for (size_t i = 0; i < qn; i++)
		free(queue[i]);
	free(queue);
	return status;
}

/* The thread of pprof_sourcemaps_start(): each map as script_map() loads
 * it, and what the first look-ups would do first. */
static void *load_early(void *arg)
{
	struct pprof_sourcemaps *ps = arg;
	for (size_t i = 0; i < ps->n; i++) {
		struct early *e = &ps->e[i];
		struct smap_map *m = smap_map_new();
		e->m = m;
		if (m && (e->load = smap_map_load_file(m, e->map_path, 0)) == SMAP_OK &&
		    (!ps->source_path ||
		     (e->srcdir = smap_map_set_source_dir(m, ps->source_path)) == SMAP_OK) &&
		    (!e->script_path ||
		     (e->script = smap_map_load_script(m, e->script_path)) != SMAP_ENOMEM)) {
			(void)smap_map_prepare(m);
			if (e->script_path && e->script == SMAP_OK)
				e->work = m;
		}
		pthread_mutex_lock(&ps->mu);
		e->ready = true;
		pthread_cond_broadcast(&ps->cv);
		pthread_mutex_unlock(&ps->mu);
	}
	/* the scripts, while the first map taken is asked its positions */
	for (size_t i = 0; i < ps->n; i++) {
		struct early *e = &ps->e[i];
		if (e->work)
			(void)smap_map_prepare_script(e->work);
		pthread_mutex_lock(&ps->mu);
		e->script_done = true;
		pthread_cond_broadcast(&ps->cv);
		pthread_mutex_unlock(&ps->mu);
	}
	return NULL;
}

/* Waits until E is loaded (SCRIPT: and its script tokenized). */
static void early_wait(struct pprof_sourcemaps *ps, struct early *e, bool script)
{
	pthread_mutex_lock(&ps->mu);
	while (!(script ? e->script_done : e->ready))
		pthread_cond_wait(&ps->cv, &ps->mu);
	pthread_mutex_unlock(&ps->mu);
}

static void free_early(struct pprof_sourcemaps *ps)
{
	for (size_t i = 0; i < ps->n; i++) {
		smap_map_free(ps->e[i].m);
		free(ps->e[i].map_path);
		free(ps->e[i].script_path);
	}
	free(ps->e);
	free(ps->source_path);
	if (ps->sync) {
		pthread_cond_destroy(&ps->cv);
		pthread_mutex_destroy(&ps->mu);
	}
	free(ps);
}

/* DIR/NAME for the one regular file NAME.map among DIR's entries (no
 * dot file), else NULL. */
static char *one_map(const char *dir)
{
	DIR *dh = opendir(dir);
	if (!dh)
		return NULL;
	char *map = NULL;
	struct dirent *de;
	while ((de = readdir(dh))) {
		if (de->d_name[0] == '.' || !has_suffix(de->d_name, ".map"))
			continue;
		char *path = join(dir, de->d_name);
		struct stat st;
		if (!path || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		if (map) { /* a second one */
			free(path);
			free(map);
			map = NULL;
			break;
		}
		map = path;
	}
	closedir(dh);
	return map;
}

struct pprof_sourcemaps *pprof_sourcemaps_start(const struct pprof_symbolicate_options *o)
{
	struct pprof_sourcemaps *ps = calloc(1, sizeof(*ps));
	if (!ps || (o->nmaps && !(ps->e = calloc(o->nmaps, sizeof(*ps->e)))) ||
	    (o->source_path && !(ps->source_path = strdup(o->source_path))))
		goto none;
	for (size_t i = 0; i < o->nmaps; i++) {
		struct stat st;
		const char *path = o->maps[i];
		char *found = NULL;
		if (stat(path, &st) != 0)
			continue;
		/* a directory (searched as always) whose top holds one map: that
		 * map, named as the search names it */
		if (S_ISDIR(st.st_mode) && !(path = found = one_map(path)))
			continue;
		bool dup = false;
		for (size_t k = 0; k < ps->n && !dup; k++)
			dup = strcmp(ps->e[k].map_path, path) == 0;
		if (dup || (!found && !S_ISREG(st.st_mode))) {
			free(found);
			continue;
		}
		struct early *e = &ps->e[ps->n];
		if (!(e->map_path = found ? found : strdup(path)))
			goto none;
		ps->n++;
		/* the script beside the map, as add_map_file() finds it */
		if (has_suffix(path, ".map") && (e->script_path = strdup(path))) {
			e->script_path[strlen(path) - 4] = '\0';
			if (stat(e->script_path, &st) != 0 || !S_ISREG(st.st_mode)) {
				free(e->script_path);
				e->script_path = NULL;
			}
		}
	}
	if (!ps->n)
		goto none;
	/* the JSON parser's tables, made here, not by two threads at once */
	struct json j;
	json_init(&j, "", 0, 0);
	json_release(&j);
	if (pthread_mutex_init(&ps->mu, NULL) != 0)
		goto none;
	if (pthread_cond_init(&ps->cv, NULL) != 0) {
		pthread_mutex_destroy(&ps->mu);
		goto none;
	}
	ps->sync = true;
	if (pthread_create(&ps->th, NULL, load_early, ps) != 0)
		goto none;
	ps->running = true;
	return ps;
none:
	if (ps)
		free_early(ps);
	return NULL;
}

void pprof_sourcemaps_free(struct pprof_sourcemaps *ps)
{
	if (!ps)
		return;
	if (ps->running)
		pthread_join(ps->th, NULL);
	free_early(ps);
}

/* The map loaded early for S, if any (waiting for it). */
static struct early *early_for(struct symb *y, struct script *s)
{
	struct pprof_sourcemaps *ps = y->o->prefetch;
	if (!ps || s->map_text || !s->map_path || s->text || s->text_tried)
		return NULL;
	if (!ps->source_path != !y->o->source_path ||
	    (ps->source_path && strcmp(ps->source_path, y->o->source_path) != 0))
		return NULL;
	for (size_t i = 0; i < ps->n; i++) {
		struct early *e = &ps->e[i];
		if (e->taken || strcmp(e->map_path, s->map_path) != 0 ||
		    !e->script_path != !s->script_path ||
		    (e->script_path && strcmp(e->script_path, s->script_path) != 0))
			continue;
		if (ps->running)
			early_wait(ps, e, false);
		e->taken = true;
		return e;
	}
	return NULL;
}

/* Waits for the early thread to be done with S's map. */
static void settle(struct symb *y, struct script *s)
{
	if (s->early) {
		early_wait(y->o->prefetch, s->early, true);
		s->early = NULL;
	}
}

/* The map of script S, taken from those loaded early when it is there
 * (each step's outcome as if it were taken here), else loaded.  Until
 * settle(), only what smap_map_prepare_script() allows may be asked of
 * it. */
static struct smap_map *script_map(struct symb *y, struct script *s)
{
	if (s->tried)
		return s->map;
	s->tried = true;
	struct early *e = early_for(y, s);
	struct smap_map *m = e ? e->m : smap_map_new();
	if (e)
		e->m = NULL;
	if (!m)
		return NULL;
	int r = e             ? e->load
		: s->map_text ? smap_map_parse(m, s->map_text, s->map_len, 0)
			      : smap_map_load_file(m, s->map_path, 0);
	const char *name = s->map_path ? s->map_path : s->key;
	if (r != SMAP_OK) {
		pp_warn(y->p, "%s: source map not used: %s", name, smap_map_error(m));
		smap_map_free(m);
		return NULL;
	}
	s->map = m;
	const char *at = s->map_path ? s->map_path : s->script_path;
	if (e) {
		s->text_tried = true;
		s->early = e;
		if (e->srcdir != SMAP_OK || e->script == SMAP_ENOMEM ||
		    (at && smap_map_set_location(m, at) != SMAP_OK)) {
			settle(y, s);
			s->map = NULL;
			smap_map_free(m);
			return NULL;
		}
		return m;
	}
	if ((y->o->source_path && smap_map_set_source_dir(m, y->o->source_path) != SMAP_OK) ||
	    (at && smap_map_set_location(m, at) != SMAP_OK)) {
		s->map = NULL;
		smap_map_free(m);
		return NULL;
	}
	/* the generated script, for the names at its tokens: the text a
	 * directory's scan read, else its file (mapped, not copied) */
	int sr = SMAP_OK;
	if (s->text)
		sr = smap_map_set_script(m, s->text, s->textlen);
	else if (!s->text_tried && s->script_path)
		sr = smap_map_load_script(m, s->script_path);
	s->text_tried = true;
	if (sr == SMAP_ENOMEM) {
		s->map = NULL;
		smap_map_free(m);
		return NULL;
	}
	return m;
}

/* Sources read beside S's map that are not the text it was made from:
 * one warning for the map, naming the first. */
static void stale_sources(struct symb *y, struct script *s)
{
	settle(y, s);
	struct smap_map *m = s->unfit ? NULL : s->map;
	const char *first = NULL;
	unsigned fbad = 0, fchecked = 0;
	size_t n = 0;
	for (size_t k = 0; m && k < smap_map_source_count(m); k++) {
		const char *file;
		unsigned bad, checked;
		if (smap_map_source_file(m, k, &file, &bad, &checked) != SMAP_FILE_STALE)
			continue;
		if (!n++) {
			first = file;
			fbad = bad;
			fchecked = checked;
		}
	}
	if (!n)
		return;
	const char *name = s->map_path ? s->map_path : s->key;
	if (n == 1)
		pp_warn(y->p,
			"%s: %s is not the source it was made from (%u of %u positions map "
			"onto white space or into a word; edited since the build?): not read "
			"for names",
			name, first, fbad, fchecked);
	else
		pp_warn(y->p,
			"%s: %zu of its sources beside it are not the text it was made "
			"from (%s: %u of %u positions map onto white space or into a word; "
			"edited since the build?): not read for names",
			name, n, first, fbad, fchecked);
}

/* The script a frame's URL names: the URL itself, its path without
 * file://, or its base name. */
static struct script *find_script(struct symb *y, const char *url)
{
	if (!*url)
		return NULL;
	const char *path = url;
	if (strncmp(path, "file://", 7) == 0)
		path += 7;
	const char *b = base_name(path);
	for (size_t i = 0; i < y->n; i++)
		if (strcmp(y->s[i].key, url) == 0 || strcmp(y->s[i].key, b) == 0)
			return &y->s[i];
	return NULL;
}

/* The map a rules file associates with URL, as a script keyed by the whole
 * URL; NULL when none. */
static struct script *rules_script(struct symb *y, const char *url, int *status)
{
	char *path = NULL;
	*status = PPROF_OK;
	if (!y->rules)
		return NULL;
	if (pprof_rules_sourcemap_for(y->rules, url, &path) != PPROF_OK) {
		*status = pp_nomem(y->p);
		return NULL;
	}
	if (!path)
		return NULL;
	struct script *s = add_script(y, url);
	if (!s) {
		free(path);
		*status = pp_nomem(y->p);
		return NULL;
	}
	if (!s->tried && !s->map_text) {
		/* the rules file's association wins over a map found by search */
		free(s->map_path);
		s->map_path = path;
	} else {
		free(path);
	}
	return s;
}

/* A leaf's sampled line (lines.h) has no column: it maps where its whole
 * generated line maps to one line of the function's original source (a
 * multi-line bundle).  On the line where the function starts, its code
 * from there is what maps, to the function's own line; that is also what
 * a leaf keeps when its line can't be mapped, which is said once per
 * script (struct script's lines_lost) when it happens on another line, or
 * on a script whose functions all start on one line (a one-line bundle). */
static int map_at_line(struct symb *y, struct script *s, struct smap_map *m,
		       const struct pp_frame *f, const struct smap_mapping *fn, struct pp_frame *nf)
{
	struct smap_mapping at;
	int r = nf->at_line - 1 <= UINT32_MAX ? smap_lookup_line(m, (uint32_t)(nf->at_line - 1), &at)
					      : SMAP_NONE;
	if (r == SMAP_ENOMEM)
		return pp_nomem(y->p);
	if (r == SMAP_OK && at.source && at.source_index == fn->source_index) {
		nf->at_line = (int64_t)at.line + 1;
		return PPROF_OK;
	}
	if (f->at_line != f->line)
		s->lines_lost |= 2;
	else
		s->lines_lost |= 1;
	nf->at_line = 0;
	return PPROF_OK;
}

/* @datadog/pprof writes no columns but names an anonymous function
 * "(anonymous:L#LINE:C#COL)" (COL 1-based, as Line.column) or
 * "(anonymous:L#LINE)": whether NAME is such a name for a function on
 * generated line LINE; *COL receives COL, or 0. */
static bool datadog_anon(const char *name, int64_t line, int64_t *col)
{
	long long l = 0, c = 0;
	int n = 0;
	*col = 0;
	if (strncmp(name, "(anonymous:L#", 13) != 0)
		return false;
	if (sscanf(name, "(anonymous:L#%lld:C#%lld)%n", &l, &c, &n) == 2 && n > 0 &&
	    !name[n] && l == line && c > 0 && c <= UINT32_MAX) {
		*col = (int64_t)c;
		return true;
	}
	n = 0;
	return sscanf(name, "(anonymous:L#%lld)%n", &l, &n) == 1 && n > 0 && !name[n] &&
	       l == line;
}

/* "no source map for URL": and where it was looked for. */
static void warn_no_map(struct symb *y, const char *url)
{
	const char *path = strncmp(url, "file://", 7) == 0 ? url + 7 : url;
	const char *b = base_name(path);
	struct pp_buf w;
	pp_buf_init(&w);
	for (size_t i = 0; i < y->o->nmaps; i++)
		pp_buf_addf(&w, "%s%s", i ? ", " : "", y->o->maps[i]);
	if (y->o->nmaps)
		pp_warn(y->p, "no source map for %s in %s (looked for %s with a sourceMappingURL "
			      "and for %s.map)",
			url, w.s ? w.s : "", b, b);
	else
		pp_warn(y->p, "no source map for %s", url);
	pp_buf_release(&w);
}

static bool plain_ident(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s == '.' || *s == ' ' || *s == '(' || *s == '<' || *s == '[')
			return false;
	return true;
}

/* Whether the script names function FN otherwise than V8 did (V8), a
 * name of one word each. */
static bool named_otherwise(const struct smap_function *fn, const char *v8)
{
	return fn->token && plain_ident(v8) && plain_ident(fn->token) && strcmp(v8, fn->token) != 0;
}

/* Whether the script and map at hand are of another build than V8 ran at
 * function FN, V8's name V8: the script starts no function there or the
 * map's segments start inside its tokens (FN's foreign), or the script
 * names it otherwise. */
static bool other_build(const struct smap_function *fn, const char *v8)
{
	return fn->foreign == 1 || named_otherwise(fn, v8);
}

/* Whether the map puts V8's position of FN on no function's head in the
 * sources while 2 or more of the function's first tokens in the script
 * have a segment starting inside them: in a later build's map, where a
 * function added just before took this one's place (main named checksum,
 * its newcomer).  Right maps put positions off a head (code a compiler
 * made, esbuild's export getters) with at most one such segment, but for
 * swc's, whose segments often start inside tokens everywhere: trusted
 * only where the map is clean at the profile's other functions. */
static bool moved(const struct smap_function *fn)
{
	return fn->mapped == 0 && fn->inside >= 2;
}

static int cmp_fpos(const void *a, const void *b)
{
	const struct fpos *x = a, *y = b;
	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->col < y->col ? -1 : x->col > y->col;
}

/*
 * Whether each script's map fits what the profile says of the script: its
 * V8 function positions [A, B) must be function starts in the generated
 * script (or, without it, at the mapped place of sourcesContent), with the
 * name V8 gave them, and lie within the map's lines.  A map fails when
 * more than half of the positions that could be checked fail, or any lies
 * past its last line: one warning, and the script's frames stay as they
 * are.  V8's own functions (<instance_members_initializer>, a default
 * constructor) are not function starts and are not counted.
 */
static int check_fit(struct symb *y, struct fpos *a, size_t n)
{
	struct pprof_profile *p = y->p;
	for (size_t i = 0; i < n;) {
		struct script *s = a[i].s;
		size_t j = i;
		while (j < n && a[j].s == s)
			j++;
		struct smap_map *m = s->tried || s->map_path || s->map_text ? script_map(y, s) : NULL;
		s->checked = true;
		if (!m) {
			i = j;
			continue;
		}
		const char *name = s->map_path ? s->map_path : s->key;
		uint32_t nlines = smap_map_generated_lines(m);
		/* the positions asked below, for their sources to be tokenized
		 * at once, on two threads */
		{
			uint32_t *pl = malloc((j - i) * 2 * sizeof(*pl));
			size_t np = 0;
			for (size_t k = i; pl && k < j; k++) {
				if (k > i && a[k].line == a[k - 1].line && a[k].col == a[k - 1].col)
					continue;
				if (a[k].line >= nlines)
					break;
				if (pp_str(p, a[k].name)[0] == '<' ||
				    (a[k].line == 0 && a[k].col == 0))
					continue;
				pl[np] = a[k].line;
				pl[(j - i) + np++] = a[k].col;
			}
			int pr = pl ? smap_map_prepare_functions(m, pl, pl + (j - i), np) : SMAP_OK;
			free(pl);
			settle(y, s);
			if (pr == SMAP_ENOMEM)
				return pp_nomem(p);
		}
		unsigned checked = 0, bad = 0, badname = 0, foreign = 0, noisy = 0, nmoved = 0;
		bool past = false;
		uint32_t pl = 0, pc = 0;
		for (size_t k = i; k < j; k++) {
			if (k > i && a[k].line == a[k - 1].line && a[k].col == a[k - 1].col)
				continue;
			if (a[k].line >= nlines) {
				past = true;
				pl = a[k].line;
				pc = a[k].col;
				break;
			}
			const char *v8 = pp_str(p, a[k].name);
			if (v8[0] == '<' || (a[k].line == 0 && a[k].col == 0))
				continue; /* V8's own, and the script's top level */
			struct smap_function fn;
			if (smap_function_at(m, a[k].line, a[k].col, &fn) != SMAP_OK)
				return pp_nomem(p);
			if (fn.start < 0)
				continue;
			checked++;
			bool ob = other_build(&fn, v8);
			foreign += ob;
			nmoved += !ob && moved(&fn);
			noisy += fn.mapped == 1 && fn.inside >= 1;
			if (fn.start == 0 || fn.mapped == 0 || fn.foreign == 1)
				bad++;
			else if (named_otherwise(&fn, v8)) {
				bad++;
				badname++;
			}
		}
		/* not clean: more than one function the map puts on a head
		 * with a segment inside one of its first tokens, and more than
		 * a tenth (swc's right maps: a fifth to a third; the others'
		 * none, or one or two of 15 to 46, as many as a later build's
		 * map, whose function after the moved one is probed too) */
		s->clean = noisy <= 1 || noisy * 10 <= checked;
		if (s->clean)
			foreign += nmoved;
		const char *file = smap_map_file(m);
		char fnote[600] = "";
		if (file && strcmp(base_name(file), base_name(s->key)) != 0)
			snprintf(fnote, sizeof(fnote), "; its file is %s", file);
		bool content = false;
		for (size_t k = 0; k < smap_map_source_count(m) && !content; k++)
			content = smap_map_has_source_content(m, k);
		if (!past && !checked && !content && y->o->source_path)
			pp_warn(p, "%s: no sourcesContent, no script %s at hand and none of its "
				   "sources under %s: names are left as the profile has them",
				name, s->key, y->o->source_path);
		else if (!past && !checked && !content)
			pp_warn(p, "%s: no sourcesContent and no script %s at hand: names are "
				   "left as the profile has them", name, s->key);
		if (past) {
			pp_warn(p, "%s does not fit %s: position %u:%u is past its last generated line %u%s "
				   "(a map of another build?); the script's frames are left unmapped",
				name, s->key, pl + 1, pc + 1, nlines, fnote);
			s->unfit = true;
		} else if (foreign >= 3 && foreign * 50 >= checked && bad * 2 <= checked) {
			/* right where that build's code is the same, wrong where
			 * it moved: not used at all */
			pp_warn(p,
				"%s does not fit %s: at %u of %u function positions the script "
				"starts no function or another, or the map's segments start "
				"inside its tokens%s (a build other than the profile's?); the "
				"script's frames are left unmapped",
				name, s->key, foreign, checked, fnote);
			s->unfit = true;
		} else if (checked && bad * 2 > checked) {
			if (badname * 2 > bad)
				pp_warn(p, "%s does not fit %s: %u of %u function positions do not start a "
					   "function of the name the profile gives%s (a map of another "
					   "build?); the script's frames are left unmapped",
					name, s->key, bad, checked, fnote);
			else
				pp_warn(p, "%s does not fit %s: %u of %u function positions are not "
					   "function starts in the script and its sources%s (a map of "
					   "another build?); the script's frames are left unmapped",
					name, s->key, bad, checked, fnote);
			s->unfit = true;
		}
		i = j;
	}
	return PPROF_OK;
}

static int symbolicate_frame(struct symb *y, uint32_t fid, uint32_t *out, bool *nocolumn)
{
	struct pprof_profile *p = y->p;
	const struct pp_frame *f = &p->frames[fid];
	*out = fid;
	if (!f->file || f->line <= 0 || (f->flags & PP_FRAME_MAPPED))
		return PPROF_OK;
	const char *url = pp_str(p, f->file);
	int rs;
	struct script *s = rules_script(y, url, &rs);
	if (rs != PPROF_OK)
		return rs;
	if (!s)
		s = find_script(y, url);
	if (!s) {
		if (strncmp(url, "node:", 5) != 0)
			warn_no_map(y, url);
		return PPROF_OK;
	}
	if (s->unfit)
		return PPROF_OK;
	struct smap_map *m = script_map(y, s);
	if (!m)
		return PPROF_OK;
	settle(y, s);
	uint32_t line = (uint32_t)(f->line - 1);
	struct smap_mapping mp;
	int r;
	int64_t column = f->column, ddcol;
	bool ddname = datadog_anon(pp_str(p, f->name), f->line, &ddcol);
	if (column <= 0)
		column = ddcol; /* the bundle's own position: not mapped before */
	bool hascol = column > 0;
	if (hascol) {
		r = smap_lookup(m, line, (uint32_t)(column - 1), &mp);
	} else {
		*nocolumn = true;
		r = smap_lookup_line(m, line, &mp);
	}
	const char *w = smap_map_warning(m);
	if (w)
		pp_warn(p, "%s: part of the source map skipped: %s",
			s->map_path ? s->map_path : s->key, w);
	if (r != SMAP_OK || !mp.source)
		return r == SMAP_ENOMEM ? pp_nomem(p) : PPROF_OK;

	struct pp_frame nf = *f;
	nf.flags |= PP_FRAME_MAPPED | (mp.ignored ? PP_FRAME_IGNORED : 0);
	int st = pp_intern_cstr(p, mp.source, &nf.file);
	if (st)
		return st;
	nf.line = (int64_t)mp.line + 1;
	nf.column = hascol ? (int64_t)mp.column + 1 : 0;
	if (!s->fn_line)
		s->fn_line = f->line;
	else if (s->fn_line != f->line)
		s->fn_lines = true;
	if (f->at_line > 0 && (st = map_at_line(y, s, m, f, &mp, &nf)) != PPROF_OK)
		return st;
	const char *name = NULL;
	size_t namelen = 0;
	const char *v8name = pp_str(p, f->name);
	/* V8's own functions (<instance_members_initializer>) keep their name */
	if (hascol && v8name[0] != '<') {
		struct smap_function fn;
		if (smap_function_at(m, line, (uint32_t)(column - 1), &fn) != SMAP_OK)
			return pp_nomem(p);
		/* the script and map are another build's there: the frame is
		 * left as V8 has it */
		if (other_build(&fn, v8name) || (s->clean && moved(&fn))) {
			if (!s->foreign++)
				s->foreign_name = v8name;
			return PPROF_OK;
		}
		if (fn.name) {
			name = fn.name[0] ? fn.name : "(anonymous)";
			namelen = strlen(name);
		}
	}
	/* a generated position in a datadog name is no name for the original:
	 * V8 names the function "" */
	if (!name && ddname) {
		name = "(anonymous)";
		namelen = 11;
	}
	if (name && (st = pp_intern(p, name, namelen, &nf.name)) != PPROF_OK)
		return st;
	return pp_frame_intern(p, &nf, out);
}

/* Adds PATH to the profile's map files used, once. */
static int record_map(struct pprof_profile *p, const char *path)
{
	struct pp_umap **t = &p->umaps;
	for (; *t; t = &(*t)->next)
		if (strcmp((*t)->path, path) == 0)
			return PPROF_OK;
	size_t n = strlen(path) + 1;
	struct pp_umap *u = pp_arena_alloc(&p->arena, sizeof(*u));
	char *c = pp_arena_alloc(&p->arena, n);
	if (!u || !c)
		return pp_nomem(p);
	memcpy(c, path, n);
	*u = (struct pp_umap){NULL, c};
	*t = u;
	return PPROF_OK;
}

int pprof_profile_has_sourcemaps(const struct pprof_profile *p)
{
	return p->emaps != NULL;
}

int pprof_symbolicate(struct pprof_profile *p, const struct pprof_symbolicate_options *o)
{
	struct symb y = {p, o->rules, o, NULL, 0, 0};
	/* folded lines become frames of the tree first */
	int status = pp_settle(p);
	if (status != PPROF_OK)
		return status;
	uint32_t *map = NULL;
	/* The maps the input carried, keyed by their script's whole URL, come
	 * first (the first of a URL wins). */
	for (const struct pp_emap *e = p->emaps; e; e = e->next) {
		struct script *s = add_script(&y, pp_str(p, e->url));
		if (!s) {
			status = pp_nomem(p);
			goto out;
		}
		if (s->map_text)
			continue;
		if (!(s->map_text = malloc(e->len ? e->len : 1))) {
			status = pp_nomem(p);
			goto out;
		}
		memcpy(s->map_text, e->text, e->len);
		s->map_len = e->len;
	}
	for (size_t i = 0; i < o->nmaps && status == PPROF_OK; i++) {
		struct stat st;
		if (stat(o->maps[i], &st) != 0) {
			status = pp_error(p, PPROF_EIO, "%s: %s", o->maps[i], strerror(errno));
			goto out;
		}
		status = S_ISDIR(st.st_mode) ? scan_dir(&y, o->maps[i]) : add_map_file(&y, o->maps[i]);
	}
	if (status != PPROF_OK)
		goto out;
	uint32_t nframes = p->nframes; /* frames added below are already mapped */
	map = malloc((size_t)nframes * sizeof(*map));
	if (!map) {
		status = pp_nomem(p);
		goto out;
	}
	map[0] = 0;
	/* the positions of each script's frames, to check its map first */
	{
		struct fpos *fp = malloc((size_t)nframes * sizeof(*fp));
		size_t nfp = 0;
		if (!fp) {
			status = pp_nomem(p);
			goto out;
		}
		for (uint32_t f = 1; f < nframes && status == PPROF_OK; f++) {
			const struct pp_frame *fr = &p->frames[f];
			if (!fr->file || fr->line <= 0 || fr->column <= 0 ||
			    (fr->flags & PP_FRAME_MAPPED))
				continue;
			const char *url = pp_str(p, fr->file);
			struct script *s = rules_script(&y, url, &status);
			if (!s)
				s = find_script(&y, url);
			if (s && fr->line - 1 <= UINT32_MAX && fr->column - 1 <= UINT32_MAX)
				fp[nfp++] = (struct fpos){s, (uint32_t)(fr->line - 1),
							  (uint32_t)(fr->column - 1), fr->name};
		}
		/* rules_script() may have moved the scripts: find them again */
		if (status == PPROF_OK) {
			nfp = 0;
			for (uint32_t f = 1; f < nframes; f++) {
				const struct pp_frame *fr = &p->frames[f];
				if (!fr->file || fr->line <= 0 || fr->column <= 0 ||
				    (fr->flags & PP_FRAME_MAPPED))
					continue;
				const char *url = pp_str(p, fr->file);
				struct script *s = NULL;
				for (size_t k = 0; k < y.n && !s; k++)
					if (strcmp(y.s[k].key, url) == 0)
						s = &y.s[k];
				if (!s)
					s = find_script(&y, url);
				if (s && fr->line - 1 <= UINT32_MAX && fr->column - 1 <= UINT32_MAX)
					fp[nfp++] = (struct fpos){s, (uint32_t)(fr->line - 1),
								  (uint32_t)(fr->column - 1), fr->name};
			}
			qsort(fp, nfp, sizeof(*fp), cmp_fpos);
			status = check_fit(&y, fp, nfp);
		}
		free(fp);
		if (status != PPROF_OK)
			goto out;
	}
	bool nocolumn = false, changed = false;
	for (uint32_t f = 1; f < nframes && status == PPROF_OK; f++) {
		status = symbolicate_frame(&y, f, &map[f], &nocolumn);
		if (map[f] != f)
			changed = true;
	}
	if (status != PPROF_OK)
		goto out;
	if (nocolumn)
		pp_warn(p, "the profile has no columns: frames of one-line bundles map only where "
			   "a whole generated line agrees");
	for (size_t i = 0; i < y.n; i++)
		if (o->lines &&
		    ((y.s[i].lines_lost & 2) || (y.s[i].lines_lost && !y.s[i].fn_lines)))
			pp_warn(p, "%s: sampled lines map to several original lines (a one-line "
				   "bundle?): those leaves keep their function's line",
				y.s[i].map_path ? y.s[i].map_path : y.s[i].key);
	for (size_t i = 0; i < y.n; i++)
		if (y.s[i].foreign)
			pp_warn(p,
				"%s: at %u function%s of %s (%s%s) the script starts no function or "
				"another, or the map's segments start inside its tokens (a build "
				"other than the profile's?): left unmapped",
				y.s[i].map_path ? y.s[i].map_path : y.s[i].key, y.s[i].foreign,
				y.s[i].foreign > 1 ? "s" : "", y.s[i].key,
				y.s[i].foreign_name[0] ? y.s[i].foreign_name : "(anonymous)",
				y.s[i].foreign > 1 ? ", ..." : "");
	for (size_t i = 0; i < y.n; i++)
		stale_sources(&y, &y.s[i]);
	if (o->hide_ignored) {
		for (uint32_t f = 1; f < nframes; f++)
			if (p->frames[map[f]].flags & PP_FRAME_IGNORED) {
				map[f] = 0;
				changed = true;
			}
	}
	if (changed)
		status = pp_remap_frames(p, map);
	/* the map files used, for pprof-top --list's sources */
	for (size_t i = 0; i < y.n && status == PPROF_OK; i++)
		if (y.s[i].map && !y.s[i].unfit && y.s[i].map_path)
			status = record_map(p, y.s[i].map_path);
out:
	free(map);
	for (size_t i = 0; i < y.n; i++) {
		settle(&y, &y.s[i]);
		smap_map_free(y.s[i].map);
		free(y.s[i].key);
		free(y.s[i].script_path);
		free(y.s[i].map_path);
		free(y.s[i].map_text);
		free(y.s[i].text);
	}
	free(y.s);
	return status;
}
