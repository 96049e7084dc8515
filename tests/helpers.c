/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include "ice.h"
#include "mlx5.h"
#include "mlx4.h"
#include "mlxsw.h"

#include <criterion/criterion.h>
#include <dlhal/sdk.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void append(char **buf, size_t *len, size_t *cap, const char *data, size_t n)
{
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*buf = realloc(*buf, *cap);
		cr_assert_not_null(*buf);
	}
	memcpy(*buf + *len, data, n);
	*len += n;
	(*buf)[*len] = '\0';
}

void run_argv(struct run_result *r, const char *const *argv, const char *input)
{
	int in[2], out[2], err[2], st;
	size_t olen = 0, ocap = 0, elen = 0, ecap = 0, ilen = input ? strlen(input) : 0, ioff = 0;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	cr_assert(!pipe(in) && !pipe(out) && !pipe(err));
	pid = fork();
	cr_assert(pid >= 0);
	if (!pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		close(in[1]);
		close(out[0]);
		close(err[0]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	close(err[1]);
	signal(SIGPIPE, SIG_IGN);
	if (!ilen)
		close(in[1]);
	append(&r->out, &olen, &ocap, "", 0);
	append(&r->err, &elen, &ecap, "", 0);
	for (int open_fds = 2; open_fds;) {
		struct pollfd p[3] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}, {ioff < ilen ? in[1] : -1, POLLOUT, 0}};
		char buf[4096];

		cr_assert(poll(p, 3, 30000) > 0, "child %s timed out", argv[0]);
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP)))
				continue;
			n = read(p[i].fd, buf, sizeof(buf));
			if (n <= 0) {
				close(p[i].fd);
				if (i == 0)
					out[0] = -1;
				else
					err[0] = -1;
				open_fds--;
				continue;
			}
			if (i == 0)
				append(&r->out, &olen, &ocap, buf, (size_t)n);
			else
				append(&r->err, &elen, &ecap, buf, (size_t)n);
		}
		if (p[2].fd >= 0 && (p[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t n = write(in[1], input + ioff, ilen - ioff);

			ioff = n > 0 ? ioff + (size_t)n : ilen;
			if (ioff == ilen)
				close(in[1]);
		}
	}
	cr_assert(waitpid(pid, &st, 0) == pid);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

const char *dl_path(void)
{
	const char *v = getenv("DL_VALGRIND");

	return v && *v ? v : getenv("DL");
}

void run_dl(struct run_result *r, const char *args, const char *input)
{
	const char *dl = dl_path();
	char *copy = strdup(args), *save = NULL;
	const char *argv[64];
	int argc = 0;

	cr_assert_not_null(dl, "DL must name the dl binary");
	argv[argc++] = dl;
	for (char *w = strtok_r(copy, " ", &save); w && argc < 63; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	run_argv(r, argv, input);
	free(copy);
}

void run_free(struct run_result *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

static void rec_fn(const struct dlh_event *ev, void *arg)
{
	struct recorder *rec = arg;
	char line[256];
	int n;

	if (ev->port)
		n = snprintf(line, sizeof(line), "%s,%s %s %s\n", dlh_event_object(ev->type),
			     dlh_event_action(ev->type), dlh_port_handle(ev->port),
			     dlh_port_netdev(ev->port)	? dlh_port_netdev(ev->port)
			     : dlh_port_ibdev(ev->port) ? dlh_port_ibdev(ev->port)
							: dlh_port_type_name(dlh_port_type(ev->port)));
	else
		n = snprintf(line, sizeof(line), "%s,%s %s\n", dlh_event_object(ev->type), dlh_event_action(ev->type),
			     dlh_dev_handle(ev->dev));
	append(&rec->log, &rec->len, &rec->cap, line, (size_t)n);
	rec->count++;
}

void recorder_attach(struct recorder *rec, struct dlh_ctx *ctx)
{
	memset(rec, 0, sizeof(*rec));
	append(&rec->log, &rec->len, &rec->cap, "", 0);
	cr_assert_eq(dlh_ctx_subscribe(ctx, rec_fn, rec, NULL), 0);
}

void recorder_clear(struct recorder *rec)
{
	rec->len = 0;
	rec->count = 0;
	rec->log[0] = '\0';
}

char *model_dump(const struct dlh_ctx *ctx)
{
	char *buf = NULL, line[512];
	size_t len = 0, cap = 0;

	append(&buf, &len, &cap, "", 0);
	for (struct dlh_dev *d = dlh_dev_first(ctx); d; d = dlh_dev_next(d)) {
		for (struct dlh_port *p = dlh_port_first(d); p; p = dlh_port_next(p)) {
			uint32_t module = 0, lane = 0;
			int n;

			dlh_port_module(p, &module, &lane);
			n = snprintf(line, sizeof(line), "%s %s %s %s %s %d %u %u %u %u\n", dlh_port_handle(p),
				     dlh_port_type_name(dlh_port_type(p)), dlh_port_type_name(dlh_port_desired_type(p)),
				     dlh_port_netdev(p) ? dlh_port_netdev(p) : "-",
				     dlh_port_ibdev(p) ? dlh_port_ibdev(p) : "-", dlh_port_is_split(p),
				     dlh_port_split_group(p), dlh_port_lanes(p), module, lane);
			append(&buf, &len, &cap, line, (size_t)n);
		}
	}
	return buf;
}

struct dlh_ctx *ctx_with(const char *profiles)
{
	struct dlh_extack ext;
	struct dlh_ctx *ctx;
	char *copy = strdup(profiles), *save = NULL;

	cr_assert_eq(dlh_ctx_new(&ctx, &ext), 0);
	cr_assert_eq(dlh_sdk_driver_register(ctx, &mlxsw_driver, &ext), 0);
	cr_assert_eq(dlh_sdk_driver_register(ctx, &mlx4_driver, &ext), 0);
	cr_assert_eq(dlh_sdk_driver_register(ctx, &ice_driver, &ext), 0);
	cr_assert_eq(dlh_sdk_driver_register(ctx, &mlx5_driver, &ext), 0);
	for (char *p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save))
		cr_assert_eq(dlh_ctx_sim_load(ctx, p, &ext), 0, "%s: %s", p, ext.msg);
	free(copy);
	return ctx;
}

char *profile_tmp(const char *json)
{
	char *path = strdup("/tmp/dlhal-profile-XXXXXX.json");
	int fd = mkstemps(path, 5);
	size_t len = strlen(json);

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, json, len), (ssize_t)len);
	close(fd);
	return path;
}

pid_t monitor_spawn(const char *const *args, int *out)
{
	const char *argv[16] = {dl_path(), "-v"};
	int o[2], e[2], n = 2;
	char buf[256] = "";
	size_t len = 0;
	pid_t pid;

	for (; *args && n < 14; args++)
		argv[n++] = *args;
	argv[n++] = "monitor";
	argv[n] = NULL;
	cr_assert(!pipe(o) && !pipe(e));
	pid = fork();
	cr_assert(pid >= 0);
	if (!pid) {
		dup2(o[1], 1);
		dup2(e[1], 2);
		close(o[0]);
		close(e[0]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(o[1]);
	close(e[1]);
	/* -v says when the monitor is watching: signal or change things only then. */
	while (!strstr(buf, "watching")) {
		ssize_t r = read(e[0], buf + len, sizeof(buf) - 1 - len);

		cr_assert_gt(r, 0, "monitor did not start: %s", buf);
		len += (size_t)r;
		buf[len] = '\0';
	}
	close(e[0]);
	*out = o[0];
	return pid;
}
