/* pprof-top: the flat/cum table of go tool pprof -top. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *out)
{
	fputs("usage: pprof-top [-i sample] [-g granularity] [-m map] [-n rows] [-o file]\n"
	      "                 [--cum] [--format=text|tsv|json] [--tree] [--peek=regex]\n"
	      "                 [--tags] [--list=regex] [--source-path=dir] [--unit=unit]\n"
	      "                 [--rules file]\n"
	      "                 [filter options] [--max-input size] [--quiet] [file ...]\n"
	      "\n"
	      "Writes the table of go tool pprof -top for a pprof, .cpuprofile or\n"
	      ".heapprofile file, or folded stacks: per function, flat (the samples it is\n"
	      "the leaf of), flat%, sum%, cum (the samples it is on the stack of, once\n"
	      "each) and cum%, sorted by flat.  Several files are summed.  Standard input\n"
	      "when no file is named or the file is -.\n"
	      "\n"
	      "  -n, --nodecount=N          the first N rows only (default: all)\n"
	      "      --cum                  sort by cum\n"
	      "      --format=FORMAT        text (as pprof), tsv or json (raw values)\n"
	      "      --tree                 each row with its callers and callees (pprof -tree)\n"
	      "      --peek=REGEX           the tree of the matching functions only (pprof -peek)\n"
	      "      --tags                 the labels and their values instead (pprof -tags)\n"
	      "      --list=REGEX           the matching functions' lines beside their source\n"
	      "      --unit=UNIT            the unit of printed values: ms, MB, auto... (pprof -unit)\n"
	      "  -i, --sample-index=NAME|N  value to show (default: the profile's default)\n"
	      "  -g, --granularity=G        functions, filefunctions, lines, files, addresses\n"
	      "  -m, --sourcemap=PATH       source map file or directory (repeatable)\n"
	      "      --source-path=DIR      original sources: where a map has no sourcesContent,\n"
	      "                             and the files --list shows\n"
	      "  -o, --output=FILE          write FILE atomically instead of standard output\n"
	      CLI_FILTER_HELP
	      "      --max-input=SIZE       largest inflated input (default 4g)\n"
	      "      --quiet                no warnings\n"
	      "      --help, --version\n",
	      out);
}

enum {
	OPT_CUM = CLI_OPT_FIRST_TOOL,
	OPT_FORMAT,
	OPT_TREE,
	OPT_PEEK,
	OPT_UNIT,
	OPT_TAGS,
	OPT_LIST,
};

int main(int argc, char **argv)
{
	cli_huge_pages(argv);
	struct cli c;
	cli_init(&c, "pprof-top", usage);
	static const struct option longopts[] = {
		CLI_LONGOPTS,
		{"nodecount", required_argument, NULL, 'n'},
		{"cum", no_argument, NULL, OPT_CUM},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"tree", no_argument, NULL, OPT_TREE},
		{"peek", required_argument, NULL, OPT_PEEK},
		{"unit", required_argument, NULL, OPT_UNIT},
		{"tags", no_argument, NULL, OPT_TAGS},
		{"list", required_argument, NULL, OPT_LIST},
		{NULL, 0, NULL, 0},
	};
	struct pprof_top_options to = {0};
	int format = PPROF_TABLE_TEXT;
	bool tags = false;
	struct pprof_list_options lo = {0};
	int opt;
	while ((opt = cli_getopt(&c, argc, argv, CLI_SHORTOPTS "n:", longopts)) != -1) {
		switch (opt) {
		case 'n': {
			char *end;
			errno = 0;
			unsigned long long v = strtoull(optarg, &end, 10);
			if (!*optarg || *end || errno || optarg[0] == '-' || v > SIZE_MAX)
				cli_usage_error(&c, "-n: invalid number of rows '%s'", optarg);
			to.limit = (size_t)v; /* 0: all, as pprof -nodecount=0 */
			break;
		}
		case OPT_CUM:
			to.cum = 1;
			break;
		case OPT_FORMAT:
			format = pprof_table_format_parse(optarg);
			if (format < 0)
				cli_usage_error(&c, "--format: unknown format '%s' (text, tsv, json)", optarg);
			break;
		case OPT_TREE:
			to.tree = 1;
			break;
		case OPT_PEEK:
			to.tree = 1;
			to.peek = optarg;
			break;
		case OPT_LIST:
			lo.regex = optarg;
			break;
		case OPT_TAGS:
			tags = true;
			break;
		case OPT_UNIT:
			if (!*optarg)
				cli_usage_error(&c, "--unit: empty unit");
			to.unit = optarg;
			break;
		default:
			if (!cli_option(&c, opt, optarg))
				cli_usage_error(&c, "unknown option");
		}
	}
	lo.source_path = c.source_path; /* --source-path: shared with -m */
	if ((to.tree || tags || lo.regex) && format != PPROF_TABLE_TEXT)
		cli_usage_error(&c, "--tree, --peek, --tags and --list print text only");
	if ((to.tree != 0) + tags + (lo.regex != NULL) > 1)
		cli_usage_error(&c, "one of --tree, --peek, --tags and --list at a time");
	/* The table needs no call tree: pprof samples are read as lists of
	 * locations (the transforms build the tree when they run). */
	c.read.defer_tree = 1;
	int status = CLI_FAIL;
	struct pprof_top *t = NULL;
	struct pprof_profile *p = cli_load(&c, argv + optind, argc - optind);
	if (!p)
		goto out;
	to.granularity = (enum pprof_granularity)c.granularity;
	to.report = c.report;
	to.sample_index = cli_sample_index(&c, p);
	if (to.sample_index < 0)
		goto out;
	if (tags || lo.regex) {
		lo.sample_index = to.sample_index;
		lo.unit = to.unit;
		lo.report = c.report;
		lo.maps = c.maps;
		lo.nmaps = c.nmaps;
		FILE *out = cli_open_output(&c);
		if (!out)
			goto out;
		errno = 0;
		int ws = tags ? pprof_tags_write(p, to.sample_index, to.unit, out)
			      : pprof_list_write(p, &lo, out);
		if (ws == PPROF_EUSAGE) {
			cli_abort(&c);
			cli_usage_error(&c, "%s", pprof_profile_error(p));
		}
		if (ws != PPROF_OK) {
			if (ws == PPROF_EIO)
				cli_error(&c, "%s: write error: %s",
					  c.output ? c.output : "<stdout>", strerror(errno));
			else
				cli_error(&c, "%s", pprof_profile_error(p));
			cli_abort(&c);
			goto out;
		}
		cli_flush_warnings(&c, p);
		status = cli_commit(&c);
		goto out;
	}
	int ts = pprof_top(p, &to, &t);
	if (ts == PPROF_EUSAGE)
		cli_usage_error(&c, "%s", pprof_profile_error(p));
	if (ts != PPROF_OK) {
		cli_error(&c, "%s", pprof_profile_error(p));
		goto out;
	}
	cli_flush_warnings(&c, p);
	FILE *out = cli_open_output(&c);
	if (!out)
		goto out;
	if (pprof_top_write(t, (enum pprof_table_format)format, out) != PPROF_OK) {
		cli_error(&c, "%s: write error: %s", c.output ? c.output : "<stdout>", strerror(errno));
		cli_abort(&c);
		goto out;
	}
	status = cli_commit(&c);
out:
	pprof_top_free(t);
	pprof_profile_free(p);
	cli_release(&c);
	return status;
}
