/* fuzz_json.c: libFuzzer harness of the JSON pull parser (common/json.c).
 *
 * The input is read three times: token by token with the default depth
 * bound, checking each token (decoded strings are well-formed UTF-8, integer
 * conversions agree with strtoll() and strtod()); then with json_skip() over
 * the whole value, which must agree on success or failure; then with a depth
 * bound of 16, which must fail exactly when the first pass went deeper.
 * Then in chunked mode, in pieces of one byte, of two halves, and of sizes
 * taken from the input: the same tokens and the same end (error message and
 * offset) as the whole parse, with the default depth bound and with 16.
 * And json_next_u32() beside json_next(), whole and one byte at a time;
 * json_ints() and json_int_pair() likewise; json_element(),
 * json_element_done() and json_value_done() beside json_next() and
 * json_skip().
 * Seeds: every JSON file of the fixtures and the shared test data. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "../json_chunks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *s, size_t n)
{
	fprintf(stderr, "fuzz_json: broken promise: %s: %.*s\n", what,
		(int)(n > 200 ? 200 : n), s ? s : "");
	abort();
}

/* RFC 3629, written from the table in section 4. */
static int well_formed_utf8(const unsigned char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		unsigned c = s[i];
		size_t k;
		unsigned lo = 0x80, hi = 0xbf;
		if (c < 0x80) {
			i++;
			continue;
		} else if (c >= 0xc2 && c <= 0xdf) {
			k = 1;
		} else if (c >= 0xe0 && c <= 0xef) {
			k = 2;
			if (c == 0xe0)
				lo = 0xa0;
			else if (c == 0xed)
				hi = 0x9f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			k = 3;
			if (c == 0xf0)
				lo = 0x90;
			else if (c == 0xf4)
				hi = 0x8f;
		} else {
			return 0;
		}
		if (n - i <= k)
			return 0;
		if (s[i + 1] < lo || s[i + 1] > hi)
			return 0;
		for (size_t m = 2; m <= k; m++)
			if (s[i + m] < 0x80 || s[i + m] > 0xbf)
				return 0;
		i += k + 1;
	}
	return 1;
}

static void check_number(struct json *j)
{
	char text[64];
	size_t n = j->len;
	if (n == 0)
		fail("empty number token", "", 0);
	int64_t v;
	double d;
	int ok_i = json_int64(j, &v);
	int ok_d = json_double(j, &d);
	if (!ok_d)
		fail("a number token strtod() refuses", j->str, n);
	if (ok_i && v > -(INT64_C(1) << 53) && v < (INT64_C(1) << 53) && (double)v != d)
		fail("json_int64 and json_double disagree", j->str, n);
	/* Plain integers: as strtoll(). */
	if (n < sizeof(text) && !memchr(j->str, '.', n) && !memchr(j->str, 'e', n) &&
	    !memchr(j->str, 'E', n)) {
		memcpy(text, j->str, n);
		text[n] = '\0';
		errno = 0;
		long long w = strtoll(text, NULL, 10);
		int ok_w = errno == 0;
		if (ok_w != ok_i || (ok_i && w != v))
			fail("json_int64 and strtoll disagree", j->str, n);
	}
}

/* Pass 1.  Returns 1 when the text is one valid value; *MAXDEPTH receives
 * the deepest nesting seen. */
static int tokens(const uint8_t *data, size_t size, uint32_t *maxdepth)
{
	struct json j;
	int ok = 0;
	json_init(&j, data, size, 0);
	*maxdepth = 0;
	for (;;) {
		int t = json_next(&j);
		if (j.depth > *maxdepth)
			*maxdepth = j.depth;
		if (t == JSON_ERROR) {
			const char *e = json_error(&j);
			if (!e || !*e)
				fail("error without a message", "", 0);
			if (json_error_offset(&j) > size)
				fail("error offset past the end", e, strlen(e));
			if (json_next(&j) != JSON_ERROR)
				fail("JSON_ERROR is not sticky", e, strlen(e));
			break;
		}
		if (json_offset(&j) > size)
			fail("token offset past the end", "", 0);
		if (t == JSON_END) {
			ok = 1;
			break;
		}
		if (t == JSON_KEY || t == JSON_STRING) {
			if (!well_formed_utf8((const unsigned char *)j.str, j.len))
				fail("decoded string is not UTF-8", j.str, j.len);
			(void)json_is(&j, "nodes");
		} else if (t == JSON_NUMBER) {
			check_number(&j);
		}
	}
	json_release(&j);
	return ok;
}

