/*
 * flame_color.c: the colours of a flame graph as flamegraph.pl picks them:
 * its palettes (hot, mem, io, java, js, perl, ... and our "ts"), its name
 * hashes and Perl's rand(), the differential scale, the background
 * gradients, and palette.map (--cp) read and written.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flame_private.h"

static bool fl_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* V8's engine names: the "ts" palette's engine class. */
bool fl_engine_name(const char *s, size_t n)
{
	static const char *const names[] = {"(program)", "(garbage collector)", "(idle)",
					    "(root)"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == n && memcmp(names[i], s, n) == 0)
			return true;
	return false;
}

/* ---- palettes ---- */

static const char *const fl_palettes[] = {
	[PPROF_FLAME_HOT] = "hot",	 [PPROF_FLAME_MEM] = "mem",
	[PPROF_FLAME_IO] = "io",	 [PPROF_FLAME_WAKEUP] = "wakeup",
	[PPROF_FLAME_JAVA] = "java",	 [PPROF_FLAME_JS] = "js",
	[PPROF_FLAME_PERL] = "perl",	 [PPROF_FLAME_RED] = "red",
	[PPROF_FLAME_GREEN] = "green",	 [PPROF_FLAME_BLUE] = "blue",
	[PPROF_FLAME_AQUA] = "aqua",	 [PPROF_FLAME_YELLOW] = "yellow",
	[PPROF_FLAME_PURPLE] = "purple", [PPROF_FLAME_ORANGE] = "orange",
	[PPROF_FLAME_TS] = "ts",
};

int pprof_flame_palette_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(fl_palettes) / sizeof(fl_palettes[0]); i++)
		if (fl_palettes[i] && strcmp(fl_palettes[i], name) == 0)
			return (int)i;
	if (strcmp(name, "typescript") == 0)
		return PPROF_FLAME_TS;
	return -1;
}

/* ---- palette.map (--cp) ---- */

/* A colour as flamegraph.pl writes them, "rgb(R,G,B)", or "#rrggbb". */
bool fl_colour_ok(const char *s, size_t n)
{
	if (n == 7 && s[0] == '#') {
		for (size_t i = 1; i < 7; i++)
			if (!strchr("0123456789abcdefABCDEF", s[i]) || !s[i])
				return false;
		return true;
	}
	if (n < 10 || memcmp(s, "rgb(", 4) != 0 || s[n - 1] != ')')
		return false;
	int parts = 0;
	size_t i = 4;
	while (i < n - 1) {
		size_t d = 0;
		while (i < n - 1 && fl_digit((unsigned char)s[i]) && d < 3) {
			i++;
			d++;
		}
		if (d == 0)
			return false;
		parts++;
		if (i < n - 1) {
			if (s[i] != ',' || parts == 3)
				return false;
			i++;
		}
	}
	return parts == 3;
}

int pprof_flame_palette_read(struct pprof_flame *f, const void *buf, size_t len)
{
	const char *b = buf;
	size_t pos = 0;
	while (pos < len) {
		const char *s = b + pos;
		const char *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		pos += n + 1;
		if (n > 0 && s[n - 1] == '\r')
			n--;
		/* NAME->COLOUR; a name may itself hold "->", the colour can't. */
		size_t arrow = n;
		for (size_t i = n; i >= 2; i--) {
			if (s[i - 2] == '-' && s[i - 1] == '>') {
				arrow = i - 2;
				break;
			}
		}
		if (arrow == n || !fl_colour_ok(s + arrow + 2, n - arrow - 2))
			continue;
		struct fl_map_entry *e = fl_map_get(&f->palette, s, arrow);
		if (!e)
			return fl_nomem(f);
		free(e->val);
		e->val = strndup(s + arrow + 2, n - arrow - 2);
		if (!e->val)
			return fl_nomem(f);
	}
	return PPROF_OK;
}

static int fl_cmp_entry(const void *a, const void *b)
{
	const struct fl_map_entry *x = *(const struct fl_map_entry *const *)a;
	const struct fl_map_entry *y = *(const struct fl_map_entry *const *)b;
	size_t n = x->keylen < y->keylen ? x->keylen : y->keylen;
	int c = memcmp(x->key, y->key, n);
	if (c)
		return c;
	return x->keylen < y->keylen ? -1 : x->keylen > y->keylen;
}

