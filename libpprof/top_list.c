/* top_list.c: go tool pprof's -list (internal/report's printSource): for
 * each function whose name matches, per source file, flat and cum of each
 * of its lines beside the source text, read from the files. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "filter_private.h"
#include "sourcemap.h"
#include "top_private.h"

/* The source maps whose sourcesContent may hold a file's text: the map
 * files symbolication used (found under a -m directory, named, or
 * associated by the rules), the other map files named, and the maps the
 * input carries. */
struct maps {
	struct smap_map **m;
	size_t n;
};

static void maps_add_file(struct maps *ms, const char *path)
{
	struct stat st;
	struct smap_map *m;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || !(m = smap_map_new()))
		return;
	if (smap_map_load_file(m, path, 0) == SMAP_OK)
		ms->m[ms->n++] = m;
	else
		smap_map_free(m);
}

static void maps_load(const struct pprof_profile *p, const char *const *paths, size_t npaths,
		      struct maps *ms)
{
	size_t cap = npaths;
	for (const struct pp_emap *e = p->emaps; e; e = e->next)
		cap++;
	for (const struct pp_umap *u = p->umaps; u; u = u->next)
		cap++;
	ms->m = calloc(cap ? cap : 1, sizeof(*ms->m));
	ms->n = 0;
	if (!ms->m)
		return;
	for (const struct pp_umap *u = p->umaps; u; u = u->next)
		maps_add_file(ms, u->path);
	for (size_t i = 0; i < npaths; i++) {
		bool used = false;
		for (const struct pp_umap *u = p->umaps; u && !used; u = u->next)
			used = strcmp(u->path, paths[i]) == 0;
		if (!used)
			maps_add_file(ms, paths[i]);
	}
	for (const struct pp_emap *e = p->emaps; e; e = e->next) {
		struct smap_map *m = smap_map_new();
		if (m && smap_map_parse(m, e->text, e->len, 0) == SMAP_OK)
			ms->m[ms->n++] = m;
		else
			smap_map_free(m);
	}
}

static void maps_release(struct maps *ms)
{
	for (size_t i = 0; i < ms->n; i++)
		smap_map_free(ms->m[i]);
	free(ms->m);
}

/* The sourcesContent of FILE (a source's resolved name), or NULL. */
static const char *map_content(const struct maps *ms, const char *file, size_t *len)
{
	for (size_t i = 0; i < ms->n; i++)
		for (size_t k = 0; k < smap_map_source_count(ms->m[i]); k++) {
			const char *src = smap_map_source(ms->m[i], k);
			if (src && strcmp(src, file) == 0) {
				const char *c = smap_map_source_content(ms->m[i], k, len);
				if (c)
					return c;
			}
		}
	return NULL;
}

/* A node of pprof's graph at "lines": a function's line in a file. */
struct lnode {
	uint32_t name, file; /* string ids: the function's name, its file */
	int64_t line;
	int64_t flat, cum;
};

static const struct pprof_profile *sort_p;

static int str_cmp(const struct pprof_profile *p, uint32_t a, uint32_t b)
{
	return a == b ? 0 : name_cmp(pp_str(p, a), pp_strlen(p, a), pp_str(p, b), pp_strlen(p, b));
}

/* By name, file (graph.NameOrder, FileOrder), then line. */
static int lnode_cmp(const void *pa, const void *pb)
{
	const struct lnode *a = pa, *b = pb;
	int c = str_cmp(sort_p, a->name, b->name);
	if (!c)
		c = str_cmp(sort_p, a->file, b->file);
	return c ? c : (a->line > b->line) - (a->line < b->line);
}

/* pprof's trimPath with no -trim_path: the part of PATH after the base
 * name of the search path, when PATH holds it as a directory, else PATH
 * without a /proc/self/cwd/ prefix. */
static const char *trim_path(const char *path, const char *search)
{
	if (search && *search) {
		size_t n = strlen(search);
		while (n > 1 && search[n - 1] == '/')
			n--;
		const char *base = search + n;
		while (base > search && base[-1] != '/')
			base--;
		size_t bl = (size_t)(search + n - base);
		for (const char *at = path; bl && (at = strchr(at, '/')); at++)
			if (strncmp(at + 1, base, bl) == 0 && at[1 + bl] == '/')
				return at + 2 + bl;
	}
	static const char *const cwd[] = {"/proc/self/cwd/./", "/proc/self/cwd/"};
	for (int i = 0; i < 2; i++)
		if (strncmp(path, cwd[i], strlen(cwd[i])) == 0)
			return path + strlen(cwd[i]);
	return path;
}

/* F when it is a regular file (a profile may name /dev/zero), else NULL
 * with F closed. */
