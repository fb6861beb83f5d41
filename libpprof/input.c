/* input.c: whole inputs into memory, gzip members inflated, with the
 * decompression bound of DESIGN.md. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
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

static int read_all(struct pprof_profile *p, int fd, const struct pprof_read_options *o,
		    unsigned char **out, size_t *outlen)
{
	uint64_t max = o && o->max_input ? o->max_input : DEFAULT_MAX_INPUT;
	size_t cap = 1 << 16, len = 0;
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

int pp_gunzip(struct pprof_profile *p, const unsigned char *in, size_t inlen,
	      const struct pprof_read_options *o, unsigned char **out, size_t *outlen)
{
	uint64_t max = o && o->max_input ? o->max_input : DEFAULT_MAX_INPUT;
	bool raised = o && o->max_input && o->max_input > DEFAULT_MAX_INPUT;
	size_t cap = inlen < (SIZE_MAX / 4) ? inlen * 4 + 4096 : inlen;
	if (cap > max + 1)
		cap = (size_t)max + 1;
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
			/* cap never passes max + 1, and len > max stops below. */
			size_t ncap = cap < (SIZE_MAX / 2) ? cap * 2 : SIZE_MAX;
			if (ncap > max + 1)
				ncap = (size_t)max + 1;
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
		if (len > max || (len > RATIO_FLOOR && !raised && len / RATIO_MAX > pos))
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
			   (unsigned long long)((len > max ? max : len) >> 20));
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
