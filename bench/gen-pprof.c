/* gen-pprof: writes a large synthetic pprof profile (uncompressed
 * profile.proto) for benchmarks, the same bytes for the same options.
 *
 *   gen-pprof [-n stacks] [-f functions] [-x new] [-s seed] > big.pb
 *
 * N distinct stacks (default 500,000), 10 to 80 frames deep, over a
 * vocabulary of F functions (default 5,000) in a few hundred files, one
 * sample each.  Stacks grow as a real call tree does: each new stack takes
 * a root-side part of an earlier one and adds 1..X new frames (default 6),
 * so the tree has a few million nodes, not one per frame.  Callers call a
 * few callees each; a location is a call site (function, pc) with an
 * address, and about one in ten has 1 or 2 inlined lines.  Each sample
 * carries a "thread" label.  Samples are written in a shuffled order and
 * before the locations, as Go writes them.  Messages are packed one at a
 * time with protobuf-c, so the whole profile is never in memory. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libpprof/profile.pb-c.h"

#define MAXDEPTH 80
#define MINDEPTH 10
#define PCS 96     /* call sites (locations) per function at most */
#define CALLEES 6  /* callees per function */
#define THREADS 16 /* distinct label values */

static uint64_t rng_state;

/* splitmix64: small, fast, and the same everywhere. */
static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static uint32_t rnd_in(uint32_t lo, uint32_t hi)
{
	return lo + (uint32_t)(rnd() % ((uint64_t)hi - lo + 1));
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fputs("gen-pprof: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

/* ---- output ---- */

static void put_varint(uint64_t v)
{
	unsigned char b[10];
	size_t n = 0;
	while (v >= 0x80) {
		b[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	b[n++] = (unsigned char)v;
	fwrite(b, 1, n, stdout);
}

static unsigned char *packbuf;
static size_t packcap;

/* Writes message M as field NUM of Profile. */
static void put_msg(uint32_t num, const ProtobufCMessage *m)
{
	size_t n = protobuf_c_message_get_packed_size(m);
	if (n > packcap) {
		free(packbuf);
		packcap = n * 2;
		packbuf = xmalloc(packcap);
	}
	protobuf_c_message_pack(m, packbuf);
	put_varint((uint64_t)num << 3 | 2);
	put_varint(n);
	fwrite(packbuf, 1, n, stdout);
}

static void put_int(uint32_t num, uint64_t v)
{
	put_varint((uint64_t)num << 3);
	put_varint(v);
}

/* ---- strings ---- */

static char **strs;
static size_t nstrs, capstrs;

static int64_t add_str(const char *s)
{
	if (nstrs == capstrs) {
		capstrs = capstrs ? capstrs * 2 : 1024;
		char **n = realloc(strs, capstrs * sizeof(*n));
		if (!n) {
			fputs("gen-pprof: out of memory\n", stderr);
			exit(1);
		}
		strs = n;
	}
	size_t len = strlen(s);
	strs[nstrs] = xmalloc(len + 1);
	memcpy(strs[nstrs], s, len + 1);
	return (int64_t)nstrs++;
}

static void usage(void)
{
	fputs("usage: gen-pprof [-n stacks] [-f functions] [-x new-frames] [-s seed] > out.pb\n",
	      stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	uint32_t nstacks = 500000, nfuncs = 5000, maxnew = 6;
	uint64_t seed = 1;
	int c;
	while ((c = getopt(argc, argv, "n:f:x:s:")) != -1) {
		switch (c) {
		case 'f':
			nfuncs = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'n':
			nstacks = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 10);
			break;
		case 'x':
			maxnew = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || nstacks == 0 || nfuncs < 16 || maxnew == 0)
		usage();
	rng_state = seed;
	static char obuf[1 << 16];
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));

	add_str("");
	int64_t s_samples = add_str("samples"), s_count = add_str("count");
	int64_t s_cpu = add_str("cpu"), s_ns = add_str("nanoseconds");
	int64_t s_thread = add_str("thread");
	int64_t s_threads[THREADS];
	char name[256];
	for (int i = 0; i < THREADS; i++) {
		snprintf(name, sizeof(name), "worker-%02d", i);
		s_threads[i] = add_str(name);
	}

	/* Functions: names and files as Go would print them. */
	int64_t *fname = xmalloc(nfuncs * sizeof(*fname));
	int64_t *ffile = xmalloc(nfuncs * sizeof(*ffile));
	uint32_t nfiles = nfuncs / 8 + 1;
	int64_t *files = xmalloc(nfiles * sizeof(*files));
	for (uint32_t i = 0; i < nfiles; i++) {
		snprintf(name, sizeof(name), "github.com/example/service/internal/pkg%02u/file%04u.go",
			 i % 40, i);
		files[i] = add_str(name);
	}
	for (uint32_t i = 0; i < nfuncs; i++) {
		snprintf(name, sizeof(name), "github.com/example/service/internal/pkg%02u.(*Type%03u).Method%04u",
			 (i / 8) % 40, i / 16, i);
		fname[i] = add_str(name);
		ffile[i] = files[i / 8];
	}
	/* The call graph: a few callees per function. */
	uint32_t *callees = xmalloc((size_t)nfuncs * CALLEES * sizeof(*callees));
	for (size_t i = 0; i < (size_t)nfuncs * CALLEES; i++)
		callees[i] = (uint32_t)(rnd() % nfuncs);

	/* Locations are made on first use: loc_of[f * PCS + pc] = id. */
	uint32_t *loc_of = calloc((size_t)nfuncs * PCS, sizeof(*loc_of));
	uint32_t *loc_key = xmalloc((size_t)nfuncs * PCS * sizeof(*loc_key));
	uint32_t nlocs = 0;

	/* Stacks, root first, in one array. */
	uint64_t cap = (uint64_t)nstacks * 30 + MAXDEPTH;
	uint32_t *frames = xmalloc(cap * sizeof(*frames));
	uint64_t *start = xmalloc(((size_t)nstacks + 1) * sizeof(*start));
	uint64_t used = 0;
	uint32_t fn[MAXDEPTH];
	for (uint32_t i = 0; i < nstacks; i++) {
		uint32_t depth, keep;
		if (i < 256) {
			/* the first stacks from scratch */
			keep = 0;
			/* deep ones more often: the larger of two draws */
			depth = rnd_in(MINDEPTH, MAXDEPTH);
			uint32_t d2 = rnd_in(MINDEPTH, MAXDEPTH);
			if (d2 > depth)
				depth = d2;
			fn[0] = (uint32_t)(rnd() % 8); /* a few roots */
		} else {
			uint32_t j = (uint32_t)(rnd() % i);
			uint32_t pd = (uint32_t)(start[j + 1] - start[j]);
			uint32_t cut = rnd_in(0, maxnew);
			keep = pd > cut + 1 ? pd - cut : 1;
			depth = keep + rnd_in(1, maxnew);
			if (depth > MAXDEPTH)
				depth = MAXDEPTH;
			if (depth < MINDEPTH)
				depth = MINDEPTH;
			if (keep >= depth)
				keep = depth - 1;
			for (uint32_t d = 0; d < keep; d++)
				fn[d] = loc_key[frames[start[j] + d] - 1] / PCS;
		}
		for (uint32_t d = keep ? keep : 1; d < depth; d++)
			fn[d] = callees[fn[d - 1] * CALLEES + rnd() % CALLEES];
		if (used + depth > cap) {
			cap = cap * 3 / 2 + depth;
			uint32_t *n = realloc(frames, cap * sizeof(*frames));
			if (!n) {
				fputs("gen-pprof: out of memory\n", stderr);
				return 1;
			}
			frames = n;
		}
		start[i] = used;
		for (uint32_t d = 0; d < depth; d++) {
			/* A caller's location is the call site of its callee
			 * (so a kept prefix keeps its locations); the leaf's is
			 * anywhere in it. */
			uint32_t pc = d + 1 < depth ? (fn[d] * 31 + fn[d + 1]) % PCS : (uint32_t)(rnd() % PCS);
			uint32_t key = fn[d] * PCS + pc;
			if (!loc_of[key]) {
				loc_of[key] = ++nlocs;
				loc_key[nlocs - 1] = key;
			}
			frames[used + d] = loc_of[key];
		}
		used += depth;
		start[i + 1] = used;
	}

	/* Profile fields in Go's order: sample types, samples, mappings,
	 * locations, functions, strings, then the scalars. */
	Perftools__Profiles__ValueType vt = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	vt.type = s_samples;
	vt.unit = s_count;
	put_msg(1, &vt.base);
	vt.type = s_cpu;
	vt.unit = s_ns;
	put_msg(1, &vt.base);

	uint32_t *order = xmalloc(nstacks * sizeof(*order));
	for (uint32_t i = 0; i < nstacks; i++)
		order[i] = i;
	for (uint32_t i = nstacks; i > 1; i--) {
		uint32_t k = (uint32_t)(rnd() % i);
		uint32_t t = order[i - 1];
		order[i - 1] = order[k];
		order[k] = t;
	}
	uint64_t ids[MAXDEPTH];
	int64_t vals[2];
	Perftools__Profiles__Label lbl = PERFTOOLS__PROFILES__LABEL__INIT;
	Perftools__Profiles__Label *lblp = &lbl;
	lbl.key = s_thread;
	Perftools__Profiles__Sample smp = PERFTOOLS__PROFILES__SAMPLE__INIT;
	smp.location_id = ids;
	smp.value = vals;
	smp.n_value = 2;
	smp.label = &lblp;
	smp.n_label = 1;
	for (uint32_t i = 0; i < nstacks; i++) {
		uint32_t s = order[i];
		uint32_t depth = (uint32_t)(start[s + 1] - start[s]);
		for (uint32_t d = 0; d < depth; d++) /* leaf first */
			ids[d] = frames[start[s] + depth - 1 - d];
		smp.n_location_id = depth;
		vals[0] = rnd_in(1, 20);
		vals[1] = vals[0] * 10000000;
		lbl.str = s_threads[rnd() % THREADS];
		put_msg(2, &smp.base);
	}

	Perftools__Profiles__Mapping map = PERFTOOLS__PROFILES__MAPPING__INIT;
	map.id = 1;
	map.memory_start = 0x400000;
	map.memory_limit = 0x400000 + (uint64_t)nfuncs * 0x1000;
	map.filename = add_str("/usr/local/bin/service");
	map.build_id = add_str("4f2a9c3e1b7d5a60");
	map.has_functions = map.has_filenames = map.has_line_numbers = map.has_inline_frames = 1;
	put_msg(3, &map.base);

	Perftools__Profiles__Line lines[3], *linep[3] = {&lines[0], &lines[1], &lines[2]};
	for (int k = 0; k < 3; k++)
		perftools__profiles__line__init(&lines[k]);
	Perftools__Profiles__Location loc = PERFTOOLS__PROFILES__LOCATION__INIT;
	loc.mapping_id = 1;
	loc.line = linep;
	for (uint32_t l = 0; l < nlocs; l++) {
		uint32_t key = loc_key[l], f = key / PCS, pc = key % PCS;
		loc.id = l + 1;
		loc.address = 0x400000 + (uint64_t)f * 0x1000 + pc * 0x10 + 5;
		/* the function's own line is the last (outermost); inlined
		 * callees come before it */
		uint32_t ninl = rnd() % 10 == 0 ? rnd_in(1, 2) : 0;
		for (uint32_t k = 0; k < ninl; k++) {
			lines[k].function_id = (rnd() % nfuncs) + 1;
			lines[k].line = rnd_in(10, 400);
		}
		lines[ninl].function_id = f + 1;
		lines[ninl].line = 20 + pc * 3;
		loc.n_line = ninl + 1;
		put_msg(4, &loc.base);
	}

	Perftools__Profiles__Function fun = PERFTOOLS__PROFILES__FUNCTION__INIT;
	for (uint32_t i = 0; i < nfuncs; i++) {
		fun.id = i + 1;
		fun.name = fun.system_name = fname[i];
		fun.filename = ffile[i];
		fun.start_line = 18;
		put_msg(5, &fun.base);
	}

	for (size_t i = 0; i < nstrs; i++) {
		size_t n = strlen(strs[i]);
		put_varint(6 << 3 | 2);
		put_varint(n);
		fwrite(strs[i], 1, n, stdout);
	}
	put_int(9, 1700000000000000000ull);
	put_int(10, 60000000000ull);
	vt.type = s_cpu;
	vt.unit = s_ns;
	put_msg(11, &vt.base);
	put_int(12, 10000000);

	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("gen-pprof: write");
		return 1;
	}
	fprintf(stderr, "gen-pprof: %u stacks, %u locations, %u functions, %llu frames\n", nstacks,
		nlocs, nfuncs, (unsigned long long)used);
	return 0;
}
