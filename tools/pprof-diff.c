/* pprof-diff: two profiles of any formats side by side, as difffolded.pl
 * writes them, or a table of what grew and shrank by function. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *out)
{
	fputs("usage: pprof-diff [-ns] [-i sample] [-g granularity] [-m map] [-o file]\n"
	      "                  [--top[=N]] [--cum] [--format=text|tsv|json] [--unit=unit]\n"
	      "                  [--fail-over=PCT] [--min-delta=value] [--fold-vanished]\n"
	      "                  [--rules file] [filter options]\n"
	      "                  [--header] [--max-input size] [--quiet] before after\n"
	      "\n"
	      "Reads two profiles (pprof, V8 .cpuprofile or .heapprofile, folded stacks;\n"
	      "each format detected on its own, both transformed alike) and writes\n"
	      "\"stack BEFORE AFTER\" lines, bytewise sorted, for every stack in either\n"
	      "(difffolded.pl's output, for pprof-flame), or with --top a table of the\n"
	      "functions whose self or total value changed.\n"
	      "\n"
	      "  -n, --normalize            scale BEFORE to AFTER's total (difffolded -n)\n"
	      "  -s, --strip-hex            turn 0x<hex> into 0x... (difffolded -s)\n"
	      "      --top[=N]              table by function: the first N rows (all)\n"
	      "      --cum                  sort the table by total delta, not self delta\n"
	      "      --format=FORMAT        table as text (aligned), tsv or json\n"
	      "      --unit=UNIT            the table's unit: ms, MB, auto... (pprof -unit)\n"
	      "      --fail-over=PCT        exit 3 when the total, or a function's total,\n"
	      "                             grew by more than PCT% of BEFORE's total\n"
	      "      --min-delta=VALUE      and by at least VALUE (5ms, 1MiB, or in the unit)\n"
	      "      --fold-vanished        a function in one input only counts in its caller\n"
	      "  -i, --sample-index=NAME|N  value to compare (default: the profile's default)\n"
	      "  -g, --granularity=G        functions, filefunctions, lines, files, addresses\n"
	      "  -m, --sourcemap=PATH       source map file or directory (repeatable)\n"
	      "      --source-path=DIR      original sources, where a map has no sourcesContent\n"
	      "  -o, --output=FILE          write FILE atomically instead of standard output\n"
	      "      --header               a first line \"# sample_type=TYPE/UNIT\"\n"
	      CLI_FILTER_HELP
	      "      --max-input=SIZE       largest inflated input (default 4g)\n"
	      "      --quiet                no warnings\n"
	      "      --help, --version\n"
	      "\n"
	      "Exit status: 0 done, 1 bad input or failure, 2 usage, 3 over --fail-over.\n",
	      out);
}

enum {
	OPT_TOP = CLI_OPT_FIRST_TOOL,
	OPT_CUM,
	OPT_FORMAT,
	OPT_FAIL_OVER,
	OPT_UNIT,
	OPT_MIN_DELTA,
	OPT_FOLD_VANISHED,
	OPT_HEADER,
};

/* One side of the diff: its lines, and the profile that holds them or at
 * least their messages. */
struct side {
	const char *path, *shown;
	struct pprof_profile *p;
	struct pprof_folded *f;
	const char *type, *unit;
	bool untyped;   /* folded text: its "samples" have no unit */
	int index;      /* the sample type compared */
};

static int load(struct cli *c, struct side *s, const struct pprof_fold_options *base)
{
	s->shown = strcmp(s->path, "-") == 0 ? "<stdin>" : s->path;
	/* Folded text nothing transforms is folded from its lines as read
	 * (pprof_fold()), without a call tree. */
	char *files[] = {(char *)s->path};
	s->p = cli_load(c, files, 1);
	if (!s->p)
		return -1;
	struct pprof_fold_options fo = *base;
	fo.sample_index = cli_sample_index(c, s->p);
	if (fo.sample_index < 0)
		return -1;
	s->index = fo.sample_index;
	s->type = pprof_sample_type_name(s->p, (size_t)fo.sample_index);
	s->unit = pprof_sample_type_unit(s->p, (size_t)fo.sample_index);
	/* (unless its header gave one) */
	s->untyped = pprof_profile_format(s->p) == PPROF_FMT_FOLDED && s->unit &&
		     strcmp(s->unit, "count") == 0;
	if (pprof_fold(s->p, &fo, &s->f) != PPROF_OK) {
		cli_error(c, "%s: %s", s->shown, pprof_profile_error(s->p));
		return -1;
	}
	cli_flush_warnings(c, s->p);
	return 0;
}

