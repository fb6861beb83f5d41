/* Unit tests of input.c: gzip members, truncation, garbage, the bound. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "pprof_private.h"

/* Gzips LEN bytes of IN into a malloc'd buffer. */
static unsigned char *gz(const void *in, size_t len, size_t *outlen)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY), Z_OK);
	size_t cap = deflateBound(&z, len) + 64;
	unsigned char *out = malloc(cap);
	z.next_in = (unsigned char *)in;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	*outlen = cap - z.avail_out;
	deflateEnd(&z);
	return out;
}

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_input_gunzip_members),
		cmocka_unit_test(test_input_gunzip_truncated),
		cmocka_unit_test(test_input_gunzip_garbage),
		cmocka_unit_test(test_input_gunzip_bomb),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
