/* Unit tests of common/json.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json.h"
#include "../json_chunks.h"

/* Parses IN to the end; returns the last token (JSON_END or JSON_ERROR). */
static int run(const char *in, size_t len, uint32_t max_depth, struct json *j)
{
	int t;

	json_init(j, in, len, max_depth);
	do
		t = json_next(j);
	while (t > JSON_END);
	return t;
}

static void check_error_n(const char *in, size_t len, const char *msg, size_t off)
{
	struct json j;
	int t = run(in, len, 0, &j);

	if (t != JSON_ERROR)
		fail_msg("accepted %s", in);
	if (strcmp(json_error(&j), msg) != 0 || json_error_offset(&j) != off)
		fail_msg("%s: got \"%s\" at %zu, want \"%s\" at %zu", in, json_error(&j),
			 json_error_offset(&j), msg, off);
	json_release(&j);
}

static void check_error(const char *in, const char *msg, size_t off)
{
	check_error_n(in, strlen(in), msg, off);
}

static void check_ok_n(const char *in, size_t len)
{
	struct json j;
	int t = run(in, len, 0, &j);

	if (t != JSON_END)
		fail_msg("%s: %s at %zu", in, json_error(&j), json_error_offset(&j));
	json_release(&j);
}

static void check_ok(const char *in)
{
	check_ok_n(in, strlen(in));
}

/* The one string value of IN, decoded. */
static void check_string_n(const char *in, size_t len, const char *want, size_t wantlen)
{
	struct json j;
	int t;

	json_init(&j, in, len, 0);
	t = json_next(&j);
	if (t != JSON_STRING)
		fail_msg("%s: token %d, %s at %zu", in, t, json_error(&j),
			 json_error_offset(&j));
	assert_int_equal(j.len, wantlen);
	assert_memory_equal(j.str, want, wantlen);
	assert_int_equal(json_next(&j), JSON_END);
	json_release(&j);
}

static void check_string(const char *in, const char *want)
{
	check_string_n(in, strlen(in), want, strlen(want));
}

static void test_json_every_token(void **state)
{
	const char *in = " {\"a\": [1, -2.5e3, \"s\", true, false, null, {}, []]} ";
	struct json j;

	(void)state;
	json_init(&j, in, strlen(in), 0);
	assert_int_equal(json_next(&j), JSON_OBJECT_BEGIN);
	assert_int_equal(json_offset(&j), 1);
	assert_int_equal(j.depth, 1);
	assert_int_equal(json_next(&j), JSON_KEY);
	assert_true(json_is(&j, "a"));
	assert_false(json_is(&j, "ab"));
	assert_int_equal(json_offset(&j), 2);
	assert_int_equal(json_next(&j), JSON_ARRAY_BEGIN);
	assert_int_equal(json_offset(&j), 7);
	assert_int_equal(j.depth, 2);
	assert_int_equal(json_next(&j), JSON_NUMBER);
	assert_int_equal(json_offset(&j), 8);
	assert_int_equal(j.len, 1);
	assert_int_equal(json_next(&j), JSON_NUMBER);
	assert_int_equal(json_offset(&j), 11);
	assert_int_equal(j.len, 6);
	assert_memory_equal(j.str, "-2.5e3", 6);
	assert_int_equal(json_next(&j), JSON_STRING);
	assert_int_equal(json_offset(&j), 19);
	assert_true(json_is(&j, "s"));
	assert_int_equal(json_next(&j), JSON_TRUE);
	assert_int_equal(json_next(&j), JSON_FALSE);
	assert_int_equal(json_next(&j), JSON_NULL);
	assert_int_equal(json_offset(&j), 37);
	assert_int_equal(json_next(&j), JSON_OBJECT_BEGIN);
	assert_int_equal(j.depth, 3);
	assert_int_equal(json_next(&j), JSON_OBJECT_END);
	assert_int_equal(j.depth, 2);
	assert_int_equal(json_next(&j), JSON_ARRAY_BEGIN);
	assert_int_equal(json_next(&j), JSON_ARRAY_END);
	assert_int_equal(json_next(&j), JSON_ARRAY_END);
	assert_int_equal(json_offset(&j), 49);
	assert_int_equal(j.depth, 1);
	assert_int_equal(json_next(&j), JSON_OBJECT_END);
	assert_int_equal(json_offset(&j), 50);
	assert_int_equal(j.depth, 0);
	assert_int_equal(json_next(&j), JSON_END);
	assert_int_equal(json_next(&j), JSON_END);
	json_release(&j);
}

static void test_json_top_level_scalars(void **state)
{
	(void)state;
	check_ok("0");
	check_ok("-0");
	check_ok(" \"x\" ");
	check_ok("true");
	check_ok("false\n");
	check_ok("null");
	check_ok("\t\r\n 1.5e-3 \t\r\n");
	check_ok("[]");
	check_ok("{}");
}

static void test_json_string_in_place(void **state)
{
	const char *in = "[\"plain text here, longer than sixteen bytes\", \"\"]";
	struct json j;

	(void)state;
	json_init(&j, in, strlen(in), 0);
	assert_int_equal(json_next(&j), JSON_ARRAY_BEGIN);
	assert_int_equal(json_next(&j), JSON_STRING);
	assert_ptr_equal(j.str, in + 2);
	assert_int_equal(j.len, 42);
	assert_int_equal(json_next(&j), JSON_STRING);
	assert_int_equal(j.len, 0);
	json_release(&j);
}

