/* fuzz_flame.c: libFuzzer harness of the SVG flame graph writer, fed with
 * fuzzed names: the input is folded text (2 or 3 columns, any bytes in the
 * names), its first line is also the title and its second the notes, and its
 * last byte picks the options (palette, reverse, icicle, flame chart, ...).
 * The SVG must be well-formed XML (checked here by a small XML 1.0 reader:
 * UTF-8, allowed characters, entity references, balanced tags, attributes
 * quoted, nothing after the root element), whatever the names hold.
 * Seeds: the fixtures' folded files. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *s, size_t n)
{
	fprintf(stderr, "fuzz_flame: broken promise: %s: %.*s\n", what,
		(int)(n > 300 ? 300 : n), s ? s : "");
	abort();
}

/* ---- a small XML 1.0 well-formedness check ---- */

struct xml {
	const unsigned char *s, *end;
	const unsigned char *p;
	/* open elements: offsets of their names into s, and lengths */
	size_t *names, *lens;
	size_t depth, cap;
};

static void xfail(struct xml *x, const char *what)
{
	size_t off = (size_t)(x->p - x->s);
	size_t from = off > 60 ? off - 60 : 0;
	char msg[160];
	snprintf(msg, sizeof(msg), "SVG not well-formed XML at byte %zu: %s", off, what);
	fail(msg, (const char *)x->s + from, (size_t)(x->end - x->s) - from);
}

/* The character at P (valid UTF-8 and an XML Char), its length. */
static size_t xml_char(struct xml *x, const unsigned char *p)
{
	unsigned c = p[0];
	uint32_t cp;
	size_t n;
	if (c < 0x80) {
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
			xfail(x, "control character");
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		xfail(x, "invalid UTF-8");
		return 1;
	}
	if ((size_t)(x->end - p) < n)
		xfail(x, "truncated UTF-8");
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			xfail(x, "invalid UTF-8");
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		xfail(x, "overlong UTF-8");
	if ((cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff)
		xfail(x, "not an XML character");
	return n;
}

static bool name_char(unsigned c, bool first)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || c >= 0x80)
		return true;
	return !first && ((c >= '0' && c <= '9') || c == '-' || c == '.');
}

static size_t xml_name(struct xml *x)
{
	const unsigned char *b = x->p;
	if (x->p >= x->end || !name_char(*x->p, true))
		xfail(x, "expected a name");
	while (x->p < x->end && name_char(*x->p, false))
		x->p++;
	return (size_t)(x->p - b);
}

static void xml_ws(struct xml *x)
{
	while (x->p < x->end && (*x->p == ' ' || *x->p == '\t' || *x->p == '\n' || *x->p == '\r'))
		x->p++;
}

/* A reference after '&': &name; or &#N; or &#xH;. */
static void xml_ref(struct xml *x)
{
	x->p++;
	if (x->p < x->end && *x->p == '#') {
		x->p++;
		bool hex = x->p < x->end && *x->p == 'x';
		if (hex)
			x->p++;
		uint32_t v = 0;
		size_t digits = 0;
		for (; x->p < x->end && *x->p != ';'; x->p++, digits++) {
			unsigned c = *x->p;
			unsigned d = c >= '0' && c <= '9' ? c - '0'
				   : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10
				   : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10
								  : 99;
			if (d == 99 || digits > 8)
				xfail(x, "bad character reference");
			v = v * (hex ? 16 : 10) + d;
		}
		if (!digits || x->p >= x->end)
			xfail(x, "bad character reference");
		if ((v < 0x20 && v != 9 && v != 10 && v != 13) || (v >= 0xd800 && v <= 0xdfff) ||
		    v == 0xfffe || v == 0xffff || v > 0x10ffff)
			xfail(x, "character reference to a non-character");
		x->p++;
		return;
	}
	static const char *const known[] = {"amp;", "lt;", "gt;", "quot;", "apos;"};
	for (size_t i = 0; i < 5; i++) {
		size_t n = strlen(known[i]);
		if ((size_t)(x->end - x->p) >= n && memcmp(x->p, known[i], n) == 0) {
			x->p += n;
			return;
		}
	}
	xfail(x, "unknown entity (SVG has no DTD)");
}

/* Skips to just after TERM, checking the characters on the way. */
static void xml_until(struct xml *x, const char *term)
{
	size_t n = strlen(term);
	while ((size_t)(x->end - x->p) >= n) {
		if (memcmp(x->p, term, n) == 0) {
			x->p += n;
			return;
		}
		x->p += xml_char(x, x->p);
	}
	xfail(x, "unterminated construct");
}

