/* gz.h: gzip input for the unit tests that need it (after cmocka.h and
 * zlib.h). */
#ifndef TESTS_UNIT_GZ_H
#define TESTS_UNIT_GZ_H

/* Gzips LEN bytes of IN into a malloc'd buffer. */
static unsigned char *gz(const void *in, size_t len, size_t *outlen)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY), Z_OK);
	size_t cap = deflateBound(&z, len) + 64;
	unsigned char *out = malloc(cap);
	assert_non_null(out);
	z.next_in = (unsigned char *)in;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	*outlen = cap - z.avail_out;
	deflateEnd(&z);
	return out;
}

#endif
