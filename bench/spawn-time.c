/*
 * spawn-time: one command's own wall time, CPU time and peak memory.
 *
 *	spawn-time OUT CMD [ARG...]
 *
 * Starts CMD (found in PATH) with the standard streams it was given,
 * waits for it, and writes one line to OUT: the seconds from just before
 * the start to just after the end (CLOCK_MONOTONIC), the peak resident
 * memory in KiB and the user + system CPU seconds (wait4()'s rusage, what
 * GNU time's %M %U %S report).  Exits with CMD's status (128 + a signal's
 * number).  What is timed is CMD's process from its exec to its exit, as
 * hyperfine -N times it: not the shell, /usr/bin/time or the fork of the
 * script that started them.  bench/run builds it; by hand:
 *	cc -O2 -o spawn-time bench/spawn-time.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

static double secs(const struct timespec *t)
{
	return (double)t->tv_sec + (double)t->tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	pid_t pid;
	int st, rc;
	FILE *out;

	if (argc < 3) {
		fputs("usage: spawn-time OUT CMD [ARG...]\n", stderr);
		return 2;
	}
	if (!(out = fopen(argv[1], "w"))) {
		fprintf(stderr, "spawn-time: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = posix_spawnp(&pid, argv[2], NULL, NULL, argv + 2, environ);
	if (rc != 0) {
		fprintf(stderr, "spawn-time: %s: %s\n", argv[2], strerror(rc));
		return 127;
	}
	while (wait4(pid, &st, 0, &ru) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "spawn-time: wait4: %s\n", strerror(errno));
			return 2;
		}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(out, "%.6f %ld %.3f\n", secs(&t1) - secs(&t0), ru.ru_maxrss,
		(double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
			(double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
	if (fclose(out) != 0) {
		fprintf(stderr, "spawn-time: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}