static void xml_tag(struct xml *x)
{
	x->p++; /* '<' */
	if (x->p < x->end && *x->p == '/') {
		x->p++;
		const unsigned char *b = x->p;
		size_t n = xml_name(x);
		if (x->depth == 0)
			xfail(x, "end tag without a start tag");
		x->depth--;
		if (n != x->lens[x->depth] || memcmp(b, x->s + x->names[x->depth], n) != 0)
			xfail(x, "end tag does not match");
		xml_ws(x);
		if (x->p >= x->end || *x->p != '>')
			xfail(x, "expected '>'");
		x->p++;
		return;
	}
	const unsigned char *b = x->p;
	size_t n = xml_name(x);
	/* attribute names of this tag, for duplicates */
	const unsigned char *an[64];
	size_t al[64], na = 0;
	for (;;) {
		const unsigned char *before = x->p;
		xml_ws(x);
		if (x->p >= x->end)
			xfail(x, "unterminated tag");
		if (*x->p == '/' || *x->p == '>')
			break;
		if (x->p == before)
			xfail(x, "no space before an attribute");
		const unsigned char *a = x->p;
		size_t alen = xml_name(x);
		for (size_t i = 0; i < na; i++)
			if (al[i] == alen && memcmp(an[i], a, alen) == 0)
				xfail(x, "duplicate attribute");
		if (na < 64) {
			an[na] = a;
			al[na++] = alen;
		}
		xml_ws(x);
		if (x->p >= x->end || *x->p != '=')
			xfail(x, "expected '='");
		x->p++;
		xml_ws(x);
		if (x->p >= x->end || (*x->p != '"' && *x->p != '\''))
			xfail(x, "attribute value not quoted");
		unsigned char q = *x->p++;
		while (x->p < x->end && *x->p != q) {
			if (*x->p == '<')
				xfail(x, "'<' in an attribute value");
			if (*x->p == '&')
				xml_ref(x);
			else
				x->p += xml_char(x, x->p);
		}
		if (x->p >= x->end)
			xfail(x, "unterminated attribute value");
		x->p++;
	}
	if (*x->p == '/') {
		x->p++;
		if (x->p >= x->end || *x->p != '>')
			xfail(x, "expected '>' after '/'");
		x->p++;
		return;
	}
	x->p++;
	if (x->depth == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 64;
		size_t *nn = realloc(x->names, cap * sizeof(*nn));
		size_t *nl = nn ? realloc(x->lens, cap * sizeof(*nl)) : NULL;
		if (!nn || !nl)
			abort();
		x->names = nn;
		x->lens = nl;
		x->cap = cap;
	}
	x->names[x->depth] = (size_t)(b - x->s);
	x->lens[x->depth++] = n;
}

static void xml_check(const unsigned char *s, size_t len)
{
	struct xml x = {s, s + len, s, NULL, NULL, 0, 0};
	bool root_seen = false;
	if (len >= 5 && memcmp(s, "<?xml", 5) == 0)
		xml_until(&x, "?>");
	while (x.p < x.end) {
		if (*x.p == '<') {
			if ((size_t)(x.end - x.p) >= 4 && memcmp(x.p, "<!--", 4) == 0) {
				x.p += 4;
				xml_until(&x, "-->");
				if (x.p - 3 > x.s && x.p[-4] == '-')
					xfail(&x, "comment ending in '-'");
			} else if ((size_t)(x.end - x.p) >= 9 && memcmp(x.p, "<![CDATA[", 9) == 0) {
				if (x.depth == 0)
					xfail(&x, "CDATA outside the root element");
				x.p += 9;
				xml_until(&x, "]]>");
			} else if ((size_t)(x.end - x.p) >= 9 && memcmp(x.p, "<!DOCTYPE", 9) == 0) {
				if (root_seen)
					xfail(&x, "DOCTYPE after the root element");
				xml_until(&x, ">");
			} else if ((size_t)(x.end - x.p) >= 2 && x.p[1] == '?') {
				xml_until(&x, "?>");
			} else {
				if (x.depth == 0 && x.p[1] != '/') {
					if (root_seen)
						xfail(&x, "a second root element");
					root_seen = true;
				}
				xml_tag(&x);
			}
		} else if (*x.p == '&') {
			if (x.depth == 0)
				xfail(&x, "reference outside the root element");
			xml_ref(&x);
		} else {
			if (x.depth == 0 && *x.p != ' ' && *x.p != '\t' && *x.p != '\n' && *x.p != '\r')
				xfail(&x, "text outside the root element");
			if ((size_t)(x.end - x.p) >= 3 && memcmp(x.p, "]]>", 3) == 0)
				xfail(&x, "']]>' in text");
			x.p += xml_char(&x, x.p);
		}
	}
	if (x.depth != 0)
		xfail(&x, "elements left open");
	if (!root_seen)
		xfail(&x, "no root element");
	free(x.names);
	free(x.lens);
}

