/* input.c: whole inputs into memory, gzip members inflated, with the
 * decompression bound of DESIGN.md.  gzip is inflated by libdeflate (about
 * three times zlib's speed) in one call per member when nobody shows the
 * progress, else by zlib a few MiB at a time; any input libdeflate does not
 * inflate cleanly within the bound goes to zlib too, whose errors name the
 * byte. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libdeflate.h>
#include <zlib.h>

#include "pprof_private.h"

#define DEFAULT_MAX_INPUT ((uint64_t)4 << 30)
#define RATIO_FLOOR ((uint64_t)64 << 20)
#define RATIO_MAX 100
/* How much is inflated between two progress calls. */
#define PROGRESS_STEP ((size_t)4 << 20)

bool pp_is_gzip(const unsigned char *buf, size_t len)
{
	return len >= 2 && buf[0] == 0x1f && buf[1] == 0x8b;
}

/* ---- is the start of a pipe a profile? ---- */

/* A pipe has no size, and `head -c 3G /dev/urandom | pprof-fold` read
 * gigabytes before the bids said no: the bids look at the first bytes once
 * they are in, and again each time the buffer doubles while undecided. */
#define SNIFF_SIZE ((size_t)64 << 10)
/* The most inflated for a look, however long the stream's first line. */
#define SNIFF_GZIP_MAX ((size_t)64 << 20)

enum { SNIFF_CLAIMED, SNIFF_REFUSED, SNIFF_MORE };

/* The readers of read.c. */
static const struct pp_reader *const sniff_readers[] = {
	&pp_reader_pprof,
	&pp_reader_cpuprofile,
	&pp_reader_heapprofile,
	&pp_reader_heapsnapshot,
	&pp_reader_folded,
	&pp_reader_trace,
};

static int sniff(struct pprof_profile *p, const unsigned char *b, size_t len, int level);

/* Inflates the start of a gzip stream that goes on past LEN (at most CAP
 * bytes of output) and sniffs that.  The errors are pp_gunzip's, which the
 * whole stream would meet at the same place. */
static int sniff_gzip(struct pprof_profile *p, const unsigned char *in, size_t inlen,
		      size_t cap, int level)
{
	/* Out of memory here is met again by the read, which says so. */
	unsigned char *b = malloc(cap);
	if (!b)
		return SNIFF_MORE;
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		free(b);
		return SNIFF_MORE;
	}
	/* zlib's counters are 32 bits wide. */
	if (inlen > (size_t)1 << 30)
		inlen = (size_t)1 << 30;
	z.next_in = (unsigned char *)in;
	z.avail_in = (uInt)inlen;
	z.next_out = b;
	z.avail_out = (uInt)cap;
	int r = SNIFF_MORE;
	for (;;) {
		int zr = inflate(&z, Z_NO_FLUSH);
		size_t pos = inlen - z.avail_in, len = cap - z.avail_out;
		if (zr == Z_STREAM_END) {
			if (pos == inlen || (inlen - pos == 1 && in[pos] == 0x1f))
				break; /* the next member may follow */
			if (!pp_is_gzip(in + pos, inlen - pos)) {
				pp_error_at(p, PPROF_EINPUT, len, "trailing garbage after gzip stream");
				r = SNIFF_REFUSED;
				goto out;
			}
			inflateReset(&z);
			continue;
		}
		if (zr == Z_OK && z.avail_out > 0 && z.avail_in > 0)
			continue;
		if (zr == Z_OK || zr == Z_BUF_ERROR)
			break; /* output full, or the prefix used up */
		pp_error_at(p, PPROF_EINPUT, len, "bad gzip data: %s",
			    z.msg ? z.msg : "inflate failed");
		r = SNIFF_REFUSED;
		goto out;
	}
	size_t len = cap - z.avail_out;
	/* Too little to judge (a long gzip header, or small members): more. */
	if (len >= SNIFF_SIZE)
		r = sniff(p, b, len, level + 1);
out:
	inflateEnd(&z);
	free(b);
	return r;
}

/* JSON can't hold raw control characters: a V8 reader may still claim an
 * object whose telling keys come later, anything else it won't. */
