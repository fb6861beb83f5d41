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
	CLI_OPT_SOURCE_PATH,
	CLI_OPT_RULES,
	CLI_OPT_FILTER, /* CLI_OPT_FILTER + enum pprof_filter_option */
	CLI_OPT_FILTER_END = CLI_OPT_FILTER + PPROF_FILTER_NOPTIONS,
	CLI_OPT_HELP,
	CLI_OPT_VERSION,
	CLI_OPT_PROGRESS,
	CLI_OPT_THREAD,
	CLI_OPT_NO_FIX_SAMPLES,
	CLI_OPT_SINCE,
	CLI_OPT_UNTIL,
	CLI_OPT_PATHS,
	CLI_OPT_GRANULARITY, /* CLI_OPT_GRANULARITY + enum pprof_granularity: pprof's -lines */
	CLI_OPT_GRANULARITY_END = CLI_OPT_GRANULARITY + PPROF_G_ADDRESSES + 1,
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
		{"source-path", required_argument, NULL, CLI_OPT_SOURCE_PATH},    \
		{"rules", required_argument, NULL, CLI_OPT_RULES},                \
		CLI_FILTER_LONGOPTS,                                              \
		{"help", no_argument, NULL, CLI_OPT_HELP},                        \
		{"version", no_argument, NULL, CLI_OPT_VERSION},                  \
		{"progress", no_argument, NULL, CLI_OPT_PROGRESS},                \
		{"thread", required_argument, NULL, CLI_OPT_THREAD},              \
		{"no-fix-samples", no_argument, NULL, CLI_OPT_NO_FIX_SAMPLES},    \
		{"since", required_argument, NULL, CLI_OPT_SINCE},                \
		{"until", required_argument, NULL, CLI_OPT_UNTIL},                \
		{"paths", required_argument, NULL, CLI_OPT_PATHS},                \
		CLI_GRANULARITY_LONGOPTS

/* pprof's granularity flags (-lines, -files ...) as synonyms of -g. */
#define CLI_GRANULARITY_LONGOPTS                                                        \
	{"functions", no_argument, NULL, CLI_OPT_GRANULARITY + PPROF_G_FUNCTIONS},         \
		{"filefunctions", no_argument, NULL,                                       \
		 CLI_OPT_GRANULARITY + PPROF_G_FILEFUNCTIONS},                             \
		{"lines", no_argument, NULL, CLI_OPT_GRANULARITY + PPROF_G_LINES},         \
		{"files", no_argument, NULL, CLI_OPT_GRANULARITY + PPROF_G_FILES},         \
		{"addresses", no_argument, NULL, CLI_OPT_GRANULARITY + PPROF_G_ADDRESSES}

/* The filters (pprof_filter_option order), and pprof's spellings of two. */
#define CLI_FILTER_LONGOPTS                                                              \
	{"focus", required_argument, NULL, CLI_OPT_FILTER + PPROF_FILTER_FOCUS},         \
		{"ignore", required_argument, NULL, CLI_OPT_FILTER + PPROF_FILTER_IGNORE},  \
		{"hide", required_argument, NULL, CLI_OPT_FILTER + PPROF_FILTER_HIDE},      \
		{"show", required_argument, NULL, CLI_OPT_FILTER + PPROF_FILTER_SHOW},      \
		{"show-from", required_argument, NULL,                                      \
		 CLI_OPT_FILTER + PPROF_FILTER_SHOW_FROM},                                  \
		{"show_from", required_argument, NULL,                                      \
		 CLI_OPT_FILTER + PPROF_FILTER_SHOW_FROM},                                  \
		{"prune-from", required_argument, NULL,                                     \
		 CLI_OPT_FILTER + PPROF_FILTER_PRUNE_FROM},                                 \
		{"prune_from", required_argument, NULL,                                     \
		 CLI_OPT_FILTER + PPROF_FILTER_PRUNE_FROM},                                 \
		{"tagfocus", required_argument, NULL, CLI_OPT_FILTER + PPROF_FILTER_TAGFOCUS}, \
		{"tagignore", required_argument, NULL,                                      \
		 CLI_OPT_FILTER + PPROF_FILTER_TAGIGNORE},                                  \
		{"tagroot", required_argument, NULL, CLI_OPT_FILTER + PPROF_FILTER_TAGROOT}, \
		{"tagleaf", required_argument, NULL, CLI_OPT_FILTER + PPROF_FILTER_TAGLEAF}, \
		{"collapse-recursion", no_argument, NULL,                                   \
		 CLI_OPT_FILTER + PPROF_FILTER_COLLAPSE_RECURSION},                         \
		{"drop-idle", no_argument, NULL, CLI_OPT_FILTER + PPROF_FILTER_DROP_IDLE}

