/* fuzz_sourcemap.c: libFuzzer harness of the source map library: the map
 * parsed leniently and strictly, look-ups over a grid of positions, the
 * sources listed; the map loaded from a file (sourcesContent and mappings
 * left in the file's mapping) and prepared ahead (smap_map_prepare(),
 * smap_map_prepare_functions() on two threads, beside
 * smap_map_prepare_script() on a thread from before the map is read)
 * answering as the parsed one; the look-ups on lines cut into
 * blocks against the lines decoded whole; smap_lookup_many() against
 * one look-up at a time; and the same
 * bytes taken as a script (its sourceMappingURL comment) and as a data:
 * URL.
 * Seeds: the fixtures' maps and the ECMA-426 conformance suite. */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "smap_private.h"
#include "sourcemap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *s)
{
	fprintf(stderr, "fuzz_sourcemap: broken promise: %s: %.200s\n", what, s ? s : "");
	abort();
}

static void check_message(const char *m)
{
	if (!m || !*m)
		fail("failure without a message", "");
	if (strchr(m, '\n') || strchr(m, '\r'))
		fail("message of more than one line", m);
}

static void check_mapping(struct smap_map *m, const struct smap_mapping *r,
			  uint32_t line, uint32_t column)
{
	if (r->source_index != SIZE_MAX) {
		if (r->source_index >= smap_map_source_count(m))
			fail("source index out of range", "");
		const char *s = smap_map_source(m, r->source_index);
		if ((s == NULL) != (r->source == NULL) || (s && strcmp(s, r->source)))
			fail("look-up source differs from smap_map_source()", r->source);
	} else if (r->source) {
		fail("source without an index", r->source);
	}
	if (r->generated_line != line || r->generated_column > column)
		fail("segment found after the position asked", "");
	if (r->name)
		(void)strlen(r->name);
}

static const uint32_t lines[] = {0, 1, 2, 3, 7, 100, 65535, UINT32_MAX};
static const uint32_t cols[] = {0, 1, 2, 5, 10, 17, 100, 1000, UINT32_MAX};

static void lookups(struct smap_map *m)
{
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct smap_mapping r;
		int s = smap_lookup_line(m, lines[i], &r);
		if (s == SMAP_OK)
			check_mapping(m, &r, lines[i], UINT32_MAX);
		else if (s != SMAP_NONE)
			check_message(smap_map_error(m));
		for (size_t k = 0; k < sizeof(cols) / sizeof(cols[0]); k++) {
			s = smap_lookup(m, lines[i], cols[k], &r);
			if (s == SMAP_OK)
				check_mapping(m, &r, lines[i], cols[k]);
			else if (s != SMAP_NONE)
				check_message(smap_map_error(m));
			const char *name;
			s = smap_lookup_function(m, lines[i], cols[k], &name);
			if (s == SMAP_OK && name)
				(void)strlen(name);
			else if (s != SMAP_OK && s != SMAP_NONE)
				check_message(smap_map_error(m));
		}
	}
	(void)smap_map_has_scopes(m);
}

static void sources(struct smap_map *m)
{
	size_t n = smap_map_source_count(m);
	for (size_t i = 0; i <= n && i < 64; i++) {
		const char *s = smap_map_source(m, i);
		const char *raw = smap_map_source_raw(m, i);
		size_t len = 0;
		const char *c = smap_map_source_content(m, i, &len);
		if (i == n && (s || raw || c))
			fail("a source past the count", s);
		if (s)
			(void)strlen(s);
		if (raw)
			(void)strlen(raw);
		if (c && c[len] != '\0')
			fail("source content without a NUL after it", "");
		(void)smap_map_source_ignored(m, i);
	}
	const char *f = smap_map_file(m);
	if (f)
		(void)strlen(f);
	(void)smap_map_is_index(m);
}

/* Name recovery (funcname.c) at a few positions: without a script, then
 * with the first source's content as the generated script, so that the
 * script's tokens meet the map's segments (the fit checks). */