static FILE *regular(FILE *f)
{
	struct stat st;
	if (f && (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode))) {
		fclose(f);
		errno = EINVAL; /* said as "not a regular file" */
		return NULL;
	}
	return f;
}

/* Opens FILE as pprof's openSourceFile: an absolute path as it is, a
 * relative one under the search path or any directory above it.  On
 * failure *WHY is pprof's message. */
static FILE *open_source(const char *file, const char *search, struct pp_buf *why)
{
	const char *path = trim_path(file, search);
	if (path[0] == '/') {
		FILE *f = regular(fopen(path, "r"));
		if (!f)
			pp_buf_addf(why, "open %s: %s", path,
				    errno == ENOENT   ? "no such file or directory"
				    : errno == EINVAL ? "not a regular file"
						      : strerror(errno));
		return f;
	}
	struct pp_buf dir, name;
	pp_buf_init(&dir);
	pp_buf_init(&name);
	pp_buf_add(&dir, search, strlen(search));
	FILE *f = NULL;
	for (;;) {
		name.len = 0;
		if (!pp_buf_addf(&name, "%s/%s", dir.s, path))
			break;
		if ((f = regular(fopen(name.s, "r"))))
			break;
		/* the parent directory, up to the root */
		char *slash = strrchr(dir.s, '/');
		if (!slash || dir.len <= 1)
			break;
		dir.len = slash == dir.s ? 1 : (size_t)(slash - dir.s);
		dir.s[dir.len] = '\0';
	}
	if (!f)
		pp_buf_addf(why, "could not find file %s on path %s", path, search);
	pp_buf_release(&dir);
	pp_buf_release(&name);
	return f;
}

static void value_or_dot(char *buf, size_t size, int64_t v, const char *from, const char *to)
{
	if (v == 0)
		snprintf(buf, size, ".");
	else
		pprof_value_label(buf, size, v, from, to);
}

/* The lines of one function in one file: N[0 .. n), sorted by line. */
static int write_routine(struct pprof_profile *p, const struct lnode *n, size_t k,
			 const struct maps *ms, const char *given, const char *search,
			 const char *from, const char *to, int64_t total, FILE *out)
{
	int64_t flat = 0, cum = 0;
	for (size_t i = 0; i < k; i++) {
		flat += n[i].flat;
		cum += n[i].cum;
	}
	char a[160], b[160], pct[32];
	const char *file = pp_str(p, n[0].file);
	/* pprof trims the name against the search path given, and again
	 * against the one it reads under (the current directory by default) */
	file = trim_path(file, given);
	fprintf(out, "ROUTINE ======================== %s in %s\n", pp_str(p, n[0].name), file);
	pprof_value_label(a, sizeof(a), flat, from, to);
	pprof_value_label(b, sizeof(b), cum, from, to);
	pp_percentage(pct, sizeof(pct), cum, total);
	fprintf(out, "%10s %10s (flat, cum) %s of Total\n", a, b, pct);
	struct pp_buf why;
	pp_buf_init(&why);
	/* a source map's copy of the file first, as DevTools shows it */
	size_t clen = 0;
	const char *content = map_content(ms, pp_str(p, n[0].file), &clen);
	FILE *src = content ? fmemopen((void *)content, clen, "r") : NULL;
	if (!src)
		src = open_source(file, search, &why);
	if (!src) {
		fprintf(out, " Error: %s\n", why.s);
		pp_buf_release(&why);
		return PPROF_OK;
	}
	pp_buf_release(&why);
	/* five lines of margin before the first line and after the last */
	int64_t start = n[0].line - 5, end = n[k - 1].line + 5, lineno = 0;
	if (start < 1)
		start = 1;
	struct pp_buf line;
	pp_buf_init(&line);
	size_t j = 0;
	int c = 0;
	while (c != EOF && lineno < end) {
		line.len = 0;
		while ((c = getc(src)) != EOF && c != '\n')
			if (!pp_buf_addc(&line, (char)c)) {
				fclose(src);
				pp_buf_release(&line);
				return pp_nomem(p);
			}
		if (c == EOF && line.len == 0)
			break;
		line.s[line.len] = '\0';
		lineno++;
		int64_t lf = 0, lc = 0;
		while (j < k && n[j].line < lineno)
			j++;
		for (; j < k && n[j].line == lineno; j++) {
			lf += n[j].flat;
			lc += n[j].cum;
		}
		if (lineno < start)
			continue;
		value_or_dot(a, sizeof(a), lf, from, to);
		value_or_dot(b, sizeof(b), lc, from, to);
		fprintf(out, "%10s %10s %6lld:%s\n", a, b, (long long)lineno, line.s);
	}
	fclose(src);
	pp_buf_release(&line);
	return PPROF_OK;
}