static bool may_be_json(const unsigned char *b, size_t len)
{
	size_t i = len >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf ? 3 : 0;
	while (i < len && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'))
		i++;
	if (i == len || b[i] != '{')
		return false;
	for (; i < len; i++)
		if (b[i] < 0x20 && b[i] != '\t' && b[i] != '\n' && b[i] != '\r')
			return false;
	return true;
}

/* The bytes after the last newline are UTF-8, a sequence cut at the end
 * allowed.  The folded bid waits for the end of a long first line; binary
 * garbage without a newline or a control byte (`tr '\0' '\377'`) would
 * keep it waiting, while a folded line that long is text. */
static bool last_line_is_utf8(const unsigned char *b, size_t len)
{
	size_t i = len;
	while (i > 0 && b[i - 1] != '\n')
		i--;
	while (i < len) {
		unsigned c = b[i];
		size_t n = c < 0x80 ? 0 : c >= 0xc2 && c < 0xe0 ? 1 : c >= 0xe0 && c < 0xf0 ? 2 :
			   c >= 0xf0 && c < 0xf5 ? 3 : 9;
		if (n == 9)
			return false;
		for (size_t k = 1; k <= n; k++)
			if (i + k < len && (b[i + k] & 0xc0) != 0x80)
				return false;
		i += n + 1;
	}
	return true;
}

/* Would a reader claim the input that starts with [B, LEN)?  Read as
 * read.c reads: gzip inflated (twice at most), UTF-16 as text, then the bids;
 * the folded bid's -1 says it needs more of a long line. */
static int sniff(struct pprof_profile *p, const unsigned char *b, size_t len, int level)
{
	if (level < 2 && pp_is_gzip(b, len)) {
		size_t cap = len < SNIFF_SIZE ? SNIFF_SIZE : len;
		return sniff_gzip(p, b, len, cap < SNIFF_GZIP_MAX ? cap : SNIFF_GZIP_MAX, level);
	}
	unsigned char *text = NULL;
	if (len >= 2 && ((b[0] == 0xff && b[1] == 0xfe) || (b[0] == 0xfe && b[1] == 0xff))) {
		/* Each unit as UTF-8, surrogates as U+FFFD: the bids only look
		 * at ASCII and at what is text. */
		bool be = b[0] == 0xfe;
		text = malloc(len / 2 * 3);
		if (!text)
			return SNIFF_MORE;
		size_t n = 0;
		for (size_t i = 2; i + 1 < len; i += 2) {
			unsigned c = be ? (unsigned)(b[i] << 8 | b[i + 1]) : (unsigned)(b[i + 1] << 8 | b[i]);
			if (c >= 0xd800 && c < 0xe000)
				c = 0xfffd;
			if (c < 0x80) {
				text[n++] = (unsigned char)c;
			} else if (c < 0x800) {
				text[n++] = (unsigned char)(0xc0 | c >> 6);
				text[n++] = (unsigned char)(0x80 | (c & 0x3f));
			} else {
				text[n++] = (unsigned char)(0xe0 | c >> 12);
				text[n++] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
				text[n++] = (unsigned char)(0x80 | (c & 0x3f));
			}
		}
		b = text;
		len = n;
	}
	int r = SNIFF_REFUSED;
	for (size_t i = 0; i < sizeof(sniff_readers) / sizeof(sniff_readers[0]); i++) {
		int bid = sniff_readers[i]->bid(b, len);
		if (bid > 0) {
			r = SNIFF_CLAIMED;
			break;
		}
		if (bid < 0 && last_line_is_utf8(b, len))
			r = SNIFF_MORE;
	}
	if (r == SNIFF_REFUSED && may_be_json(b, len))
		r = SNIFF_MORE;
	if (r == SNIFF_REFUSED)
		pp_error_at(p, PPROF_EINPUT, 0,
			    "unrecognized profile format (not pprof, V8 JSON or folded stacks)");
	free(text);
	return r;
}

static int read_all(struct pprof_profile *p, int fd, const struct pprof_read_options *o,
		    unsigned char **out, size_t *outlen)
{
	uint64_t max = o && o->max_input ? o->max_input : DEFAULT_MAX_INPUT;
	size_t cap = 1 << 16, len = 0;
	size_t sniff_at = SNIFF_SIZE; /* 0 once a reader claimed the input */
	unsigned char *b = malloc(cap);
	if (!b)
		return pp_nomem(p);
	for (;;) {
		if (len == cap) {
			if (cap > SIZE_MAX / 2) {
				free(b);
				return pp_nomem(p);
			}
			size_t ncap = cap * 2 > max + 1 ? (size_t)max + 1 : cap * 2;
			unsigned char *nb = realloc(b, ncap);
			if (!nb) {
				free(b);
				return pp_nomem(p);
			}
			b = nb;
			cap = ncap;
		}
		ssize_t n = read(fd, b + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			free(b);
			return pp_error(p, PPROF_EIO, "%s", strerror(e));
		}
		if (n == 0)
			break;
		if (o && o->progress && (len + (size_t)n) / PROGRESS_STEP != len / PROGRESS_STEP)
			o->progress(o->progress_ctx, len + (size_t)n, 0);
		len += (size_t)n;
		if (sniff_at && len >= sniff_at) {
			int r = sniff(p, b, len, 0);
			if (r == SNIFF_REFUSED) {
				free(b);
				return PPROF_EINPUT;
			}
			sniff_at = r == SNIFF_CLAIMED || len > SIZE_MAX / 2 ? 0 : len * 2;
		}
		/* A pipe has no size to check first: `pprof-fold </dev/zero`
		 * grew until memory ran out. */
		if (len > max) {
			free(b);
			return pp_error(p, PPROF_ENOMEM,
					"input larger than the limit (%llu MiB; raise it with --max-input)",
					(unsigned long long)(max >> 20));
		}
	}
	if (o && o->progress)
		o->progress(o->progress_ctx, len, len);
	*out = b;
	*outlen = len;
	return PPROF_OK;
}

/* IN inflated whole by libdeflate, member after member, into at most
 * LIMIT bytes: true with *OUT, *OUTLEN; false when out of memory, past
 * LIMIT, or for anything but clean gzip (zlib's path says what). */
static bool gunzip_whole(const unsigned char *in, size_t inlen, size_t limit,
			 unsigned char **out, size_t *outlen)
{
	/* The first guess is the size the last member's trailer gives. */
	size_t cap = inlen >= 18 ? (size_t)in[inlen - 4] | (size_t)in[inlen - 3] << 8 |
					   (size_t)in[inlen - 2] << 16 | (size_t)in[inlen - 1] << 24
				 : 0;
	if (cap < 4096)
		cap = 4096;
	if (cap > limit)
		cap = limit;
	struct libdeflate_decompressor *z = libdeflate_alloc_decompressor();
	unsigned char *b = malloc(cap ? cap : 1);
	size_t len = 0, pos = 0;
	bool ok = false;
	while (z && b) {
		size_t used = 0, made = 0;
		/* libdeflate skips a header CRC without checking it */
		if (inlen - pos < 4 || (in[pos + 3] & 0x02))
			break;
		enum libdeflate_result r = libdeflate_gzip_decompress_ex(
			z, in + pos, inlen - pos, b + len, cap - len, &used, &made);
		if (r == LIBDEFLATE_INSUFFICIENT_SPACE && cap < limit) {
			/* the member again, with twice the room */
			size_t ncap = cap <= limit / 2 ? cap * 2 : limit;
			unsigned char *nb = realloc(b, ncap);
			if (!nb)
				break;
			b = nb;
			cap = ncap;
			continue;
		}
		if (r != LIBDEFLATE_SUCCESS)
			break;
		pos += used;
		len += made;
		if (pos == inlen) {
			ok = true;
			break;
		}
		/* Another member may follow, as with `cat a.gz b.gz`. */
		if (!pp_is_gzip(in + pos, inlen - pos))
			break;
	}
	libdeflate_free_decompressor(z);
	if (!ok) {
		free(b);
		return false;
	}
	*out = b;
	*outlen = len;
	return true;
}

int pp_gunzip(struct pprof_profile *p, const unsigned char *in, size_t inlen,
	      const struct pprof_read_options *o, unsigned char **out, size_t *outlen)
{
	uint64_t max = o && o->max_input ? o->max_input : DEFAULT_MAX_INPUT;
	bool raised = o && o->max_input && o->max_input > DEFAULT_MAX_INPUT;
	/* The bound: MAX, and unless it was raised, past 64 MiB no more than
	 * 100 times the compressed input.  The whole input is in memory, so
	 * the ratio is to all of it (a stream's prefix is not judged alone:
	 * libdeflate can't stop in the middle of a member, and both paths
	 * must agree). */
	uint64_t limit = max;
	if (!raised) {
		uint64_t ratio = (uint64_t)inlen < UINT64_MAX / RATIO_MAX
					 ? (uint64_t)inlen * RATIO_MAX
					 : UINT64_MAX;
		uint64_t bound = ratio > RATIO_FLOOR ? ratio : RATIO_FLOOR;
		if (bound < limit)
			limit = bound;
	}
	if (!(o && o->progress) &&
	    gunzip_whole(in, inlen, limit < SIZE_MAX ? (size_t)limit : SIZE_MAX, out, outlen))
		return PPROF_OK;
	size_t cap = inlen < (SIZE_MAX / 4) ? inlen * 4 + 4096 : inlen;
	if (cap > limit + 1)
		cap = (size_t)limit + 1;
	unsigned char *b = malloc(cap);
	if (!b)
		return pp_nomem(p);
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		free(b);
		return pp_nomem(p);
	}
	size_t len = 0, pos = 0;
	int status = PPROF_OK;
	for (;;) {
		if (len == cap) {
			/* cap never passes limit + 1, and len > limit stops below. */
			size_t ncap = cap < (SIZE_MAX / 2) ? cap * 2 : SIZE_MAX;
			if (ncap > limit + 1)
				ncap = (size_t)limit + 1;
			unsigned char *nb = realloc(b, ncap);
			if (!nb) {
				status = pp_nomem(p);
				break;
			}
			b = nb;
			cap = ncap;
		}
		/* zlib's counters are 32 bits wide: feed at most 1 GiB at a time;
		 * inflate a few MiB at a time when someone shows the progress. */
		size_t step = o && o->progress ? PROGRESS_STEP : (size_t)1 << 30;
		size_t chunk_in = inlen - pos > (1u << 30) ? (1u << 30) : inlen - pos;
		size_t chunk_out = cap - len > step ? step : cap - len;
		z.next_in = (unsigned char *)in + pos;
		z.avail_in = (uInt)chunk_in;
		z.next_out = b + len;
		z.avail_out = (uInt)chunk_out;
		int r = inflate(&z, Z_NO_FLUSH);
		pos += chunk_in - z.avail_in;
		len += chunk_out - z.avail_out;
		if (o && o->progress)
			o->progress(o->progress_ctx, pos, inlen);
		if (len > limit)
			goto bomb;
		if (r == Z_STREAM_END) {
			/* Another member may follow, as with `cat a.gz b.gz`. */
			if (pos == inlen)
				break;
			if (!pp_is_gzip(in + pos, inlen - pos)) {
				status = pp_error_at(p, PPROF_EINPUT, len,
						     "trailing garbage after gzip stream");
				break;
			}
			inflateReset(&z);
			continue;
		}
		if (r == Z_OK || (r == Z_BUF_ERROR && z.avail_out == 0))
			continue;
		if (r == Z_BUF_ERROR) {
			status = pp_error_at(p, PPROF_EINPUT, len, "truncated gzip stream");
			break;
		}
		status = pp_error_at(p, PPROF_EINPUT, len, "bad gzip data: %s",
				     z.msg ? z.msg : "inflate failed");
		break;
	}
	inflateEnd(&z);
	if (status != PPROF_OK) {
		free(b);
		return status;
	}
	*out = b;
	*outlen = len;
	return PPROF_OK;
bomb:
	inflateEnd(&z);
	free(b);
	return pp_error_at(p, PPROF_ENOMEM, len,
			   "gzip input inflates past the limit (%llu MiB; raise it with --max-input)",
			   (unsigned long long)(limit >> 20));
}