static void test_json_escapes(void **state)
{
	(void)state;
	check_string("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\/\b\f\n\r\t");
	check_string("\"a\\u0041b\"", "aAb");
	check_string("\"\\u00e9\\u00E9\"", "\xc3\xa9\xc3\xa9");
	check_string("\"\\u20ac\"", "\xe2\x82\xac");
	check_string("\"\\uffff\"", "\xef\xbf\xbf");
	check_string("\"\\ud83d\\ude00!\"", "\xf0\x9f\x98\x80!");
	check_string("\"\\uDBFF\\uDFFF\"", "\xf4\x8f\xbf\xbf");
	check_string_n("\"a\\u0000b\"", 10, "a\0b", 3);
	/* A long string with escapes at both ends makes the scratch grow. */
	{
		size_t n = 100000, i;
		char *in = malloc(n + 8), *want = malloc(n + 2);

		assert_non_null(in);
		assert_non_null(want);
		in[0] = '"';
		in[1] = '\\';
		in[2] = 't';
		for (i = 0; i < n; i++)
			in[3 + i] = want[1 + i] = (char)('a' + i % 26);
		memcpy(in + 3 + n, "\\n\"", 3);
		want[0] = '\t';
		want[n + 1] = '\n';
		check_string_n(in, n + 6, want, n + 2);
		free(in);
		free(want);
	}
}

/* Every length and every place of an escape, so that the 16-byte scan meets
 * quotes, escapes and the buffer end at every alignment. */
static void test_json_string_alignments(void **state)
{
	char in[64], want[64] = "";
	size_t n, k;

	(void)state;
	for (n = 0; n < 40; n++) {
		in[0] = '"';
		for (k = 0; k < n; k++)
			in[1 + k] = want[k] = (char)('A' + k % 26);
		in[1 + n] = '"';
		check_string_n(in, n + 2, want, n);
		for (k = 0; k < n; k++) {
			size_t m = 0, i;

			in[0] = '"';
			for (i = 0; i < n; i++) {
				if (i == k) {
					in[1 + m++] = '\\';
					in[1 + m++] = 'n';
					want[i] = '\n';
				} else {
					in[1 + m++] = want[i] = (char)('a' + i % 26);
				}
			}
			in[1 + m] = '"';
			check_string_n(in, m + 2, want, n);
			/* A control character there instead. */
			in[1 + k] = '\x01';
			check_error_n(in, m + 2, "control character in string", 1 + k);
		}
		/* Unterminated at every length. */
		in[0] = '"';
		for (k = 0; k < n; k++)
			in[1 + k] = (char)('a' + k % 26);
		check_error_n(in, n + 1, "unterminated string", 0);
	}
}

static void test_json_escape_errors(void **state)
{
	(void)state;
	check_error("\"ab\\x\"", "invalid escape in string", 3);
	check_error("\"\\'\"", "invalid escape in string", 1);
	check_error("\"\\u12\"", "invalid \\u escape in string", 1);
	check_error("\"\\u12g4\"", "invalid \\u escape in string", 1);
	check_error("\"\\u", "invalid \\u escape in string", 1);
	check_error("\"\\", "unterminated string", 0);
	check_error("[\"\\ud800\"]", "lone surrogate in \\u escape", 2);
	check_error("[\"\\udc00\"]", "lone surrogate in \\u escape", 2);
	check_error("\"\\ud800\\u0041\"", "lone surrogate in \\u escape", 1);
	check_error("\"\\ud800\\ud800\"", "lone surrogate in \\u escape", 1);
	check_error("\"\\ud800x\"", "lone surrogate in \\u escape", 1);
	check_error("\"\\ud800\\n\"", "lone surrogate in \\u escape", 1);
	check_error("\"x\\udfff\\ud800\"", "lone surrogate in \\u escape", 2);
}

static void test_json_utf8(void **state)
{
	(void)state;
	check_string("\"\xc3\xa9t\xc3\xa9\"", "\xc3\xa9t\xc3\xa9");
	check_string("\"\xe2\x82\xac \xef\xbf\xbf \xed\x9f\xbf \xee\x80\x80\"",
		     "\xe2\x82\xac \xef\xbf\xbf \xed\x9f\xbf \xee\x80\x80");
	check_string("\"\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\"", "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf");
	check_string("\"\x7f\"", "\x7f");
	/* Mixed with escapes: the run copied to scratch keeps its UTF-8. */
	check_string("\"\xc3\xa9\\n\xe2\x82\xac\"", "\xc3\xa9\n\xe2\x82\xac");

	check_error("\"\x80\"", "invalid UTF-8 in string", 1);
	check_error("\"ab\xbf\"", "invalid UTF-8 in string", 3);
	check_error("\"\xc0\x80\"", "invalid UTF-8 in string", 1);    /* overlong */
	check_error("\"\xc1\xbf\"", "invalid UTF-8 in string", 1);    /* overlong */
	check_error("\"\xe0\x80\x80\"", "invalid UTF-8 in string", 1); /* overlong */
	check_error("\"\xf0\x80\x80\x80\"", "invalid UTF-8 in string", 1);
	check_error("\"\xed\xa0\x80\"", "invalid UTF-8 in string", 1); /* surrogate */
	check_error("\"\xf4\x90\x80\x80\"", "invalid UTF-8 in string", 1); /* > U+10FFFF */
	check_error("\"\xf5\x80\x80\x80\"", "invalid UTF-8 in string", 1);
	check_error("\"\xff\"", "invalid UTF-8 in string", 1);
	check_error("\"\xc3\"", "invalid UTF-8 in string", 1);         /* truncated */
	check_error("\"\xe2\x82\"", "invalid UTF-8 in string", 1);
	check_error_n("\"\xe2\x82", 3, "invalid UTF-8 in string", 1); /* at the end */
	check_error("\"\\n\xc3(\"", "invalid UTF-8 in string", 3);
	check_error("{\"k\xff\":1}", "invalid UTF-8 in string", 3);
}