int pprof_flame_palette_write(struct pprof_flame *f, FILE *out)
{
	struct fl_map_entry **v = malloc((f->palette.n + 1) * sizeof(*v));
	if (!v)
		return fl_nomem(f);
	size_t n = 0;
	for (size_t i = 0; i < f->palette.cap; i++)
		if (f->palette.e[i].key && f->palette.e[i].val)
			v[n++] = &f->palette.e[i];
	qsort(v, n, sizeof(*v), fl_cmp_entry);
	for (size_t i = 0; i < n; i++) {
		fwrite(v[i]->key, 1, v[i]->keylen, out);
		fprintf(out, "->%s\n", v[i]->val);
	}
	free(v);
	if (ferror(out))
		return fl_error(f, PPROF_EIO, "%s", strerror(errno));
	return PPROF_OK;
}

/* ---- colours ---- */

/* Perl's rand() after srand(seed): drand48 on a 48-bit state. */
static double fl_perl_rand(uint32_t seed)
{
	uint64_t x = ((uint64_t)seed << 16) + 0x330e;
	x = (x * 0x5deece66dull + 0xb) & 0xffffffffffffull;
	return (double)x * (1.0 / 281474976710656.0);
}

/* The code points of a name (invalid bytes as their byte value), for the
 * colour hashes that flamegraph.pl computes on characters. */
static size_t fl_codepoints(const char *s, size_t n, uint32_t *out, size_t max)
{
	size_t k = 0;
	for (size_t i = 0; i < n && k < max;) {
		size_t at = i;
		int32_t c = fl_utf8((const unsigned char *)s, n, &i);
		out[k++] = c < 0 ? (unsigned char)s[at] : (uint32_t)c;
	}
	return k;
}

/* flamegraph.pl's --hash: early characters weigh most. */
static double fl_namehash(const uint32_t *cp, size_t n)
{
	/* A module name ("mod`func") is dropped up to its backtick. */
	for (size_t i = 1; i < n; i++) {
		if (cp[i] == '`') {
			cp += i + 1;
			n -= i + 1;
			break;
		}
	}
	double vector = 0, weight = 1, max = 1;
	unsigned mod = 10;
	for (size_t i = 0; i < n; i++) {
		double v = (double)(cp[i] % mod);
		vector += v / (double)(mod - 1) * weight;
		mod++;
		max += weight;
		weight *= 0.70;
		if (mod > 12)
			break;
	}
	return 1 - vector / max;
}

static bool fl_ends(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);
	return n >= k && memcmp(s + n - k, suf, k) == 0;
}

static bool fl_has(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	if (k > n)
		return false;
	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(s + i, needle, k) == 0)
			return true;
	return false;
}

/* The class of a name for the "ts" palette when no profile told it: a file
 * in the name (granularities lines, filefunctions, files) decides, else
 * V8's engine and builtin names. */
static enum fl_class fl_class_of_name(const char *s, size_t n)
{
	if (fl_engine_name(s, n))
		return FL_CLASS_ENGINE;
	if (fl_has(s, n, "node_modules/"))
		return FL_CLASS_DEPENDENCY;
	if (fl_has(s, n, "node:") || fl_has(s, n, " internal/") ||
	    (n >= 9 && memcmp(s, "internal/", 9) == 0))
		return FL_CLASS_RUNTIME;
	static const char *const exts[] = {".ts", ".tsx", ".mts", ".cts", ".js",
					   ".jsx", ".mjs", ".cjs"};
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		size_t k = strlen(exts[i]);
		for (size_t j = 0; j + k <= n; j++) {
			if (memcmp(s + j, exts[i], k) == 0 &&
			    (j + k == n || s[j + k] == ':' || s[j + k] == ' ' || s[j + k] == ')'))
				return FL_CLASS_USER;
		}
	}
	/* V8 builtins and Web APIs: "JSON.stringify", "Array.prototype.map". */
	if (n > 2 && s[0] >= 'A' && s[0] <= 'Z') {
		for (size_t j = 1; j + 1 < n; j++) {
			if (s[j] == '.')
				return FL_CLASS_RUNTIME;
			if (!((s[j] >= 'a' && s[j] <= 'z') || (s[j] >= 'A' && s[j] <= 'Z') ||
			      (s[j] >= '0' && s[j] <= '9')))
				break;
		}
	}
	static const char *const natives[] = {"fetch", "setTimeout", "setInterval",
					      "queueMicrotask", "structuredClone",
					      "atob", "btoa"};
	for (size_t i = 0; i < sizeof(natives) / sizeof(natives[0]); i++)
		if (strlen(natives[i]) == n && memcmp(natives[i], s, n) == 0)
			return FL_CLASS_RUNTIME;
	return FL_CLASS_USER;
}

uint64_t fl_clock_seed(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec;
}

static double fl_random(struct fl_colorer *c)
{
	c->rstate = (c->rstate * 0x5deece66dull + 0xb) & 0xffffffffffffull;
	return (double)c->rstate * (1.0 / 281474976710656.0);
}

