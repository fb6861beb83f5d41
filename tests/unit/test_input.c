/* Unit tests of input.c: gzip members, truncation, garbage, the bound;
 * libdeflate's path (no progress callback) against zlib's. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "gz.h"
#include "pprof_private.h"

static void test_input_gunzip_members(void **state)
{
	(void)state;
	struct pprof_profile *p = pprof_profile_new();
	size_t la, lb;
	unsigned char *a = gz("first ", 6, &la), *b = gz("second", 6, &lb);
	unsigned char *both = malloc(la + lb);
	memcpy(both, a, la);
	memcpy(both + la, b, lb);
	unsigned char *out;
	size_t n;
	assert_int_equal(pp_gunzip(p, both, la + lb, NULL, &out, &n), PPROF_OK);
	assert_int_equal(n, 12);
	assert_memory_equal(out, "first second", 12);
	free(out);
	free(a);
	free(b);
	free(both);
	pprof_profile_free(p);
}

static void test_input_gunzip_truncated(void **state)
{
	(void)state;
	struct pprof_profile *p = pprof_profile_new();
	size_t la;
	unsigned char *a = gz("some text that is long enough", 29, &la);
	unsigned char *out = NULL;
	size_t n;
	assert_int_equal(pp_gunzip(p, a, la - 4, NULL, &out, &n), PPROF_EINPUT);
	assert_non_null(strstr(pprof_profile_error(p), "truncated gzip stream"));
	assert_null(out);
	free(a);
	pprof_profile_free(p);
}

static void test_input_gunzip_garbage(void **state)
{
	(void)state;
	struct pprof_profile *p = pprof_profile_new();
	size_t la;
	unsigned char *a = gz("abc", 3, &la);
	unsigned char *g = malloc(la + 3);
	memcpy(g, a, la);
	memcpy(g + la, "xyz", 3);
	unsigned char *out;
	size_t n;
	assert_int_equal(pp_gunzip(p, g, la + 3, NULL, &out, &n), PPROF_EINPUT);
	assert_string_equal(pprof_profile_error(p), "trailing garbage after gzip stream (at byte 3)");
	free(a);
	free(g);
	pprof_profile_free(p);
}

/* 80 MiB of zeros compress about 1000:1: past the 100x ratio above 64 MiB. */
static void test_input_gunzip_bomb(void **state)
{
	(void)state;
	struct pprof_profile *p = pprof_profile_new();
	size_t big = 80u << 20, la;
	unsigned char *zeros = calloc(big, 1);
	unsigned char *a = gz(zeros, big, &la);
	free(zeros);
	unsigned char *out;
	size_t n;
	assert_int_equal(pp_gunzip(p, a, la, NULL, &out, &n), PPROF_ENOMEM);
	assert_non_null(strstr(pprof_profile_error(p), "inflates past the limit"));
	/* A raised limit lets it through. */
	struct pprof_read_options o = {(uint64_t)8 << 30, 0};
	assert_int_equal(pp_gunzip(p, a, la, &o, &out, &n), PPROF_OK);
	assert_int_equal(n, big);
	free(out);
	/* A lower cap refuses even small inputs. */
	struct pprof_read_options small = {1024, 0};
	assert_int_equal(pp_gunzip(p, a, la, &small, &out, &n), PPROF_ENOMEM);
	free(a);
	pprof_profile_free(p);
}

static void count_progress(void *ctx, uint64_t done, uint64_t total)
{
	(void)done;
	(void)total;
	++*(int *)ctx;
}

/* IN inflated without a progress callback (libdeflate, or zlib after it)
 * and with one (zlib only): the same bytes, or the same error. */
static void same_both_ways(const unsigned char *in, size_t len, const char *what)
{
	struct pprof_profile *p = pprof_profile_new(), *q = pprof_profile_new();
	int calls = 0;
	struct pprof_read_options slow = {0};
	slow.progress = count_progress;
	slow.progress_ctx = &calls;
	unsigned char *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	int sa = pp_gunzip(p, in, len, NULL, &a, &na);
	int sb = pp_gunzip(q, in, len, &slow, &b, &nb);
	if (sa != sb || (sa == PPROF_OK && (na != nb || memcmp(a, b, na) != 0)) ||
	    (sa != PPROF_OK && strcmp(pprof_profile_error(p), pprof_profile_error(q)) != 0))
		fail_msg("%s: %d %s / %d %s", what, sa, sa ? pprof_profile_error(p) : "",
			 sb, sb ? pprof_profile_error(q) : "");
	assert_true(calls > 0);
	if (sa == PPROF_OK) {
		free(a);
		free(b);
	}
	pprof_profile_free(p);
	pprof_profile_free(q);
}

