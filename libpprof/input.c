/* input.c: loading only: a file mapped, or a pipe read while the door
 * (read.c) says that its start may be a profile.  Decoding (gzip, UTF-16)
 * and the choice of a reader are the door's. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model_private.h"
#include "read_private.h"

#define DEFAULT_MAX_INPUT ((uint64_t)4 << 30)
/* How much is inflated between two progress calls. */
#define PROGRESS_STEP ((size_t)4 << 20)
/* Files up to this size are mapped with their pages made at once. */
#define POPULATE_MAX ((uint64_t)64 << 20)

/* A pipe has no size, and `head -c 3G /dev/urandom | pprof-fold` read
 * gigabytes before the bids said no: the door (pp_claims()) looks at the
 * first bytes once they are in, and again each time the buffer doubles
 * while undecided. */
#define SNIFF_SIZE ((size_t)64 << 10)

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
			int r = pp_claims(p, b, len, o);
			if (r == PP_REFUSED) {
				free(b);
				return PPROF_EINPUT;
			}
			sniff_at = r == PP_CLAIMED || len > SIZE_MAX / 2 ? 0 : len * 2;
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

int pp_input_load_raw(struct pprof_profile *p, const char *path,
		      const struct pprof_read_options *o, unsigned char **buf, size_t *len,
		      bool *mapped)
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
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		/* the pages made at once, where each first read of 64 KiB
		 * would cost a fault (a few milliseconds for 16 MB on the
		 * virtual machines this is measured on); not for inputs so
		 * big that reading them whole first would hold up the start */
		int pop = 0;
#ifdef MAP_POPULATE
		if ((uint64_t)st.st_size <= POPULATE_MAX)
			pop = MAP_POPULATE;
#endif
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | pop, fd, 0);
		if (m != MAP_FAILED) {
			raw = m;
			rawlen = (size_t)st.st_size;
			rawmapped = true;
		}
	}
	if (!rawmapped) {
		int status = read_all(p, fd, o, &raw, &rawlen);
		if (status != PPROF_OK) {
			if (!is_stdin)
				close(fd);
			return status;
		}
	}
	if (!is_stdin)
		close(fd);
	uint64_t max = o && o->max_input ? o->max_input : DEFAULT_MAX_INPUT;
	if (!pp_is_gzip(raw, rawlen) && rawlen > max) {
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
