/* SPDX-License-Identifier: MIT */
/*
 * timeit RUNS CMD_A [ARGS...] ::: CMD_B [ARGS...]: runs A and B alternately,
 * RUNS times each, output discarded, and prints the median wall-clock time of
 * one run of each in microseconds ("A B"). Alternating keeps slow drift of
 * an emulated machine from favouring either. For the benchmark in the test
 * VM, whose busybox cannot time below 10 ms.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int cmp(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

static long run(char **argv)
{
	struct timespec t0, t1;
	int st;
	pid_t pid;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid) {
		perror("timeit");
		exit(1);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_nsec - t0.tv_nsec) / 1000;
}

int main(int argc, char **argv)
{
	int runs = argc > 4 ? atoi(argv[1]) : 0, sep = 0;
	long *a, *b;

	for (int i = 2; i < argc; i++)
		if (!strcmp(argv[i], ":::"))
			sep = i;
	if (runs < 1 || sep < 3 || sep == argc - 1) {
		fprintf(stderr, "usage: timeit RUNS CMD_A [ARGS...] ::: CMD_B [ARGS...]\n");
		return 2;
	}
	argv[sep] = NULL;
	a = calloc((size_t)runs, sizeof(*a));
	b = calloc((size_t)runs, sizeof(*b));
	for (int i = 0; i < runs; i++) {
		a[i] = run(argv + 2);
		b[i] = run(argv + sep + 1);
	}
	qsort(a, (size_t)runs, sizeof(*a), cmp);
	qsort(b, (size_t)runs, sizeof(*b), cmp);
	printf("%ld %ld\n", a[runs / 2], b[runs / 2]);
	free(a);
	free(b);
	return 0;
}
