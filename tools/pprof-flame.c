/* pprof-flame: any profile, folded or 3-column input to one SVG flame graph. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static void usage(FILE *out)
{
	fputs("usage: pprof-flame [-i sample] [-g granularity] [-m map] [-o file]\n"
	      "                   [--title text] [--subtitle text] [--width num]\n"
	      "                   [--height num] [--minwidth num[%]] [--fonttype font]\n"
	      "                   [--fontsize num] [--fontwidth num] [--countname text]\n"
	      "                   [--nametype text] [--colors palette] [--bgcolors color]\n"
	      "                   [--hash] [--random] [--cp] [--reverse] [--inverted]\n"
	      "                   [--flamechart] [--negate] [--factor num] [--total num]\n"
	      "                   [--notes text] [--sort-by-width] [--merge-small]\n"
	      "                   [--delta inclusive|leaf] [--diff-width after|before|max]\n"
	      "                   [--focus regex] [--ignore regex] [--hide regex]\n"
	      "                   [--show regex] [--rules file] [--hide-ignored]\n"
	      "                   [--count-unit unit] [--diff before after] [--progress]\n"
	      "                   [--max-input size] [--quiet] [file ...]\n"
	      "\n"
	      "Writes an SVG flame graph of a pprof, .cpuprofile or .heapprofile file, or\n"
	      "of folded stacks (\"stack COUNT\", or \"stack BEFORE AFTER\" for a\n"
	      "differential graph), with flamegraph.pl's options and geometry; with\n"
	      "--diff, the differential graph of two profiles.\n"
	      "\n"
	      "  -i, --sample-index=NAME|N  value to draw (default: the profile's default)\n"
	      "  -g, --granularity=G        functions, filefunctions, lines, files, addresses\n"
	      "  -m, --sourcemap=PATH       source map file or directory (repeatable)\n"
	      "      --source-path=DIR      original sources, where a map has no sourcesContent\n"
	      "  -o, --output=FILE          write FILE atomically instead of standard output\n"
	      "      --title, --subtitle    headings\n"
	      "      --width, --height      image width (1200), frame height (16)\n"
	      "      --minwidth=N[%]        leave out frames narrower (0.1 pixels)\n"
	      "      --fonttype, --fontsize, --fontwidth   (Verdana, 12, 0.59)\n"
	      "      --countname, --nametype               (samples, Function:)\n"
	      "      --count-unit=UNIT      unit of folded counts: ns, ms, s, bytes, samples...\n"
	      "      --colors=PALETTE       hot mem io wakeup java js perl red green blue\n"
	      "                             aqua yellow purple orange ts\n"
	      "      --bgcolors=COLOR       yellow blue green grey or #rrggbb\n"
	      "      --hash, --random       colour by name hash, or at random\n"
	      "      --cp                   consistent colours kept in ./palette.map\n"
	      "      --reverse, --inverted  stacks leaf first; icicle graph\n"
	      "      --flamechart           input order (a .cpuprofile: time order)\n"
	      "      --negate, --factor=N, --total=N, --notes=TEXT\n"
	      "      --sort-by-width        callees widest first\n"
	      "      --merge-small          callees below minwidth as one (other) frame\n"
	      "      --delta=inclusive|leaf differential colour by the total (default) or,\n"
	      "                             as flamegraph.pl, by the leaf\n"
	      "      --diff                 BEFORE AFTER: draw their differential graph\n"
	      "      --diff-width=after|before|max        width of differential frames\n"
	      CLI_FILTER_HELP
	      "      --hide-ignored         drop frames on a source map's ignore list\n"
	      "      --progress             show the progress line even when not a terminal\n"
	      "      --max-input=SIZE       largest inflated input (default 4g)\n"
	      "      --quiet                no warnings\n"
	      "      --help, --version\n",
	      out);
}

enum {
	OPT_TITLE = CLI_OPT_FIRST_TOOL,
	OPT_SUBTITLE,
	OPT_WIDTH,
	OPT_HEIGHT,
	OPT_MINWIDTH,
	OPT_FONTTYPE,
	OPT_FONTSIZE,
	OPT_FONTWIDTH,
	OPT_COUNTNAME,
	OPT_NAMETYPE,
	OPT_COLORS,
	OPT_BGCOLORS,
	OPT_HASH,
	OPT_RANDOM,
	OPT_CP,
	OPT_REVERSE,
	OPT_INVERTED,
	OPT_FLAMECHART,
	OPT_NEGATE,
	OPT_FACTOR,
	OPT_TOTAL,
	OPT_NOTES,
	OPT_SORT_WIDTH,
	OPT_MERGE_SMALL,
	OPT_DELTA,
	OPT_DIFF_WIDTH,
	OPT_COUNT_UNIT,
	OPT_DIFF,
};

static double number(struct cli *c, const char *opt, const char *arg, bool integer)
{
	char *end;
	errno = 0;
	double d = strtod(arg, &end);
	if (end == arg || *end || errno || !(d >= 0) || d > 1e12 ||
	    (integer && d != (double)(long long)d))
		cli_usage_error(c, "--%s: invalid number '%s'", opt, arg);
	return d;
}

/* Reads ./palette.map when it exists. */
static int read_palette(struct cli *c, struct pprof_flame *f)
{
	FILE *in = fopen("palette.map", "rb");
	if (!in)
		return errno == ENOENT ? 0 : (cli_error(c, "palette.map: %s", strerror(errno)), -1);
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 65536;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(in);
				cli_error(c, "out of memory");
				return -1;
			}
			buf = nb;
		}
		size_t n = fread(buf + len, 1, cap - len, in);
		if (n == 0)
			break;
		len += n;
	}
	bool bad = ferror(in);
	fclose(in);
	if (bad) {
		free(buf);
		cli_error(c, "palette.map: read error");
		return -1;
	}
	int s = pprof_flame_palette_read(f, buf, len);
	free(buf);
	if (s != PPROF_OK) {
		cli_error(c, "palette.map: %s", pprof_flame_error(f));
		return -1;
	}
	return 0;
}