static void test_json_control_characters(void **state)
{
	(void)state;
	check_error("\"a\nb\"", "control character in string", 2);
	check_error("\"\t\"", "control character in string", 1);
	check_error("\"\x1f\"", "control character in string", 1);
	check_error_n("\"a\0b\"", 5, "control character in string", 2);
	check_error("{\"a\rb\":1}", "control character in string", 3);
}

static void test_json_structure_errors(void **state)
{
	(void)state;
	check_error_n("", 0, "empty input", 0);
	check_error("  \n", "expected a value", 3);
	check_error("[1,]", "trailing comma in array", 3);
	check_error("[1 , ]", "trailing comma in array", 5);
	check_error("{\"a\":1,}", "trailing comma in object", 7);
	check_error("[,1]", "expected a value", 1);
	check_error("{,}", "expected a string as object key", 1);
	check_error("{1:2}", "expected a string as object key", 1);
	check_error("{'a':2}", "expected a string as object key", 1);
	check_error("{\"a\" 1}", "expected ':' after object key", 5);
	check_error("{\"a\":}", "expected a value", 5);
	check_error("{\"a\":1 \"b\":2}", "expected ',' or '}' after object member", 7);
	check_error("{\"a\":1]", "expected ',' or '}' after object member", 6);
	check_error("[1 2]", "expected ',' or ']' after array element", 3);
	check_error("[1}", "expected ',' or ']' after array element", 2);
	check_error("[1", "unexpected end of input", 2);
	check_error("[", "unexpected end of input", 1);
	check_error("{", "unexpected end of input", 1);
	check_error("{\"a\"", "unexpected end of input", 4);
	check_error("{\"a\":", "unexpected end of input", 5);
	check_error("{\"a\":1", "unexpected end of input", 6);
	check_error("[1,", "unexpected end of input", 3);
	check_error("\"abc", "unterminated string", 0);
	check_error("1 2", "unexpected data after the top-level value", 2);
	check_error("{} {}", "unexpected data after the top-level value", 3);
	check_error("[]]", "unexpected data after the top-level value", 2);
	check_error("]", "expected a value", 0);
	check_error("}", "expected a value", 0);
	check_error("tru", "invalid literal", 0);
	check_error("[True]", "expected a value", 1);
	check_error("[trUe]", "invalid literal", 1);
	check_error("nul", "invalid literal", 0);
	check_error("[fals]", "invalid literal", 1);
	check_error("truex", "unexpected data after the top-level value", 4);
	check_error("[nullx]", "expected ',' or ']' after array element", 5);
	check_error("NaN", "expected a value", 0);
	check_error("[Infinity]", "expected a value", 1);
	check_error("\x0c[]", "expected a value", 0); /* form feed is not whitespace */
	check_error("[1]\x0b", "unexpected data after the top-level value", 3);
	check_error("/* c */ 1", "expected a value", 0);
}

static void test_json_error_is_sticky(void **state)
{
	struct json j;

	(void)state;
	json_init(&j, "[1,,2]", 6, 0);
	assert_int_equal(json_next(&j), JSON_ARRAY_BEGIN);
	assert_int_equal(json_next(&j), JSON_NUMBER);
	assert_int_equal(json_next(&j), JSON_ERROR);
	assert_int_equal(json_next(&j), JSON_ERROR);
	assert_string_equal(json_error(&j), "expected a value");
	assert_int_equal(json_error_offset(&j), 3);
	json_release(&j);
}

static void test_json_bom(void **state)
{
	(void)state;
	check_ok("\xef\xbb\xbf{\"a\":1}");
	check_ok("\xef\xbb\xbf \"x\"");
	check_error("\xef\xbb\xbf", "expected a value", 3);
	/* Only at the very start. */
	check_error(" \xef\xbb\xbf{}", "expected a value", 1);
}

static void test_json_number_syntax(void **state)
{
	(void)state;
	check_ok("[0, -0, 1, -1, 10, 0.5, -0.5, 1e5, 1E5, 1e+5, 1e-5, 1.25E-10, 12345678901234567890123]");
	check_error("01", "leading zero in number", 0);
	check_error("[-012]", "leading zero in number", 1);
	check_error("[00]", "leading zero in number", 1);
	check_error("-", "expected a digit in number", 1);
	check_error("[-a]", "expected a digit in number", 2);
	check_error("[- 1]", "expected a digit in number", 2);
	check_error("1.", "expected a digit after '.' in number", 2);
	check_error("[1.e5]", "expected a digit after '.' in number", 3);
	check_error("[.5]", "expected a value", 1);
	check_error("[+1]", "expected a value", 1);
	check_error("1e", "expected a digit in exponent", 2);
	check_error("[1e+]", "expected a digit in exponent", 4);
	check_error("[1E-x]", "expected a digit in exponent", 4);
	check_error("0x10", "unexpected data after the top-level value", 1);
	check_error("[1.5.3]", "expected ',' or ']' after array element", 4);
	check_error("[-Infinity]", "expected a digit in number", 2);
}