/* ---- the harness ---- */

static char *line_copy(const uint8_t *data, size_t size, size_t skip_lines)
{
	size_t b = 0;
	for (size_t i = 0; i < skip_lines; i++) {
		const uint8_t *nl = memchr(data + b, '\n', size - b);
		if (!nl)
			return NULL;
		b = (size_t)(nl - data) + 1;
	}
	const uint8_t *nl = memchr(data + b, '\n', size - b);
	size_t e = nl ? (size_t)(nl - data) : size;
	if (e - b > 200)
		e = b + 200;
	char *s = malloc(e - b + 1);
	if (!s)
		return NULL;
	memcpy(s, data + b, e - b);
	s[e - b] = '\0';
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pprof_flame *f = pprof_flame_new();
	if (!f)
		return 0;
	if (pprof_flame_add_text(f, data, size) != PPROF_OK) {
		const char *e = pprof_flame_error(f);
		if (!e || !*e || strchr(e, '\n'))
			fail("add_text failed without a one-line message", e, e ? strlen(e) : 0);
		pprof_flame_free(f);
		return 0;
	}
	unsigned sel = size ? data[size - 1] : 0;
	struct pprof_flame_options o;
	pprof_flame_options_init(&o);
	char *title = line_copy(data, size, 0), *notes = line_copy(data, size, 1);
	o.title = title;
	o.subtitle = notes;
	o.notes = notes;
	o.countname = title;
	o.palette = (enum pprof_flame_palette)(sel % (PPROF_FLAME_TS + 1));
	static const unsigned flagsets[8] = {
		0,
		PPROF_FLAME_REVERSE,
		PPROF_FLAME_INVERTED | PPROF_FLAME_HASH,
		PPROF_FLAME_FLAMECHART,
		PPROF_FLAME_SORT_WIDTH | PPROF_FLAME_MERGE_SMALL,
		PPROF_FLAME_NEGATE | PPROF_FLAME_INCLUSIVE_DELTA,
		PPROF_FLAME_MERGE_SMALL | PPROF_FLAME_REVERSE,
		PPROF_FLAME_RANDOM,
	};
	o.flags = flagsets[(sel >> 4) & 7];
	/* The second last byte: a unit (human titles), a default subtitle. */
	unsigned sel2 = size > 1 ? data[size - 2] : 0;
	static const char *const units[8] = {NULL, "nanoseconds", "bytes", "ms", "s",
					     "count", "kB", NULL};
	o.unit = (sel2 & 7) == 7 ? title : units[sel2 & 7];
	if (sel2 & 8) {
		o.subtitle = NULL;
		o.sample_type = notes;
		o.source = title;
		o.duration = (double)sel2 * 1e6;
	}
	if (sel2 & 16)
		o.flags |= PPROF_FLAME_INCLUSIVE_DELTA;
	if (sel2 & 32)
		o.diff_width = (enum pprof_flame_diff_width)((sel2 >> 6) % 3);
	o.seed = 1;
	if (sel & 0x80) {
		o.minwidth = 5;
		o.minwidth_percent = 1;
	}
	char *svg = NULL;
	size_t svglen = 0;
	FILE *out = open_memstream(&svg, &svglen);
	if (!out)
		abort();
	int s = pprof_flame_write_svg(f, &o, out);
	if (fclose(out) != 0)
		abort();
	if (s == PPROF_OK) {
		xml_check((const unsigned char *)svg, svglen);
		/* Stacked with itself (a trace's charts per thread): well-formed too. */
		const char *two[] = {svg, svg};
		size_t lens[] = {svglen, svglen};
		char *st = NULL;
		size_t stlen = 0;
		FILE *so = open_memstream(&st, &stlen);
		if (!so)
			abort();
		int ss = pprof_flame_stack_svgs(two, lens, 2, so);
		if (fclose(so) != 0)
			abort();
		if (ss != PPROF_OK)
			fail("stacking a written SVG failed", svg, svglen > 200 ? 200 : svglen);
		xml_check((const unsigned char *)st, stlen);
		free(st);
	} else {
		const char *e = pprof_flame_error(f);
		if (!e || !*e || strchr(e, '\n'))
			fail("write_svg failed without a one-line message", e, e ? strlen(e) : 0);
	}
	free(svg);
	free(title);
	free(notes);
	pprof_flame_free(f);
	return 0;
}