/* Writes ./palette.map back, through a temporary file renamed into place. */
static int write_palette(struct cli *c, struct pprof_flame *f)
{
	char tmp[] = "palette.map.tmpXXXXXX";
	int fd = mkstemp(tmp);
	if (fd < 0) {
		cli_error(c, "palette.map: %s", strerror(errno));
		return -1;
	}
	FILE *out = fdopen(fd, "w");
	if (!out) {
		close(fd);
		unlink(tmp);
		cli_error(c, "palette.map: %s", strerror(errno));
		return -1;
	}
	int s = pprof_flame_palette_write(f, out);
	if (fclose(out) != 0 || s != PPROF_OK || rename(tmp, "palette.map") != 0) {
		cli_error(c, "palette.map: %s", strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* The index of the sample type TYPE/UNIT in P, or -1. */
static int type_index(const struct pprof_profile *p, const char *type, const char *unit)
{
	for (size_t i = 0; i < pprof_sample_type_count(p); i++)
		if (strcmp(pprof_sample_type_name(p, i), type) == 0 &&
		    strcmp(pprof_sample_type_unit(p, i), unit) == 0)
			return (int)i;
	return -1;
}

/* Whether input Q (named NAME) has FIRST's sample types, in any order,
 * as pprof-fold's merge wants them; else the error it gives. */
static bool same_types(struct cli *c, const struct pprof_profile *first,
		       const struct pprof_profile *q, const char *name)
{
	size_t n = pprof_sample_type_count(q);
	if (n != pprof_sample_type_count(first)) {
		cli_error(c, "%s: incompatible sample types", name);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		const char *t = pprof_sample_type_name(q, i), *u = pprof_sample_type_unit(q, i);
		if (type_index(first, t, u) < 0) {
			cli_error(c, "%s: incompatible sample types: %s/%s is not in the first input",
				  name, t, u);
			return false;
		}
	}
	return true;
}

/* The name of an input for the subtitle: its last path component. */
static const char *base_name(const char *path)
{
	if (strcmp(path, "-") == 0)
		return "<stdin>";
	const char *b = strrchr(path, '/');
	return b && b[1] ? b + 1 : path;
}

/* --diff: the differential lines of BEFORE and AFTER (as pprof-diff writes
 * them) added to F; their sample type and unit in *TYPE and *UNIT
 * (malloc'd, NULL when folded text has none).  -1 on failure (said). */
static int add_diff(struct cli *c, char **paths, struct pprof_flame *f, char **type, char **unit)
{
	struct pprof_profile *p[2] = {NULL, NULL};
	struct pprof_folded *fd[2] = {NULL, NULL};
	const char *t[2] = {NULL, NULL}, *u[2] = {NULL, NULL};
	struct pprof_diff *d = NULL;
	char *text = NULL;
	size_t len = 0;
	int r = -1;
	for (int i = 0; i < 2; i++) {
		const char *shown = strcmp(paths[i], "-") == 0 ? "<stdin>" : paths[i];
		p[i] = cli_load(c, paths + i, 1);
		if (!p[i])
			goto out;
		struct pprof_fold_options fo = {0};
		fo.granularity = (enum pprof_granularity)c->granularity;
		fo.sample_index = cli_sample_index(c, p[i]);
		if (fo.sample_index < 0)
			goto out;
		if (pprof_profile_format(p[i]) != PPROF_FMT_FOLDED) {
			t[i] = pprof_sample_type_name(p[i], (size_t)fo.sample_index);
			u[i] = pprof_sample_type_unit(p[i], (size_t)fo.sample_index);
		}
		if (pprof_fold(p[i], &fo, &fd[i]) != PPROF_OK) {
			cli_error(c, "%s: %s", shown, pprof_profile_error(p[i]));
			goto out;
		}
		cli_flush_warnings(c, p[i]);
	}
	/* Folded text has no unit: it takes the other side's. */
	for (int i = 0; i < 2; i++) {
		if (!u[i]) {
			t[i] = t[1 - i];
			u[i] = u[1 - i];
		}
	}
	if (u[0] && u[1] && strcasecmp(u[0], u[1]) != 0) {
		cli_error(c, "incompatible sample types: %s/%s (%s) and %s/%s (%s)", t[0], u[0],
			  paths[0], t[1], u[1], paths[1]);
		goto out;
	}
	struct pprof_diff_options dopt = {0};
	if (pprof_diff_folded(p[1], fd[0], fd[1], &dopt, &d) != PPROF_OK) {
		cli_error(c, "%s", pprof_profile_error(p[1]));
		goto out;
	}
	FILE *m = open_memstream(&text, &len);
	if (!m || pprof_diff_write(d, m) != PPROF_OK || fclose(m) != 0) {
		cli_error(c, "out of memory");
		goto out;
	}
	if (pprof_flame_add_text(f, text, len) != PPROF_OK) {
		cli_error(c, "%s", pprof_flame_error(f));
		goto out;
	}
	*type = t[0] ? strdup(t[0]) : NULL;
	*unit = u[0] ? strdup(u[0]) : NULL;
	if ((t[0] && !*type) || (u[0] && !*unit)) {
		cli_error(c, "out of memory");
		goto out;
	}
	r = 0;
out:
	free(text);
	pprof_diff_free(d);
	for (int i = 0; i < 2; i++) {
		pprof_folded_free(fd[i]);
		pprof_profile_free(p[i]);
	}
	return r;
}


/* The title of the chart of thread K of T[0 .. N): BASE: NAME, with its
 * process id when another thread has its name, and its thread id too when
 * that one is also of its process (malloc'd). */
static char *thread_title(const char *base, const struct pprof_flame_thread *t, size_t n,
			  size_t k)
{
	bool same_name = false, same_pid = false;
	for (size_t j = 0; j < n; j++) {
		if (j == k || strcmp(t[j].name, t[k].name) != 0)
			continue;
		same_name = true;
		same_pid |= t[j].pid == t[k].pid;
	}
	char *title = malloc(strlen(base) + strlen(t[k].name) + 64);
	if (!title)
		return NULL;
	if (!*t[k].name || same_pid)
		sprintf(title, "%s: %s%s(pid %lld, tid %lld)", base, t[k].name, *t[k].name ? " " : "",
			(long long)t[k].pid, (long long)t[k].tid);
	else if (same_name)
		sprintf(title, "%s: %s (pid %lld)", base, t[k].name, (long long)t[k].pid);
	else
		sprintf(title, "%s: %s", base, t[k].name);
	return title;
}

/* --flamechart of a Chrome trace with several threads: one chart per
 * thread (a process id and a thread id), in the order of T, each read
 * again with that thread alone (pprof_read_options.trace_pick), titled
 * with its name, stacked top to bottom.  FO's other fields as set. */
static int thread_charts(struct cli *c, const char *path, const struct pprof_flame_thread *t,
			 size_t nn, const struct pprof_flame_options *fo0, bool countname_set,
			 FILE **outp)
{
	char **svg = calloc(nn, sizeof(*svg));
	size_t *len = calloc(nn, sizeof(*len));
	int r = -1;
	if (!svg || !len) {
		cli_error(c, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < nn; k++) {
		char *title = thread_title(fo0->title ? fo0->title : "Flame Chart", t, nn, k);
		if (!title) {
			cli_error(c, "out of memory");
			goto out;
		}
		/* The first read of every thread said its warnings. */
		bool quiet = c->quiet;
		c->read.trace_pick = 1;
		c->read.trace_pid = t[k].pid;
		c->read.trace_tid = t[k].tid;
		c->quiet = true;
		char *files[] = {(char *)path};
		struct pprof_profile *p = cli_load(c, files, 1);
		c->read.trace_pick = 0;
		c->quiet = quiet;
		struct pprof_flame *f = p ? pprof_flame_new() : NULL;
		struct pprof_flame_options fo = *fo0;
		fo.title = title;
		struct pprof_fold_options fold = {0};
		fold.granularity = (enum pprof_granularity)c->granularity;
		fold.sample_index = p ? cli_sample_index(c, p) : -1;
		int ok = f && fold.sample_index >= 0;
		if (p && !f)
			cli_error(c, "out of memory");
		if (ok && pprof_flame_add_profile(f, p, &fold, PPROF_FLAME_TIMELINE) != PPROF_OK) {
			cli_error(c, "%s: %s", path, pprof_flame_error(f));
			ok = 0;
		}
		if (ok) {
			const char *u = pprof_sample_type_unit(p, (size_t)fold.sample_index);
			fo.sample_type = pprof_sample_type_name(p, (size_t)fold.sample_index);
			fo.duration = (double)pprof_profile_duration_nanos(p);
			if (u && *u && strcmp(u, "count") != 0) {
				fo.unit = u;
				if (!countname_set)
					fo.countname = u;
			}
			FILE *m = open_memstream(&svg[k], &len[k]);
			int w = m ? pprof_flame_write_svg(f, &fo, m) : PPROF_ENOMEM;
			if (m && fclose(m) != 0 && w == PPROF_OK)
				w = PPROF_ENOMEM;
			if (w != PPROF_OK) {
				cli_error(c, "%s: %s", path, m ? pprof_flame_error(f) : "out of memory");
				ok = 0;
			}
		}
		free(title);
		pprof_flame_free(f);
		pprof_profile_free(p);
		if (!ok)
			goto out;
	}
	FILE *out = cli_open_output(c);
	if (!out)
		goto out;
	*outp = out;
	if (pprof_flame_stack_svgs((const char *const *)svg, len, nn, out) != PPROF_OK) {
		cli_error(c, "%s: %s", c->output ? c->output : "<stdout>", strerror(errno));
		cli_abort(c);
		goto out;
	}
	r = 0;
out:
	for (size_t k = 0; svg && k < nn; k++)
		free(svg[k]);
	free(svg);
	free(len);
	return r;
}

int main(int argc, char **argv)
{
	cli_huge_pages(argv);
	struct cli c;
	cli_init(&c, "pprof-flame", usage);
	static const struct option longopts[] = {
		CLI_LONGOPTS,
		{"title", required_argument, NULL, OPT_TITLE},
		{"subtitle", required_argument, NULL, OPT_SUBTITLE},
		{"width", required_argument, NULL, OPT_WIDTH},
		{"height", required_argument, NULL, OPT_HEIGHT},
		{"minwidth", required_argument, NULL, OPT_MINWIDTH},
		{"fonttype", required_argument, NULL, OPT_FONTTYPE},
		{"fontsize", required_argument, NULL, OPT_FONTSIZE},
		{"fontwidth", required_argument, NULL, OPT_FONTWIDTH},
		{"countname", required_argument, NULL, OPT_COUNTNAME},
		{"nametype", required_argument, NULL, OPT_NAMETYPE},
		{"colors", required_argument, NULL, OPT_COLORS},
		{"bgcolors", required_argument, NULL, OPT_BGCOLORS},
		{"hash", no_argument, NULL, OPT_HASH},
		{"random", no_argument, NULL, OPT_RANDOM},
		{"cp", no_argument, NULL, OPT_CP},
		{"reverse", no_argument, NULL, OPT_REVERSE},
		{"inverted", no_argument, NULL, OPT_INVERTED},
		{"flamechart", no_argument, NULL, OPT_FLAMECHART},
		{"negate", no_argument, NULL, OPT_NEGATE},
		{"factor", required_argument, NULL, OPT_FACTOR},
		{"total", required_argument, NULL, OPT_TOTAL},
		{"notes", required_argument, NULL, OPT_NOTES},
		{"sort-by-width", no_argument, NULL, OPT_SORT_WIDTH},
		{"merge-small", no_argument, NULL, OPT_MERGE_SMALL},
		{"delta", required_argument, NULL, OPT_DELTA},
		{"diff-width", required_argument, NULL, OPT_DIFF_WIDTH},
		{"count-unit", required_argument, NULL, OPT_COUNT_UNIT},
		{"diff", no_argument, NULL, OPT_DIFF},
		{NULL, 0, NULL, 0},
	};
	struct pprof_flame_options fo;
	pprof_flame_options_init(&fo);
	bool countname_set = false, diffmode = false;
	const char *count_unit = NULL;
	/* Differential colours and titles by the frame's total. */
	fo.flags |= PPROF_FLAME_INCLUSIVE_DELTA;
	int opt;
	while ((opt = cli_getopt(&c, argc, argv, CLI_SHORTOPTS, longopts)) != -1) {
		switch (opt) {
		case OPT_TITLE: fo.title = optarg; break;
		case OPT_SUBTITLE: fo.subtitle = optarg; break;
		case OPT_WIDTH: fo.width = number(&c, "width", optarg, true); break;
		case OPT_HEIGHT: fo.frameheight = number(&c, "height", optarg, true); break;
		case OPT_MINWIDTH: {
			/* flamegraph.pl: digits and dots, "%" for a share of the total. */
			size_t n = strlen(optarg);
			char buf[64];
			if (n == 0 || n >= sizeof(buf) || strspn(optarg, "0123456789.%") != n ||
			    strchr(optarg, '%') != (optarg[n - 1] == '%' ? optarg + n - 1 : NULL))
				cli_usage_error(&c, "--minwidth: invalid value '%s'", optarg);
			memcpy(buf, optarg, n + 1);
			fo.minwidth_percent = buf[n - 1] == '%';
			if (fo.minwidth_percent)
				buf[n - 1] = '\0';
			fo.minwidth = number(&c, "minwidth", buf, false);
			break;
		}
		case OPT_FONTTYPE:
			if (!pprof_flame_fonttype_ok(optarg))
				cli_usage_error(&c, "--fonttype: letters, digits, spaces and ,'\"._- only");
			fo.fonttype = optarg;
			break;
		case OPT_FONTSIZE: fo.fontsize = number(&c, "fontsize", optarg, false); break;
		case OPT_FONTWIDTH: fo.fontwidth = number(&c, "fontwidth", optarg, false); break;
		case OPT_COUNTNAME:
			fo.countname = optarg;
			countname_set = true;
			fo.flags |= PPROF_FLAME_COUNTS;
			break;
		case OPT_NAMETYPE: fo.nametype = optarg; break;
		case OPT_COLORS: {
			int pal = pprof_flame_palette_parse(optarg);
			if (pal < 0)
				cli_usage_error(&c, "--colors: unknown palette '%s'", optarg);
			fo.palette = (enum pprof_flame_palette)pal;
			break;
		}
		case OPT_BGCOLORS:
			if (!pprof_flame_bgcolors_ok(optarg))
				cli_usage_error(&c, "--bgcolors: unknown color '%s'", optarg);
			fo.bgcolors = optarg;
			break;
		case OPT_HASH: fo.flags |= PPROF_FLAME_HASH; break;
		case OPT_RANDOM: fo.flags |= PPROF_FLAME_RANDOM; break;
		case OPT_CP: fo.flags |= PPROF_FLAME_CONSISTENT; break;
		case OPT_REVERSE: fo.flags |= PPROF_FLAME_REVERSE; break;
		case OPT_INVERTED: fo.flags |= PPROF_FLAME_INVERTED; break;
		case OPT_FLAMECHART: fo.flags |= PPROF_FLAME_FLAMECHART; break;
		case OPT_NEGATE: fo.flags |= PPROF_FLAME_NEGATE; break;
		case OPT_FACTOR: {
			char *end;
			fo.factor = strtod(optarg, &end);
			if (end == optarg || *end || !(fo.factor == fo.factor))
				cli_usage_error(&c, "--factor: invalid number '%s'", optarg);
			fo.flags |= PPROF_FLAME_COUNTS;
			break;
		}
		case OPT_COUNT_UNIT:
			if (!*optarg || strlen(optarg) > 30 || strpbrk(optarg, " \t\r\n"))
				cli_usage_error(&c, "--count-unit: invalid unit '%s'", optarg);
			count_unit = optarg;
			break;
		case OPT_DIFF: diffmode = true; break;
		case OPT_TOTAL: fo.total = number(&c, "total", optarg, false); break;
		case OPT_NOTES: fo.notes = optarg; break;
		case OPT_SORT_WIDTH: fo.flags |= PPROF_FLAME_SORT_WIDTH; break;
		case OPT_MERGE_SMALL: fo.flags |= PPROF_FLAME_MERGE_SMALL; break;
		case OPT_DELTA:
			if (strcmp(optarg, "leaf") == 0)
				fo.flags &= ~(unsigned)PPROF_FLAME_INCLUSIVE_DELTA;
			else if (strcmp(optarg, "inclusive") == 0)
				fo.flags |= PPROF_FLAME_INCLUSIVE_DELTA;
			else
				cli_usage_error(&c, "--delta: leaf or inclusive, not '%s'", optarg);
			break;
		case OPT_DIFF_WIDTH:
			if (strcmp(optarg, "after") == 0)
				fo.diff_width = PPROF_FLAME_DIFF_AFTER;
			else if (strcmp(optarg, "before") == 0)
				fo.diff_width = PPROF_FLAME_DIFF_BEFORE;
			else if (strcmp(optarg, "max") == 0)
				fo.diff_width = PPROF_FLAME_DIFF_MAX;
			else
				cli_usage_error(&c, "--diff-width: after, before or max, not '%s'", optarg);
			break;
		default:
			if (!cli_option(&c, opt, optarg))
				cli_usage_error(&c, "unknown option");
		}
	}
	if (diffmode && argc - optind != 2)
		cli_usage_error(&c, "--diff: two inputs needed, before and after");
	if (diffmode && strcmp(argv[optind], "-") == 0 && strcmp(argv[optind + 1], "-") == 0)
		cli_usage_error(&c, "only one input can be standard input");
	/* Several inputs: each one's lines go into the graph, where equal
	 * stacks add up as they do in one profile, and as flamegraph.pl adds
	 * up the lines of the inputs' concatenation (fractions kept).  Their
	 * sample types must match as pprof-fold's merge wants them to;
	 * messages about the graph name the first input. */
	if (fo.flags & PPROF_FLAME_FLAMECHART)
		c.read.skip_sequence = 0;
	int nin = argc - optind;
	char *stdin_name[] = {"-"};
	char **inputs = nin > 0 ? argv + optind : stdin_name;
	if (nin == 0)
		nin = 1;
	const char *shown = strcmp(inputs[0], "-") == 0 ? "<stdin>" : inputs[0];

	int status = CLI_FAIL;
	struct pprof_profile *p = NULL;
	struct pprof_profile **ps = calloc((size_t)nin, sizeof(*ps));
	struct pprof_flame *f = pprof_flame_new();
	char *countname = NULL, *dtype = NULL, *dunit = NULL, *source = NULL;
	if (!ps || !f) {
		cli_error(&c, "out of memory");
		goto out;
	}
	/* Lines or stacks left out: a warning once the graph is drawn, part of
	 * the one error line when nothing was left to draw. */
	size_t ignored = 0, negative = 0;
	const char *type = NULL, *unit = NULL;
	if (diffmode) {
		if (add_diff(&c, argv + optind, f, &dtype, &dunit) != 0)
			goto out;
		type = dtype;
		unit = dunit;
		ignored = pprof_flame_ignored_lines(f);
		const char *b = base_name(argv[optind]), *a = base_name(argv[optind + 1]);
		source = malloc(strlen(b) + strlen(a) + 8);
		if (!source) {
			cli_error(&c, "out of memory");
			goto out;
		}
		sprintf(source, "%s \xe2\x86\x92 %s", b, a);
		shown = argv[optind + 1];
	} else {
		/* Folded text is read as flamegraph.pl reads it (fractions kept, a
		 * differential column), with or without transforms. */
		c.read.folded_flamegraph = 1;
		for (int k = 0; k < nin; k++) {
			ps[k] = cli_load(&c, inputs + k, 1);
			if (!ps[k])
				goto out;
			const char *name = strcmp(inputs[k], "-") == 0 ? "<stdin>" : inputs[k];
			if (k > 0 && !same_types(&c, ps[0], ps[k], name))
				goto out;
		}
		p = ps[0];
		cli_loaded(&c, p, shown);
		/* A flame chart of a trace of several threads: one per thread. */
		if ((fo.flags & PPROF_FLAME_FLAMECHART) && nin == 1 && strcmp(inputs[0], "-") != 0 &&
		    pprof_profile_format(p) == PPROF_FMT_TRACE) {
			struct pprof_flame_thread *threads = NULL;
			size_t nn = 0;
			if (pprof_flame_threads(p, &threads, &nn) != PPROF_OK) {
				cli_error(&c, "out of memory");
				goto out;
			}
			if (nn > 1) {
				FILE *sout = NULL;
				fo.source = base_name(inputs[0]);
				int r = thread_charts(&c, inputs[0], threads, nn, &fo, countname_set, &sout);
				pprof_flame_threads_free(threads, nn);
				if (r == 0)
					status = cli_commit(&c);
				goto out;
			}
			pprof_flame_threads_free(threads, nn);
		}
		bool folded = pprof_profile_format(p) == PPROF_FMT_FOLDED;
		struct pprof_fold_options fold = {0};
		fold.granularity = (enum pprof_granularity)c.granularity;
		fold.sample_index = cli_sample_index(&c, p);
		if (fold.sample_index < 0)
			goto out;
		const char *t = pprof_sample_type_name(p, (size_t)fold.sample_index);
		const char *u = pprof_sample_type_unit(p, (size_t)fold.sample_index);
		double duration = 0;
		size_t srclen = 1;
		for (int k = 0; k < nin; k++) {
			const char *name = strcmp(inputs[k], "-") == 0 ? "<stdin>" : inputs[k];
			struct pprof_fold_options fk = fold;
			fk.sample_index = type_index(ps[k], t, u);
			unsigned flags = 0;
			if ((fo.flags & PPROF_FLAME_FLAMECHART) && pprof_flame_has_timeline(ps[k]))
				flags |= PPROF_FLAME_TIMELINE;
			if (pprof_flame_add_profile(f, ps[k], &fk, flags) != PPROF_OK) {
				cli_error(&c, "%s: %s", name, pprof_flame_error(f));
				goto out;
			}
			cli_flush_warnings(&c, ps[k]);
			duration += (double)pprof_profile_duration_nanos(ps[k]);
			srclen += strlen(base_name(inputs[k])) + 3;
		}
		if (folded)
			ignored = pprof_flame_ignored_lines(f);
		else
			negative = pprof_flame_ignored_lines(f);
		/* Folded text has a sample type when its header gives one:
		 * a unit other than "count" (a differential file: the unit). */
		if (!folded || (u && strcmp(u, "count") != 0)) {
			type = folded && pprof_sample_type_count(p) != 1 ? NULL : t;
			unit = u;
			fo.duration = duration;
		}
		if (folded && count_unit)
			unit = count_unit;
		/* The subtitle names the inputs: "a.pb.gz + b.pb.gz". */
		source = malloc(srclen);
		if (!source) {
			cli_error(&c, "out of memory");
			goto out;
		}
		source[0] = '\0';
		for (int k = 0; k < nin; k++) {
			if (k)
				strcat(source, " + ");
			strcat(source, base_name(inputs[k]));
		}
	}
	if (!unit || !*unit)
		unit = count_unit;
	/* Counts named by the sample type's unit: "bytes", "nanoseconds"; time
	 * and memory are shown in human units by the library. */
	if (unit && *unit && strcmp(unit, "count") != 0) {
		fo.unit = unit;
		if (!countname_set) {
			countname = strdup(unit);
			if (!countname) {
				cli_error(&c, "out of memory");
				goto out;
			}
			fo.countname = countname;
		}
	}
	fo.sample_type = type;
	fo.source = source;
	if ((fo.flags & PPROF_FLAME_CONSISTENT) && read_palette(&c, f) != 0)
		goto out;
	FILE *out = cli_open_output(&c);
	if (!out)
		goto out;
	int w = pprof_flame_write_svg(f, &fo, out);
	if (w != PPROF_OK) {
		/* A write error names the output; nothing to draw, the input. */
		if (w == PPROF_EIO)
			cli_error(&c, "%s: %s", c.output ? c.output : "<stdout>",
				  pprof_flame_error(f));
		else if (ignored)
			cli_error(&c, "%s: %s (%zu line%s with invalid format ignored)", shown,
				  pprof_flame_error(f), ignored, ignored == 1 ? "" : "s");
		else if (negative)
			cli_error(&c, "%s: %s (%zu stack%s with negative values left out)", shown,
				  pprof_flame_error(f), negative, negative == 1 ? "" : "s");
		else
			cli_error(&c, "%s: %s", shown, pprof_flame_error(f));
		cli_abort(&c);
		goto out;
	}
	if (ignored && !c.quiet)
		cli_warn(&c, "%s: ignored %zu lines with invalid format", shown, ignored);
	if (negative && !c.quiet)
		cli_warn(&c, "%s: left out %zu stacks with negative values", shown, negative);
	status = cli_commit(&c);
	if (status == CLI_OK && (fo.flags & PPROF_FLAME_CONSISTENT) && write_palette(&c, f) != 0)
		status = CLI_FAIL;
out:
	free(countname);
	free(dtype);
	free(dunit);
	free(source);
	pprof_flame_free(f);
	for (int k = 0; ps && k < nin; k++)
		pprof_profile_free(ps[k]);
	free(ps);
	cli_release(&c);
	return status;
}