/* Passes 2 and 3: the whole value skipped; 1 when it parsed. */
static int skipped(const uint8_t *data, size_t size, uint32_t max_depth)
{
	struct json j;
	json_init(&j, data, size, max_depth);
	int t = json_next(&j);
	int ok = t != JSON_ERROR && json_skip(&j, t) != JSON_ERROR && json_next(&j) == JSON_END;
	if (!ok) {
		const char *e = json_error(&j);
		if (!e || !*e)
			fail("skip: error without a message", "", 0);
	}
	json_release(&j);
	return ok;
}

/* The tokens TA of A and TB of B, read by json_next() or a fast path beside
 * it, must be the same token with the same text, offset and error (WHAT
 * names the path in a failure).  True when the walk is over. */
static bool same_token(struct json *a, struct json *b, int ta, int tb, const char *what)
{
	char msg[96];
	if (ta != tb) {
		snprintf(msg, sizeof(msg), "%s: another token than json_next", what);
		fail(msg, "", 0);
	}
	if (ta == JSON_ERROR) {
		if (strcmp(json_error(a), json_error(b)) != 0 ||
		    json_error_offset(a) != json_error_offset(b)) {
			snprintf(msg, sizeof(msg), "%s: another error", what);
			fail(msg, json_error(b), strlen(json_error(b)));
		}
		return true;
	}
	if (json_offset(a) != json_offset(b) || a->len != b->len ||
	    memcmp(a->str, b->str, a->len) != 0) {
		snprintf(msg, sizeof(msg), "%s: another token text or offset", what);
		fail(msg, b->str, b->len);
	}
	return false;
}

/* Pass 4: json_next_u32() beside json_next(), whole and in pieces of one
 * byte: the same tokens, texts, offsets and end; a value it gives is the
 * token's as json_int64() reads it. */
static bool one_byte(void *ctx, const void **buf, size_t *len)
{
	const uint8_t **pos = ctx;
	const uint8_t *end = pos[1];
	*buf = pos[0];
	*len = pos[0] < end ? 1 : 0;
	pos[0] += *len;
	return true;
}

static void fast_path(const uint8_t *data, size_t size, bool chunked)
{
	struct json a, b;
	const uint8_t *pos[2] = {data, data + size};
	json_init(&a, data, size, 0);
	if (chunked)
		json_init_chunked(&b, one_byte, pos, 0);
	else
		json_init(&b, data, size, 0);
	for (;;) {
		uint32_t v = 0;
		bool have;
		int ta = json_next(&a), tb = json_next_u32(&b, &v, &have);
		if (same_token(&a, &b, ta, tb, "json_next_u32"))
			break;
		if (have) {
			int64_t w;
			if (tb != JSON_NUMBER || !json_int64(&b, &w) || w != (int64_t)v)
				fail("json_next_u32: a value that is not the token's", b.str, b.len);
		}
		if (ta == JSON_END)
			break;
	}
	json_release(&a);
	json_release(&b);
}

/* Pass 5: json_ints() and json_int_pair() beside json_next(), whole and in
 * pieces of one byte: what they read is what json_next() and json_int64()
 * read token by token (values, the offset after), and the tokens after
 * them are the same. */
static void bulk_path(const uint8_t *data, size_t size, bool chunked)
{
	struct json a, b;
	const uint8_t *pos[2] = {data, data + size};
	json_init(&a, data, size, 0);
	if (chunked)
		json_init_chunked(&b, one_byte, pos, 0);
	else
		json_init(&b, data, size, 0);
	for (size_t step = 0;; step++) {
		int64_t got[3];
		uint32_t pa, pb;
		size_t n = json_ints(&b, got, 1 + step % 3);
		for (size_t i = 0; i < n; i++) {
			int64_t w;
			if (json_next(&a) != JSON_NUMBER || !json_int64(&a, &w) || w != got[i])
				fail("json_ints: a value that is not json_next's", a.str, a.len);
		}
		if (n && json_offset(&a) != json_offset(&b))
			fail("json_ints: another offset", b.str, b.len);
		if (json_int_pair(&b, "line", "ticks", &pa, &pb)) {
			int64_t w;
			if (json_next(&a) != JSON_OBJECT_BEGIN || json_offset(&a) != json_offset(&b) ||
			    json_next(&a) != JSON_KEY || !json_is(&a, "line") ||
			    json_next(&a) != JSON_NUMBER || !json_int64(&a, &w) || w != pa ||
			    json_next(&a) != JSON_KEY || !json_is(&a, "ticks") ||
			    json_next(&a) != JSON_NUMBER || !json_int64(&a, &w) || w != pb ||
			    json_next(&a) != JSON_OBJECT_END)
				fail("json_int_pair: not the object json_next reads", "", 0);
		}
		int ta = json_next(&a), tb = json_next(&b);
		if (same_token(&a, &b, ta, tb, "json_ints (the token after it)"))
			break;
		if (ta == JSON_END)
			break;
	}
	json_release(&a);
	json_release(&b);
}

