/* cli.c: the shared part of every program. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CLI_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || \
	__has_feature(thread_sanitizer)
#define CLI_SANITIZED 1
#endif
#endif

/*
 * Why a program restarts itself: on the virtual machines this toolkit is
 * measured on, a page fault costs about 12 us, so a 4 KiB page taken costs
 * about 3 ms per MiB and a big profile's tree spends a tenth to a quarter
 * of its time taking pages (40,000 faults for the bench pprof); a 2 MiB
 * huge page costs a fault for 512 of them.  The library asks for huge
 * pages for its biggest arrays itself, but every other block comes from
 * malloc(), which asks only when glibc is told so at start: the tunable
 * glibc.malloc.hugetlb=1, read from the environment before main().  Set it
 * to 0 to keep malloc's own pages.  With it, glibc.malloc.arena_max=1
 * (unless the user names that one): a thread's own arena grows a few
 * pages at a time and takes 4 KiB pages whatever is asked, where the main
 * heap takes whole huge pages (the bench pprof's shares and the map's
 * thread took 3,000 faults there; 1.48 -> 1.30 s).
 */
#if defined(__linux__) && defined(__GLIBC__) && !defined(CLI_SANITIZED)
/* The program break moved up to a 2 MiB boundary before malloc() first
 * takes memory from it: glibc asks for huge pages for its heap
 * (glibc.malloc.hugetlb=1), but the kernel backs only the whole aligned
 * 2 MiB stretches of it, and the break starts anywhere in a 2 MiB page
 * (4 KiB pages for the heap's first megabytes otherwise: 700 faults of
 * the main thread on the bench .cpuprofile, 11 us each on this VM). */
static void align_break(void)
{
	const uintptr_t huge = (uintptr_t)2 << 20;
	void *cur = sbrk(0);
	if (cur == (void *)-1)
		return;
	uintptr_t pad = (huge - ((uintptr_t)cur & (huge - 1))) & (huge - 1);
	if (pad)
		(void)sbrk((intptr_t)pad);
}
#endif

