/* read.c: choose a reader by the bids on the first bytes, never by name. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pprof_private.h"

static const struct pp_reader *const readers[] = {
	&pp_reader_pprof,
	&pp_reader_cpuprofile,
	&pp_reader_heapprofile,
	&pp_reader_folded,
};

/* Converts UTF-16 text with a byte order mark to UTF-8, so folded files
 * saved by Windows tools read as any other. */
int pp_utf16_to_utf8(struct pprof_profile *p, const unsigned char *in, size_t len,
		     unsigned char **out, size_t *outlen)
{
	bool be = in[0] == 0xfe;
	if (len % 2)
		return pp_error_at(p, PPROF_EINPUT, len - 1, "UTF-16 text with an odd number of bytes");
	unsigned char *o = malloc(len / 2 * 3 + 1);
	if (!o)
		return pp_nomem(p);
	size_t n = 0;
	for (size_t i = 2; i < len; i += 2) {
		uint32_t c = be ? (uint32_t)(in[i] << 8 | in[i + 1]) : (uint32_t)(in[i + 1] << 8 | in[i]);
		if (c >= 0xd800 && c < 0xdc00 && i + 3 < len) {
			uint32_t d = be ? (uint32_t)(in[i + 2] << 8 | in[i + 3])
					: (uint32_t)(in[i + 3] << 8 | in[i + 2]);
			if (d >= 0xdc00 && d < 0xe000) {
				c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
				i += 2;
			}
		}
		if (c >= 0xd800 && c < 0xe000) {
			free(o);
			return pp_error_at(p, PPROF_EINPUT, i, "invalid UTF-16 surrogate");
		}
		if (c < 0x80) {
			o[n++] = (unsigned char)c;
		} else if (c < 0x800) {
			o[n++] = (unsigned char)(0xc0 | c >> 6);
			o[n++] = (unsigned char)(0x80 | (c & 0x3f));
		} else if (c < 0x10000) {
			o[n++] = (unsigned char)(0xe0 | c >> 12);
			o[n++] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
			o[n++] = (unsigned char)(0x80 | (c & 0x3f));
		} else {
			o[n++] = (unsigned char)(0xf0 | c >> 18);
			o[n++] = (unsigned char)(0x80 | ((c >> 12) & 0x3f));
			o[n++] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
			o[n++] = (unsigned char)(0x80 | (c & 0x3f));
		}
	}
	*out = o;
	*outlen = n;
	return PPROF_OK;
}

void pp_hold_release(struct pp_hold *h)
{
	if (h->ptr && h->mapped)
		munmap(h->ptr, h->len);
	else
		free(h->ptr);
	h->ptr = NULL;
}

/* OUTER: BUF as a buffer the reader may keep, or NULL (the caller's). */
static int read_buffer(struct pprof_profile *p, const unsigned char *b, size_t len,
		       const struct pprof_read_options *o, struct pp_hold *outer)
{
	struct pp_hold inner = {NULL, 0, false}, *h = outer;
	if (pp_is_gzip(b, len)) {
		unsigned char *inflated = NULL;
		int s = pp_gunzip(p, b, len, o, &inflated, &len);
		if (s != PPROF_OK)
			return s;
		b = inflated;
		inner = (struct pp_hold){inflated, len, false};
		h = &inner;
	}
	int status;
	if (len >= 2 && ((b[0] == 0xff && b[1] == 0xfe) || (b[0] == 0xfe && b[1] == 0xff))) {
		unsigned char *u8 = NULL;
		status = pp_utf16_to_utf8(p, b, len, &u8, &len);
		if (status != PPROF_OK)
			goto out;
		pp_hold_release(&inner);
		inner = (struct pp_hold){u8, len, false};
		h = &inner;
		b = u8;
	}
	if (len == 0) {
		status = pp_error(p, PPROF_EINPUT, "empty input");
		goto out;
	}
	const struct pp_reader *best = NULL;
	int bestbid = 0;
	for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]); i++) {
		int bid = readers[i]->bid(b, len);
		if (bid > bestbid) {
			bestbid = bid;
			best = readers[i];
		}
	}
	if (!best) {
		status = pp_error_at(p, PPROF_EINPUT, 0,
				     "unrecognized profile format (not pprof, V8 JSON or folded stacks)");
		goto out;
	}
	p->format = best->format;
	p->hold = h;
	status = best->read(p, b, len, o);
	p->hold = NULL;
out:
	pp_hold_release(&inner);
	return status;
}

int pprof_read_buffer(struct pprof_profile *p, const void *buf, size_t len,
		      const struct pprof_read_options *o)
{
	return read_buffer(p, buf, len, o, NULL);
}

int pprof_read_file(struct pprof_profile *p, const char *path,
		    const struct pprof_read_options *o)
{
	unsigned char *buf;
	size_t len;
	bool mapped;
	int s = pp_input_load(p, path, o, &buf, &len, &mapped);
	if (s != PPROF_OK)
		return s;
	struct pp_hold h = {buf, len, mapped};
	s = read_buffer(p, buf, len, o, &h);
	pp_hold_release(&h);
	return s;
}
