/*
 * symbolicate-floor: what the work `pprof-fold -m` cannot skip costs, one
 * thread at a time, for the frames of a profile.
 *
 *	symbolicate-floor MAP SCRIPT PROFILE.cpuprofile [ROUNDS]
 *
 * PROFILE's frames in SCRIPT (a callFrame whose url ends with SCRIPT's file
 * name) give the function positions.  Each round, in this process, measures
 * CPU time (CLOCK_PROCESS_CPUTIME_ID) for:
 *   - the map's JSON (smap_map_load_file());
 *   - its lines, as far as the positions' look-ups decode them;
 *   - the script's tokens, then its functions;
 *   - the sourcesContent of the sources the positions land in, decoded and
 *     tokenized (what is named through them).
 * It prints the first round (a fresh process's memory, as a run of the
 * program meets it) and the best of ROUNDS (default 5: memory reused).
 * Nothing is named, checked or printed per frame: the sum is a floor.
 * Build by hand, from the top of the tree after `make`:
 *	cc -O2 -I sourcemap -I common -I . bench/symbolicate-floor.c \
 *	   .libs/libsourcemap_core.a .libs/libcommon.a -lpthread -lm \
 *	   -o symbolicate-floor
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json.h"
#include "jstoken.h"
#include "sourcemap.h"

enum { MAP, LINES, TOKENS, FUNCTIONS, SOURCES, NPHASE };
static const char *const phase[NPHASE] = {"map JSON", "map lines", "script tokens",
					  "script functions", "sources' tokens"};

static double cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	long size;
	char *b = NULL;

	if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0) {
		rewind(f);
		b = malloc((size_t)size + 1);
		if (b && fread(b, 1, (size_t)size, f) == (size_t)size) {
			b[size] = '\0';
			*n = (size_t)size;
		} else {
			free(b);
			b = NULL;
		}
	}
	if (f)
		fclose(f);
	if (!b)
		perror(path);
	return b;
}

static bool ends_with(const char *s, size_t n, const char *tail)
{
	size_t k = strlen(tail);

	return n >= k && memcmp(s + n - k, tail, k) == 0 && (n == k || s[n - k - 1] == '/');
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The distinct (line, column) of PROFILE's callFrames whose url ends with
 * BASE, 0-based as V8 writes them, each LINE << 32 | COLUMN, in order. */
static size_t positions(const char *buf, size_t len, const char *base, uint64_t **pos,
			const char *path)
{
	struct json j;
	size_t n = 0, cap = 0;
	int t;
	enum { NONE, URL, LINE, COL } key = NONE;
	bool mine = false, have_l = false, have_c = false;
	uint32_t l = 0, c = 0;

	json_init(&j, buf, len, 0);
	while ((t = json_next(&j)) > JSON_END) {
		if (t == JSON_OBJECT_BEGIN) {
			mine = have_l = have_c = false;
		} else if (t == JSON_OBJECT_END) {
			if (mine && have_l && have_c) {
				if (n == cap) {
					cap = cap ? 2 * cap : 1024;
					*pos = realloc(*pos, cap * sizeof(**pos));
					if (!*pos) {
						fprintf(stderr, "out of memory\n");
						exit(1);
					}
				}
				(*pos)[n++] = (uint64_t)l << 32 | c;
			}
			mine = have_l = have_c = false;
		} else if (t == JSON_KEY) {
			key = json_is(&j, "url")            ? URL
			      : json_is(&j, "lineNumber")   ? LINE
			      : json_is(&j, "columnNumber") ? COL
							    : NONE;
			continue;
		} else if (t == JSON_STRING && key == URL) {
			mine = ends_with(j.str, j.len, base);
		} else if (t == JSON_NUMBER && (key == LINE || key == COL)) {
			int64_t v;
			if (json_int64(&j, &v) && v >= 0 && v <= UINT32_MAX) {
				if (key == LINE) {
					l = (uint32_t)v;
					have_l = true;
				} else {
					c = (uint32_t)v;
					have_c = true;
				}
			}
		}
		key = NONE;
	}
	if (t == JSON_ERROR) {
		fprintf(stderr, "symbolicate-floor: %s: %s (at byte %zu)\n", path, json_error(&j),
			json_error_offset(&j));
		exit(1);
	}
	json_release(&j);
	if (n)
		qsort(*pos, n, sizeof(**pos), by_value);
	size_t u = 0;
	for (size_t k = 0; k < n; k++)
		if (!u || (*pos)[k] != (*pos)[u - 1])
			(*pos)[u++] = (*pos)[k];
	return u;
}