static void test_input_gunzip_both_ways(void **state)
{
	(void)state;
	/* Three members: the first far bigger than the last, whose trailer
	 * gives the first guess of the size. */
	size_t big = 300000, l1, l2, l3;
	unsigned char *text = malloc(big);
	for (size_t i = 0; i < big; i++)
		text[i] = (unsigned char)("abcdefgh;0123\n"[i % 14] + (i / 977) % 3);
	unsigned char *m1 = gz(text, big, &l1), *m2 = gz("middle", 6, &l2), *m3 = gz("x", 1, &l3);
	size_t n = l1 + l2 + l3;
	unsigned char *all = malloc(n + 8);
	memcpy(all, m1, l1);
	memcpy(all + l1, m2, l2);
	memcpy(all + l1 + l2, m3, l3);
	same_both_ways(all, n, "three members");
	same_both_ways(m1, l1, "one member");
	same_both_ways(all, l1 + l2, "two members");
	size_t le;
	unsigned char *empty = gz("", 0, &le);
	same_both_ways(empty, le, "an empty member");
	/* every way to cut it short */
	for (size_t cut = 1; cut < n; cut += cut < 40 ? 1 : 997)
		same_both_ways(all, cut, "truncated");
	same_both_ways(all, n - 1, "truncated by a byte");
	/* garbage after, a damaged byte, a damaged trailer */
	memcpy(all + n, "garbage!", 8);
	same_both_ways(all, n + 8, "trailing garbage");
	all[l1 / 2] ^= 0x55;
	same_both_ways(all, n, "a damaged byte");
	all[l1 / 2] ^= 0x55;
	all[l1 - 6] ^= 1; /* the first member's CRC */
	same_both_ways(all, n, "a damaged CRC");
	all[l1 - 6] ^= 1;
	all[l1 - 2] ^= 1; /* its size */
	same_both_ways(all, n, "a damaged size");
	/* a header CRC (FHCRC): right, then wrong */
	size_t lh;
	unsigned char *h = gz("checked header", 14, &lh);
	unsigned char *hc = malloc(lh + 2);
	memcpy(hc, h, 10);
	hc[3] |= 0x02;
	uLong crc = crc32(0, hc, 10);
	hc[10] = (unsigned char)(crc & 0xff);
	hc[11] = (unsigned char)((crc >> 8) & 0xff);
	memcpy(hc + 12, h + 10, lh - 10);
	same_both_ways(hc, lh + 2, "a header CRC");
	hc[10] ^= 1;
	same_both_ways(hc, lh + 2, "a wrong header CRC");
	free(h);
	free(hc);
	free(text);
	free(m1);
	free(m2);
	free(m3);
	free(empty);
	free(all);
}

/* The bound is judged as the output grows (DESIGN.md): 66 MiB of zeros
 * then 1 MiB of noise inflate to less than 100 times the compressed size
 * in the end, but the zeros pass 64 MiB while far more than 100 times
 * what was read: refused at the first check past 64 MiB, both ways, and by
 * the stream. */
static void test_input_gunzip_bound_both_ways(void **state)
{
	(void)state;
	size_t zeros = (size_t)66 << 20, noise = (size_t)1 << 20, n;
	unsigned char *in = calloc((size_t)80 << 20, 1);
	assert_non_null(in);
	uint32_t x = 2463534242u;
	for (size_t i = zeros; i < zeros + noise; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		in[i] = (unsigned char)x;
	}
	unsigned char *a = gz(in, zeros + noise, &n);
	same_both_ways(a, n, "a compressible start");
	struct pprof_profile *p = pprof_profile_new();
	unsigned char *out = NULL;
	size_t len;
	assert_int_equal(pp_gunzip(p, a, n, NULL, &out, &len), PPROF_ENOMEM);
	assert_string_equal(pprof_profile_error(p), "gzip input inflates past the limit (64 MiB; "
				"raise it with --max-input) (at byte 68157440)");
	pprof_profile_free(p);
	free(a);
	/* noise first, then the zeros: 100 times its size passes */
	memmove(in, in + zeros, noise);
	memset(in + noise, 0, zeros);
	a = gz(in, zeros + noise, &n);
	same_both_ways(a, n, "an incompressible start");
	p = pprof_profile_new();
	assert_int_equal(pp_gunzip(p, a, n, NULL, &out, &len), PPROF_OK);
	assert_int_equal(len, zeros + noise);
	free(out);
	pprof_profile_free(p);
	free(a);
	memset(in, 0, (size_t)80 << 20);
	a = gz(in, (size_t)80 << 20, &n);
	same_both_ways(a, n, "80 MiB of zeros");
	free(a);
	free(in);
}

