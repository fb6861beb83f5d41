/*
 * cli.h: what every program of the toolkit shares: the reader options
 * (DESIGN.md, "Programs and their contract"), loading inputs into one
 * profile, one-line errors, and output written atomically.  Private to
 * tools/.
 */
#ifndef PP_CLI_H
#define PP_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pprof.h"
#include "progress.h"

/* Exit statuses (DESIGN.md). */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2, CLI_REGRESSION = 3 };

/* Long options that are not characters start here. */
enum {
	CLI_OPT_MAX_INPUT = 0x100,
	CLI_OPT_QUIET,
	CLI_OPT_HIDE_IGNORED,
	CLI_OPT_HELP,
	CLI_OPT_VERSION,
	CLI_OPT_PROGRESS,
	CLI_OPT_FIRST_TOOL = 0x200, /* tools number their own long options from here */
};

/* The shared options, for a tool's getopt_long table (ends without the
 * terminating zero entry) and its short option string. */
#define CLI_SHORTOPTS "i:g:o:m:"
#define CLI_LONGOPTS                                                              \
	{"sample-index", required_argument, NULL, 'i'},                           \
		{"granularity", required_argument, NULL, 'g'},                    \
		{"output", required_argument, NULL, 'o'},                         \
		{"sourcemap", required_argument, NULL, 'm'},                      \
		{"max-input", required_argument, NULL, CLI_OPT_MAX_INPUT},        \
		{"quiet", no_argument, NULL, CLI_OPT_QUIET},                      \
		{"hide-ignored", no_argument, NULL, CLI_OPT_HIDE_IGNORED},        \
		{"help", no_argument, NULL, CLI_OPT_HELP},                        \
		{"version", no_argument, NULL, CLI_OPT_VERSION},                  \
		{"progress", no_argument, NULL, CLI_OPT_PROGRESS}

struct cli {
	const char *prog;
	const char *sample;  /* -i */
	int granularity;     /* -g */
	const char *output;  /* -o, NULL = stdout */
	const char **maps;   /* -m, repeatable */
	size_t nmaps;
	struct pprof_read_options read;
	bool quiet;
	struct cli_progress progress; /* progress.h; --progress forces it */
	bool hide_ignored; /* --hide-ignored */
	void (*usage)(FILE *out); /* the tool's usage text */

	/* warnings printed so far */
	const struct pprof_profile *warned_for;
	size_t warned;

	/* output state */
	FILE *out;
	char *tmppath;
};

void cli_init(struct cli *c, const char *prog, void (*usage)(FILE *));
void cli_release(struct cli *c);

/* Handles a shared option.  Returns 1 when handled, 0 when it is not a
 * shared option, and exits (0 for --help/--version, 2 for a bad value). */
int cli_option(struct cli *c, int opt, const char *arg);

/* "prog: message" on stderr. */
void cli_error(const struct cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_warn(const struct cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Usage error: the message, the usage on stderr, exit 2. */
void cli_usage_error(const struct cli *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/* Reads FILES (standard input when N is 0) into one new profile, printing
 * "prog: FILE: error" and returning NULL on failure.  Warnings are printed
 * once each unless --quiet. */
struct pprof_profile *cli_load(struct cli *c, char **files, int n);

/* Prints the profile's warnings not yet printed. */
void cli_flush_warnings(struct cli *c, const struct pprof_profile *p);

/* The -i choice for P, or -1 after printing why. */
int cli_sample_index(struct cli *c, struct pprof_profile *p);

/* Opens the output: standard output, or a temporary file beside -o FILE
 * that cli_commit() renames into place; cli_abort() removes it. */
FILE *cli_open_output(struct cli *c);
int cli_commit(struct cli *c);
void cli_abort(struct cli *c);

/* Parses a size with an optional k/m/g (binary) suffix. */
bool cli_parse_size(const char *s, uint64_t *out);

#endif /* PP_CLI_H */
