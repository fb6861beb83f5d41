/* pprof-convert: any profile(s) to a gzipped profile.proto. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static void usage(FILE *out)
{
	fputs("usage: pprof-convert [-m map] [-o file] [--rules file] [filters]\n"
	      "                     [--max-input size] [--quiet] [file ...]\n"
	      "\n"
	      "Reads pprof (.pb, .pb.gz), V8 .cpuprofile and .heapprofile, or folded\n"
	      "stacks, gzipped or not, and writes one gzipped pprof profile.proto of\n"
	      "them, symbolicated and filtered: what go tool pprof, Pyroscope and\n"
	      "Grafana open.  Several files are merged.  Standard input when no file\n"
	      "is named or the file is -.\n"
	      "\n"
	      "  -o, --output=FILE          write FILE atomically (default: standard\n"
	      "                             output, which must not be a terminal)\n"
	      "  -m, --sourcemap=PATH       source map file or directory (repeatable)\n"
	      "      --source-path=DIR      original sources, where a map has no sourcesContent\n"
	      "      --hide-ignored         remove frames on a source map's ignore list\n" CLI_FILTER_HELP
	      "      --max-input=SIZE       largest inflated input (default 4g)\n"
	      "      --quiet                no warnings\n"
	      "      --help, --version\n"
	      "\n"
	      "-i and -g are accepted and ignored: every sample type is written, with\n"
	      "the profile's default, and frames keep all they know.\n",
	      out);
}

int main(int argc, char **argv)
{
	cli_huge_pages(argv);
	struct cli c;
	cli_init(&c, "pprof-convert", usage);
	static const struct option longopts[] = {CLI_LONGOPTS, {NULL, 0, NULL, 0}};
	int opt;
	while ((opt = cli_getopt(&c, argc, argv, CLI_SHORTOPTS, longopts)) != -1) {
		if (!cli_option(&c, opt, optarg))
			cli_usage_error(&c, "unknown option");
	}
	if (!c.output && isatty(STDOUT_FILENO))
		cli_usage_error(&c, "refusing to write a binary profile to a terminal: use -o FILE");
	int status = CLI_FAIL;
	c.lines_out = true; /* Line.line is written at every granularity */
	struct pprof_profile *p = cli_load(&c, argv + optind, argc - optind);
	if (!p)
		goto out;
	FILE *out = cli_open_output(&c);
	if (!out)
		goto out;
	if (pprof_write_pprof(p, out) != PPROF_OK) {
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