/* Lines for a tool's --help describing the filters and --rules. */
#define CLI_FILTER_HELP                                                             \
	"      --focus=REGEX          keep samples with a frame that matches\n"        \
	"      --ignore=REGEX         drop samples with a frame that matches\n"        \
	"      --hide=REGEX           remove the frames that match\n"                  \
	"      --show=REGEX           keep only the frames that match\n"               \
	"      --show-from=REGEX      drop the frames above the outermost match\n"     \
	"      --prune-from=REGEX     drop the frames below the innermost match\n"     \
	"      --tagfocus=[KEY=]REGEX|RANGE  keep samples by label (bytes=1kb:2mb)\n"  \
	"      --tagignore=[KEY=]REGEX|RANGE drop samples by label\n"                 \
	"      --tagroot=KEY[,KEY]    label values as root frames\n"                  \
	"      --tagleaf=KEY[,KEY]    label values as leaf frames\n"                  \
	"      --collapse-recursion   a function calling itself directly: once\n"      \
	"      --drop-idle            drop (idle) and (program) samples\n"            \
	"      --rules=FILE.yaml      rename rules, default filters, source maps\n"     \
	"      --thread=REGEX         Chrome traces: only the threads whose name matches\n" \
	"      --no-fix-samples       Chrome traces: no DevTools repair of (program) samples\n" \
	"      --since=BASELINE       heap snapshots: only objects not in BASELINE\n"     \
	"      --until=TARGET         heap snapshots: with --since, only objects in TARGET\n" \
	"      --paths=dominators|retainers  heap snapshots: stacks along dominator chains,\n" \
	"                             or shortest retainer paths from the GC roots\n"

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
	const char *source_path; /* --source-path */
	bool lines_out;    /* the output has lines whatever -g says (pprof-convert) */
	/* the output is folded stacks and nothing else of the frames
	 * (pprof-fold, pprof-diff): cli_load() may read without the lines
	 * nothing prints (pprof_read_options.skip_lines) */
	bool folded_out;
	const char *rules_path;      /* --rules */
	struct pprof_rules *rules;   /* loaded by the first cli_load() */
	struct pprof_filter *filter; /* the filter options, compiled as given */
	struct pprof_filter_report *report; /* what the last cli_load()'s filters report */
	void (*usage)(FILE *out); /* the tool's usage text */

	/* warnings printed so far */
	const struct pprof_profile *warned_for;
	size_t warned;

	/* the last profile read, and its first input as shown (cli_loaded()) */
	const struct pprof_profile *loaded;
	const char *loaded_name;

	/* words cli_getopt() rewrote (freed by cli_release()) */
	char **words;
	size_t nwords;
	bool words_done;

	/* output state */
	FILE *out;
	char *tmppath;
};

/* The first call of main(): on Linux with glibc, where the kernel gives
 * transparent huge pages only to memory that asks (THP "madvise"), runs
 * the program again with glibc's malloc asking for them
 * (GLIBC_TUNABLES=glibc.malloc.hugetlb=1), its threads in the main arena
 * (glibc.malloc.arena_max=1, unless named), unless GLIBC_TUNABLES already
 * names that tunable or LD_PRELOAD is set (another malloc, or valgrind).
 * Returns when nothing is to be done or the exec fails. */
void cli_huge_pages(char **argv);

void cli_init(struct cli *c, const char *prog, void (*usage)(FILE *));
void cli_release(struct cli *c);

/* Handles a shared option.  Returns 1 when handled, 0 when it is not a
 * shared option, and exits (0 for --help/--version, 2 for a bad value). */
int cli_option(struct cli *c, int opt, const char *arg);

/* getopt_long() with pprof's habits and the project's messages:
 * - a one-dash word whose text before '=' (with '_' read as '-') exactly
 *   names one of LONGOPTS is that long option (-nodecount=5,
 *   -sample_index=samples, -focus REGEX, as Go's flag package allows);
 *   any other one-dash word is short options, as usual;
 * - an unknown option or a missing argument is a usage error
 *   (cli_usage_error(), naming the program, never a build path).
 * Returns the option as getopt_long() does, -1 at the end. */
int cli_getopt(struct cli *c, int argc, char **argv, const char *shortopts,
	       const struct option *longopts);

/* "prog: message" on stderr. */
void cli_error(const struct cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_warn(const struct cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Usage error: two lines on stderr, "prog: MESSAGE" and "Try 'prog --help'
 * for more information.", then exit 2 (DESIGN.md). */
void cli_usage_error(const struct cli *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/* Reads FILES (standard input when N is 0) into one new profile, then runs
 * the transforms (symbolication, then the rules' renames and the filters),
 * printing "prog: FILE: error" and returning NULL on failure.  Warnings are
 * printed once each unless --quiet.  A bad --rules file fails before any
 * input is read. */
struct pprof_profile *cli_load(struct cli *c, char **files, int n);
/* The read options for PATH ("-": standard input): with the progress
 * callback when a line may show (--progress, or a terminal unless --quiet),
 * but not for a regular file small enough that none would before it is
 * read; without one, gzip inflates about three times faster. */
const struct pprof_read_options *cli_read_options(struct cli *c, const char *path);

/* P was read from the input shown as NAME (a string that outlives P):
 * cli_sample_index() names it.  cli_load() says so itself. */
void cli_loaded(struct cli *c, const struct pprof_profile *p, const char *name);

/* Prints the profile's warnings not yet printed. */
void cli_flush_warnings(struct cli *c, const struct pprof_profile *p);
/* --header: "# sample_type=TYPE/UNIT" (PPROF_FOLDED_HEADER) on OUT; -1
 * (said) when they would not read back (a newline, a '/' in UNIT). */
int cli_write_header(struct cli *c, FILE *out, const char *type, const char *unit);

/* The -i choice for P, or -1 after printing why ("prog: FILE: why" when P
 * came from cli_load(), FILE its first input: the inputs share their sample
 * types). */
int cli_sample_index(struct cli *c, struct pprof_profile *p);

/* Opens the output: standard output, or a temporary file beside -o FILE
 * that cli_commit() renames into place; cli_abort() removes it. */
FILE *cli_open_output(struct cli *c);
int cli_commit(struct cli *c);
void cli_abort(struct cli *c);

/* Parses a size with an optional k/m/g (binary) suffix. */
bool cli_parse_size(const char *s, uint64_t *out);

#endif /* PP_CLI_H */
