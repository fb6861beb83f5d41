/*
 * srcfile.c: the texts of a map's sources when the map holds none: a
 * source's file under the source directory (smap_map_set_source_dir()) or
 * found from the map's own location (smap_map_set_location()), taken only
 * when the map's positions fit it; and, for an index map, the one source
 * that stands for each file its sections name.
 */
#include "names_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SOURCE_FILE_MAX ((size_t)64 << 20)

/* The text of the regular file PATH (malloc'd, NUL after it), or NULL. */
static char *read_path(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct stat st;
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
		fclose(f);
		return NULL;
	}
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap + 1);
	while (buf) {
		if (n == cap) {
			char *nb = cap >= SOURCE_FILE_MAX ? NULL : realloc(buf, cap * 2 + 1);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0) {
			if (ferror(f)) {
				free(buf);
				buf = NULL;
			}
			break;
		}
	}
	fclose(f);
	if (!buf)
		return NULL;
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* The text of file DIR/NAME (malloc'd, NUL after it), or NULL. */
static char *read_under(const char *dir, const char *name, size_t *len)
{
	size_t dl = strlen(dir), nl = strlen(name);
	while (dl > 1 && dir[dl - 1] == '/')
		dl--;
	while (nl && *name == '/') {
		name++;
		nl--;
	}
	if (!nl)
		return NULL;
	char *path = malloc(dl + nl + 2);
	if (!path)
		return NULL;
	memcpy(path, dir, dl);
	path[dl] = '/';
	memcpy(path + dl + 1, name, nl + 1);
	char *text = read_path(path, len);
	free(path);
	return text;
}

/* Whether a "sources" entry has a ".." segment. */
static bool climbs(const char *s)
{
	for (const char *p = s; (p = strstr(p, "..")) != NULL; p += 2)
		if ((p == s || p[-1] == '/' || p[-1] == '\\') &&
		    (p[2] == '\0' || p[2] == '/' || p[2] == '\\'))
			return true;
	return false;
}

/* Source I's file under the source directory, or NULL. */
static char *from_srcdir(struct smap_map *m, struct pp_smap_names *n, size_t i, size_t *len)
{
	const char *res = m->src[i].resolved, *raw = m->src[i].raw;
	char *text = NULL;
	if (res) {
		/* without "scheme:" and "//authority" */
		const char *p = res, *q = res;
		while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
		       (*q >= '0' && *q <= '9') || *q == '+' || *q == '-' || *q == '.')
			q++;
		if (*q == ':' && q - res >= 2) {
			p = q + 1;
			if (p[0] == '/' && p[1] == '/') {
				const char *sl = strchr(p + 2, '/');
				p = sl ? sl : p + strlen(p);
			}
		}
		if (!climbs(p))
			text = read_under(n->srcdir, p, len);
	}
	if (!text && raw && !climbs(raw) && (!res || strcmp(raw, res) != 0))
		text = read_under(n->srcdir, raw, len);
	return text;
}

/* The path source I's URL names from the map's location: sourceRoot and
 * the source joined with a "/" when needed (a source that is an absolute
 * URL alone), then as smap_url_to_path() reads a URL (relative to the
 * map's file; "file:" as its path; other schemes are no file). */
static char *located_path(struct smap_map *m, struct pp_smap_names *n, size_t i)
{
	const char *raw = m->src[i].raw, *root = m->src[i].root;
	if (!raw || !*raw)
		return NULL;
	if (!root || pp_smap_scheme_len(raw))
		root = "";
	size_t rl = strlen(root), sl = strlen(raw);
	bool slash = rl && root[rl - 1] != '/' && raw[0] != '/';
	char *url = malloc(rl + slash + sl + 1);
	if (!url)
		return NULL;
	memcpy(url, root, rl);
	if (slash)
		url[rl] = '/';
	memcpy(url + rl + slash, raw, sl + 1);
	char *path = smap_url_to_path(n->location, url, rl + slash + sl);
	free(url);
	return path;
}

/* Offsets of the starts of S's lines (a line ends at "\n", "\r\n", a
 * lone "\r", LS or PS), and one past the end: malloc'd, *NL lines. */
