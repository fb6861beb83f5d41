/* pprof-fold: any profile(s) to folded stacks. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *out)
{
	fputs("usage: pprof-fold [-i sample] [-g granularity] [-m map] [-o file]\n"
	      "                  [--rules file] [filter options] [--hide-ignored]\n"
	      "                  [--source-path dir] [--header] [--max-input size]\n"
	      "                  [--progress] [--quiet] [file ...]\n"
	      "\n"
	      "Reads pprof (.pb, .pb.gz), V8 .cpuprofile and .heapprofile, Chrome traces,\n"
	      "or folded stacks, gzipped or not, and writes folded stacks\n"
	      "\"root;...;leaf VALUE\", bytewise sorted.  Several files are summed.\n"
	      "Standard input when no file is named or the file is -.\n"
	      "\n"
	      "  -i, --sample-index=NAME|N  value to fold (default: the profile's default)\n"
	      "  -g, --granularity=G        functions, filefunctions, lines, files, addresses\n"
	      "  -m, --sourcemap=PATH       source map file or directory (repeatable)\n"
	      "      --source-path=DIR      original sources, where a map has no sourcesContent\n"
	      "      --hide-ignored         drop frames whose source is on a map's ignoreList\n"
	      "  -o, --output=FILE          write FILE atomically instead of standard output\n"
	      "      --header               a first line \"# sample_type=TYPE/UNIT\"\n"
	      CLI_FILTER_HELP
	      "      --max-input=SIZE       largest inflated input (default 4g)\n"
	      "      --progress             a progress line even when stderr is no terminal\n"
	      "      --quiet                no warnings\n"
	      "      --help, --version\n",
	      out);
}

int main(int argc, char **argv)
{
	cli_huge_pages(argv);
	struct cli c;
	cli_init(&c, "pprof-fold", usage);
	c.folded_out = true;
	enum { OPT_HEADER = CLI_OPT_FIRST_TOOL };
	static const struct option longopts[] = {
		CLI_LONGOPTS,
		{"header", no_argument, NULL, OPT_HEADER},
		{NULL, 0, NULL, 0},
	};
	bool header = false;
	int opt;
	while ((opt = cli_getopt(&c, argc, argv, CLI_SHORTOPTS, longopts)) != -1) {
		if (opt == OPT_HEADER)
			header = true;
		else if (!cli_option(&c, opt, optarg))
			cli_usage_error(&c, "unknown option");
	}
	int status = CLI_FAIL;
	struct pprof_profile *p = cli_load(&c, argv + optind, argc - optind);
	if (!p)
		goto out;
	struct pprof_fold_options fo = {0};
	fo.granularity = (enum pprof_granularity)c.granularity;
	fo.sample_index = cli_sample_index(&c, p);
	if (fo.sample_index < 0)
		goto out;
	FILE *out = cli_open_output(&c);
	if (!out)
		goto out;
	if (header && cli_write_header(&c, out, pprof_sample_type_name(p, (size_t)fo.sample_index),
				       pprof_sample_type_unit(p, (size_t)fo.sample_index)) != 0)
		goto out;
	if (pprof_fold_write(p, &fo, out) != PPROF_OK) {
		cli_error(&c, "%s", pprof_profile_error(p));
		cli_abort(&c);
		goto out;
	}
	cli_flush_warnings(&c, p);
	status = cli_commit(&c);
out:
	pprof_profile_free(p);
	cli_release(&c);
	return status;
}