int pp_input_load(struct pprof_profile *p, const char *path,
		  const struct pprof_read_options *o, unsigned char **buf,
		  size_t *len, bool *mapped)
{
	int fd = 0;
	bool is_stdin = !path || strcmp(path, "-") == 0;
	*mapped = false;
	if (!is_stdin) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return pp_error(p, PPROF_EIO, "%s", strerror(errno));
	}
	unsigned char *raw = NULL;
	size_t rawlen = 0;
	bool rawmapped = false;
	struct stat st;
	int status;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			raw = m;
			rawlen = (size_t)st.st_size;
			rawmapped = true;
		}
	}
	if (!rawmapped) {
		status = read_all(p, fd, o, &raw, &rawlen);
		if (status != PPROF_OK) {
			if (!is_stdin)
				close(fd);
			return status;
		}
	}
	if (!is_stdin)
		close(fd);
	if (pp_is_gzip(raw, rawlen)) {
		if (rawmapped)
			madvise(raw, rawlen, MADV_SEQUENTIAL);
		status = pp_gunzip(p, raw, rawlen, o, buf, len);
		if (rawmapped)
			munmap(raw, rawlen);
		else
			free(raw);
		return status;
	}
	uint64_t max = o && o->max_input ? o->max_input : DEFAULT_MAX_INPUT;
	if (rawlen > max) {
		if (rawmapped)
			munmap(raw, rawlen);
		else
			free(raw);
		return pp_error(p, PPROF_ENOMEM, "input larger than the limit (%llu MiB; raise it with --max-input)",
				(unsigned long long)(max >> 20));
	}
	*buf = raw;
	*len = rawlen;
	*mapped = rawmapped;
	return PPROF_OK;
}