struct fl_rgb fl_color(struct fl_colorer *c, const char *name, size_t n)
{
	double v1, v2, v3;
	if (c->hash) {
		if (n > c->capcp) {
			uint32_t *cp = realloc(c->cp, n * sizeof(*cp));
			if (cp) {
				c->cp = cp;
				c->capcp = n;
			}
		}
		size_t k = fl_codepoints(name, n, c->cp, c->capcp);
		v1 = fl_namehash(c->cp, k);
		for (size_t i = 0; i < k / 2; i++) {
			uint32_t t = c->cp[i];
			c->cp[i] = c->cp[k - 1 - i];
			c->cp[k - 1 - i] = t;
		}
		v2 = v3 = fl_namehash(c->cp, k);
	} else if (c->random) {
		v1 = fl_random(c);
		v2 = fl_random(c);
		v3 = fl_random(c);
	} else {
		/* Perl's srand(sum of the characters) then rand(). */
		uint32_t sum = 0;
		for (size_t i = 0; i < n;) {
			if ((unsigned char)name[i] < 0x80) {
				sum += (unsigned char)name[i++];
			} else {
				size_t at = i;
				int32_t cp = fl_utf8((const unsigned char *)name, n, &i);
				sum += cp < 0 ? (unsigned char)name[at] : (uint32_t)cp;
			}
		}
		v1 = v2 = v3 = fl_perl_rand(sum);
	}
	struct fl_rgb rgb = {0, 0, 0};
	enum pprof_flame_palette type = c->palette;
	switch (type) {
	case PPROF_FLAME_HOT:
		rgb.r = 205 + (int)(50 * v3);
		rgb.g = (int)(230 * v1);
		rgb.b = (int)(55 * v2);
		return rgb;
	case PPROF_FLAME_MEM:
		rgb.g = 190 + (int)(50 * v2);
		rgb.b = (int)(210 * v1);
		return rgb;
	case PPROF_FLAME_IO:
		rgb.r = rgb.g = 80 + (int)(60 * v1);
		rgb.b = 190 + (int)(55 * v2);
		return rgb;
	case PPROF_FLAME_JAVA:
		if (fl_ends(name, n, "_[j]"))
			type = PPROF_FLAME_GREEN;
		else if (fl_ends(name, n, "_[i]"))
			type = PPROF_FLAME_AQUA;
		else {
			type = PPROF_FLAME_RED;
			static const char *const pk[] = {"java/", "javax/", "jdk/", "net/",
							 "org/", "com/", "io/", "sun/"};
			const char *s = name;
			size_t m = n;
			if (m > 0 && s[0] == 'L') {
				s++;
				m--;
			}
			bool java = false;
			for (size_t i = 0; i < sizeof(pk) / sizeof(pk[0]); i++)
				if (m >= strlen(pk[i]) && memcmp(s, pk[i], strlen(pk[i])) == 0)
					java = true;
			/* "Ljava/..." or "java/...": try both spellings. */
			for (size_t i = 0; !java && i < sizeof(pk) / sizeof(pk[0]); i++)
				if (n >= strlen(pk[i]) && memcmp(name, pk[i], strlen(pk[i])) == 0)
					java = true;
			if (java || fl_has(name, n, ":::"))
				type = PPROF_FLAME_GREEN;
			else if (fl_has(name, n, "::"))
				type = PPROF_FLAME_YELLOW;
			else if (fl_ends(name, n, "_[k]"))
				type = PPROF_FLAME_ORANGE;
		}
		break;
	case PPROF_FLAME_PERL:
		if (fl_has(name, n, "::"))
			type = PPROF_FLAME_YELLOW;
		else if (fl_has(name, n, "Perl") || fl_has(name, n, ".pl"))
			type = PPROF_FLAME_GREEN;
		else if (fl_ends(name, n, "_[k]"))
			type = PPROF_FLAME_ORANGE;
		else
			type = PPROF_FLAME_RED;
		break;
	case PPROF_FLAME_JS: {
		bool slashjs = false;
		const char *sl = memchr(name, '/', n);
		if (sl)
			slashjs = fl_has(sl + 1, n - (size_t)(sl + 1 - name), ".js");
		if (fl_ends(name, n, "_[j]"))
			type = memchr(name, '/', n) ? PPROF_FLAME_GREEN : PPROF_FLAME_AQUA;
		else if (fl_has(name, n, "::"))
			type = PPROF_FLAME_YELLOW;
		else if (slashjs)
			type = PPROF_FLAME_GREEN;
		else if (memchr(name, ':', n))
			type = PPROF_FLAME_AQUA;
		else if (n == 1 && name[0] == ' ')
			type = PPROF_FLAME_GREEN;
		else if (fl_has(name, n, "_[k]"))
			type = PPROF_FLAME_ORANGE;
		else
			type = PPROF_FLAME_RED;
		break;
	}
	case PPROF_FLAME_WAKEUP:
		type = PPROF_FLAME_AQUA;
		break;
	case PPROF_FLAME_TS: {
		int cls = 0;
		const struct fl_map_entry *e =
			c->classes && c->classes->n ? fl_map_find(c->classes, name, n) : NULL;
		cls = e ? e->cls : (int)fl_class_of_name(name, n);
		switch (cls) {
		case FL_CLASS_ENGINE: {
			int x = 180 + (int)(40 * v1);
			rgb.r = rgb.g = rgb.b = x;
			return rgb;
		}
		case FL_CLASS_RUNTIME:
			type = PPROF_FLAME_PURPLE;
			break;
		case FL_CLASS_DEPENDENCY:
			type = PPROF_FLAME_BLUE;
			break;
		default:
			rgb.r = 205 + (int)(50 * v3);
			rgb.g = (int)(230 * v1);
			rgb.b = (int)(55 * v2);
			return rgb;
		}
		break;
	}
	default:
		break;
	}
	switch (type) {
	case PPROF_FLAME_RED:
		rgb.r = 200 + (int)(55 * v1);
		rgb.g = rgb.b = 50 + (int)(80 * v1);
		break;
	case PPROF_FLAME_GREEN:
		rgb.g = 200 + (int)(55 * v1);
		rgb.r = rgb.b = 50 + (int)(60 * v1);
		break;
	case PPROF_FLAME_BLUE:
		rgb.b = 205 + (int)(50 * v1);
		rgb.r = rgb.g = 80 + (int)(60 * v1);
		break;
	case PPROF_FLAME_YELLOW:
		rgb.r = rgb.g = 175 + (int)(55 * v1);
		rgb.b = 50 + (int)(20 * v1);
		break;
	case PPROF_FLAME_PURPLE:
		rgb.r = rgb.b = 190 + (int)(65 * v1);
		rgb.g = 80 + (int)(60 * v1);
		break;
	case PPROF_FLAME_AQUA:
		rgb.r = 50 + (int)(60 * v1);
		rgb.g = rgb.b = 165 + (int)(55 * v1);
		break;
	case PPROF_FLAME_ORANGE:
		rgb.r = 190 + (int)(65 * v1);
		rgb.g = 90 + (int)(65 * v1);
		break;
	default:
		break;
	}
	return rgb;
}