/* The stream of IN's decoded bytes: all of them, in chunks of at most
 * PP_STREAM_CHUNK, or its error; they equal the whole decoding's. */
static void same_as_stream(const unsigned char *in, size_t len, const char *what)
{
	struct pprof_profile *p = pprof_profile_new(), *q = pprof_profile_new();
	const unsigned char *whole;
	size_t wlen = 0;
	struct pp_hold h;
	int sw = pp_decode(p, in, len, NULL, &whole, &wlen, &h);
	struct pp_stream *s = pp_stream_open(q, in, len, NULL);
	assert_non_null(s);
	unsigned char *got = NULL;
	size_t glen = 0, cap = 0;
	int ss;
	for (;;) {
		const unsigned char *c;
		size_t n;
		ss = pp_stream_next(s, &c, &n);
		if (ss != PPROF_OK || n == 0)
			break;
		if (pp_is_gzip(in, len) || pp_is_utf16(in, len))
			assert_true(n <= PP_STREAM_CHUNK);
		if (glen + n > cap) {
			cap = (glen + n) * 2;
			got = realloc(got, cap);
			assert_non_null(got);
		}
		memcpy(got + glen, c, n);
		glen += n;
		assert_int_equal(pp_stream_offset(s), glen);
	}
	if (sw != ss || (sw == PPROF_OK && (wlen != glen || (glen && memcmp(whole, got, glen)))) ||
	    (sw != PPROF_OK && strcmp(pprof_profile_error(p), pprof_profile_error(q)) != 0))
		fail_msg("%s: whole %d %s (%zu bytes) / stream %d %s (%zu bytes)", what, sw,
			 sw ? pprof_profile_error(p) : "", wlen, ss, ss ? pprof_profile_error(q) : "",
			 glen);
	if (ss != PPROF_OK)
		assert_int_equal(pp_stream_status(s), ss);
	pp_stream_free(s);
	if (sw == PPROF_OK)
		pp_hold_release(&h);
	free(got);
	pprof_profile_free(p);
	pprof_profile_free(q);
}

static size_t utf16(const char *s, unsigned char *o, bool be)
{
	size_t n = 0;
	o[n++] = be ? 0xfe : 0xff;
	o[n++] = be ? 0xff : 0xfe;
	for (; *s; s++) {
		o[n++] = be ? 0 : (unsigned char)*s;
		o[n++] = be ? (unsigned char)*s : 0;
	}
	return n;
}

static void test_input_stream_as_whole(void **state)
{
	(void)state;
	size_t big = 3000000, l1, l2, l3;
	unsigned char *text = malloc(big);
	for (size_t i = 0; i < big; i++)
		text[i] = (unsigned char)("abcdefgh;0123\n"[i % 14] + (i / 977) % 3);
	unsigned char *m1 = gz(text, big, &l1), *m2 = gz("m", 1, &l2), *m3 = gz("x", 1, &l3);
	unsigned char *all = malloc(l1 + l2 + l3 + 8);
	memcpy(all, m2, l2); /* a one-byte member first */
	memcpy(all + l2, m1, l1);
	memcpy(all + l2 + l1, m3, l3);
	size_t n = l1 + l2 + l3;
	same_as_stream(all, n, "three members");
	same_as_stream(text, big, "plain");
	same_as_stream(m1, l1 - 3, "truncated");
	memcpy(all + n, "garbage!", 8);
	same_as_stream(all, n + 8, "trailing garbage");
	/* UTF-16, plain and gzipped, both byte orders, a pair, bad ones */
	unsigned char u[4096 * 2 + 2];
	char line[4096];
	for (size_t i = 0; i < sizeof(line) - 1; i++)
		line[i] = "a;b 1\n"[i % 6];
	line[sizeof(line) - 1] = 0;
	for (int be = 0; be < 2; be++) {
		size_t un = utf16(line, u, be);
		same_as_stream(u, un, "UTF-16");
		same_as_stream(u, un - 1, "UTF-16, odd");
		size_t gl;
		unsigned char *g = gz(u, un, &gl);
		same_as_stream(g, gl, "gzipped UTF-16");
		free(g);
		/* a surrogate pair, then a lone one */
		u[10 + be] = 0xd8, u[11 - be] = 0x3d, u[12 + be] = 0xde, u[13 - be] = 0x00;
		same_as_stream(u, un, "UTF-16 with a pair");
		u[12 + be] = 0x00;
		same_as_stream(u, un, "UTF-16 with a lone surrogate");
		u[un - 2 + be] = 0xd8;
		u[12 + be] = 0xde;
		same_as_stream(u, un, "UTF-16 ending in a high surrogate");
	}
	free(text);
	free(m1);
	free(m2);
	free(m3);
	free(all);
}

