/* SPDX-License-Identifier: MIT */
/* dl's batch files (-b): dl's own main, built as dl_main, on emulated devices. */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int dl_main(int argc, char **argv);

static char path[64];

static void file_remove(void)
{
	unlink(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(path, sizeof(path), "/tmp/dlhal-fuzz-batch-%d", (int)getpid());
	atexit(file_remove);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[] = {"dl", "-f", "--sim", "sn2700,cx3-vpi", "-b", path, NULL};
	FILE *f = fopen(path, "w");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	optind = 0; /* getopt starts again */
	dl_main(6, argv);
	fflush(stdout);
	return 0;
}