void cli_huge_pages(char **argv)
{
#if defined(__linux__) && defined(__GLIBC__) && !defined(CLI_SANITIZED)
	static const char want[] = "glibc.malloc.hugetlb=1";
	const char *t = getenv("GLIBC_TUNABLES");
	if (t && strstr(t, want)) {
		align_break();
		return;
	}
	if (!argv || !argv[0] || (t && strstr(t, "glibc.malloc.hugetlb")))
		return;
	/* another malloc, or valgrind's (whose run would end at the exec) */
	const char *pre = getenv("LD_PRELOAD");
	if (pre && *pre)
		return;
	/* "always": every block has them already; "never": none will */
	char mode[128];
	int fd = open("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, mode, sizeof(mode) - 1);
	close(fd);
	if (n <= 0)
		return;
	mode[n] = '\0';
	if (!strstr(mode, "[madvise]"))
		return;
	/* the user's tunables kept, ours after them */
	static const char one_arena[] = ":glibc.malloc.arena_max=1";
	bool more = t && *t, arenas = !(t && strstr(t, "glibc.malloc.arena_max"));
	size_t len = (more ? strlen(t) + 1 : 0) + sizeof(want) + sizeof(one_arena);
	char *v = malloc(len);
	if (!v)
		return;
	snprintf(v, len, "%s%s%s%s", more ? t : "", more ? ":" : "", want, arenas ? one_arena : "");
	/* a failed exec leaves the variable set: read at start only, and
	 * the programs start nothing */
	if (setenv("GLIBC_TUNABLES", v, 1) == 0)
		execv("/proc/self/exe", argv);
	free(v);
#else
	(void)argv;
#endif
}

void cli_init(struct cli *c, const char *prog, void (*usage)(FILE *))
{
	memset(c, 0, sizeof(*c));
	c->prog = prog;
	c->usage = usage;
	c->granularity = PPROF_G_FUNCTIONS;
	cli_progress_init(&c->progress, prog);
	c->read.progress_ctx = &c->progress; /* the callback: cli_read_options() */
	/* the time order of a .cpuprofile's samples: pprof-flame --flamechart
	 * asks for it */
	c->read.skip_sequence = 1;
}

/* Regular files up to this size are inflated at libdeflate's speed (well
 * under the second before a progress line shows) when --progress is not
 * given. */
#define QUICK_INPUT ((off_t)64 << 20)

const struct pprof_read_options *cli_read_options(struct cli *c, const char *path)
{
	struct stat st;
	c->read.progress = NULL;
	if (!cli_progress_may_show(&c->progress))
		return &c->read;
	if (!c->progress.forced && strcmp(path, "-") != 0 && stat(path, &st) == 0 &&
	    S_ISREG(st.st_mode) && st.st_size <= QUICK_INPUT)
		return &c->read;
	c->read.progress = cli_progress_update;
	return &c->read;
}

void cli_release(struct cli *c)
{
	pprof_filter_free(c->filter);
	pprof_filter_report_free(c->report);
	pprof_rules_free(c->rules);
	free(c->maps);
	free(c->tmppath);
	for (size_t i = 0; i < c->nwords; i++)
		free(c->words[i]);
	free(c->words);
}

static void vmsg(const struct cli *c, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", c->prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cli_error(const struct cli *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(c, fmt, ap);
	va_end(ap);
}

void cli_warn(const struct cli *c, const char *fmt, ...)
{
	if (c->quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: warning: ", c->prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void cli_usage_error(const struct cli *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(c, fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help' for more information.\n", c->prog);
	exit(CLI_USAGE);
}

/* ---- pprof's habits: -nodecount=5, -sample_index samples ---- */

/* The long option that NAME (N bytes, '_' read as '-') names exactly. */
static const struct option *long_named(const struct option *lo, const char *name, size_t n)
{
	for (; lo->name; lo++) {
		size_t i;
		if (strlen(lo->name) != n)
			continue;
		for (i = 0; i < n; i++) {
			char ch = name[i] == '_' ? '-' : name[i];
			if (ch != lo->name[i])
				break;
		}
		if (i == n)
			return lo;
	}
	return NULL;
}

/* Does short option CH take an argument in SHORTOPTS? */
static bool short_takes_arg(const char *shortopts, char ch)
{
	const char *p = ch != ':' ? strchr(shortopts, ch) : NULL;
	return p && p[1] == ':';
}

/* Rewrites, in ARGV, each one-dash word whose text before '=' names one
 * of LONGOPTS exactly (with '_' read as '-') as that long option, so that
 * getopt_long takes -nodecount=5 as --nodecount=5 and -focus x as
 * --focus x.  Any other one-dash word stays short options.  Words that
 * are the argument of the option before them, and all after "--", stay
 * as they are. */
static void pprof_words(struct cli *c, int argc, char **argv, const char *shortopts,
			const struct option *longopts)
{
	for (int i = 1; i < argc; i++) {
		const char *w = argv[i];
		if (strcmp(w, "--") == 0)
			return;
		if (w[0] != '-' || w[1] == '\0')
			continue; /* an operand (GNU getopt permutes them) */
		if (w[1] == '-') {
			/* --name VALUE: skip the value */
			const char *eq = strchr(w + 2, '=');
			const struct option *lo =
				eq ? NULL : long_named(longopts, w + 2, strlen(w + 2));
			if (lo && lo->has_arg == required_argument)
				i++;
			continue;
		}
		const char *eq = strchr(w + 1, '=');
		size_t n = eq ? (size_t)(eq - (w + 1)) : strlen(w + 1);
		const struct option *lo = n > 1 ? long_named(longopts, w + 1, n) : NULL;
		if (lo) {
			size_t len = strlen(lo->name) + (eq ? strlen(eq) : 0) + 3;
			char *nw = malloc(len), **kept;
			if (!nw || !(kept = realloc(c->words, (c->nwords + 1) * sizeof(*kept)))) {
				free(nw);
				cli_error(c, "out of memory");
				exit(CLI_FAIL);
			}
			snprintf(nw, len, "--%s%s", lo->name, eq ? eq : "");
			c->words = kept;
			c->words[c->nwords++] = nw;
			argv[i] = nw;
			if (!eq && lo->has_arg == required_argument)
				i++;
			continue;
		}
		/* short options: the last one may take the next word */
		for (const char *s = w + 1; *s; s++) {
			if (short_takes_arg(shortopts, *s)) {
				if (s[1] == '\0')
					i++;
				break;
			}
		}
	}
}

int cli_getopt(struct cli *c, int argc, char **argv, const char *shortopts,
	       const struct option *longopts)
{
	if (!c->words_done) {
		c->words_done = true;
		pprof_words(c, argc, argv, shortopts, longopts);
	}
	char spec[128];
	/* ':' first: a missing argument is told from an unknown option */
	if (snprintf(spec, sizeof(spec), ":%s", shortopts) >= (int)sizeof(spec))
		abort(); /* the tools' own strings are short */
	opterr = 0;
	int prev = optind;
	int opt = getopt_long(argc, argv, spec, longopts, NULL);
	if (opt == '?' || opt == ':') {
		/* the word getopt stopped at: optind moved past it, unless it
		 * is in the middle of a word of short options */
		const char *w = argv[optind > prev ? optind - 1 : prev];
		if (w[0] != '-' || w[1] != '-') {
			if (opt == '?')
				cli_usage_error(c, "invalid option -- '%c'", optopt);
			cli_usage_error(c, "option requires an argument -- '%c'", optopt);
		}
		const char *eq = strchr(w, '=');
		if (opt == ':')
			cli_usage_error(c, "option '%s' requires an argument", w);
		if (eq) {
			const struct option *lo = long_named(longopts, w + 2, (size_t)(eq - w - 2));
			if (lo && lo->has_arg == no_argument)
				cli_usage_error(c, "option '%.*s' takes no argument",
						(int)(eq - w), w);
		}
		size_t n = eq ? (size_t)(eq - w - 2) : strlen(w + 2), hits = 0;
		for (const struct option *lo = longopts; lo->name; lo++)
			hits += strncmp(lo->name, w + 2, n) == 0;
		if (hits > 1)
			cli_usage_error(c, "option '%.*s' is ambiguous", (int)(n + 2), w);
		cli_usage_error(c, "unrecognized option '%s'", w);
	}
	return opt;
}

bool cli_parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	if (*s == '-' || *s == '\0')
		return false;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s)
		return false;
	unsigned shift = 0;
	switch (*end) {
	case '\0':
		break;
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	default:
		return false;
	}
	if ((*end == 'b' || *end == 'B') && shift)
		end++;
	else if (*end == 'i' && shift && (end[1] == 'B' || end[1] == 'b'))
		end += 2;
	if (*end != '\0' || (shift && v > (UINT64_MAX >> shift)))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