static void functions(struct smap_map *m)
{
	static const uint32_t pos[][2] = { { 0, 0 }, { 0, 1 }, { 0, 9 }, { 1, 0 }, { 2, 4 } };
	struct smap_function fn;
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			size_t len = 0;
			const char *c = smap_map_source_count(m) ? smap_map_source_content(m, 0, &len) : NULL;
			if (!c || smap_map_set_script(m, c, len) != SMAP_OK)
				return;
		}
		for (size_t i = 0; i < sizeof(pos) / sizeof(pos[0]); i++) {
			if (smap_function_at(m, pos[i][0], pos[i][1], &fn) != SMAP_OK) {
				check_message(smap_map_error(m));
				return;
			}
			if (fn.name)
				(void)strlen(fn.name);
			if (fn.token)
				(void)strlen(fn.token);
		}
	}
	(void)smap_map_generated_lines(m);
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void *prepare_script(void *m)
{
	(void)smap_map_prepare_script(m);
	return NULL;
}

/* What pp_smap_find_seg() must answer, from a whole line's sorted
 * segments V[N]. */
static const struct pp_smap_seg *find_in(const struct pp_smap_seg *v, size_t n, uint32_t c,
					 bool below)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].gcol < c || (!below && v[mid].gcol == c))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	lo--;
	if (v[lo].gcol == c)
		while (lo > 0 && v[lo - 1].gcol == c)
			lo--;
	return &v[lo];
}

/* smap_lookup_many() over the grid of positions in a scrambled order
 * (with duplicates) against smap_lookup() one by one, on two parses of
 * the map: the same answers and, after them, the same warning. */
static void compare_many(const uint8_t *data, size_t size)
{
	enum {
		NL = sizeof(lines) / sizeof(lines[0]),
		NC = sizeof(cols) / sizeof(cols[0]),
		N = 2 * NL * NC
	};
	static uint32_t pl[N], pc[N];
	static struct smap_mapping out[N];
	static int rc[N];
	struct smap_map *a = smap_map_new(), *b = smap_map_new();
	uint32_t x = (uint32_t)size;

	if (!a || !b || smap_map_parse(a, data, size, 0) != SMAP_OK ||
	    smap_map_parse(b, data, size, 0) != SMAP_OK)
		goto out;
	for (size_t i = 0; i < N; i++) {
		pl[i] = lines[(i / NC) % NL];
		pc[i] = cols[i % NC];
	}
	for (size_t i = N - 1; i > 0; i--) {
		x = x * 1103515245u + 12345u + (size ? data[i % size] : 0);
		size_t k = (x >> 8) % (i + 1);
		uint32_t t = pl[i];
		pl[i] = pl[k];
		pl[k] = t;
		t = pc[i];
		pc[i] = pc[k];
		pc[k] = t;
	}
	int first = SMAP_OK, got = smap_lookup_many(b, N, pl, pc, out, rc);
	for (size_t i = 0; i < N; i++) {
		struct smap_mapping r;
		int want = smap_lookup(a, pl[i], pc[i], &r);
		if (want != rc[i])
			fail("smap_lookup_many(): another status", "");
		if (want != SMAP_OK && want != SMAP_NONE && first == SMAP_OK)
			first = want;
		if (want == SMAP_OK &&
		    (!same_str(r.source, out[i].source) || !same_str(r.name, out[i].name) ||
		     r.source_index != out[i].source_index || r.line != out[i].line ||
		     r.column != out[i].column || r.ignored != out[i].ignored ||
		     r.generated_line != out[i].generated_line ||
		     r.generated_column != out[i].generated_column))
			fail("smap_lookup_many(): another mapping", r.source);
	}
	if (got != first)
		fail("smap_lookup_many(): another status returned", "");
	if (first == SMAP_OK && !same_str(smap_map_warning(a), smap_map_warning(b)))
		fail("smap_lookup_many(): another warning", smap_map_warning(b));
out:
	smap_map_free(a);
	smap_map_free(b);
}

