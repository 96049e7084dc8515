/* SPDX-License-Identifier: MIT */
/* Log lines with levels: to stderr in the foreground, else to syslog. */
#include "dlhald.h"

#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>

static bool to_stderr = true;
static int max_level = LOG_INFO;

void log_init(bool foreground, int verbosity)
{
	to_stderr = foreground;
	max_level = verbosity > 0 ? LOG_DEBUG : LOG_INFO;
	if (!foreground)
		openlog("dlhald", LOG_PID, LOG_DAEMON);
}

static void vlog_line(int level, const char *fmt, va_list ap)
{
	static const char *const names[] = {"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug"};

	if (level > max_level)
		return;
	if (to_stderr) {
		fprintf(stderr, "dlhald: %s: ", names[level & 7]);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	} else {
		vsyslog(level, fmt, ap);
	}
}

void dlhald_log(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog_line(level, fmt, ap);
	va_end(ap);
}

void dlhald_log_driver(void *arg, enum dlh_log_level level, const struct dlh_dev *dev, const char *msg)
{
	(void)arg;
	/* dlhal's levels are syslog's. */
	dlhald_log((int)level, "%s%s%s", dev ? dlh_dev_handle(dev) : "", dev ? ": " : "", msg);
}