int cli_option(struct cli *c, int opt, const char *arg)
{
	switch (opt) {
	case 'i':
		c->sample = arg;
		return 1;
	case 'g': {
		int g = pprof_granularity_parse(arg);
		if (g < 0)
			cli_usage_error(c, "unknown granularity '%s' (functions, filefunctions, lines, files, addresses)",
					arg);
		c->granularity = g;
		return 1;
	}
	case 'o':
		c->output = strcmp(arg, "-") == 0 ? NULL : arg;
		return 1;
	case 'm': {
		const char **m = realloc(c->maps, (c->nmaps + 1) * sizeof(*m));
		if (!m) {
			cli_error(c, "out of memory");
			exit(CLI_FAIL);
		}
		c->maps = m;
		c->maps[c->nmaps++] = arg;
		return 1;
	}
	case CLI_OPT_MAX_INPUT:
		if (!cli_parse_size(arg, &c->read.max_input) || c->read.max_input == 0)
			cli_usage_error(c, "bad --max-input size '%s'", arg);
		return 1;
	case CLI_OPT_QUIET:
		c->quiet = true;
		c->progress.quiet = true;
		return 1;
	case CLI_OPT_PROGRESS:
		c->progress.forced = true;
		return 1;
	case CLI_OPT_RULES:
		c->rules_path = arg;
		return 1;
	case CLI_OPT_HIDE_IGNORED:
		c->hide_ignored = true;
		return 1;
	case CLI_OPT_SOURCE_PATH:
		c->source_path = arg;
		return 1;
	case CLI_OPT_THREAD: {
		/* The regex is checked as --tagfocus checks its own. */
		struct pprof_filter *f = pprof_filter_new();
		char *v = malloc(strlen(arg) + sizeof("thread="));
		if (!f || !v) {
			cli_error(c, "out of memory");
			exit(CLI_FAIL);
		}
		strcpy(v, "thread=");
		strcat(v, arg);
		if (pprof_filter_add(f, PPROF_FILTER_TAGFOCUS, v) != PPROF_OK)
			cli_usage_error(c, "%s", pprof_filter_error(f));
		pprof_filter_free(f);
		free(v);
		c->read.trace_thread = arg;
		return 1;
	}
	case CLI_OPT_NO_FIX_SAMPLES:
		c->read.trace_keep_missing = 1;
		return 1;
	case CLI_OPT_SINCE:
		c->read.heap_since = arg;
		return 1;
	case CLI_OPT_UNTIL:
		c->read.heap_until = arg;
		return 1;
	case CLI_OPT_PATHS:
		if (strcmp(arg, "retainers") == 0)
			c->read.heap_retainers = 1;
		else if (strcmp(arg, "dominators") == 0)
			c->read.heap_retainers = 0;
		else
			cli_usage_error(c, "unknown --paths '%s' (dominators, retainers)", arg);
		return 1;
	case CLI_OPT_HELP:
		c->usage(stdout);
		exit(fflush(stdout) == 0 ? CLI_OK : CLI_FAIL);
	case CLI_OPT_VERSION:
		printf("%s (pprof-tools) %s\n", c->prog, PACKAGE_VERSION);
		exit(fflush(stdout) == 0 ? CLI_OK : CLI_FAIL);
	default:
		break;
	}
	if (opt >= CLI_OPT_GRANULARITY && opt < CLI_OPT_GRANULARITY_END) {
		c->granularity = opt - CLI_OPT_GRANULARITY;
		return 1;
	}
	if (opt >= CLI_OPT_FILTER && opt < CLI_OPT_FILTER_END) {
		/* Compiled now: a bad regex is a usage error before any input. */
		if (!c->filter && !(c->filter = pprof_filter_new())) {
			cli_error(c, "out of memory");
			exit(CLI_FAIL);
		}
		if (pprof_filter_add(c->filter, (enum pprof_filter_option)(opt - CLI_OPT_FILTER),
				     arg) != PPROF_OK)
			cli_usage_error(c, "%s", pprof_filter_error(c->filter));
		return 1;
	}
	return 0;
}

