/* fuzz_rules.c: libFuzzer harness of the rules file and the filters: the
 * input is a rules file; when it loads, its renames and default filters run
 * on a small Worker-like profile, which is then folded every way, written
 * as pprof and read back, and must fold the same.  A file that does not
 * load must say why in one line, with a line and column when libyaml
 * gives one.
 * Seeds: the *.yaml files of the tree (examples/workers.rules.yaml). */
#include "config.h"

#include "harness.h"
#include "filter_private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char profile[] =
	"{\"nodes\":["
	"{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\",\"url\":\"\","
	"\"lineNumber\":-1,\"columnNumber\":-1},\"children\":[2,3,6]},"
	"{\"id\":2,\"callFrame\":{\"functionName\":\"(idle)\",\"scriptId\":\"0\",\"url\":\"\","
	"\"lineNumber\":-1,\"columnNumber\":-1}},"
	"{\"id\":3,\"callFrame\":{\"functionName\":\"fetch\",\"scriptId\":\"1\",\"url\":\"worker.js\","
	"\"lineNumber\":0,\"columnNumber\":10},\"children\":[4]},"
	"{\"id\":4,\"callFrame\":{\"functionName\":\"merge\",\"scriptId\":\"2\","
	"\"url\":\"file:///app/node_modules/lodash/merge.js\",\"lineNumber\":3,\"columnNumber\":0},"
	"\"children\":[5]},"
	"{\"id\":5,\"callFrame\":{\"functionName\":\"get name\",\"scriptId\":\"1\","
	"\"url\":\"worker.js\",\"lineNumber\":0,\"columnNumber\":99},\"children\":[7]},"
	"{\"id\":7,\"callFrame\":{\"functionName\":\"get name\",\"scriptId\":\"1\","
	"\"url\":\"worker.js\",\"lineNumber\":0,\"columnNumber\":99}},"
	"{\"id\":6,\"callFrame\":{\"functionName\":\"\",\"scriptId\":\"3\","
	"\"url\":\"workerd:per-isolate/main\",\"lineNumber\":2,\"columnNumber\":1}}],"
	"\"startTime\":0,\"endTime\":90,\"samples\":[2,3,4,5,7,6,7,3],"
	"\"timeDeltas\":[10,10,10,10,10,10,10,10]}";

static char *fold_text(struct pprof_profile *p, enum pprof_granularity g, size_t *len)
{
	char *buf = NULL;
	*len = 0;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	int t = pprof_sample_type_select(p, NULL);
	struct pprof_fold_options o = {t, g};
	int s = t < 0 ? PPROF_EUSAGE : pprof_fold_write(p, &o, f);
	fclose(f);
	if (s != PPROF_OK) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Written as pprof and read back, P folds the same. */
static void check_round_trip(struct pprof_profile *p)
{
	char *out = NULL;
	size_t outlen = 0;
	FILE *f = open_memstream(&out, &outlen);
	if (!f)
		return;
	int s = pprof_write_pprof(p, f);
	fclose(f);
	if (s != PPROF_OK) {
		free(out);
		fuzz_check_error(p);
		return;
	}
	struct pprof_profile *q = pprof_profile_new();
	if (q && pprof_read_buffer(q, out, outlen, &fuzz_read_options) != PPROF_OK)
		fuzz_fail("pprof output does not read back", pprof_profile_error(q),
			  strlen(pprof_profile_error(q)));
	for (int g = PPROF_G_FUNCTIONS; q && g <= PPROF_G_ADDRESSES; g++) {
		size_t la, lb;
		char *a = fold_text(p, (enum pprof_granularity)g, &la);
		char *b = fold_text(q, (enum pprof_granularity)g, &lb);
		if (a && b && (la != lb || memcmp(a, b, la) != 0))
			fuzz_fail("pprof output folds differently", a, la);
		free(a);
		free(b);
	}
	pprof_profile_free(q);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pprof_rules *r = pprof_rules_new();
	if (!r)
		return 0;
	if (pprof_rules_read_buffer(r, (const char *)data, size, "base/") != PPROF_OK) {
		fuzz_check_message(pprof_rules_error(r));
		size_t n;
		pprof_rules_sourcemaps(r, &n);
		if (n || r->nrenames || r->ndefaults)
			fuzz_fail("a bad rules file left rules behind", "", 0);
		pprof_rules_free(r);
		return 0;
	}
	size_t n;
	const struct pprof_rules_sourcemap *m = pprof_rules_sourcemaps(r, &n);
	for (size_t i = 0; i < n; i++) {
		char *path = NULL;
		if (!m[i].url || !m[i].map)
			fuzz_fail("an association without url or map", "", 0);
		if (pprof_rules_sourcemap_for(r, m[i].url, &path) == PPROF_OK && !m[i].is_regex &&
		    !path)
			fuzz_fail("an exact url finds no map", m[i].url, strlen(m[i].url));
		free(path);
	}
	struct pprof_filter *f = pprof_filter_new();
	struct pprof_profile *p = pprof_profile_new();
	if (f && p && pprof_read_buffer(p, profile, sizeof(profile) - 1, NULL) == PPROF_OK) {
		if (pprof_filter_use_rules(f, r) != PPROF_OK)
			fuzz_fail("defaults that loaded do not apply", pprof_filter_error(f),
				  strlen(pprof_filter_error(f)));
		struct pprof_filter_report *rep = NULL;
		if (pprof_filter_apply(f, p, &rep) == PPROF_OK) {
			pprof_filter_report_free(rep);
			fuzz_fold_all(p);
			check_round_trip(p);
		} else {
			fuzz_check_error(p);
		}
	}
	pprof_profile_free(p);
	pprof_filter_free(f);
	pprof_rules_free(r);
	return 0;
}
