/* SPDX-License-Identifier: MIT */
/*
 * timeit RUNS CMD [ARGS...]: runs CMD RUNS times with its output discarded
 * and prints the median wall-clock time of one run in microseconds. For the
 * benchmark inside the test VM, whose busybox cannot time below 10 ms.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int cmp(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int runs = argc > 2 ? atoi(argv[1]) : 0;
	long *us;

	if (runs < 1) {
		fprintf(stderr, "usage: timeit RUNS CMD [ARGS...]\n");
		return 2;
	}
	us = calloc((size_t)runs, sizeof(*us));
	for (int i = 0; i < runs; i++) {
		struct timespec t0, t1;
		int st;
		pid_t pid;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		pid = fork();
		if (pid == 0) {
			int null = open("/dev/null", O_WRONLY);

			dup2(null, 1);
			dup2(null, 2);
			execvp(argv[2], argv + 2);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &st, 0) != pid) {
			perror("timeit");
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		us[i] = (t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_nsec - t0.tv_nsec) / 1000;
	}
	qsort(us, (size_t)runs, sizeof(*us), cmp);
	printf("%ld\n", us[runs / 2]);
	free(us);
	return 0;
}