int pprof_list_write(struct pprof_profile *p, const struct pprof_list_options *o, FILE *out)
{
	if (o->sample_index < 0 || (uint32_t)o->sample_index >= p->ntypes)
		return pp_error(p, PPROF_EUSAGE, "no sample type selected");
	uint32_t sel = (uint32_t)o->sample_index;
	int err = 0;
	size_t off = 0;
	pcre2_code *re = pp_re_compile(o->regex, strlen(o->regex), &err, &off);
	if (!re) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(err, msg, sizeof(msg));
		return pp_error(p, PPROF_EUSAGE, "--list: bad regex '%s': %s (at offset %zu)",
				o->regex, (const char *)msg, off);
	}
	struct top_work t;
	memset(&t, 0, sizeof(t));
	t.p = p;
	struct maps ms = {NULL, 0};
	struct lnode *nodes = NULL;
	uint32_t *rep = NULL;
	struct pp_buf b;
	pp_buf_init(&b);
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	int64_t total = 0;
	int s = md ? pp_top_sum(&t, sel, PPROF_G_LINES, &total) : pp_nomem(p);
	if (s != PPROF_OK)
		goto out;
	if (o->report && o->report->totals && sel < o->report->ntypes)
		total = o->report->totals[sel];
	/* a frame of each node: its first */
	rep = calloc(t.nfn ? t.nfn : 1, sizeof(*rep));
	nodes = malloc((t.nfn ? t.nfn : 1) * sizeof(*nodes));
	if (!rep || !nodes) {
		s = pp_nomem(p);
		goto out;
	}
	for (uint32_t f = p->nframes; f-- > 1;)
		rep[t.ffun[f]] = f;
	size_t n = 0;
	bool any = false;
	for (uint32_t k = 0; k < t.nfn; k++) {
		if (!t.fn[k].flat && !t.fn[k].cum)
			continue;
		const struct pp_frame *fr = &p->frames[rep[k]];
		/* a location without a function has no name to pprof here */
		b.len = 0;
		b.s[0] = '\0';
		if (!(fr->flags & PP_FRAME_NO_SYMBOL) &&
		    !pp_frame_name(p, rep[k], PPROF_G_FUNCTIONS, &b)) {
			s = pp_nomem(p);
			goto out;
		}
		if (!pp_re_match(re, b.s, b.len, md))
			continue;
		any = true;
		struct lnode *ln = &nodes[n];
		if ((s = pp_intern(p, b.s, b.len, &ln->name)) != PPROF_OK)
			goto out;
		ln->file = 0;
		if (fr->file) {
			b.len = 0;
			if (!pp_frame_name(p, rep[k], PPROF_G_FILES, &b)) {
				s = pp_nomem(p);
				goto out;
			}
			if ((s = pp_intern(p, b.s, b.len, &ln->file)) != PPROF_OK)
				goto out;
		}
		ln->line = fr->at_line ? fr->at_line : fr->line;
		ln->flat = t.fn[k].flat;
		ln->cum = t.fn[k].cum;
		n++;
	}
	if (!any) {
		s = pp_error(p, PPROF_EINPUT, "no matches found for regexp: %s", o->regex);
		goto out;
	}
	sort_p = p;
	qsort(nodes, n, sizeof(*nodes), lnode_cmp);
	const char *from = pp_str(p, p->types[sel].unit);
	const char *to = o->unit ? o->unit : "minimum";
	const char *search = o->source_path;
	char cwd[4096];
	if (!search)
		search = getcwd(cwd, sizeof(cwd)) ? cwd : ".";
	maps_load(p, o->maps, o->nmaps, &ms);
	errno = 0;
	char tl[160];
	pprof_value_label(tl, sizeof(tl), total, from, to);
	fprintf(out, "Total: %s\n", tl);
	for (size_t i = 0, j; i < n; i = j) {
		bool files = false;
		for (j = i; j < n && nodes[j].name == nodes[i].name; j++)
			files |= nodes[j].file != 0;
		if (!files) {
			fprintf(out, "No source information for %s\n", pp_str(p, nodes[i].name));
			continue;
		}
		for (size_t f = i, g; f < j; f = g) {
			for (g = f; g < j && nodes[g].file == nodes[f].file; g++)
				;
			if (!nodes[f].file)
				continue;
			s = write_routine(p, nodes + f, g - f, &ms, o->source_path, search, from,
					  to, total, out);
			if (s != PPROF_OK)
				goto out;
		}
	}
	s = pp_write_status(out);
out:
	pp_buf_release(&b);
	maps_release(&ms);
	free(rep);
	free(nodes);
	pp_top_work_release(&t);
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return s;
}