/* A reader that takes the stream: the door hands it chunks of at most
 * PP_STREAM_CHUNK bytes of a 40 MB gzipped input, which it never holds
 * whole, and the bytes are those of the input. */
struct seen {
	uint64_t n, sum;
	size_t biggest;
};
static struct seen seen;

static int stream_bid(const unsigned char *b, size_t len)
{
	return len >= 6 && memcmp(b, "STREAM", 6) == 0 ? 50 : 0;
}

static int stream_read(struct pprof_profile *p, struct pp_stream *s,
		       const struct pprof_read_options *o)
{
	(void)p;
	(void)o;
	for (;;) {
		const unsigned char *c;
		size_t n;
		int st = pp_stream_next(s, &c, &n);
		if (st != PPROF_OK)
			return st;
		if (n == 0)
			return PPROF_OK;
		if (n > seen.biggest)
			seen.biggest = n;
		for (size_t i = 0; i < n; i++)
			seen.sum = seen.sum * 31 + c[i];
		seen.n += n;
	}
}

static const struct pp_reader stream_reader = {
	.format = PPROF_FMT_FOLDED,
	.name = "stream test",
	.bid = stream_bid,
	.read_stream = stream_read,
};

static void test_input_stream_reader(void **state)
{
	(void)state;
	size_t big = (size_t)40 << 20, n;
	unsigned char *text = malloc(big);
	assert_non_null(text);
	uint64_t want = 0;
	for (size_t i = 0; i < big; i++) {
		text[i] = i < 6 ? (unsigned char)"STREAM"[i] : (unsigned char)('a' + (i * 7919) % 23);
		want = want * 31 + text[i];
	}
	unsigned char *g = gz(text, big, &n);
	const struct pp_reader *table[] = {&pp_reader_folded, &stream_reader};
	struct pprof_profile *p = pprof_profile_new();
	seen = (struct seen){0, 0, 0};
	assert_int_equal(pp_read_with(p, table, 2, g, n, NULL), PPROF_OK);
	assert_int_equal(seen.n, big);
	assert_true(seen.sum == want);
	assert_true(seen.biggest <= PP_STREAM_CHUNK);
	/* plain input: the buffer as it is */
	seen = (struct seen){0, 0, 0};
	assert_int_equal(pp_read_with(p, table, 2, text, big, NULL), PPROF_OK);
	assert_int_equal(seen.n, big);
	assert_true(seen.sum == want);
	/* the stream's errors are the reader's */
	seen = (struct seen){0, 0, 0};
	assert_int_equal(pp_read_with(p, table, 2, g, n - 100, NULL), PPROF_EINPUT);
	assert_non_null(strstr(pprof_profile_error(p), "truncated gzip stream"));
	/* other input still goes to the other readers */
	assert_int_equal(pp_read_with(p, table, 2, "a;b 1\n", 6, NULL), PPROF_OK);
	pprof_profile_free(p);
	free(g);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_input_gunzip_members),
		cmocka_unit_test(test_input_gunzip_truncated),
		cmocka_unit_test(test_input_gunzip_garbage),
		cmocka_unit_test(test_input_stream_as_whole),
		cmocka_unit_test(test_input_stream_reader),
		cmocka_unit_test(test_input_gunzip_bomb),
		cmocka_unit_test(test_input_gunzip_both_ways),
		cmocka_unit_test(test_input_gunzip_bound_both_ways),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