static size_t *line_starts(const char *s, size_t len, size_t *nl)
{
	size_t cap = 64, n = 0;
	size_t *v = malloc(cap * sizeof(*v));
	if (!v)
		return NULL;
	v[n++] = 0;
	for (size_t i = 0; i < len; i++) {
		size_t next = 0;
		if (s[i] == '\n')
			next = i + 1;
		else if (s[i] == '\r')
			next = i + 1 < len && s[i + 1] == '\n' ? i + 2 : i + 1;
		else if ((unsigned char)s[i] == 0xe2 && i + 2 < len &&
			 (unsigned char)s[i + 1] == 0x80 &&
			 ((unsigned char)s[i + 2] == 0xa8 || (unsigned char)s[i + 2] == 0xa9))
			next = i + 3;
		if (!next)
			continue;
		if (n + 1 >= cap) {
			size_t *nv = realloc(v, cap * 2 * sizeof(*v));
			if (!nv) {
				free(v);
				return NULL;
			}
			v = nv;
			cap *= 2;
		}
		v[n++] = next;
		i = next - 1;
	}
	*nl = n;
	v[n] = len;
	return v;
}

/* The byte offset of UTF-16 column COL of the line [B, E) of S, or
 * SIZE_MAX past its end. */
static size_t col_at(const char *s, size_t b, size_t e, uint32_t col)
{
	uint32_t c = 0;
	size_t i = b;
	while (c < col && i < e) {
		unsigned char x = (unsigned char)s[i];
		i += x < 0xc0 ? 1 : x < 0xe0 ? 2 : x < 0xf0 ? 3 : 4;
		c += x >= 0xf0 ? 2 : 1;
	}
	return c == col && i <= e ? i : SIZE_MAX;
}

static bool space_byte(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool ident_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$' || c >= 0x80;
}

/* Whether S is the text the map was made from for source I: bundlers map
 * to the first character of a token, so at most 1 in 10 of the mapped
 * positions in it may lie off its lines, on white space or inside a word
 * (a file edited since the build has its positions land anywhere), not
 * counting the first column of an indented line nor the white space just
 * past a token, as long as they are no more than half.  The first FIT_SAMPLE
 * positions are enough to tell.  The counts go to L. */
#define FIT_SAMPLE 4096
static bool file_fits(struct smap_map *m, size_t i, const char *s, size_t len, struct located *l)
{
	size_t nl;
	size_t *ls = line_starts(s, len, &nl);
	if (!ls)
		return false;
	unsigned bad = 0, total = 0, skipped = 0;
	for (size_t k = 0; k < m->nsec; k++) {
		struct pp_smap_section *sec = &m->sec[k];
		bool has = false;
		for (uint32_t j = 0; j < sec->nsrc && !has; j++)
			has = pp_smap_canon(m, sec->src_base + j) == i;
		if (!has || !sec->mappings || (!sec->lz && pp_smap_index_lines(m, sec)))
			continue;
		for (uint32_t ln = 0; ln < sec->lz->nlines && total + skipped < FIT_SAMPLE; ln++) {
			uint32_t cnt = 0;
			int rc = 0;
			const struct pp_smap_seg *g = pp_smap_line_segs(m, sec, ln, &cnt, &rc);
			if (rc)
				break;
			for (uint32_t q = 0; q < cnt; q++) {
				if (pp_smap_canon(m, sec->src_base + g[q].src) != i)
					continue;
				size_t at = g[q].oline < nl ? col_at(s, ls[g[q].oline],
								     ls[g[q].oline + 1], g[q].ocol)
							    : SIZE_MAX;
				unsigned char c = at < len ? (unsigned char)s[at] : ' ';
				bool ws = space_byte(c);
				/* the start of an indented line, where maps
				 * chained through a library's own (babel's,
				 * rollup's) put a statement, and just past a
				 * token, where tsc puts an expression's end: no
				 * sign either way */
				if (at < len && ws &&
				    (g[q].ocol == 0 ||
				     (at > 0 && !space_byte((unsigned char)s[at - 1])))) {
					skipped++;
					continue;
				}
				total++;
				if (ws || (ident_byte(c) && at > 0 &&
					   ident_byte((unsigned char)s[at - 1])))
					bad++;
			}
		}
	}
	free(ls);
	/* told as they lie: the skipped ones are on white space */
	l->bad = bad + skipped;
	l->named = total + skipped;
	/* and those that tell must be half of them at least */
	return (uint64_t)bad * 10 <= total && skipped <= total;
}