int cli_write_header(struct cli *c, FILE *out, const char *type, const char *unit)
{
	if (!type || !unit || !*type || !*unit || strpbrk(type, "\r\n") ||
	    strpbrk(unit, "/\r\n") || strlen(type) >= 128 || strlen(unit) >= 128) {
		cli_error(c, "--header: the sample type cannot be written on one line");
		return -1;
	}
	fprintf(out, "%s%s/%s\n", PPROF_FOLDED_HEADER, type, unit);
	return 0;
}

void cli_flush_warnings(struct cli *c, const struct pprof_profile *p)
{
	if (c->warned_for != p) {
		c->warned_for = p;
		c->warned = 0;
	}
	size_t n = pprof_profile_warning_count(p);
	for (; c->warned < n; c->warned++)
		cli_warn(c, "%s", pprof_profile_warning(p, c->warned));
}

/* Loads --rules once, and hands its defaults and renames to the filter. */
static bool load_rules(struct cli *c)
{
	if (!c->rules_path || c->rules)
		return true;
	if (!(c->rules = pprof_rules_new()) || (!c->filter && !(c->filter = pprof_filter_new()))) {
		cli_error(c, "out of memory");
		return false;
	}
	if (pprof_rules_read_file(c->rules, c->rules_path) != PPROF_OK) {
		cli_error(c, "%s: %s", c->rules_path, pprof_rules_error(c->rules));
		return false;
	}
	if (pprof_filter_use_rules(c->filter, c->rules) != PPROF_OK) {
		cli_error(c, "%s: %s", c->rules_path, pprof_filter_error(c->filter));
		return false;
	}
	return true;
}

