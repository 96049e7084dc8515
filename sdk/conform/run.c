/* SPDX-License-Identifier: MIT */
/* Reporting: one line a check (TAP or Criterion-like), its diagnostics under it, a summary. */
#include "conform.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Enough to show what went wrong; a broken driver would otherwise print a line per port. */
#define KIT_DIAG_MAX 8

void kit_diag(struct kit_run *run, const char *fmt, ...)
{
	char line[1024];
	size_t len;
	va_list ap;

	if (run->ndiag++ >= KIT_DIAG_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	len = strlen(line);
	if (run->dlen + len + 2 > run->dcap) {
		size_t cap = (run->dlen + len + 2) * 2;
		char *d = realloc(run->diag, cap);

		if (!d)
			return;
		run->diag = d;
		run->dcap = cap;
	}
	memcpy(run->diag + run->dlen, line, len);
	run->dlen += len;
	run->diag[run->dlen++] = '\n';
	run->diag[run->dlen] = '\0';
}

static void diag_print(FILE *out, const char *prefix, const char *d)
{
	while (*d) {
		size_t n = strcspn(d, "\n");

		fputs(prefix, out);
		fwrite(d, 1, n, out);
		fputc('\n', out);
		d += n + (d[n] == '\n');
	}
}

/* Ends the check in progress: passed unless it left a diagnostic, or skipped for @skip. */
void kit_report(struct kit_run *run, const char *name, const char *skip)
{
	int failed = run->ndiag > 0;
	const char *d = run->diag && run->dlen ? run->diag : "";

	run->n++;
	if (skip)
		run->res.skipped++;
	else if (failed)
		run->res.failed++;
	else
		run->res.passed++;
	if (run->format == DLH_CONFORM_TAP) {
		if (skip)
			fprintf(run->out, "ok %u - %s # SKIP %s\n", run->n, name, skip);
		else
			fprintf(run->out, "%s %u - %s\n", failed ? "not ok" : "ok", run->n, name);
		diag_print(run->out, "# ", d);
	} else {
		fprintf(run->out, "[%s] conform::%s%s%s\n",
			skip	 ? "SKIP"
			: failed ? "FAIL"
				 : "PASS",
			name, skip ? ": " : "", skip ? skip : "");
		diag_print(run->out, "[----]   ", d);
	}
	if (run->ndiag > KIT_DIAG_MAX)
		fprintf(run->out, "%s(%u more)\n", run->format == DLH_CONFORM_TAP ? "# " : "[----]   ",
			run->ndiag - KIT_DIAG_MAX);
	fflush(run->out);
	run->dlen = 0;
	run->ndiag = 0;
	if (run->diag)
		run->diag[0] = '\0';
}

DLH_EXPORT int dlh_conform_run(const struct dlh_conform_opts *opts, struct dlh_conform_result *res,
			       struct dlh_extack *ext)
{
	struct kit_run run = {.out = opts->out ? opts->out : stdout, .format = opts->format};
	struct kit_target t;
	int err;

	if (ext)
		ext->msg[0] = ext->obj[0] = '\0';
	if (opts->kernel_dev) {
		err = kit_kernel_run(&run, opts, ext);
		free(run.diag);
		if (err)
			return err;
		goto summary;
	}
	if (!opts->profile)
		return dlh_extack_set(ext, -EINVAL, NULL, "No profile given");
	err = kit_target_open(&t, opts, NULL, ext);
	if (err)
		return err;
	if (run.format == DLH_CONFORM_TAP)
		fprintf(run.out, "TAP version 13\n# %s (%s) on %s, %s\n", opts->profile,
			opts->module ? opts->module : "", dlh_dev_handle(t.dev),
			opts->dlhald ? "through dlhald" : "in process");
	kit_checks_run(&run, &t);
	kit_target_close(&t);
	free(run.diag);
summary:
	if (run.format == DLH_CONFORM_TAP)
		fprintf(run.out, "1..%u\n# passed %u, failed %u, skipped %u\n", run.n, run.res.passed, run.res.failed,
			run.res.skipped);
	else
		fprintf(run.out, "[====] Synthesis: Tested: %u | Passing: %u | Failing: %u | Skipped: %u\n", run.n,
			run.res.passed, run.res.failed, run.res.skipped);
	if (res)
		*res = run.res;
	return run.res.failed ? 1 : 0;
}
