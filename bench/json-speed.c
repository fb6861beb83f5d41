/*
 * json-speed: how fast common/json.c tokenizes a file.
 *
 *	json-speed FILE [ROUNDS]
 *
 * Prints the best of ROUNDS (default 5) passes in MB/s: one pass walks every
 * token and converts every number with json_int64() (json_double() when it
 * is not an integer), as a reader would.  Build by hand:
 *	cc -O2 -I common bench/json-speed.c common/json.c -o json-speed
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "json.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	FILE *f;
	char *buf;
	long size;
	int rounds = argc > 2 ? atoi(argv[2]) : 5, r;
	double best = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: json-speed FILE [ROUNDS]\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0) {
		perror(argv[1]);
		return 1;
	}
	rewind(f);
	buf = malloc((size_t)size + 1);
	if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
		perror(argv[1]);
		return 1;
	}
	fclose(f);
	for (r = 0; r < rounds; r++) {
		struct json j;
		size_t ntok = 0;
		int64_t sum = 0;
		double t0 = now(), dt;
		int t;

		json_init(&j, buf, (size_t)size, 0);
		while ((t = json_next(&j)) > JSON_END) {
			ntok++;
			if (t == JSON_NUMBER) {
				int64_t v;
				double d;

				if (json_int64(&j, &v))
					sum += v;
				else if (json_double(&j, &d))
					sum += (int64_t)d;
			}
		}
		dt = now() - t0;
		if (t == JSON_ERROR) {
			fprintf(stderr, "json-speed: %s: %s (at byte %zu)\n", argv[1],
				json_error(&j), json_error_offset(&j));
			return 1;
		}
		json_release(&j);
		if (r == 0)
			printf("%zu tokens, number sum %lld\n", ntok, (long long)sum);
		if (best == 0 || dt < best)
			best = dt;
	}
	printf("%.1f MB in %.1f ms: %.0f MB/s\n", (double)size / 1e6, best * 1e3,
	       (double)size / 1e6 / best);
	free(buf);
	return 0;
}