struct pprof_profile *cli_load(struct cli *c, char **files, int n)
{
	if (c->read.heap_until && !c->read.heap_since)
		cli_usage_error(c, "--until needs --since (the baseline)");
	if (!load_rules(c))
		return NULL;
	struct pprof_profile *p = pprof_profile_new();
	if (!p) {
		cli_error(c, "out of memory");
		return NULL;
	}
	/* the -m map files load on a thread of their own while the profile
	 * is read */
	struct pprof_symbolicate_options so = {c->maps,
					       c->nmaps,
					       c->hide_ignored,
					       c->rules,
					       c->lines_out || c->granularity == PPROF_G_LINES,
					       c->source_path,
					       NULL};
	so.prefetch = c->nmaps ? pprof_sourcemaps_start(&so) : NULL;
	char *stdin_name[] = {"-"};
	if (n == 0) {
		files = stdin_name;
		n = 1;
	}
	/* Lines no one prints: one input (none brings source maps of its
	 * own), names not mapped, renamed or filtered, a granularity that
	 * prints no line. */
	c->read.skip_lines = c->folded_out && n == 1 && !c->nmaps && !c->hide_ignored &&
			     !c->rules && !c->filter && !c->lines_out &&
			     (c->granularity == PPROF_G_FUNCTIONS ||
			      c->granularity == PPROF_G_FILEFUNCTIONS ||
			      c->granularity == PPROF_G_FILES);
	for (int i = 0; i < n; i++) {
		const char *path = files[i];
		const char *shown = strcmp(path, "-") == 0 ? "<stdin>" : path;
		cli_progress_begin(&c->progress, "reading", shown);
		int read_status = pprof_read_file(p, path, cli_read_options(c, path));
		cli_progress_end(&c->progress);
		if (read_status != PPROF_OK) {
			cli_error(c, "%s: %s", shown, pprof_profile_error(p));
			pprof_sourcemaps_free(so.prefetch);
			pprof_profile_free(p);
			return NULL;
		}
	}
	if ((c->read.heap_since || c->read.heap_retainers) &&
	    pprof_profile_format(p) != PPROF_FMT_HEAPSNAPSHOT)
		cli_warn(c, "--since, --until and --paths apply to heap snapshots only");
	/* The transforms, in DESIGN.md's order: symbolicate first. */
	size_t nassoc = 0;
	if (c->rules)
		pprof_rules_sourcemaps(c->rules, &nassoc);
	if (c->nmaps || c->hide_ignored || nassoc || pprof_profile_has_sourcemaps(p)) {
		if (pprof_symbolicate(p, &so) != PPROF_OK) {
			cli_error(c, "%s", pprof_profile_error(p));
			pprof_sourcemaps_free(so.prefetch);
			pprof_profile_free(p);
			return NULL;
		}
	}
	pprof_sourcemaps_free(so.prefetch);
	/* Then the rules' renames and the filters, on symbolicated names. */
	pprof_filter_report_free(c->report);
	c->report = NULL;
	if (c->filter && pprof_filter_apply(c->filter, p, &c->report) != PPROF_OK) {
		cli_error(c, "%s", pprof_profile_error(p));
		pprof_profile_free(p);
		return NULL;
	}
	cli_flush_warnings(c, p);
	cli_loaded(c, p, strcmp(files[0], "-") == 0 ? "<stdin>" : files[0]);
	return p;
}