/* Source I's file found from the map's location, when it fits, or NULL. */
static char *from_location(struct smap_map *m, struct pp_smap_names *n, size_t i, size_t *len)
{
	if (!n->located && !(n->located = calloc(n->nsrc, sizeof(*n->located))))
		return NULL;
	char *path = located_path(m, n, i);
	char *text = path ? read_path(path, len) : NULL;
	if (!text) {
		free(path);
		return NULL;
	}
	struct located *l = &n->located[i];
	l->path = path;
	if (!file_fits(m, i, text, *len, l)) {
		l->stale = true;
		free(text);
		return NULL;
	}
	return text;
}

/* Source I's text from a file (the source directory first), or NULL. */
const char *pp_smap_source_file(struct smap_map *m, struct pp_smap_names *n, size_t i, size_t *len)
{
	if (!n->srcdir && !n->location)
		return NULL;
	if (!n->files && !(n->files = calloc(n->nsrc, sizeof(*n->files))))
		return NULL;
	char *text = n->srcdir ? from_srcdir(m, n, i, len) : NULL;
	if (!text && n->location)
		text = from_location(m, n, i, len);
	n->files[i] = text;
	return text;
}

enum smap_source_file smap_map_source_file(struct smap_map *m, size_t i, const char **path,
					   unsigned *bad, unsigned *checked)
{
	struct pp_smap_names *n = m->names;
	if (!n || !n->located || i >= n->nsrc || pp_smap_canon(m, i) != i || !n->located[i].path)
		return SMAP_FILE_NONE;
	const struct located *l = &n->located[i];
	if (path)
		*path = l->path;
	if (bad)
		*bad = l->bad;
	if (checked)
		*checked = l->named;
	return l->stale ? SMAP_FILE_STALE : SMAP_FILE_USED;
}

struct named_src {
	const char *name; /* resolved, NULL for a null source */
	uint32_t i;
};

static int by_name(const void *a, const void *b)
{
	const struct named_src *x = a, *y = b;
	int c = strcmp(x->name ? x->name : "", y->name ? y->name : "");
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* The canonical index of source I: of the sources of its resolved name,
 * the first with a sourcesContent entry, else the first.  A regular map
 * is its own (its sources are distinct, or it is their business). */
size_t pp_smap_canon(struct smap_map *m, size_t i)
{
	struct pp_smap_names *n = pp_smap_names_of(m);
	if (!n || !m->index || i >= m->nsrc || m->nsrc > UINT32_MAX)
		return i;
	if (!n->canon_tried) {
		n->canon_tried = true;
		struct named_src *v = malloc(m->nsrc * sizeof(*v));
		n->canon = malloc(m->nsrc * sizeof(*n->canon));
		if (!v || !n->canon) {
			free(v);
			free(n->canon);
			n->canon = NULL;
			return i;
		}
		for (size_t k = 0; k < m->nsrc; k++) {
			v[k].name = m->src[k].resolved;
			v[k].i = (uint32_t)k;
		}
		qsort(v, m->nsrc, sizeof(*v), by_name);
		for (size_t a = 0, b; a < m->nsrc; a = b) {
			uint32_t pick = v[a].i;
			for (b = a + 1; b < m->nsrc && v[a].name && v[b].name &&
					strcmp(v[a].name, v[b].name) == 0;
			     b++)
				if (!m->src[pick].craw && m->src[v[b].i].craw)
					pick = v[b].i;
			for (size_t k = a; k < b; k++)
				n->canon[v[k].i] = v[a].name ? pick : v[k].i;
		}
		free(v);
	}
	return n->canon ? n->canon[i] : i;
}