/* The look-ups on lines cut into blocks (every line of two bytes or more
 * here), prepared ahead, against each line decoded whole. */
static void compare_blocks(const uint8_t *data, size_t size)
{
	struct smap_map *a = smap_map_new(), *b = smap_map_new();
	struct pp_smap_seg *w = NULL;
	if (!a || !b || smap_map_parse(a, data, size, 0) != SMAP_OK ||
	    smap_map_parse(b, data, size, 0) != SMAP_OK || a->nsec != 1 ||
	    smap_map_prepare(b) != SMAP_OK)
		goto out;
	struct pp_smap_section *sa = &a->sec[0], *sb = &b->sec[0];
	for (uint32_t l = 0; l < 16; l++) {
		uint32_t n;
		int rc;
		const struct pp_smap_seg *v = pp_smap_line_segs(a, sa, l, &n, &rc);
		if (rc != SMAP_OK)
			goto out;
		if (!v)
			continue;
		struct pp_smap_seg *nw = realloc(w, n * sizeof(*w));
		if (!nw)
			goto out;
		w = nw;
		memcpy(w, v, n * sizeof(*w)); /* the next decoding may move V */
		for (uint32_t j = 0; j < n && j < 512; j++) {
			for (int d = -1; d <= 1; d++) {
				uint32_t c = w[j].gcol + (uint32_t)d;
				for (int below = 0; below <= 1; below++) {
					const struct pp_smap_seg *x = find_in(w, n, c, below);
					const struct pp_smap_seg *y =
						pp_smap_find_seg(b, sb, l, c, below, &rc);
					if (rc != SMAP_OK)
						fail("blocks: a look-up failed", smap_map_error(b));
					if (!x != !y || (x && memcmp(x, y, sizeof(*x)) != 0))
						fail("blocks: another segment than the whole line's",
						     "");
				}
			}
		}
	}
out:
	free(w);
	smap_map_free(a);
	smap_map_free(b);
}

/* The map from a file, prepared ahead, against the map parsed from the
 * buffer: the same sources, names, look-ups and warnings. */