int main(int argc, char **argv)
{
	double first[NPHASE], best[NPHASE];
	size_t slen, plen, npos, nsrc_used = 0, src_bytes = 0;
	uint64_t *pos = NULL;
	char *script, *profile;
	const char *base;
	int rounds = argc > 4 ? atoi(argv[4]) : 5;

	if (argc < 4 || rounds < 1) {
		fprintf(stderr, "usage: symbolicate-floor MAP SCRIPT PROFILE.cpuprofile [ROUNDS]\n");
		return 2;
	}
	if (!(script = slurp(argv[2], &slen)) || !(profile = slurp(argv[3], &plen)))
		return 1;
	base = strrchr(argv[2], '/') ? strrchr(argv[2], '/') + 1 : argv[2];
	npos = positions(profile, plen, base, &pos, argv[3]);
	free(profile);
	for (int r = 0; r < rounds; r++) {
		double t[NPHASE + 1], d;
		struct smap_map *m = smap_map_new();
		struct smap_mapping mp;
		struct pp_js_toks tk;
		struct pp_js_funcs fs;
		bool *used;
		size_t ns;

		memset(&tk, 0, sizeof(tk));
		memset(&fs, 0, sizeof(fs));
		t[MAP] = cpu_ms();
		if (!m || smap_map_load_file(m, argv[1], 0) != SMAP_OK) {
			fprintf(stderr, "symbolicate-floor: %s: %s\n", argv[1],
				m ? smap_map_error(m) : "out of memory");
			return 1;
		}
		t[LINES] = cpu_ms();
		ns = smap_map_source_count(m);
		used = calloc(ns ? ns : 1, sizeof(*used));
		if (!used) {
			fprintf(stderr, "out of memory\n");
			return 1;
		}
		for (size_t k = 0; k < npos; k++) {
			uint32_t l = (uint32_t)(pos[k] >> 32), c = (uint32_t)pos[k];

			if (smap_lookup(m, l, c, &mp) == SMAP_OK && mp.source &&
			    mp.source_index < ns)
				used[mp.source_index] = true;
		}
		t[TOKENS] = cpu_ms();
		if (pp_js_tokenize(script, slen, &tk) != 0) {
			fprintf(stderr, "symbolicate-floor: %s: not tokenized\n", argv[2]);
			return 1;
		}
		t[FUNCTIONS] = cpu_ms();
		if (pp_js_functions(script, &tk, &fs) != 0) {
			fprintf(stderr, "symbolicate-floor: %s: functions not found\n", argv[2]);
			return 1;
		}
		t[SOURCES] = cpu_ms();
		nsrc_used = src_bytes = 0;
		for (size_t i = 0; i < ns; i++) {
			struct pp_js_toks st;
			const char *c;
			size_t n;

			if (!used[i] || !(c = smap_map_source_content(m, i, &n)))
				continue;
			nsrc_used++;
			src_bytes += n;
			memset(&st, 0, sizeof(st));
			(void)pp_js_tokenize(c, n, &st);
			pp_js_toks_release(&st);
		}
		t[NPHASE] = cpu_ms();
		for (int p = 0; p < NPHASE; p++) {
			d = t[p + 1] - t[p];
			if (r == 0)
				first[p] = best[p] = d;
			else if (d < best[p])
				best[p] = d;
		}
		free(used);
		pp_js_funcs_release(&fs);
		pp_js_toks_release(&tk);
		smap_map_free(m);
	}
	printf("%zu function positions in %s; %zu sources they land in (%.1f MB)\n", npos, base,
	       nsrc_used, (double)src_bytes / 1e6);
	printf("%-18s %8s %8s   (ms of CPU, one thread; best of %d)\n", "", "first", "best", rounds);
	double sf = 0, sb = 0;
	for (int p = 0; p < NPHASE; p++) {
		printf("%-18s %8.1f %8.1f\n", phase[p], first[p], best[p]);
		sf += first[p];
		sb += best[p];
	}
	printf("%-18s %8.1f %8.1f\n", "all", sf, sb);
	printf("%-18s %8.1f %8.1f\n", "all but functions", sf - first[FUNCTIONS],
	       sb - best[FUNCTIONS]);
	free(pos);
	free(script);
	return 0;
}
