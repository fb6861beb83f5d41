/* json_chunks.h: a document parsed whole and in chunked mode must give the
 * same tokens (kind, text, offset, depth, integer value) and the same end
 * (JSON_END, or the same error at the same offset).  For test_json.c and
 * fuzz_json.c. */
#ifndef JSON_CHUNKS_H
#define JSON_CHUNKS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "json.h"

/* Hands out BUF in pieces of the sizes SIZES[0 .. n) (cycled; 0 ends it). */
struct jc_feed {
	const unsigned char *buf;
	size_t len, pos;
	const size_t *sizes;
	size_t nsizes, k;
	unsigned char piece[64]; /* a copy, so that the parser can't read on */
};

static inline bool jc_more(void *ctx, const void **buf, size_t *len)
{
	struct jc_feed *f = ctx;
	size_t n = f->sizes[f->k++ % f->nsizes];
	if (n > f->len - f->pos)
		n = f->len - f->pos;
	if (n > sizeof(f->piece)) {
		*buf = f->buf + f->pos;
	} else {
		memcpy(f->piece, f->buf + f->pos, n);
		*buf = f->piece;
	}
	*len = n;
	f->pos += n;
	return true;
}

/* NULL when both parses agree, else what differs (into WHY). */
static inline const char *jc_compare(const void *data, size_t size, const size_t *sizes,
				     size_t nsizes, uint32_t max_depth, char *why, size_t whylen)
{
	struct json a, b;
	struct jc_feed f = {data, size, 0, sizes, nsizes, 0, {0}};
	const char *bad = NULL;
	json_init(&a, data, size, max_depth);
	json_init_chunked(&b, jc_more, &f, max_depth);
	for (size_t i = 0;; i++) {
		int ta = json_next(&a), tb = json_next(&b);
		if (ta != tb) {
			snprintf(why, whylen, "token %zu: %d whole, %d chunked (%s at %zu)", i, ta,
				 tb, json_error(&b), json_error_offset(&b));
			bad = why;
			break;
		}
		if (ta == JSON_ERROR) {
			if (strcmp(json_error(&a), json_error(&b)) != 0 ||
			    json_error_offset(&a) != json_error_offset(&b)) {
				snprintf(why, whylen, "error \"%s\" at %zu whole, \"%s\" at %zu chunked",
					 json_error(&a), json_error_offset(&a), json_error(&b),
					 json_error_offset(&b));
				bad = why;
			}
			break;
		}
		if (json_offset(&a) != json_offset(&b) || a.depth != b.depth || a.len != b.len ||
		    memcmp(a.str, b.str, a.len) != 0) {
			snprintf(why, whylen, "token %zu (%d) at %zu/%zu differs", i, ta,
				 json_offset(&a), json_offset(&b));
			bad = why;
			break;
		}
		if (ta == JSON_NUMBER) {
			int64_t va = 0, vb = 0;
			bool oa = json_int64(&a, &va), ob = json_int64(&b, &vb);
			if (oa != ob || va != vb) {
				snprintf(why, whylen, "token %zu: the integers differ", i);
				bad = why;
				break;
			}
		}
		if (ta == JSON_END)
			break;
	}
	json_release(&a);
	json_release(&b);
	return bad;
}

#endif /* JSON_CHUNKS_H */
