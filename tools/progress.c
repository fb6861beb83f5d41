/* progress.c: the progress line of long reads and writes. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "progress.h"

/* Shown after this long on a terminal, redrawn at most this often. */
#define DELAY_NS 1000000000LL
#define REDRAW_NS 200000000LL
/* A counting output stream reports every this many bytes. */
#define WRITE_STEP ((uint64_t)4 << 20)

void cli_progress_init(struct cli_progress *pr, const char *prog)
{
	memset(pr, 0, sizeof(*pr));
	pr->prog = prog;
	pr->tty = -1;
	pr->finished = true; /* no step yet: the first call starts one */
}

static long long since(const struct timespec *a, const struct timespec *b)
{
	return (long long)(b->tv_sec - a->tv_sec) * 1000000000LL + (b->tv_nsec - a->tv_nsec);
}

static bool wanted(struct cli_progress *pr)
{
	if (pr->tty < 0)
		pr->tty = isatty(STDERR_FILENO) == 1;
	if (pr->forced)
		return true;
	return !pr->quiet && pr->tty;
}

bool cli_progress_may_show(struct cli_progress *pr)
{
	return wanted(pr);
}

void cli_progress_begin(struct cli_progress *pr, const char *verb, const char *name)
{
	cli_progress_end(pr);
	pr->verb = verb;
	pr->name = name;
	pr->finished = false;
	pr->ended_total = 0;
	clock_gettime(CLOCK_MONOTONIC, &pr->start);
}

/* "512 KiB", "12.3 MiB". */
static void size(char *buf, size_t n, uint64_t bytes)
{
	if (bytes < ((uint64_t)1 << 20))
		snprintf(buf, n, "%llu KiB", (unsigned long long)((bytes + 1023) >> 10));
	else
		snprintf(buf, n, "%.1f MiB", (double)bytes / (1 << 20));
}

static void draw(struct cli_progress *pr, uint64_t done, uint64_t total)
{
	char what[80], a[32], b[32];
	const char *verb = pr->verb ? pr->verb : "reading";
	bool writing = strcmp(verb, "writing") == 0;
	size(a, sizeof(a), done);
	size(b, sizeof(b), total);
	if (total && done >= total)
		snprintf(what, sizeof(what), "%s %s", writing ? "wrote" : "read", a);
	else if (total) /* a known total while reading: the gzip being inflated */
		snprintf(what, sizeof(what), "%s %3u%% of %s", writing ? verb : "inflating",
			 (unsigned)(done * 100 / total), b);
	else
		snprintf(what, sizeof(what), "%s %s", verb, a);
	const char *name = pr->name ? pr->name : "<input>";
	if (pr->forced && !pr->tty)
		fprintf(stderr, "%s: %s: %s\n", pr->prog, name, what);
	else
		fprintf(stderr, "\r%s: %s: %s\033[K", pr->prog, name, what);
	fflush(stderr);
	pr->shown = true;
}

void cli_progress_update(void *ctx, uint64_t done, uint64_t total)
{
	struct cli_progress *pr = ctx;
	if (!wanted(pr))
		return;
	bool last = total && done >= total;
	if (pr->finished) {
		/* Inflating what a pipe gave ends on the same bytes as the
		 * reading did: one end is enough. */
		if (last && total == pr->ended_total)
			return;
		/* A step the program did not announce (a later phase of the
		 * same input, or a library reading on its own). */
		pr->finished = false;
		clock_gettime(CLOCK_MONOTONIC, &pr->start);
	}
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!pr->forced && since(&pr->start, &now) < DELAY_NS) {
		if (last) {
			pr->finished = true;
			pr->ended_total = total;
		}
		return;
	}
	/* Forced lines on a non-terminal are for tests: every update. */
	if (pr->shown && !last && pr->tty && since(&pr->last, &now) < REDRAW_NS)
		return;
	pr->last = now;
	if (last) {
		pr->finished = true;
		pr->ended_total = total;
		if (pr->forced && !pr->tty)
			draw(pr, done, total);
		cli_progress_end(pr);
		return;
	}
	draw(pr, done, total);
}

void cli_progress_end(struct cli_progress *pr)
{
	if (pr->shown && !(pr->forced && !pr->tty)) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	pr->shown = false;
	pr->finished = true;
}

static ssize_t count_write(void *ctx, const char *buf, size_t len)
{
	struct cli_progress *pr = ctx;
	if (fwrite(buf, 1, len, pr->inner) != len)
		return -1;
	uint64_t before = pr->written;
	pr->written += len;
	if (pr->written / WRITE_STEP != before / WRITE_STEP)
		cli_progress_update(pr, pr->written, 0);
	return (ssize_t)len;
}

FILE *cli_progress_wrap(struct cli_progress *pr, FILE *out, const char *name)
{
	if (!out || !wanted(pr))
		return out;
	cookie_io_functions_t io = {NULL, count_write, NULL, NULL};
	FILE *f = fopencookie(pr, "w", io);
	if (!f)
		return NULL;
	setvbuf(f, NULL, _IOFBF, (size_t)1 << 16);
	pr->inner = out;
	pr->written = 0;
	cli_progress_begin(pr, "writing", name);
	return f;
}

int cli_progress_close(struct cli_progress *pr, FILE *wrapped)
{
	int r = fclose(wrapped);
	int e = errno;
	if (pr->forced && !pr->tty)
		draw(pr, pr->written, pr->written);
	pr->inner = NULL;
	cli_progress_end(pr);
	errno = e;
	return r;
}
