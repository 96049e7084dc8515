/* SPDX-License-Identifier: MIT */
/* For harnesses whose parser reads a file: the input is written to one per process, removed at exit. */
#ifndef DLHAL_FUZZ_INPUT_FILE_H
#define DLHAL_FUZZ_INPUT_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char input_path[64];

static void input_file_remove(void)
{
	unlink(input_path);
}

/* Names the file (/tmp/dlhal-fuzz-@what-PID@suffix); call once, from LLVMFuzzerInitialize. */
static inline void input_file_init(const char *what, const char *suffix)
{
	snprintf(input_path, sizeof(input_path), "/tmp/dlhal-fuzz-%s-%d%s", what, (int)getpid(), suffix);
	atexit(input_file_remove);
}

/* Writes this run's input to the file; returns its path. */
static inline const char *input_file_write(const uint8_t *data, size_t size)
{
	FILE *f = fopen(input_path, "w");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	return input_path;
}

#endif
