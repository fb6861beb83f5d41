/* Unit tests of flame.c: reading folded text, geometry as flamegraph.pl,
 * colours, escaping, and the options beyond flamegraph.pl's. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pprof.h"

/* The SVG of TEXT with options O (NULL: the defaults); NULL when writing
 * fails, with the message copied to ERR. */
static char *svg_of(const char *text, size_t len, const struct pprof_flame_options *o,
		    char *err, size_t errlen)
{
	struct pprof_flame *f = pprof_flame_new();
	assert_non_null(f);
	assert_int_equal(pprof_flame_add_text(f, text, len), PPROF_OK);
	struct pprof_flame_options def;
	if (!o) {
		pprof_flame_options_init(&def);
		o = &def;
	}
	char *buf = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&buf, &n);
	assert_non_null(out);
	int s = pprof_flame_write_svg(f, o, out);
	fclose(out);
	if (s != PPROF_OK) {
		if (err)
			snprintf(err, errlen, "%s", pprof_flame_error(f));
		free(buf);
		buf = NULL;
	}
	pprof_flame_free(f);
	return buf;
}

static char *svg(const char *text, const struct pprof_flame_options *o)
{
	char *s = svg_of(text, strlen(text), o, NULL, 0);
	assert_non_null(s);
	return s;
}

/* The <g>...</g> line of the frame whose title starts with TITLE, or NULL. */
static char *frame(const char *s, const char *title)
{
	char key[512];
	snprintf(key, sizeof(key), "<title>%s", title);
	const char *t = strstr(s, key);
	if (!t)
		return NULL;
	const char *b = t;
	while (b > s && b[-1] != '\n')
		b--;
	const char *e = strchr(t, '\n');
	return strndup(b, (size_t)(e - b));
}

