/* SPDX-License-Identifier: MIT */
/* The desired-state file (libdlhal-desired, libinih): parsed, its steps computed and applied. */
#include <dlhal/desired.h>
#include "input_file.h"
#include "ice.h"
#include "mlx5.h"
#include "mlx4.h"
#include "mlxsw.h"

#include <ctype.h>
#include <dlhal/sdk.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	input_file_init("desired", ".conf");
	return 0;
}

/* @data with each comment line (no NUL, first non-space byte ';' or '#') made empty, its newline kept. */
static size_t strip_comments(const uint8_t *data, size_t size, uint8_t *out)
{
	size_t n = 0;

	for (size_t i = 0; i < size;) {
		const uint8_t *nl = memchr(data + i, '\n', size - i);
		size_t end = nl ? (size_t)(nl - data) : size, j = i;

		while (j < end && isspace(data[j]))
			j++;
		if (j < end && (data[j] == ';' || data[j] == '#') && !memchr(data + i, 0, end - i) &&
		    !(i == 0 && size >= 3 && !memcmp(data, "\xef\xbb\xbf", 3))) {
			i = end;
		} else {
			memcpy(out + n, data + i, end - i);
			n += end - i;
			i = end;
		}
		if (nl) {
			out[n++] = '\n';
			i++;
		}
	}
	return n;
}

/* @data with each line's leading blanks (as the reader skips them: ' ', tab, CR, FF, VT) taken away. */
static size_t strip_indent(const uint8_t *data, size_t size, uint8_t *out)
{
	size_t n = 0;
	bool start = true;

	for (size_t i = 0; i < size; i++) {
		if (start &&
		    (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\f' || data[i] == '\v'))
			continue;
		start = data[i] == '\n';
		out[n++] = data[i];
	}
	return n;
}

/*
 * What a file means does not change without its comment lines, nor without
 * its indentation: the same entries, or the same error.
 */
static void check_means_the_same(const uint8_t *data, size_t size, int err, const struct dlh_desired *d,
				 const char *why, size_t (*strip)(const uint8_t *, size_t, uint8_t *))
{
	uint8_t *plain = malloc(size + 1);
	char why2[1024];
	struct dlh_desired *d2;
	size_t n = dlh_desired_count(d);
	int err2;

	if (!plain)
		abort();
	err2 = dlh_desired_load(input_file_write(plain, strip(data, size, plain)), &d2, why2, sizeof(why2));
	if (err2 != err || (err && strcmp(why, why2)) || (!err && dlh_desired_count(d2) != n))
		abort();
	for (size_t i = 0; !err && i < n; i++)
		if (memcmp(dlh_desired_entry(d, i), dlh_desired_entry(d2, i), sizeof(struct dlh_desired_entry)))
			abort();
	dlh_desired_free(d2);
	free(plain);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = input_file_write(data, size);
	struct dlh_extack ext;
	struct dlh_ctx *ctx;
	struct dlh_desired_plan p;
	struct dlh_desired *d;
	char why[1200];
	int err;

	err = dlh_desired_load(path, &d, why, sizeof(why));

	check_means_the_same(data, size, err, d, why, strip_comments);
	check_means_the_same(data, size, err, d, why, strip_indent);
	if (err)
		return 0;
	if (dlh_ctx_new(&ctx, &ext) || dlh_sdk_driver_register(ctx, &mlxsw_driver, &ext) ||
	    dlh_sdk_driver_register(ctx, &mlx4_driver, &ext) || dlh_sdk_driver_register(ctx, &ice_driver, &ext) ||
	    dlh_sdk_driver_register(ctx, &mlx5_driver, &ext) || dlh_ctx_sim_load(ctx, "sn2700", &ext) ||
	    dlh_ctx_sim_load(ctx, "cx3-vpi", &ext) || dlh_ctx_sim_load(ctx, "e810-cqda2", &ext))
		abort();
	/*
	 * The plan tells the truth about the whole file: a file planned without
	 * refusal, conflict or unmet entry runs without a refusal (the emulators
	 * inject no fault here), and then is met: planned again, nothing to do.
	 */
	if (!dlh_desired_plan(d, ctx, &p, NULL)) {
		bool clean = p.status == DLH_DESIRED_OK && !p.partial;

		for (size_t i = 0; i < p.nsteps; i++)
			clean &= !p.steps[i].staged; /* met only after a reset */
		err = p.status == DLH_DESIRED_CONFLICT || p.status == DLH_DESIRED_REFUSED
			  ? 0
			  : dlh_desired_apply(d, ctx, &p, false, NULL, why, sizeof(why));
		if (clean && err) {
			fprintf(stderr, "planned clean, refused while running: %s\n", why);
			abort();
		}
		dlh_desired_plan_free(&p);
		if (clean && !dlh_desired_plan(d, ctx, &p, NULL)) {
			if (p.nsteps || p.status != DLH_DESIRED_OK) {
				fprintf(stderr, "applied as planned, not met: %zu steps, status %d: %s\n", p.nsteps,
					(int)p.status, p.why);
				abort();
			}
			dlh_desired_plan_free(&p);
		}
	}
	dlh_ctx_free(ctx);
	dlh_desired_free(d);
	return 0;
}
