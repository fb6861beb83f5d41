/* fuzz_input.c: libFuzzer harness of the whole door (read.c): bytes →
 * gzip members inflated under the bound (at most 1 MiB here), UTF-16 text
 * converted → the readers' bids → the reader that won.  The input is read
 * twice into one profile, as `pprof-fold a a` would, to cover merging.
 * Gzip is also inflated with a progress callback (zlib's path) and must
 * give what libdeflate's path gave: the same bytes or the same error.  The
 * stream of chunks (pp_stream) must give what the whole decoding gives,
 * and so must the door when a stream reader takes the input; when the door
 * refuses the input as the start of a pipe (pp_claims), reading it whole
 * must fail too.
 * Seeds: every fixture as it is on disk, gzipped or not. */
#include "config.h"

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void no_progress(void *ctx, uint64_t done, uint64_t total)
{
	(void)ctx;
	(void)done;
	(void)total;
}

static void both_inflates(const uint8_t *data, size_t size)
{
	if (!pp_is_gzip(data, size))
		return;
	struct pprof_profile *p = pprof_profile_new(), *q = pprof_profile_new();
	struct pprof_read_options slow = fuzz_read_options;
	slow.progress = no_progress;
	unsigned char *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	int sa = p && q ? pp_gunzip(p, data, size, &fuzz_read_options, &a, &na) : -1;
	int sb = p && q ? pp_gunzip(q, data, size, &slow, &b, &nb) : -1;
	if (sa >= 0 && sb >= 0 &&
	    (sa != sb || (sa == PPROF_OK && (na != nb || memcmp(a, b, na) != 0)) ||
	     (sa != PPROF_OK && strcmp(pprof_profile_error(p), pprof_profile_error(q)) != 0)))
		fuzz_fail("libdeflate and zlib inflate differently", "", 0);
	if (sa == PPROF_OK)
		free(a);
	if (sb == PPROF_OK)
		free(b);
	pprof_profile_free(p);
	pprof_profile_free(q);
}

/* A hash of bytes, to compare what two paths made. */
static uint64_t mix(uint64_t h, const unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

struct took {
	uint64_t n, h;
};
static struct took took;

static int take_bid(const unsigned char *b, size_t len)
{
	(void)b;
	(void)len;
	return 1000; /* takes everything */
}

static int take_stream(struct pprof_profile *p, struct pp_stream *s,
		       const struct pprof_read_options *o)
{
	(void)p;
	(void)o;
	for (;;) {
		const unsigned char *c;
		size_t n;
		int st = pp_stream_next(s, &c, &n);
		if (st != PPROF_OK || n == 0)
			return st;
		if (pp_stream_offset(s) != took.n + n)
			fuzz_fail("stream offset is not the bytes handed out", "", 0);
		took.h = mix(took.h, c, n);
		took.n += n;
	}
}

static const struct pp_reader taker = {
	.format = PPROF_FMT_FOLDED,
	.name = "taker",
	.bid = take_bid,
	.read_stream = take_stream,
};

static void stream_as_whole(const uint8_t *data, size_t size)
{
	struct pprof_profile *p = pprof_profile_new(), *q = pprof_profile_new();
	if (!p || !q)
		goto out;
	const unsigned char *whole;
	size_t wlen = 0;
	struct pp_hold h;
	int sw = pp_decode(p, data, size, &fuzz_read_options, &whole, &wlen, &h);
	uint64_t wh = sw == PPROF_OK ? mix(0, whole, wlen) : 0;
	if (sw == PPROF_OK)
		pp_hold_release(&h);
	const struct pp_reader *table[] = {&taker};
	took = (struct took){0, 0};
	int ss = size ? pp_read_with(q, table, 1, data, size, &fuzz_read_options) : PPROF_OK;
	/* what decodes to nothing is the door's "empty input" */
	if (sw == PPROF_OK && wlen == 0)
		sw = pp_error(p, PPROF_EINPUT, "empty input");
	if (size && (ss != sw || (sw == PPROF_OK && (took.n != wlen || took.h != wh)) ||
		     (sw != PPROF_OK &&
		      strcmp(pprof_profile_error(p), pprof_profile_error(q)) != 0)))
		fuzz_fail("the stream and the whole decoding differ", pprof_profile_error(q),
			  strlen(pprof_profile_error(q)));
out:
	pprof_profile_free(p);
	pprof_profile_free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	both_inflates(data, size);
	stream_as_whole(data, size);
	struct pprof_profile *p = pprof_profile_new();
	if (!p)
		return 0;
	int s = pprof_read_buffer(p, data, size, &fuzz_read_options);
	if (s == PPROF_OK) {
		(void)pprof_format_name(pprof_profile_format(p));
		/* The same input again must merge: same types, and sums that
		 * leave int64 are the only new way to fail. */
		s = pprof_read_buffer(p, data, size, &fuzz_read_options);
		if (s == PPROF_OK) {
			/* the cross-format checks, on any two sides */
			if (pprof_sample_type_count(p))
				pprof_compare_warn(p, 0, p, pprof_sample_type_count(p) - 1, 0);
			fuzz_fold_all(p);
		}
		else if (!strstr(pprof_profile_error(p), "64-bit") &&
			 !strstr(pprof_profile_error(p), "int64"))
			fuzz_fail("a second read of the same input failed",
				  pprof_profile_error(p), strlen(pprof_profile_error(p)));
	}
	if (s != PPROF_OK)
		fuzz_check_error(p);
	pprof_profile_free(p);
	/* refused as the start of a pipe: refused whole */
	struct pprof_profile *c = pprof_profile_new(), *w = pprof_profile_new();
	if (c && w && size && pp_claims(c, data, size, &fuzz_read_options) == PP_REFUSED &&
	    pprof_read_buffer(w, data, size, &fuzz_read_options) == PPROF_OK)
		fuzz_fail("refused as a pipe's start, read whole", pprof_profile_error(c),
			  strlen(pprof_profile_error(c)));
	pprof_profile_free(c);
	pprof_profile_free(w);
	return 0;
}