static void compare_loaded(const uint8_t *data, size_t size)
{
	static const uint32_t pos[][2] = {{0, 0}, {0, 1}, {0, 9}, {1, 0}, {2, 4}};
	int fd = memfd_create("fuzz_sourcemap", MFD_CLOEXEC);
	if (fd < 0)
		return;
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct smap_map *a = smap_map_new(), *b = smap_map_new();
	if (!a || !b || write(fd, data, size) != (ssize_t)size)
		goto out;
	int ra = smap_map_parse(a, data, size, 0);
	size_t len = 0;
	const char *c = ra == SMAP_OK && smap_map_source_count(a)
				? smap_map_source_content(a, 0, &len)
				: NULL;
	if (c && (smap_map_set_script(a, c, len) != SMAP_OK ||
		  smap_map_set_script(b, c, len) != SMAP_OK))
		goto out;
	/* B's script given before B is read (sourcemap.h allows it) and
	 * tokenized on a thread while B is read and prepared and the sources
	 * of the positions are (on two threads, whatever their size) */
	pthread_t th;
	bool threaded = c && pthread_create(&th, NULL, prepare_script, b) == 0;
	int rb = smap_map_load_file(b, path, 0), rp = SMAP_OK;
	uint32_t pl[5], pc[5];
	for (int i = 0; i < 5; i++) {
		pl[i] = pos[i][0];
		pc[i] = pos[i][1];
	}
	if (rb == SMAP_OK && (rp = smap_map_prepare(b)) == SMAP_OK) {
		size_t saved = pp_smap_jobs_min;
		pp_smap_jobs_min = 0;
		rp = smap_map_prepare_functions(b, pl, pc, 5);
		pp_smap_jobs_min = saved;
	}
	if (threaded)
		pthread_join(th, NULL);
	else if (c)
		(void)smap_map_prepare_script(b);
	if (ra != rb)
		fail("loaded from a file, another outcome than parsed", smap_map_error(b));
	if (ra != SMAP_OK || rp != SMAP_OK)
		goto out;
	for (int i = 0; i < 5; i++) {
		struct smap_function fa, fb;
		int x = smap_function_at(a, pos[i][0], pos[i][1], &fa);
		int y = smap_function_at(b, pos[i][0], pos[i][1], &fb);
		if (x != y)
			fail("prepared: smap_function_at() status differs", "");
		if (x != SMAP_OK)
			goto out;
		if (!same_str(fa.name, fb.name) || !same_str(fa.token, fb.token) ||
		    fa.from != fb.from || fa.start != fb.start || fa.mapped != fb.mapped)
			fail("prepared: another function", fa.name);
		struct smap_mapping ma, mb;
		x = smap_lookup(a, pos[i][0], pos[i][1], &ma);
		y = smap_lookup(b, pos[i][0], pos[i][1], &mb);
		if (x != y ||
		    (x == SMAP_OK && (!same_str(ma.source, mb.source) || ma.line != mb.line ||
				      ma.column != mb.column || !same_str(ma.name, mb.name))))
			fail("loaded from a file: another look-up", "");
	}
	/* once every position was asked (prepared, B may have passed lines
	 * earlier, not others) */
	if (!same_str(smap_map_warning(a), smap_map_warning(b)))
		fail("prepared: another warning", smap_map_warning(b));
	size_t n = smap_map_source_count(a);
	if (n != smap_map_source_count(b))
		fail("loaded from a file: another source count", "");
	for (size_t i = 0; i < n && i < 64; i++) {
		size_t la = 0, lb = 0;
		const char *ca = smap_map_source_content(a, i, &la);
		const char *cb = smap_map_source_content(b, i, &lb);
		if (!ca != !cb || la != lb || (ca && memcmp(ca, cb, la) != 0) || (cb && cb[lb]))
			fail("loaded from a file: another sourcesContent", "");
		if (smap_map_has_source_content(b, i) != (cb != NULL))
			fail("smap_map_has_source_content() disagrees", "");
	}
	if (smap_map_generated_lines(a) != smap_map_generated_lines(b))
		fail("loaded from a file: another number of lines", "");
out:
	smap_map_free(a);
	smap_map_free(b);
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* every line of two bytes or more cut into blocks, in every check */
	pp_smap_block_min = 1;
	struct smap_map *m = smap_map_new();
	if (!m)
		return 0;
	int lenient = smap_map_parse(m, data, size, 0);
	if (lenient == SMAP_OK) {
		sources(m);
		lookups(m);
		functions(m);
		const char *w = smap_map_warning(m);
		if (w)
			check_message(w);
	} else {
		check_message(smap_map_error(m));
	}
	smap_map_free(m);
	compare_loaded(data, size);
	compare_blocks(data, size);
	compare_many(data, size);

	m = smap_map_new();
	if (!m)
		return 0;
	int strict = smap_map_parse(m, data, size, SMAP_STRICT);
	if (strict == SMAP_OK) {
		if (lenient != SMAP_OK)
			fail("a map valid strictly but refused leniently", "");
		lookups(m);
		/* Strict loading checks what ECMA-426 defines; "scopes" is a
		 * proposal, decoded only when a look-up needs it. */
		const char *w = smap_map_warning(m);
		if (w && strncmp(w, "scopes:", 7) != 0)
			fail("a strictly valid map with a warning", w);
	} else {
		check_message(smap_map_error(m));
	}
	smap_map_free(m);

	size_t ulen = 0;
	const char *url = smap_script_find_url(data, size, &ulen);
	if (url && (url < (const char *)data || url + ulen > (const char *)data + size))
		fail("URL outside the script", "");
	char *out = NULL;
	size_t outlen = 0;
	if (smap_url_is_data((const char *)data, size) &&
	    smap_data_url_decode((const char *)data, size, &out, &outlen) == SMAP_OK) {
		if (out[outlen] != '\0')
			fail("decoded data URL not NUL-terminated", "");
		free(out);
	}
	return 0;
}