/* Pass 6: json_element(), json_element_done() and json_value_done()
 * beside json_next() and json_skip(): the element json_element() points at
 * is the token json_next() reads there; an element or a container that A
 * skipped, marked done on B up to where A stopped, leaves B where A is (the
 * same tokens after it); json_element() gives nothing where LEVELS more
 * levels would pass the depth bound. */
static void element_path(const uint8_t *data, size_t size, uint32_t max_depth)
{
	struct json a, b;
	json_init(&a, data, size, max_depth);
	json_init(&b, data, size, max_depth);
	for (size_t step = 0;; step++) {
		const unsigned char *e = NULL;
		uint32_t levels = (uint32_t)(step % 3);
		const unsigned char *at = json_element(&b, levels, &e);
		int ta = json_next(&a), tb;
		if (at) {
			if (e != data + size)
				fail("json_element: another end of the buffer", "", 0);
			if (b.depth + levels > (max_depth ? max_depth : 1000000u))
				fail("json_element: past the depth bound", "", 0);
			if (ta != JSON_ERROR && json_offset(&a) != (size_t)(at - data))
				fail("json_element: not where json_next reads", a.str, a.len);
			if (ta != JSON_ERROR && step % 2 == 0) {
				if (json_skip(&a, ta) == JSON_ERROR) {
					tb = json_next(&b);
					tb = tb == JSON_ERROR ? tb : json_skip(&b, tb);
					if (tb != JSON_ERROR)
						fail("json_element: json_skip fails on A only", "",
						     0);
					break;
				}
				json_element_done(&b, at, data + a.pos);
				if (json_offset(&b) != (size_t)(at - data))
					fail("json_element_done: another offset", "", 0);
				continue;
			}
		}
		tb = json_next(&b);
		if (same_token(&a, &b, ta, tb, "json_element"))
			break;
		if (ta == JSON_END)
			break;
		if ((ta == JSON_ARRAY_BEGIN || ta == JSON_OBJECT_BEGIN) && step % 5 == 1) {
			if (json_skip(&a, ta) == JSON_ERROR) {
				if (json_skip(&b, tb) != JSON_ERROR)
					fail("json_value_done: json_skip fails on A only", "", 0);
				break;
			}
			json_value_done(&b, data + a.pos);
			if (json_offset(&a) != json_offset(&b) || a.depth != b.depth)
				fail("json_value_done: another offset or depth", "", 0);
		}
	}
	json_release(&a);
	json_release(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	element_path(data, size, 0);
	element_path(data, size, 4);
	bulk_path(data, size, false);
	if (size < 4096)
		bulk_path(data, size, true);
	fast_path(data, size, false);
	if (size < 4096)
		fast_path(data, size, true);
	uint32_t maxdepth;
	int ok = tokens(data, size, &maxdepth);
	if (skipped(data, size, 0) != ok)
		fail(ok ? "json_skip refuses valid JSON" : "json_skip accepts invalid JSON", "", 0);
	if (ok && skipped(data, size, 16) != (maxdepth <= 16))
		fail("depth bound 16 not kept exactly", "", 0);
	size_t one = 1, halves[2] = {size / 2 ? size / 2 : 1, size}, mixed[4] = {
		size > 0 ? data[0] % 7 + 1 : 1, size > 1 ? data[1] % 61 + 1 : 3, 1, 4096};
	char why[256];
	const char *bad = jc_compare(data, size, &one, 1, 0, why, sizeof(why));
	if (!bad)
		bad = jc_compare(data, size, halves, 2, 0, why, sizeof(why));
	if (!bad)
		bad = jc_compare(data, size, mixed, 4, 0, why, sizeof(why));
	if (!bad)
		bad = jc_compare(data, size, mixed, 4, 16, why, sizeof(why));
	if (bad)
		fail("chunked and whole parses differ", bad, strlen(bad));
	return 0;
}