static void assert_frame(const char *s, const char *title, const char *expect)
{
	char *f = frame(s, title);
	if (!f)
		fail_msg("no frame '%s'", title);
	if (strcmp(f, expect) != 0)
		fail_msg("frame '%s':\n got  %s\n want %s", title, f, expect);
	free(f);
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* The frames of flamegraph.pl's output for the same input, checked by
 * hand against it: x, width, y, title, label and colour. */
static void test_flame_geometry_as_flamegraph_pl(void **state)
{
	(void)state;
	char *s = svg("main;foo;bar 10\nmain;foo 5\nmain;baz;q<x>&\"y 3\nother 1\n", NULL);
	assert_frame(s, "main ",
		     "<g><title>main (18 samples, 94.74%)</title><rect x=\"10.0\" y=\"69\" "
		     "width=\"1117.9\" height=\"15.0\" fill=\"#f3b32a\"/><text x=\"13.00\" "
		     "y=\"79.5\">main</text></g>");
	assert_frame(s, "bar ",
		     "<g s=\"8\"><title>bar (10 samples, 52.63%)</title><rect x=\"506.8\" y=\"37\" "
		     "width=\"621.1\" height=\"15.0\" fill=\"#d9390d\"/><text x=\"509.84\" "
		     "y=\"47.5\">bar</text></g>");
	assert_frame(s, "q&lt;",
		     "<g><title>q&lt;x&gt;&amp;\"y (3 samples, 15.79%)</title><rect x=\"10.0\" "
		     "y=\"37\" width=\"186.3\" height=\"15.0\" fill=\"#df5514\"/><text x=\"13.00\" "
		     "y=\"47.5\">q&lt;x&gt;&amp;\"y</text></g>");
	/* The root: "all", srand(0)'s colour, no label. */
	assert_frame(s, "all ",
		     "<g><title>all (19 samples, 100%)</title><rect x=\"10.0\" y=\"85\" "
		     "width=\"1180.0\" height=\"15.0\" fill=\"#d52709\"/></g>");
	assert_non_null(strstr(s, "<svg version=\"1.1\" width=\"1200\" height=\"134\""));
	assert_int_equal(count(s, "<script"), 1);
	free(s);
}

static void test_flame_read_formats(void **state)
{
	(void)state;
	/* BOM, CRLF, a comment, a blank line, tabs, an invalid line. */
	const char crlf[] = "\xef\xbb\xbf# a comment 5\r\na;b\t3\r\n\r\nnot a stack\r\na;c 1\r\n";
	struct pprof_flame *f = pprof_flame_new();
	assert_int_equal(pprof_flame_add_text(f, crlf, sizeof(crlf) - 1), PPROF_OK);
	assert_int_equal(pprof_flame_line_count(f), 2);
	assert_int_equal(pprof_flame_ignored_lines(f), 1);
	pprof_flame_free(f);

	/* UTF-16 LE with its BOM: "a;b 2\n". */
	const char u16[] = "\xff\xfe" "a\0;\0b\0 \0" "2\0\n\0";
	char *s = svg_of(u16, sizeof(u16) - 1, NULL, NULL, 0);
	assert_non_null(s);
	assert_non_null(strstr(s, "<title>b (2 samples, 100.00%)</title>"));
	free(s);

	/* Unicode white space before the count, as Perl's \s matches it. */
	s = svg("a;b\xc2\xa0" "5\nc\xe3\x80\x80" "2\n", NULL);
	assert_non_null(strstr(s, "<title>b (5 samples, 71.43%)"));
	assert_non_null(strstr(s, "<title>c (2 samples, 28.57%)"));
	free(s);

	/* Whitespace before the count stays in the name but for one
	 * character; a stack ending in ';' loses its empty frames. */
	s = svg("x  4\ny;z;; 4\n", NULL);
	assert_non_null(strstr(s, "<title>x  (4 samples, 50.00%)"));
	assert_non_null(strstr(s, "<title>z (4 samples, 50.00%)"));
	assert_null(strstr(s, "<title> ("));
	free(s);
}

static void test_flame_fractions(void **state)
{
	(void)state;
	char *s = svg("a;b 0.25\na;c 0.75\n", NULL);
	/* Widths keep the fractions; the title rounds with %.0f. */
	assert_frame(s, "b ",
		     "<g w=\"0.25\"><title>b (0 samples, 0.00%)</title><rect x=\"10.0\" y=\"37\" "
		     "width=\"295.0\" height=\"15.0\" fill=\"#e6751c\"/><text x=\"13.00\" "
		     "y=\"47.5\">b</text></g>");
	assert_non_null(strstr(s, "<title>a (1 samples, 100.00%)"));
	free(s);
}

static void test_flame_differential(void **state)
{
	(void)state;
	struct pprof_flame_options o;
	pprof_flame_options_init(&o);
	/* Only the leaf of each line carries its delta (flamegraph.pl). */
	char *s = svg("a;b 10 20\na;c 10 5\n", &o);
	assert_non_null(strstr(s, "<title>b (20 samples, 80.00%; +40.00%)</title>"));
	assert_non_null(strstr(s, "<title>c (5 samples, 20.00%; -20.00%)</title>"));
	assert_non_null(strstr(s, "<title>a (25 samples, 100.00%; 0.00%)</title>"));
	/* b is the largest delta: full red; c half of it in blue. */
	assert_non_null(strstr(strstr(s, "<title>b ("), "fill=\"#ff0000\""));
	assert_non_null(strstr(strstr(s, "<title>c ("), "fill=\"#6969ff\""));
	free(s);

	o.flags |= PPROF_FLAME_NEGATE;
	s = svg("a;b 10 20\n", &o);
	assert_non_null(strstr(s, "<title>b (20 samples, 100.00%; -50.00%)</title>"));
	free(s);

	/* Inclusive deltas: a carries both lines, +10 - 5; titles with the
	 * frame's before, delta and self values. */
	pprof_flame_options_init(&o);
	o.flags |= PPROF_FLAME_INCLUSIVE_DELTA;
	s = svg("a;b 10 20\na;c 10 5\na 2 1\n", &o);
	assert_non_null(strstr(s, "<title>a (after 26 samples, 100.00%; before 22, delta +4, "
				  "+18.18%; self before 2, after 1, delta -1)</title>"));
	assert_non_null(strstr(s, "<title>c (after 5 samples, 19.23%; before 10, delta -5, "
				  "-50.00%; self before 10, after 5, delta -5)</title>"));
	free(s);
	/* In a unit: human values, every frame with its w. */
	o.unit = "milliseconds";
	o.diff_width = PPROF_FLAME_DIFF_MAX;
	s = svg("a;b 10 20\na;c 10 5\n", &o);
	assert_non_null(strstr(s, "<g s=\"20\" w=\"10\"><title>c (max 10 ms, 33.33%; before 10 ms, "
				  "after 5 ms, delta -5 ms, -50.00%; self before 10 ms, after 5 ms, "
				  "delta -5 ms)</title>"));
	free(s);

	/* A path that vanished shows with the width from before. */
	pprof_flame_options_init(&o);
	s = svg("a;gone 7 0\na;kept 3 3\n", &o);
	assert_null(strstr(s, "<title>gone"));
	free(s);
	o.diff_width = PPROF_FLAME_DIFF_BEFORE;
	s = svg("a;gone 7 0\na;kept 3 3\n", &o);
	assert_non_null(strstr(s, "<title>gone (7 samples, 70.00%; -70.00%)</title>"));
	free(s);
	o.diff_width = PPROF_FLAME_DIFF_MAX;
	s = svg("a;gone 7 0\na;new 0 5\n", &o);
	assert_non_null(strstr(s, "<title>gone (7 samples, 58.33%; -58.33%)</title>"));
	assert_non_null(strstr(s, "<title>new (5 samples, 41.67%; +41.67%)</title>"));
	free(s);
}

/* flamegraph.pl keys frames by name, depth and end: the b under x is lost
 * there when the zero-width b under y ends at the same time.  Both stay. */
static void test_flame_zero_width_keeps_both(void **state)
{
	(void)state;
	struct pprof_flame_options o;
	pprof_flame_options_init(&o);
	o.minwidth = 0;
	char *s = svg("x;b 3\ny;b 0\nz 1\n", &o);
	assert_non_null(strstr(s, "<title>b (3 samples, 75.00%)</title>"));
	assert_non_null(strstr(s, "<title>b (0 samples, 0.00%)</title>"));
	free(s);
}

static void test_flame_minwidth(void **state)
{
	(void)state;
	struct pprof_flame_options o;
	pprof_flame_options_init(&o);
	/* 1 of 10000 samples is 0.118 px: drawn at 0.1 px, not at 0.2. */
	char *s = svg("a;big 9999\na;small 1\n", &o);
	assert_non_null(strstr(s, "<title>small"));
	free(s);
	o.minwidth = 0.2;
	s = svg("a;big 9999\na;small 1\n", &o);
	assert_null(strstr(s, "<title>small"));
	free(s);
	o.minwidth = 0.01;
	o.minwidth_percent = 1;
	s = svg("a;big 9999\na;small 1\n", &o);
	assert_non_null(strstr(s, "<title>small"));
	free(s);
	o.minwidth = 0.02;
	s = svg("a;big 9999\na;small 1\n", &o);
	assert_null(strstr(s, "<title>small"));
	free(s);
}

static void test_flame_labels_in_characters(void **state)
{
	(void)state;
	struct pprof_flame_options o;
	pprof_flame_options_init(&o);
	o.width = 100; /* 80 px for the root: 11 characters of 7.08 px */
	char *s = svg("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		      "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9 1\n", &o);
	/* 12 characters in 24 bytes: cut to 9 characters and "..". */
	assert_non_null(strstr(s, ">\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
				  "\xc3\xa9\xc3\xa9..</text>"));
	free(s);
	/* perf's annotations are not shown, but colour by the full name. */
	pprof_flame_options_init(&o);
	o.palette = PPROF_FLAME_JAVA;
	s = svg("a;func_[k] 1\n", &o);
	assert_non_null(strstr(s, "<title>func (1 samples, 100.00%)</title>"));
	assert_non_null(strstr(s, ">func</text>"));
	free(s);
}

/* Any bytes give well-formed XML: markup escaped, controls as their
 * pictures, invalid UTF-8 and non-characters as U+FFFD. */
static void test_flame_escaping(void **state)
{
	(void)state;
	const char in[] = "a]]></script><script>alert(1)</script>;\x01\x1b\x7f;"
			  "\xff\xc3\x28\xc0\xaf\xed\xa0\x80\xef\xbf\xbe\xf4\x90\x80\x80 1\n";
	char *s = svg_of(in, sizeof(in) - 1, NULL, NULL, 0);
	assert_non_null(s);
	assert_int_equal(count(s, "<script"), 1);
	assert_int_equal(count(s, "]]>"), 1); /* the script's own CDATA end */
	assert_non_null(strstr(s, "<title>a]]&gt;&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; ("));
	assert_non_null(strstr(s, "<title>\xe2\x90\x81\xe2\x90\x9b\xe2\x90\xa1 ("));
	/* \xff, \xc3 (then "("), \xc0, \xaf, \xed, \xa0, \x80, U+FFFE, \xf4 \x90 \x80 \x80. */
	assert_non_null(strstr(s, "<title>\xef\xbf\xbd\xef\xbf\xbd(\xef\xbf\xbd\xef\xbf\xbd"
				  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
				  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd (1 samples"));
	/* No C0 control byte other than newline anywhere. */
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 && *p != '\n')
			fail_msg("control byte 0x%02x at %zu", (unsigned char)*p, (size_t)(p - s));
	free(s);

	/* Titles, counts and notes from options are escaped as well. */
	struct pprof_flame_options o;
	pprof_flame_options_init(&o);
	o.title = "<b>&";
	o.countname = "\"q\"";
	o.nametype = "<x\">";
	o.notes = "a -- b -->";
	s = svg("a 1\n", &o);
	assert_non_null(strstr(s, ">&lt;b&gt;&amp;</text>"));
	assert_non_null(strstr(s, "nametype=\"&lt;x&quot;&gt;\""));
	assert_non_null(strstr(s, "(1 \"q\", 100.00%)"));
	assert_non_null(strstr(s, "<!-- NOTES: a - - b - -&gt; -->"));
	assert_int_equal(count(s, "--"), 4); /* two comments, nothing else */
	free(s);
}

static void test_flame_inverted_reverse(void **state)
{
	(void)state;
	struct pprof_flame_options o;
	pprof_flame_options_init(&o);
	o.flags = PPROF_FLAME_INVERTED;
	char *s = svg("a;b 1\n", &o);
	assert_non_null(strstr(s, ">Icicle Graph</text>"));
	assert_non_null(strstr(s, "<title>all (1 samples, 100%)</title><rect x=\"10.0\" y=\"36\""));
	assert_non_null(strstr(s, "<title>b (1 samples, 100.00%)</title><rect x=\"10.0\" y=\"68\""));
	free(s);
	/* --reverse: leaf first; a frame ending in a number then reads as a
	 * differential count ("y;x 7 3"), as in flamegraph.pl. */
	o.flags = PPROF_FLAME_REVERSE;
	s = svg("a;b;c 2\na;d 1\nx 7;y 3\n", &o);
	assert_non_null(strstr(s, "<g><title>c (2 samples, 33.33%)</title><rect x=\"10.0\" y=\"69\""));
	assert_non_null(strstr(s, "<g><title>a (2 samples, 33.33%)</title><rect x=\"10.0\" y=\"37\""));
	assert_non_null(strstr(s, "<title>x (3 samples, 50.00%; -66.67%)</title>"));
	assert_non_null(strstr(s, "<title>y (3 samples, 50.00%; 0.00%)</title>"));
	free(s);
}

static void test_flame_flamechart_keeps_order(void **state)
{
	(void)state;
	struct pprof_flame_options o;
	pprof_flame_options_init(&o);
	o.flags = PPROF_FLAME_FLAMECHART;
	char *s = svg("b 1\na 1\nb 1\n", &o);
	assert_non_null(strstr(s, ">Flame Chart</text>"));
	/* b, a, b from left to right. */
	assert_non_null(strstr(s, "<g><title>b (1 samples, 33.33%)</title>"));
	assert_non_null(strstr(s, "<g s=\"1\"><title>a (1 samples, 33.33%)</title>"));
	assert_non_null(strstr(s, "<g s=\"2\"><title>b (1 samples, 33.33%)</title>"));
	free(s);
}

static void test_flame_sort_and_merge(void **state)
{
	(void)state;
	struct pprof_flame_options o;
	pprof_flame_options_init(&o);
	o.flags = PPROF_FLAME_SORT_WIDTH;
	char *s = svg("r;a 1\nr;b 5\nr;c 3\n", &o);
	/* Widest first from the caller's start: b at 0, c at 5, a at 8. */
	assert_non_null(strstr(s, "<g><title>b (5 samples"));
	assert_non_null(strstr(s, "<g s=\"5\"><title>c (3 samples"));
	assert_non_null(strstr(s, "<g s=\"8\"><title>a (1 samples"));
	free(s);

	pprof_flame_options_init(&o);
	o.flags = PPROF_FLAME_MERGE_SMALL;
	o.minwidth = 1;
	o.minwidth_percent = 1;
	/* 1000 callees of 1 sample each (0.1% < 1%) become one (other). */
	size_t cap = 64 * 1024, n = 0;
	char *in = malloc(cap);
	n += (size_t)snprintf(in + n, cap - n, "r;big 9000\n");
	for (int i = 0; i < 1000; i++)
		n += (size_t)snprintf(in + n, cap - n, "r;f%04d 1\n", i);
	s = svg(in, &o);
	assert_non_null(strstr(s, "<g s=\"9000\"><title>(other) (1,000 samples, 10.00%)</title>"));
	assert_null(strstr(s, "<title>f0001"));
	free(s);
	free(in);
}

static void test_flame_sort_matches_naive(void **state)
{
	(void)state;
	/* Shuffled lines give the SVG of sorted ones (long shared prefixes,
	 * prefixes of each other, bytes above 0x7f and below ' '). */
	static const char *const names[] = {"root", "root2", "r", "x\x01", "x", "\xc3\xa9",
					    "aaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaab", "b b"};
	size_t nlines = 3000;
	char **lines = calloc(nlines, sizeof(*lines));
	unsigned seed = 7;
	for (size_t i = 0; i < nlines; i++) {
		char buf[512];
		size_t k = (size_t)snprintf(buf, sizeof(buf), "common;prefix;of;every;line");
		int depth = (int)((seed = seed * 1103515245 + 12345) >> 16) % 8;
		for (int d = 0; d < depth; d++) {
			size_t w = ((seed = seed * 1103515245 + 12345) >> 16) % 9;
			k += (size_t)snprintf(buf + k, sizeof(buf) - k, ";%s", names[w]);
		}
		snprintf(buf + k, sizeof(buf) - k, " %u\n", ((seed = seed * 1103515245 + 12345) >> 16) % 50 + 1);
		lines[i] = strdup(buf);
	}
	size_t total = 0;
	for (size_t i = 0; i < nlines; i++)
		total += strlen(lines[i]);
	char *shuffled = malloc(total + 1), *sorted = malloc(total + 1);
	size_t n = 0;
	for (size_t i = 0; i < nlines; i++) {
		memcpy(shuffled + n, lines[i], strlen(lines[i]));
		n += strlen(lines[i]);
	}
	shuffled[n] = '\0';
	/* Insertion sort by strcmp on the line without its newline. */
	for (size_t i = 1; i < nlines; i++) {
		char *t = lines[i];
		size_t j = i;
		while (j > 0 && strcmp(t, lines[j - 1]) < 0) {
			lines[j] = lines[j - 1];
			j--;
		}
		lines[j] = t;
	}
	n = 0;
	for (size_t i = 0; i < nlines; i++) {
		memcpy(sorted + n, lines[i], strlen(lines[i]));
		n += strlen(lines[i]);
		free(lines[i]);
	}
	sorted[n] = '\0';
	free(lines);
	char *a = svg(shuffled, NULL), *b = svg(sorted, NULL);
	assert_string_equal(a, b);
	free(a);
	free(b);
	free(shuffled);
	free(sorted);
}

static void test_flame_colours(void **state)
{
	(void)state;
	struct pprof_flame_options o;
	pprof_flame_options_init(&o);
	/* flamegraph.pl's --hash for "main": namehash of "mai" and "nia". */
	o.flags = PPROF_FLAME_HASH;
	char *s = svg("main 1\n", &o);
	assert_non_null(strstr(s, "<title>main (1 samples, 100.00%)</title><rect x=\"10.0\" y=\"37\" "
				  "width=\"1180.0\" height=\"15.0\" fill=\"#f7532e\"/>"));
	free(s);
	/* "-" and "--" are grey whatever the palette. */
	pprof_flame_options_init(&o);
	s = svg("a;-;b 1\na;--;c 1\n", &o);
	assert_non_null(strstr(strstr(s, "<title>- ("), "fill=\"#c8c8c8\""));
	assert_non_null(strstr(strstr(s, "<title>-- ("), "fill=\"#a0a0a0\""));
	free(s);
	/* ts: user code hot, node_modules blue, runtime purple, engine grey. */
	pprof_flame_options_init(&o);
	o.palette = PPROF_FLAME_TS;
	s = svg("(program) 1\nmain src/a.ts:3;lib node_modules/x/i.js:1;JSON.stringify 1\n", &o);
	assert_non_null(strstr(strstr(s, "<title>(program) ("), "fill=\"#"));
	char *p = frame(s, "(program) (");
	char *u = frame(s, "main src/a.ts:3 (");
	char *d = frame(s, "lib node_modules/x/i.js:1 (");
	char *r = frame(s, "JSON.stringify (");
	assert_non_null(p);
	assert_non_null(u);
	assert_non_null(d);
	assert_non_null(r);
	/* grey: r == g == b */
	const char *pf = strstr(p, "fill=\"#") + 7;
	assert_memory_equal(pf, pf + 2, 2);
	assert_memory_equal(pf, pf + 4, 2);
	/* blue: b is the largest component; purple: r == b > g */
	const char *df = strstr(d, "fill=\"#") + 7;
	assert_true(strncmp(df + 4, df, 2) > 0);
	const char *rf = strstr(r, "fill=\"#") + 7;
	assert_memory_equal(rf, rf + 4, 2);
	free(p);
	free(u);
	free(d);
	free(r);
	free(s);
}

static void test_flame_palette_map(void **state)
{
	(void)state;
	struct pprof_flame *f = pprof_flame_new();
	const char map[] = "main->rgb(1,2,3)\nbad->url(http://x)\nx->y->#0a0b0c\n";
	assert_int_equal(pprof_flame_palette_read(f, map, sizeof(map) - 1), PPROF_OK);
	assert_int_equal(pprof_flame_add_text(f, "main;x->y 1\nother 1\n", 20), PPROF_OK);
	struct pprof_flame_options o;
	pprof_flame_options_init(&o);
	o.flags = PPROF_FLAME_CONSISTENT;
	char *buf = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&buf, &n);
	assert_int_equal(pprof_flame_write_svg(f, &o, out), PPROF_OK);
	fclose(out);
	assert_non_null(strstr(buf, "fill=\"rgb(1,2,3)\""));
	assert_non_null(strstr(buf, "fill=\"#0a0b0c\""));
	assert_null(strstr(buf, "url(http"));
	free(buf);
	buf = NULL;
	out = open_memstream(&buf, &n);
	assert_int_equal(pprof_flame_palette_write(f, out), PPROF_OK);
	fclose(out);
	/* Sorted; the new names with their computed colours. */
	assert_string_equal(buf, "->rgb(213,39,9)\nmain->rgb(1,2,3)\nother->rgb(236,144,34)\n"
				 "x->y->#0a0b0c\n");
	free(buf);
	pprof_flame_free(f);
}

/* Found by fuzz_flame: a change far larger than the total printed past
 * a 64-byte buffer.  The whole percentage must be in the title. */
static void test_flame_huge_delta(void **state)
{
	(void)state;
	char in[256], want[512];
	memset(in, '8', 95);
	snprintf(in + 95, sizeof(in) - 95, " 1.75\n");
	char *line = malloc(300);
	snprintf(line, 300, "a;b %s", in);
	char *s = svg(line, NULL);
	double before = strtod(in, NULL);
	snprintf(want, sizeof(want), "<title>b (2 samples, 114.29%%; %.2f%%)</title>",
		 100 * (1.75 - before) / 1.75);
	assert_non_null(strstr(s, want));
	free(s);
	free(line);
}

static void test_flame_errors(void **state)
{
	(void)state;
	char err[256];
	assert_null(svg_of("a 0\nb 0\n", 8, NULL, err, sizeof(err)));
	assert_string_equal(err, "no stack counts found");
	assert_null(svg_of("nothing here\n", 13, NULL, err, sizeof(err)));
	assert_string_equal(err, "no stack counts found");
	struct pprof_flame_options o;
	pprof_flame_options_init(&o);
	o.fonttype = "x;}</style><script>";
	assert_null(svg_of("a 1\n", 4, &o, err, sizeof(err)));
	assert_string_equal(err, "invalid font type");
	pprof_flame_options_init(&o);
	o.bgcolors = "#\"><a>x";
	assert_null(svg_of("a 1\n", 4, &o, err, sizeof(err)));
	assert_int_equal(pprof_flame_palette_parse("hot"), PPROF_FLAME_HOT);
	assert_int_equal(pprof_flame_palette_parse("typescript"), PPROF_FLAME_TS);
	assert_int_equal(pprof_flame_palette_parse("chain"), -1);
	assert_true(pprof_flame_bgcolors_ok("#a0B0c0"));
	assert_false(pprof_flame_bgcolors_ok("#a0B0cg"));
	assert_true(pprof_flame_fonttype_ok("Verdana, 'DejaVu Sans', sans-serif"));
	assert_false(pprof_flame_fonttype_ok("a{b}"));
}

/* Two SVGs stacked: one document as tall as both, the second below the
 * first, its frames numbered 2; what is not our SVG is refused. */
static void test_flame_stack_svgs(void **state)
{
	(void)state;
	const char text[] = "a;b 1\na;c 2\n";
	char *one = svg_of(text, sizeof(text) - 1, NULL, NULL, 0);
	char *two = svg_of(text, sizeof(text) - 1, NULL, NULL, 0);
	assert_non_null(one);
	assert_non_null(two);
	const char *svgs[] = {one, two};
	size_t lens[] = {strlen(one), strlen(two)};
	char *buf = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&buf, &n);
	assert_non_null(out);
	assert_int_equal(pprof_flame_stack_svgs(svgs, lens, 2, out), PPROF_OK);
	fclose(out);
	const char *h = strstr(one, " height=\"");
	assert_non_null(h);
	int h1 = atoi(h + 9);
	char want[128];
	snprintf(want, sizeof(want), "<svg version=\"1.1\" width=\"1200\" height=\"%d\"", 2 * h1);
	assert_non_null(strstr(buf, want));
	snprintf(want, sizeof(want), "\n<svg y=\"%d\" version=\"1.1\"", h1);
	assert_non_null(strstr(buf, "\n<svg y=\"0\" version=\"1.1\""));
	assert_non_null(strstr(buf, want));
	assert_non_null(strstr(buf, "<g id=\"frames\" chart=\"2\" "));
	assert_null(strstr(buf, "chart=\"1\""));
	free(buf);
	buf = NULL;
	const char *bad[] = {"<svg>not ours</svg>"};
	size_t badlen[] = {strlen(bad[0])};
	out = open_memstream(&buf, &n);
	assert_non_null(out);
	assert_int_equal(pprof_flame_stack_svgs(bad, badlen, 1, out), PPROF_EINPUT);
	fclose(out);
	free(buf);
	free(one);
	free(two);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flame_geometry_as_flamegraph_pl),
		cmocka_unit_test(test_flame_read_formats),
		cmocka_unit_test(test_flame_fractions),
		cmocka_unit_test(test_flame_differential),
		cmocka_unit_test(test_flame_zero_width_keeps_both),
		cmocka_unit_test(test_flame_minwidth),
		cmocka_unit_test(test_flame_labels_in_characters),
		cmocka_unit_test(test_flame_escaping),
		cmocka_unit_test(test_flame_inverted_reverse),
		cmocka_unit_test(test_flame_flamechart_keeps_order),
		cmocka_unit_test(test_flame_sort_and_merge),
		cmocka_unit_test(test_flame_sort_matches_naive),
		cmocka_unit_test(test_flame_colours),
		cmocka_unit_test(test_flame_palette_map),
		cmocka_unit_test(test_flame_huge_delta),
		cmocka_unit_test(test_flame_errors),
		cmocka_unit_test(test_flame_stack_svgs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