/* The integer value of the single number IN, or a conversion failure. */
static void check_int(const char *in, bool ok, int64_t want)
{
	struct json j;
	int64_t v = 12345;
	bool r;

	json_init(&j, in, strlen(in), 0);
	assert_int_equal(json_next(&j), JSON_NUMBER);
	r = json_int64(&j, &v);
	if (r != ok)
		fail_msg("%s: json_int64 gave %d (%s), want %d", in, r, json_error(&j), ok);
	if (ok && v != want)
		fail_msg("%s: got %lld, want %lld", in, (long long)v, (long long)want);
	if (!ok)
		assert_int_equal(json_error_offset(&j), 0);
	json_release(&j);
}

static void test_json_int64(void **state)
{
	char buf[64];
	int64_t v;
	int i;

	(void)state;
	check_int("0", true, 0);
	check_int("-0", true, 0);
	check_int("7", true, 7);
	check_int("-7", true, -7);
	check_int("12345678", true, 12345678);
	check_int("123456789", true, 123456789);
	check_int("99999999", true, 99999999);
	check_int("999999999999999999", true, INT64_C(999999999999999999));
	check_int("-999999999999999999", true, -INT64_C(999999999999999999));
	check_int("9223372036854775807", true, INT64_MAX);
	check_int("-9223372036854775808", true, INT64_MIN);
	check_int("9223372036854775808", false, 0);
	check_int("-9223372036854775809", false, 0);
	check_int("18446744073709551616", false, 0);
	check_int("100000000000000000000", false, 0);
	check_int("1.0", true, 1);
	check_int("1.000", true, 1);
	check_int("1.5", false, 0);
	check_int("1e3", true, 1000);
	check_int("1E+3", true, 1000);
	check_int("10e-1", true, 1);
	check_int("1e-1", false, 0);
	check_int("0.0001e4", true, 1);
	check_int("-2.5e3", true, -2500);
	check_int("1.2345e2", false, 0);
	check_int("9.223372036854775807e18", true, INT64_MAX);
	check_int("-9.223372036854775808e18", true, INT64_MIN);
	check_int("9.223372036854775808e18", false, 0);
	check_int("1e19", false, 0);
	check_int("1e18", true, INT64_C(1000000000000000000));
	check_int("0e999999999999", true, 0);
	check_int("0.0e-999999999999", true, 0);
	check_int("1e999999999999", false, 0);
	check_int("1e-999999999999", false, 0);
	check_int("10000000000000000000e-1", true, INT64_C(1000000000000000000));
	check_int("0.00000000000000000000000000001e29", true, 1);

	/* Every width at the end of the buffer and inside it, where the
	 * eight-byte path may or may not read. */
	v = 0;
	for (i = 1; i <= 19; i++) {
		struct json j;
		int64_t got;
		size_t n;

		v = v * 10 + (i % 10);
		n = (size_t)snprintf(buf, sizeof(buf), "%lld", (long long)v);
		json_init(&j, buf, n, 0);
		assert_int_equal(json_next(&j), JSON_NUMBER);
		assert_true(json_int64(&j, &got));
		assert_true(got == v);
		json_release(&j);
		n = (size_t)snprintf(buf, sizeof(buf), "[%lld,-%lld]          ",
				     (long long)v, (long long)v);
		json_init(&j, buf, n, 0);
		assert_int_equal(json_next(&j), JSON_ARRAY_BEGIN);
		assert_int_equal(json_next(&j), JSON_NUMBER);
		assert_true(json_int64(&j, &got));
		assert_true(got == v);
		assert_int_equal(json_next(&j), JSON_NUMBER);
		assert_true(json_int64(&j, &got));
		assert_true(got == -v);
		json_release(&j);
	}
}

static void test_json_int64_failure_keeps_parsing(void **state)
{
	struct json j;
	int64_t v;
	double d;

	(void)state;
	json_init(&j, "[1.5, 2]", 8, 0);
	assert_int_equal(json_next(&j), JSON_ARRAY_BEGIN);
	assert_int_equal(json_next(&j), JSON_NUMBER);
	assert_false(json_int64(&j, &v));
	assert_string_equal(json_error(&j), "number is not an integer");
	assert_int_equal(json_error_offset(&j), 1);
	assert_true(json_double(&j, &d));
	assert_true(d == 1.5);
	assert_int_equal(json_next(&j), JSON_NUMBER);
	assert_true(json_int64(&j, &v));
	assert_int_equal(v, 2);
	assert_int_equal(json_next(&j), JSON_ARRAY_END);
	assert_int_equal(json_next(&j), JSON_END);
	json_release(&j);
}