void cli_loaded(struct cli *c, const struct pprof_profile *p, const char *name)
{
	c->loaded = p;
	c->loaded_name = name;
}

int cli_sample_index(struct cli *c, struct pprof_profile *p)
{
	int i = pprof_sample_type_select(p, c->sample);
	if (i >= 0)
		return i;
	/* What the profile lacks, every input lacks (their types match):
	 * the first one is named. */
	if (p == c->loaded && c->loaded_name)
		cli_error(c, "%s: %s", c->loaded_name, pprof_profile_error(p));
	else
		cli_error(c, "%s", pprof_profile_error(p));
	return i;
}

static FILE *open_output(struct cli *c)
{
	if (!c->output) {
		c->out = stdout;
		return stdout;
	}
	/* A device or a pipe (-o /dev/null, /dev/full, a FIFO) is written in
	 * place: renaming a temporary file over it would replace it. */
	struct stat st;
	if (stat(c->output, &st) == 0 && !S_ISREG(st.st_mode)) {
		c->out = fopen(c->output, "w");
		if (!c->out)
			cli_error(c, "%s: %s", c->output, strerror(errno));
		return c->out;
	}
	size_t n = strlen(c->output);
	c->tmppath = malloc(n + 16);
	if (!c->tmppath) {
		cli_error(c, "out of memory");
		return NULL;
	}
	/* The temporary file sits beside the target so rename() is atomic. */
	snprintf(c->tmppath, n + 16, "%s.tmpXXXXXX", c->output);
	int fd = mkstemp(c->tmppath);
	if (fd < 0) {
		cli_error(c, "%s: %s", c->output, strerror(errno));
		free(c->tmppath);
		c->tmppath = NULL;
		return NULL;
	}
	/* mkstemp makes the file 0600; give it the mode a new file would get. */
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	c->out = fdopen(fd, "w");
	if (!c->out) {
		cli_error(c, "%s: %s", c->output, strerror(errno));
		close(fd);
		unlink(c->tmppath);
		return NULL;
	}
	return c->out;
}

/* The output, through a counting stream when a progress line may be shown. */
FILE *cli_open_output(struct cli *c)
{
	FILE *out = open_output(c);
	if (!out)
		return NULL;
	FILE *w = cli_progress_wrap(&c->progress, out, c->output ? c->output : "<stdout>");
	if (!w) {
		cli_error(c, "out of memory");
		cli_abort(c);
		return NULL;
	}
	c->out = w;
	return w;
}

/* Closes the counting stream, if any, and puts the real output back. */
static int unwrap_output(struct cli *c)
{
	if (!c->out || !c->progress.inner)
		return 0;
	FILE *inner = c->progress.inner;
	int r = cli_progress_close(&c->progress, c->out);
	c->out = inner;
	return r;
}

int cli_commit(struct cli *c)
{
	const char *name = c->output ? c->output : "<stdout>";
	if (!c->out)
		return CLI_FAIL;
	int wrap_bad = unwrap_output(c) != 0;
	int bad = ferror(c->out) || wrap_bad;
	int e = errno;
	if (fflush(c->out) != 0) {
		bad = 1;
		e = errno;
	}
	if (c->out != stdout) {
		if (fclose(c->out) != 0 && !bad) {
			bad = 1;
			e = errno;
		}
	}
	c->out = NULL;
	if (bad) {
		cli_error(c, "%s: write error: %s", name, strerror(e));
		if (c->tmppath)
			unlink(c->tmppath);
		return CLI_FAIL;
	}
	if (c->tmppath && rename(c->tmppath, c->output) != 0) {
		cli_error(c, "%s: %s", c->output, strerror(errno));
		unlink(c->tmppath);
		return CLI_FAIL;
	}
	return CLI_OK;
}

void cli_abort(struct cli *c)
{
	unwrap_output(c);
	if (c->out && c->out != stdout)
		fclose(c->out);
	c->out = NULL;
	if (c->tmppath)
		unlink(c->tmppath);
}