static bool same_unit(const char *a, const char *b)
{
	return strcasecmp(a, b) == 0;
}

int main(int argc, char **argv)
{
	cli_huge_pages(argv);
	struct cli c;
	cli_init(&c, "pprof-diff", usage);
	c.folded_out = true;
	static const struct option longopts[] = {
		CLI_LONGOPTS,
		{"normalize", no_argument, NULL, 'n'},
		{"strip-hex", no_argument, NULL, 's'},
		{"top", optional_argument, NULL, OPT_TOP},
		{"cum", no_argument, NULL, OPT_CUM},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"fail-over", required_argument, NULL, OPT_FAIL_OVER},
		{"unit", required_argument, NULL, OPT_UNIT},
		{"min-delta", required_argument, NULL, OPT_MIN_DELTA},
		{"fold-vanished", no_argument, NULL, OPT_FOLD_VANISHED},
		{"header", no_argument, NULL, OPT_HEADER},
		{NULL, 0, NULL, 0},
	};
	struct pprof_diff_options dopt = {0};
	bool strip = false, top = false, cum = false, gate = false, header = false;
	size_t limit = 0;
	int format = PPROF_TABLE_TEXT;
	double fail_over = 0;
	const char *unit = NULL, *min_delta = NULL;
	bool fold_vanished = false;
	int opt;
	while ((opt = cli_getopt(&c, argc, argv, CLI_SHORTOPTS "ns", longopts)) != -1) {
		char *end;
		switch (opt) {
		case 'n':
			dopt.normalize = 1;
			break;
		case 's':
			strip = true;
			break;
		case OPT_TOP:
			top = true;
			limit = 0;
			if (optarg) {
				errno = 0;
				unsigned long long v = strtoull(optarg, &end, 10);
				if (!*optarg || *end || errno || optarg[0] == '-' || v == 0 || v > SIZE_MAX)
					cli_usage_error(&c, "--top: invalid number of rows '%s'", optarg);
				limit = (size_t)v;
			}
			break;
		case OPT_CUM:
			cum = true;
			break;
		case OPT_HEADER:
			header = true;
			break;
		case OPT_FORMAT:
			format = pprof_table_format_parse(optarg);
			if (format < 0)
				cli_usage_error(&c, "--format: unknown format '%s' (text, tsv, json)", optarg);
			top = true;
			break;
		case OPT_FAIL_OVER: {
			errno = 0;
			fail_over = strtod(optarg, &end);
			if (*end == '%')
				end++;
			if (end == optarg || *end || errno || !(fail_over >= 0) || fail_over > 1e15)
				cli_usage_error(&c, "--fail-over: invalid percentage '%s'", optarg);
			gate = true;
			break;
		}
		case OPT_MIN_DELTA: {
			/* the syntax now, the unit once the inputs say theirs */
			int64_t v;
			if (pprof_value_parse(optarg, "nanoseconds", &v) != PPROF_OK &&
			    pprof_value_parse(optarg, "bytes", &v) != PPROF_OK)
				cli_usage_error(&c, "--min-delta: invalid value '%s'", optarg);
			min_delta = optarg;
			break;
		}
		case OPT_FOLD_VANISHED:
			fold_vanished = true;
			break;
		case OPT_UNIT:
			if (!*optarg)
				cli_usage_error(&c, "--unit: empty unit");
			unit = optarg;
			top = true;
			break;
		default:
			if (!cli_option(&c, opt, optarg))
				cli_usage_error(&c, "unknown option");
		}
	}
	if (argc - optind != 2)
		cli_usage_error(&c, "two inputs needed, before and after");
	if (cum && !top)
		cli_usage_error(&c, "--cum sorts the --top table");
	if (min_delta && !gate)
		cli_usage_error(&c, "--min-delta is a floor of --fail-over");
	if (header && top)
		cli_usage_error(&c, "--header heads the folded lines, not the --top table");
	if (strcmp(argv[optind], "-") == 0 && strcmp(argv[optind + 1], "-") == 0)
		cli_usage_error(&c, "only one input can be standard input");

	int status = CLI_FAIL;
	struct side s[2] = {{argv[optind], NULL, NULL, NULL, NULL, NULL, false, 0},
			    {argv[optind + 1], NULL, NULL, NULL, NULL, NULL, false, 0}};
	struct pprof_diff *d = NULL;
	struct pprof_diff_table *t = NULL;
	struct pprof_fold_options fo = {0};
	fo.granularity = (enum pprof_granularity)c.granularity;
	for (int i = 0; i < 2; i++)
		if (load(&c, &s[i], &fo) != 0)
			goto out;
	/* Folded text has no unit: it takes the other side's. */
	for (int i = 0; i < 2; i++) {
		if (s[i].untyped && !s[1 - i].untyped) {
			s[i].type = s[1 - i].type;
			s[i].unit = s[1 - i].unit;
		}
	}
	if (!same_unit(s[0].unit, s[1].unit)) {
		cli_error(&c, "incompatible sample types: %s/%s (%s) and %s/%s (%s)", s[0].type,
			  s[0].unit, s[0].shown, s[1].type, s[1].unit, s[1].shown);
		goto out;
	}
	/* Values measured differently, or samples one producer leaves out. */
	pprof_compare_warn(s[0].p, (size_t)s[0].index, s[1].p, (size_t)s[1].index,
			   c.filter && pprof_filter_has(c.filter, PPROF_FILTER_DROP_IDLE));
	cli_flush_warnings(&c, s[1].p);
	for (int i = 0; i < 2 && strip; i++) {
		if (pprof_folded_strip_hex(s[i].p, s[i].f) != PPROF_OK) {
			cli_error(&c, "%s: %s", s[i].shown, pprof_profile_error(s[i].p));
			goto out;
		}
	}
	/* Synonyms between producers: after's spelling becomes before's. */
	size_t nsyn = 0;
	if (pprof_folded_synonyms(s[1].p, s[0].f, s[1].f, &nsyn) != PPROF_OK) {
		cli_error(&c, "%s", pprof_profile_error(s[1].p));
		goto out;
	}
	int64_t min = 0;
	if (min_delta && pprof_value_parse(min_delta, s[1].unit, &min) != PPROF_OK) {
		cli_error(&c, "--min-delta: '%s' is not a value in %s", min_delta, s[1].unit);
		goto out;
	}
	if (fold_vanished && pprof_folded_fold_vanished(s[1].p, s[0].f, s[1].f) != PPROF_OK) {
		cli_error(&c, "%s", pprof_profile_error(s[1].p));
		goto out;
	}
	if (pprof_diff_folded(s[1].p, s[0].f, s[1].f, &dopt, &d) != PPROF_OK) {
		cli_error(&c, "%s", pprof_profile_error(s[1].p));
		goto out;
	}
	if ((top || gate) && pprof_diff_table(s[1].p, d, cum, &t) != PPROF_OK) {
		cli_error(&c, "%s", pprof_profile_error(s[1].p));
		goto out;
	}
	FILE *out = cli_open_output(&c);
	if (!out)
		goto out;
	static char obuf[1 << 16];
	if (out == stdout)
		setvbuf(out, obuf, _IOFBF, sizeof(obuf));
	int w;
	if (top) {
		struct pprof_diff_info info = {s[0].type, s[0].unit, s[0].shown, s[1].shown, unit};
		w = pprof_diff_table_write(t, d, &info, (enum pprof_table_format)format, limit, out);
	} else {
		w = PPROF_OK;
		if (header && cli_write_header(&c, out, s[0].type, s[0].unit) != 0) {
			cli_abort(&c);
			goto out;
		}
		if (w == PPROF_OK)
			w = pprof_diff_write(d, out);
	}
	if (w != PPROF_OK) {
		cli_error(&c, "%s: write error: %s", c.output ? c.output : "<stdout>", strerror(errno));
		cli_abort(&c);
		goto out;
	}
	status = cli_commit(&c);
	if (status == CLI_OK && gate) {
		const struct pprof_diff_row *worst;
		size_t nover;
		if (pprof_diff_regressed(t, d, fail_over, min, &worst, &nover)) {
			int64_t base = d->total_before_scaled, g = d->total_after - base;
			char pct[64];
			if (base > 0)
				snprintf(pct, sizeof(pct), "%+.2f%%", (double)g / (double)base * 100);
			else
				snprintf(pct, sizeof(pct), "%+lld", (long long)g);
			if (worst && nover) {
				double wp = base > 0 ? (double)(worst->total_after - worst->total_before) /
							       (double)base * 100
						     : 0;
				cli_error(&c,
					  "regression over %g%%: total %s; %zu function%s over, most %s "
					  "(+%.2f%% of before's total)",
					  fail_over, pct, nover, nover == 1 ? "" : "s", worst->name, wp);
			} else {
				cli_error(&c, "regression over %g%%: total %s", fail_over, pct);
			}
			status = CLI_REGRESSION;
		}
	}
out:
	pprof_diff_table_free(t);
	pprof_diff_free(d);
	for (int i = 0; i < 2; i++) {
		pprof_folded_free(s[i].f);
		pprof_profile_free(s[i].p);
	}
	cli_release(&c);
	return status;
}