static void test_json_double(void **state)
{
	static const struct {
		const char *in;
		double want;
	} cases[] = {
		{ "0", 0.0 },
		{ "-1.5", -1.5 },
		{ "2.5e3", 2500.0 },
		{ "1E-2", 0.01 },
		{ "123456789012345678901234567890", 1.2345678901234568e29 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct json j;
		double d;

		json_init(&j, cases[i].in, strlen(cases[i].in), 0);
		assert_int_equal(json_next(&j), JSON_NUMBER);
		assert_true(json_double(&j, &d));
		assert_true(d == cases[i].want);
		json_release(&j);
	}
}

static char *nest(size_t depth, const char *open, const char *inner,
		  const char *close, size_t *len)
{
	size_t lo = strlen(open), li = strlen(inner), lc = strlen(close);
	char *s = malloc(depth * (lo + lc) + li + 1), *p;
	size_t i;

	assert_non_null(s);
	p = s;
	for (i = 0; i < depth; i++, p += lo)
		memcpy(p, open, lo);
	memcpy(p, inner, li);
	p += li;
	for (i = 0; i < depth; i++, p += lc)
		memcpy(p, close, lc);
	*len = (size_t)(p - s);
	*p = '\0';
	return s;
}

static void test_json_deep_nesting(void **state)
{
	size_t len;
	char *s;
	struct json j;
	int t;
	uint32_t maxd = 0;

	(void)state;
	/* The default limit itself is allowed. */
	s = nest(1000000, "[", "", "]", &len);
	json_init(&j, s, len, 0);
	while ((t = json_next(&j)) > JSON_END)
		if (j.depth > maxd)
			maxd = j.depth;
	assert_int_equal(t, JSON_END);
	assert_int_equal(maxd, 1000000);
	json_release(&j);
	free(s);

	s = nest(1000001, "[", "", "]", &len);
	check_error_n(s, len, "nesting deeper than the maximum depth", 1000000);
	free(s);

	s = nest(300000, "{\"a\":", "1", "}", &len);
	check_ok_n(s, len);
	free(s);
}

static void test_json_depth_limit(void **state)
{
	struct json j;

	(void)state;
	assert_int_equal(run("[[1]]", 5, 2, &j), JSON_END);
	json_release(&j);
	assert_int_equal(run("[[[1]]]", 7, 2, &j), JSON_ERROR);
	assert_string_equal(json_error(&j), "nesting deeper than the maximum depth");
	assert_int_equal(json_error_offset(&j), 2);
	json_release(&j);
	assert_int_equal(run("{\"a\":{\"b\":{}}}", 14, 2, &j), JSON_ERROR);
	assert_int_equal(json_error_offset(&j), 10);
	json_release(&j);
	assert_int_equal(run("1", 1, 1, &j), JSON_END);
	json_release(&j);
	/* Alternating kinds across 64-bit words of the stack. */
	{
		size_t n = 200, i, len = 0;
		char *s = malloc(n * 8 + 8);

		assert_non_null(s);
		for (i = 0; i < n; i++) {
			if (i % 3 == 0) {
				memcpy(s + len, "{\"k\":", 5);
				len += 5;
			} else {
				s[len++] = '[';
			}
		}
		s[len++] = '0';
		for (i = n; i-- > 0;)
			s[len++] = i % 3 == 0 ? '}' : ']';
		check_ok_n(s, len);
		assert_int_equal(run(s, len, 199, &j), JSON_ERROR);
		json_release(&j);
		/* A wrong closer deep inside is caught. */
		s[len - 100] = s[len - 100] == '}' ? ']' : '}';
		assert_int_equal(run(s, len, 0, &j), JSON_ERROR);
		json_release(&j);
		free(s);
	}
}

static void test_json_skip(void **state)
{
	const char *in = "{\"a\":{\"x\":[1,{\"y\":\"\\u00e9\"}],\"z\":null},\"b\":[[]],\"c\":3,\"d\":\"s\"}";
	struct json j;
	int t;

	(void)state;
	json_init(&j, in, strlen(in), 0);
	assert_int_equal(json_next(&j), JSON_OBJECT_BEGIN);
	assert_int_equal(json_next(&j), JSON_KEY);
	t = json_next(&j);
	assert_int_equal(t, JSON_OBJECT_BEGIN);
	assert_int_equal(json_skip(&j, t), JSON_OBJECT_BEGIN);
	assert_int_equal(j.depth, 1);
	assert_int_equal(json_next(&j), JSON_KEY);
	assert_true(json_is(&j, "b"));
	t = json_next(&j);
	assert_int_equal(json_skip(&j, t), JSON_ARRAY_BEGIN);
	assert_int_equal(json_next(&j), JSON_KEY);
	assert_true(json_is(&j, "c"));
	t = json_next(&j);
	assert_int_equal(json_skip(&j, t), JSON_NUMBER);
	assert_int_equal(json_next(&j), JSON_KEY);
	t = json_next(&j);
	assert_int_equal(json_skip(&j, t), JSON_STRING);
	assert_int_equal(json_next(&j), JSON_OBJECT_END);
	assert_int_equal(json_next(&j), JSON_END);
	json_release(&j);

	/* Errors inside a skipped value are still errors. */
	json_init(&j, "[{\"a\":\"\\q\"}]", 12, 0);
	assert_int_equal(json_next(&j), JSON_ARRAY_BEGIN);
	t = json_next(&j);
	assert_int_equal(json_skip(&j, t), JSON_ERROR);
	assert_string_equal(json_error(&j), "invalid escape in string");
	assert_int_equal(json_error_offset(&j), 7);
	json_release(&j);

	json_init(&j, "[[1,]]", 6, 0);
	t = json_next(&j);
	assert_int_equal(json_skip(&j, t), JSON_ERROR);
	assert_string_equal(json_error(&j), "trailing comma in array");
	json_release(&j);
}

/* A string read raw (json_next_raw(): not decoded, 64 bytes at a time)
 * ends, fails and reports escapes as a decoded one does, whatever the
 * escape's place in its block of 64: one-byte escapes, runs of
 * backslashes, "\u" escapes, bad escapes, control characters and UTF-8
 * (good and bad) after 0 to 140 plain bytes, with 0 to 140 after. */
static void test_json_raw_blocks(void **state)
{
	static const char *const mid[] = {
		"\\n",
		"\\\"",
		"\\\\",
		"\\\\\\\"",
		"\\\\\\\\\\n",
		"\\/\\b\\f\\r\\t",
		"\\u00e9",
		"\\ud83d\\ude00",
		"\\q",
		"\\u00g0",
		"\\ud83d",
		"\x01",
		"\x1f",
		"\xc3\xa9",
		"\xf0\x9f\x98\x80",
		"\xc3",
		"\xe2\x82",
		"\\",
		"\\\\\\",
		"\"",
		"",
	};
	char s[512];

	(void)state;
	for (size_t m = 0; m < sizeof(mid) / sizeof(mid[0]); m++)
		for (size_t a = 0; a <= 140; a += (a < 70 ? 1 : 7))
			for (size_t b = 0; b <= 140; b += (b < 4 ? 1 : 17)) {
				size_t n = 0, ml = strlen(mid[m]);

				s[n++] = '[';
				s[n++] = '"';
				for (size_t i = 0; i < a; i++)
					s[n++] = (char)('a' + i % 26);
				memcpy(s + n, mid[m], ml);
				n += ml;
				for (size_t i = 0; i < b; i++)
					s[n++] = i % 5 ? 'x' : ' ';
				s[n++] = '"';
				s[n++] = ']';

				struct json d, r;
				bool escaped;

				json_init(&d, s, n, 0);
				json_init(&r, s, n, 0);
				assert_int_equal(json_next(&d), JSON_ARRAY_BEGIN);
				assert_int_equal(json_next(&r), JSON_ARRAY_BEGIN);
				int td = json_next(&d), tr = json_next_raw(&r, &escaped);

				assert_int_equal(td, tr);
				if (td == JSON_ERROR) {
					assert_string_equal(json_error(&d), json_error(&r));
					assert_int_equal(json_error_offset(&d),
							 json_error_offset(&r));
				} else {
					assert_int_equal(td, JSON_STRING);
					assert_int_equal(r.pos, d.pos);
					assert_ptr_equal(r.str, s + 2);
					assert_int_equal(r.len, d.pos - 3);
					assert_int_equal(escaped,
							 memchr(r.str, '\\', r.len) != NULL);
					td = json_next(&d);
					assert_int_equal(json_next(&r), td);
					if (td == JSON_ERROR)
						assert_int_equal(json_error_offset(&d),
								 json_error_offset(&r));
				}
				json_release(&d);
				json_release(&r);
			}
}

static void test_json_release_twice(void **state)
{
	struct json j;

	(void)state;
	json_init(&j, "[\"\\n\"]", 6, 0);
	while (json_next(&j) > JSON_END)
		;
	json_release(&j);
	json_release(&j);
}

/* Small documents, valid and not, cut at every byte into two pieces, and
 * fed a byte at a time: the chunked parser agrees with the whole one. */
static const char *const chunk_docs[] = {
	"{\"a\": [1, -2.5e3, true, false, null], \"b\\u00e9\\ud83d\\ude00\": \"x\\ny\"}",
	"\xef\xbb\xbf [\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\", 12345678901234567890, 0]",
	"  123  ",
	"[1,2,]",
	"{\"a\":1,}",
	"[\"unterminated",
	"[1.]",
	"[tru]",
	"[\"\\ud800\"]",
	"[\"\xe2\x82\"]",
	"{\"k\" 1}",
	"[1] x",
	"[-]",
	"",
	"   ",
	"[[[[[[[[[[]]]]]]]]]]",
	"[1e+]",
	"\"\\u12\"",
	"{\"a\":{\"b\":[{},[],\"\"]}}",
};

static void test_json_chunked_every_split(void **state)
{
	(void)state;
	char why[256];
	for (size_t d = 0; d < sizeof(chunk_docs) / sizeof(chunk_docs[0]); d++) {
		const char *doc = chunk_docs[d];
		size_t n = strlen(doc);
		for (size_t cut = 0; cut <= n; cut++) {
			size_t sizes[2] = {cut, n};
			/* a first piece of 0 bytes would say "the end" */
			const char *bad = cut ? jc_compare(doc, n, sizes, 2, 0, why, sizeof(why))
					      : jc_compare(doc, n, sizes + 1, 1, 0, why, sizeof(why));
			if (bad)
				fail_msg("%s cut at %zu: %s", doc, cut, bad);
		}
		size_t one = 1;
		const char *bad = jc_compare(doc, n, &one, 1, 0, why, sizeof(why));
		if (bad)
			fail_msg("%s a byte at a time: %s", doc, bad);
		/* the depth limit, as in the whole mode */
		if ((bad = jc_compare(doc, n, &one, 1, 3, why, sizeof(why))))
			fail_msg("%s depth 3: %s", doc, bad);
	}
}

/* A string of 1 MiB in pieces of 7 bytes: one token, and its offsets and
 * those after it are the input's. */
static void test_json_chunked_long_token(void **state)
{
	(void)state;
	size_t n = (1u << 20) + 20;
	char *doc = malloc(n + 1);
	assert_non_null(doc);
	memcpy(doc, "[\"", 2);
	memset(doc + 2, 'x', 1u << 20);
	strcpy(doc + 2 + (1u << 20), "\", 42, \"y\" ]");
	n = strlen(doc);
	size_t seven = 7;
	char why[256];
	const char *bad = jc_compare(doc, n, &seven, 1, 0, why, sizeof(why));
	if (bad)
		fail_msg("%s", bad);
	/* the error offset of a bad byte far into the input */
	doc[n - 2] = '?';
	bad = jc_compare(doc, n, &seven, 1, 0, why, sizeof(why));
	if (bad)
		fail_msg("%s", bad);
	free(doc);
}

struct pieces {
	const char *doc;
	size_t len, pos, step;
};

static bool piece_more(void *ctx, const void **buf, size_t *len)
{
	struct pieces *p = ctx;
	size_t n = p->len - p->pos < p->step ? p->len - p->pos : p->step;
	*buf = p->doc + p->pos;
	*len = n;
	p->pos += n;
	return true;
}

/* A value skipped while pinned is handed out whole by json_bytes(), in
 * pieces of many sizes. */
static void test_json_pin(void **state)
{
	(void)state;
	char doc[4096];
	int n = snprintf(doc, sizeof(doc), "[{\"args\":{\"a\":[1,2,3],\"s\":\"%0900d\"},\"name\":\"x\"},", 7);
	for (int i = 0; i < 40; i++)
		n += snprintf(doc + n, sizeof(doc) - (size_t)n, "{\"k\":[%d,%d]},", i, i * i);
	n += snprintf(doc + n, sizeof(doc) - (size_t)n, "0]");
	const char *want = strstr(doc, "{\"a\"");
	size_t wantlen = (size_t)(strstr(doc, "},\"name\"") + 1 - want);
	for (size_t step = 1; step < 70; step += 3) {
		struct pieces p = {doc, (size_t)n, 0, step};
		struct json j;
		json_init_chunked(&j, piece_more, &p, 0);
		assert_int_equal(json_next(&j), JSON_ARRAY_BEGIN);
		assert_int_equal(json_next(&j), JSON_OBJECT_BEGIN);
		assert_int_equal(json_next(&j), JSON_KEY);
		int k = json_next(&j);
		assert_int_equal(k, JSON_OBJECT_BEGIN);
		size_t at = json_offset(&j);
		assert_int_equal(at, (size_t)(want - doc));
		json_pin(&j, at);
		assert_int_equal(json_skip(&j, k), JSON_OBJECT_BEGIN);
		size_t end = json_offset(&j) + 1;
		assert_int_equal(end - at, wantlen);
		assert_int_equal(json_next(&j), JSON_KEY);
		assert_int_equal(json_next(&j), JSON_STRING);
		const unsigned char *b = json_bytes(&j, at, end - at);
		assert_non_null(b);
		assert_memory_equal(b, want, wantlen);
		json_unpin(&j);
		assert_int_equal(json_next(&j), JSON_OBJECT_END);
		while ((k = json_next(&j)) != JSON_END)
			assert_int_not_equal(k, JSON_ERROR);
		/* never bytes not read yet */
		assert_null(json_bytes(&j, (size_t)n, 1));
		json_release(&j);
	}
	/* whole-buffer mode: any bytes of the input */
	struct json j;
	json_init(&j, doc, (size_t)n, 0);
	assert_ptr_equal(json_bytes(&j, 3, 5), (const unsigned char *)doc + 3);
	assert_null(json_bytes(&j, (size_t)n, 1));
	json_release(&j);
}

static bool failing_more(void *ctx, const void **buf, size_t *len)
{
	int *calls = ctx;
	if ((*calls)++)
		return false;
	*buf = "[1, 2";
	*len = 5;
	return true;
}

static void test_json_chunked_read_error(void **state)
{
	(void)state;
	struct json j;
	int calls = 0;
	json_init_chunked(&j, failing_more, &calls, 0);
	assert_int_equal(json_next(&j), JSON_ARRAY_BEGIN);
	assert_int_equal(json_next(&j), JSON_NUMBER);
	assert_false(json_read_failed(&j));
	/* "2" may go on: more is asked for, and that fails */
	assert_int_equal(json_next(&j), JSON_ERROR);
	assert_true(json_read_failed(&j));
	assert_string_equal(json_error(&j), "read error");
	assert_int_equal(json_error_offset(&j), 5);
	assert_int_equal(json_next(&j), JSON_ERROR);
	json_release(&j);
}

/* json_ints(): the plain integers of an array in bulk, stopping before
 * anything else, which json_next() then reads as always. */
static void test_json_ints(void **state)
{
	(void)state;
	const char *in = "[7,-12, 0 ,-0,12345678,123456789012345678,1234567890123456789,3,1.5,4]";
	struct json j;
	int64_t v[16];
	json_init(&j, in, strlen(in), 0);
	assert_int_equal(json_ints(&j, v, 4), 0); /* not in an array yet */
	assert_int_equal(json_next(&j), JSON_ARRAY_BEGIN);
	assert_int_equal(json_ints(&j, v, 2), 2);
	assert_int_equal(v[0], 7);
	assert_int_equal(v[1], -12);
	assert_int_equal(json_offset(&j), 3);
	assert_int_equal(json_ints(&j, v, 16), 4);
	assert_int_equal(v[0], 0);
	assert_int_equal(v[1], 0);
	assert_int_equal(v[2], 12345678);
	assert_int_equal(v[3], 123456789012345678);
	/* 19 digits: json_next() and json_int64() */
	assert_int_equal(json_ints(&j, v, 16), 0);
	assert_int_equal(json_next(&j), JSON_NUMBER);
	assert_true(json_int64(&j, &v[0]));
	assert_int_equal(v[0], 1234567890123456789);
	assert_int_equal(json_ints(&j, v, 16), 1);
	assert_int_equal(v[0], 3);
	assert_int_equal(json_ints(&j, v, 16), 0); /* 1.5 */
	assert_int_equal(json_next(&j), JSON_NUMBER);
	assert_int_equal(json_ints(&j, v, 16), 1);
	assert_int_equal(json_ints(&j, v, 16), 0);
	assert_int_equal(json_next(&j), JSON_ARRAY_END);
	assert_int_equal(json_next(&j), JSON_END);
	json_release(&j);

	/* a leading zero is json_next()'s error, at its byte */
	in = "[1,01]";
	json_init(&j, in, strlen(in), 0);
	assert_int_equal(json_next(&j), JSON_ARRAY_BEGIN);
	assert_int_equal(json_ints(&j, v, 16), 1);
	assert_int_equal(json_next(&j), JSON_ERROR);
	assert_string_equal(json_error(&j), "leading zero in number");
	assert_int_equal(json_error_offset(&j), 3);
	json_release(&j);
}

/* json_int_pair(): {"line":N,"ticks":N} at once, or nothing read. */
static void test_json_int_pair(void **state)
{
	(void)state;
	const char *in = "[{\"line\":12,\"ticks\":3},{\"line\":1,\"ticks\":0} ,"
			 "{\"ticks\":1,\"line\":2},{\"line\":01,\"ticks\":2}]";
	struct json j;
	uint32_t a = 0, b = 0;
	json_init(&j, in, strlen(in), 0);
	assert_false(json_int_pair(&j, "line", "ticks", &a, &b));
	assert_int_equal(json_next(&j), JSON_ARRAY_BEGIN);
	assert_true(json_int_pair(&j, "line", "ticks", &a, &b));
	assert_int_equal(a, 12);
	assert_int_equal(b, 3);
	assert_int_equal(json_offset(&j), 1);
	assert_true(json_int_pair(&j, "line", "ticks", &a, &b));
	assert_int_equal(a, 1);
	assert_int_equal(b, 0);
	/* keys in the other order: token by token */
	assert_false(json_int_pair(&j, "line", "ticks", &a, &b));
	assert_int_equal(json_next(&j), JSON_OBJECT_BEGIN);
	assert_int_equal(json_skip(&j, JSON_OBJECT_BEGIN), JSON_OBJECT_BEGIN);
	assert_false(json_int_pair(&j, "line", "ticks", &a, &b));
	assert_int_equal(json_next(&j), JSON_OBJECT_BEGIN);
	assert_int_equal(json_next(&j), JSON_KEY);
	assert_int_equal(json_next(&j), JSON_ERROR);
	assert_string_equal(json_error(&j), "leading zero in number");
	json_release(&j);

	/* not past the depth limit: json_next() says it */
	in = "[{\"line\":1,\"ticks\":1}]";
	json_init(&j, in, strlen(in), 1);
	assert_int_equal(json_next(&j), JSON_ARRAY_BEGIN);
	assert_false(json_int_pair(&j, "line", "ticks", &a, &b));
	assert_int_equal(json_next(&j), JSON_ERROR);
	json_release(&j);
}

static void test_json_is_prefix(void **state)
{
	(void)state;
	assert_true(json_is_prefix("[", 1, NULL));
	assert_true(json_is_prefix("{\"traceEvents\": [{\"na", 21, NULL));
	assert_true(json_is_prefix("[1, 2]", 6, NULL));
	assert_true(json_is_prefix("  ", 2, NULL));
	assert_false(json_is_prefix("[unknown];foo 1\n", 16, NULL));
	assert_false(json_is_prefix("[kernel.kallsyms];x 3\n", 22, NULL));
	assert_false(json_is_prefix("{a", 2, NULL));
	assert_false(json_is_prefix("[1] 2", 5, NULL));
	size_t off = 0;
	assert_false(json_is_prefix("[1,\n 2,\n x]", 11, &off));
	assert_int_equal(off, 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_every_token),
		cmocka_unit_test(test_json_top_level_scalars),
		cmocka_unit_test(test_json_string_in_place),
		cmocka_unit_test(test_json_escapes),
		cmocka_unit_test(test_json_string_alignments),
		cmocka_unit_test(test_json_escape_errors),
		cmocka_unit_test(test_json_utf8),
		cmocka_unit_test(test_json_control_characters),
		cmocka_unit_test(test_json_structure_errors),
		cmocka_unit_test(test_json_error_is_sticky),
		cmocka_unit_test(test_json_bom),
		cmocka_unit_test(test_json_number_syntax),
		cmocka_unit_test(test_json_int64),
		cmocka_unit_test(test_json_int64_failure_keeps_parsing),
		cmocka_unit_test(test_json_double),
		cmocka_unit_test(test_json_deep_nesting),
		cmocka_unit_test(test_json_depth_limit),
		cmocka_unit_test(test_json_skip),
		cmocka_unit_test(test_json_raw_blocks),
		cmocka_unit_test(test_json_release_twice),
		cmocka_unit_test(test_json_chunked_every_split),
		cmocka_unit_test(test_json_chunked_long_token),
		cmocka_unit_test(test_json_chunked_read_error),
		cmocka_unit_test(test_json_pin),
		cmocka_unit_test(test_json_is_prefix),
		cmocka_unit_test(test_json_ints),
		cmocka_unit_test(test_json_int_pair),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
