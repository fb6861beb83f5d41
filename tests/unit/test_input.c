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

/* The bound is on the whole input: 66 MiB of zeros then 1 MiB of noise
 * inflate to less than 100 times the compressed size, and pass both
 * ways, however compressible the start is; 80 MiB of zeros don't. */
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
	free(a);
	memset(in + zeros, 0, noise);
	a = gz(in, (size_t)80 << 20, &n);
	same_both_ways(a, n, "80 MiB of zeros");
	free(a);
	free(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_input_gunzip_members),
		cmocka_unit_test(test_input_gunzip_truncated),
		cmocka_unit_test(test_input_gunzip_garbage),
		cmocka_unit_test(test_input_gunzip_bomb),
		cmocka_unit_test(test_input_gunzip_both_ways),
		cmocka_unit_test(test_input_gunzip_bound_both_ways),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
