/*
 * progress.h: the progress line of a long read or write (issue 9).  On a
 * terminal, an input that takes more than a second to read (or an output
 * to write) gets a line on standard error, redrawn in place and erased when
 * that step is over; never when standard error is not a terminal, unless
 * forced (--progress, for tests: then one plain line per update, shown
 * from the start).  Private to tools/.
 */
#ifndef PP_PROGRESS_H
#define PP_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

struct cli_progress {
	const char *prog;
	const char *name;     /* the file being read or written */
	const char *verb;     /* "reading", "writing" */
	bool forced;          /* --progress */
	bool quiet;           /* --quiet: none unless forced */
	int tty;              /* -1 not known yet, else isatty(2) */
	bool shown;           /* a line is on the terminal now */
	bool finished;        /* the step's last call came */
	uint64_t ended_total; /* TOTAL of the last step that ended */
	struct timespec start, last;
	uint64_t written; /* bytes through the counting output stream */
	FILE *inner;      /* the stream the counting stream writes to */
};

void cli_progress_init(struct cli_progress *pr, const char *prog);

/* Starts a new step (VERB a NAME): the clock for the one-second delay. */
void cli_progress_begin(struct cli_progress *pr, const char *verb, const char *name);

/* Whether lines may be shown: forced, or on a terminal unless quiet. */
bool cli_progress_may_show(struct cli_progress *pr);
/* The callback of struct pprof_read_options (CTX: the struct cli_progress). */
void cli_progress_update(void *ctx, uint64_t done, uint64_t total);

/* Ends the step: erases the line from the terminal. */
void cli_progress_end(struct cli_progress *pr);

/* OUT, or a stream that writes to OUT and counts what goes through, for
 * the progress of a long write (NAME the output's name); NULL when out of
 * memory.  cli_progress_close() closes the counting stream (not OUT) and
 * ends the step; it returns 0, or EOF when a write to OUT failed. */
FILE *cli_progress_wrap(struct cli_progress *pr, FILE *out, const char *name);
int cli_progress_close(struct cli_progress *pr, FILE *wrapped);

#endif /* PP_PROGRESS_H */
