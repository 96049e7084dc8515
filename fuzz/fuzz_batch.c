/* SPDX-License-Identifier: MIT */
/* dl's batch files (-b): dl's own main, built as dl_main, on emulated devices. */
#include "input_file.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int dl_main(int argc, char **argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	input_file_init("batch", "");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[] = {"dl", "-f", "--sim", "sn2700,cx3-vpi", "-b", (char *)input_file_write(data, size), NULL};

	optind = 0; /* getopt starts again */
	dl_main(6, argv);
	fflush(stdout);
	return 0;
}