/* Differential colour: red for more, blue for less, white for none. */
struct fl_rgb fl_color_scale(double value, double max, bool negate)
{
	struct fl_rgb rgb = {255, 255, 255};
	if (negate)
		value = -value;
	if (value > max)
		value = max;
	if (value < -max)
		value = -max;
	if (value > 0)
		rgb.g = rgb.b = (int)(210 * (max - value) / max);
	else if (value < 0)
		rgb.r = rgb.g = (int)(210 * (max + value) / max);
	return rgb;
}

/* ---- backgrounds ---- */

const char *fl_bg(const char *name, enum pprof_flame_palette pal, const char **c2)
{
	if (!name || !*name) {
		switch (pal) {
		case PPROF_FLAME_MEM: name = "green"; break;
		case PPROF_FLAME_IO:
		case PPROF_FLAME_WAKEUP: name = "blue"; break;
		case PPROF_FLAME_RED: case PPROF_FLAME_GREEN: case PPROF_FLAME_BLUE:
		case PPROF_FLAME_AQUA: case PPROF_FLAME_YELLOW: case PPROF_FLAME_PURPLE:
		case PPROF_FLAME_ORANGE: name = "grey"; break;
		default: name = "yellow"; break;
		}
	}
	if (strcmp(name, "yellow") == 0) {
		*c2 = "#eeeeb0";
		return "#eeeeee";
	}
	if (strcmp(name, "blue") == 0) {
		*c2 = "#e0e0ff";
		return "#eeeeee";
	}
	if (strcmp(name, "green") == 0) {
		*c2 = "#e0ffe0";
		return "#eef2ee";
	}
	if (strcmp(name, "grey") == 0 || strcmp(name, "gray") == 0) {
		*c2 = "#e8e8e8";
		return "#f8f8f8";
	}
	if (strlen(name) == 7 && fl_colour_ok(name, 7)) {
		*c2 = name;
		return name;
	}
	return NULL;
}

int pprof_flame_bgcolors_ok(const char *name)
{
	const char *c2;
	return fl_bg(name, PPROF_FLAME_HOT, &c2) != NULL;
}
