/* SPDX-License-Identifier: MIT */
/*
 * The device under test: the profile probed in this process, or in a dlhald
 * the kit starts (socket and state file in a private directory) and talks to
 * through the daemon backend, so that the driver runs where it will run.
 */
#include "conform.h"

#include <dlhal/sdk.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void on_event(const struct dlh_event *ev, void *arg)
{
	struct kit_target *t = arg;
	char line[256];

	if (t->nev == t->evcap) {
		size_t cap = t->evcap ? 2 * t->evcap : 64;
		struct kit_event *v = realloc(t->ev, cap * sizeof(*v));

		if (!v)
			return;
		t->ev = v;
		t->evcap = cap;
	}
	t->ev[t->nev].type = ev->type;
	t->ev[t->nev].handle = ev->port ? strdup(dlh_port_handle(ev->port)) : NULL;
	if (ev->port)
		kit_port_line(ev->port, line, sizeof(line));
	t->ev[t->nev].line = ev->port ? strdup(line) : NULL;
	t->nev++;
}

void kit_events_clear(struct kit_target *t)
{
	for (size_t i = 0; i < t->nev; i++) {
		free(t->ev[i].handle);
		free(t->ev[i].line);
	}
	t->nev = 0;
}

struct dlh_port *kit_port(struct kit_target *t, const char *handle)
{
	struct dlh_port *p;

	return dlh_port_lookup(t->ctx, handle, &p, NULL) ? NULL : p;
}

static int can_connect(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0), ok;

	if (fd < 0)
		return 0;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	ok = !connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	return ok;
}

/* dlhald -f -s SOCK --sim PROFILE --state STATE, with the module's directory on the module path. */
/* The last line dlhald logged (its reason to stop), without "dlhald: err: ". */
static void log_last(const struct kit_target *t, char *why, size_t len)
{
	char path[sizeof(t->dir) + 16], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/dlhald.log", t->dir);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		const char *s = strstr(line, ": err: ") ? strstr(line, ": err: ") + 7 : line;

		line[strcspn(line, "\n")] = '\0';
		snprintf(why, len, "%s", s);
	}
	if (f)
		fclose(f);
}

static int daemon_start(struct kit_target *t, struct dlh_extack *ext)
{
	const struct dlh_conform_opts *o = t->opts;
	char modpath[PATH_MAX + 4096] = "";
	const char *env = getenv("DLHAL_MODULE_PATH");
	int st;

	if (o->module) {
		const char *slash = strrchr(o->module, '/');
		char dir[PATH_MAX];

		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - o->module) : 1, slash ? o->module : ".");
		if (!realpath(dir, modpath))
			return dlh_sdk_extack(ext, -errno, "%s: %s", o->module, strerror(errno));
	}
	t->pid = fork();
	if (t->pid < 0)
		return dlh_sdk_extack(ext, -errno, "fork: %s", strerror(errno));
	if (!t->pid) {
		char path[sizeof(modpath) + 8192];
		int null = open("/dev/null", O_WRONLY);

		/* The daemon goes with the kit, even when the kit dies. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		snprintf(path, sizeof(path), "%s%s%s", modpath, env && *modpath ? ":" : "", env ? env : "");
		if (*path)
			setenv("DLHAL_MODULE_PATH", path, 1);
		/* its log goes to the kit's folder: a start that fails is reported with its reason */
		if (!getenv("DLHAL_CONFORM_DAEMON_LOG")) {
			char log[sizeof(t->dir) + 16];
			int lfd;

			snprintf(log, sizeof(log), "%s/dlhald.log", t->dir);
			lfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
			dup2(lfd >= 0 ? lfd : null, 2);
		}
		execl(o->dlhald, o->dlhald, "-f", "-s", t->sock, "--sim", o->profile, "--state", t->state,
		      (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 1000; i++) {
		if (can_connect(t->sock))
			return 0;
		if (waitpid(t->pid, &st, WNOHANG) == t->pid) {
			char why[DLH_EXTACK_MSG_MAX] = "";

			t->pid = 0;
			log_last(t, why, sizeof(why));
			return dlh_sdk_extack(ext, -ECHILD, "%s exited (status %d) before listening%s%s", o->dlhald,
					      WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), why[0] ? ": " : "",
					      why);
		}
		nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
	}
	return dlh_sdk_extack(ext, -ETIMEDOUT, "%s did not listen on %s within 10 s", o->dlhald, t->sock);
}

static void daemon_stop(struct kit_target *t)
{
	if (t->pid <= 0)
		return;
	kill(t->pid, SIGTERM);
	waitpid(t->pid, NULL, 0);
	t->pid = 0;
}

static int ctx_open(struct kit_target *t, const char *states, struct dlh_extack *ext)
{
	const struct dlh_conform_opts *o = t->opts;
	int err = dlh_ctx_new(&t->ctx, ext);

	if (err)
		return err;
	if (o->dlhald)
		err = dlh_ctx_backends_attach(t->ctx, &(struct dlh_backends){.socket = t->sock}, NULL, ext);
	else {
		if (o->module)
			err = dlh_ctx_module_load(t->ctx, o->module, ext);
		if (!err)
			err = dlh_ctx_sim_load_state(t->ctx, o->profile, states, ext);
	}
	if (!err)
		err = dlh_ctx_subscribe(t->ctx, on_event, t, NULL);
	if (!err && !(t->dev = dlh_dev_first(t->ctx)))
		err = dlh_sdk_extack(ext, -ENODEV, "%s: no device", o->profile);
	if (err) {
		dlh_ctx_free(t->ctx);
		t->ctx = NULL;
	}
	return err;
}

/* The kit's own folder and all dlhald left in it (its socket, state, the state's lock, a .tmp). */
static void dir_remove(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		unlinkat(dirfd(d), e->d_name, 0);
	}
	if (d)
		closedir(d);
	rmdir(path);
}

/*
 * A module is found by its driver's name wherever a profile names the
 * driver (dlhald, dl, Lua: NAME.so on the module path); only the kit's
 * --module loads it by its path. So that the verdict is the same in the
 * process and through dlhald, a module not named after its driver is
 * refused in both, saying so.
 */
static int module_named(const struct dlh_conform_opts *o, struct dlh_extack *ext)
{
	const char *base = strrchr(o->module, '/') ? strrchr(o->module, '/') + 1 : o->module;
	size_t n = strlen(base);
	struct dlh_ctx *ctx;
	struct dlh_dev *dev;
	int err;

	if (dlh_ctx_new(&ctx, ext))
		return -ENOMEM;
	err = dlh_ctx_module_load(ctx, o->module, ext);
	if (!err)
		err = dlh_ctx_sim_load(ctx, o->profile, ext);
	dev = err ? NULL : dlh_dev_first(ctx);
	if (dev && (n < 4 || strcmp(base + n - 3, ".so") || strlen(dlh_dev_backend(dev)) != n - 3 ||
		    strncmp(base, dlh_dev_backend(dev), n - 3)))
		err = dlh_sdk_extack(ext, -EINVAL,
				     "%s holds driver \"%s\": dlhald and every profile find a driver's module by its "
				     "name, %s.so: name the file so",
				     o->module, dlh_dev_backend(dev), dlh_dev_backend(dev));
	dlh_ctx_free(ctx);
	return err;
}

int kit_target_open(struct kit_target *t, const struct dlh_conform_opts *opts, const char *states,
		    struct dlh_extack *ext)
{
	int err;

	memset(t, 0, sizeof(*t));
	t->opts = opts;
	if (opts->module && (err = module_named(opts, ext)))
		return err;
	if (opts->dlhald) {
		const char *tmp = getenv("TMPDIR");

		/* $TMPDIR where its path leaves room for the socket's (sun_path), else /tmp */
		if (!tmp || tmp[0] != '/' ||
		    (size_t)snprintf(t->dir, sizeof(t->dir), "%s/dlhal-conform-XXXXXX", tmp) >= sizeof(t->dir))
			snprintf(t->dir, sizeof(t->dir), "/tmp/dlhal-conform-XXXXXX");
		if (!mkdtemp(t->dir))
			return dlh_sdk_extack(ext, -errno, "mkdtemp: %s", strerror(errno));
		snprintf(t->sock, sizeof(t->sock), "%s/dlhald.sock", t->dir);
		snprintf(t->state, sizeof(t->state), "%s/state.json", t->dir);
		err = daemon_start(t, ext);
		if (err) {
			kit_target_close(t);
			return err;
		}
	}
	err = ctx_open(t, states, ext);
	if (err)
		kit_target_close(t);
	return err;
}

void kit_target_close(struct kit_target *t)
{
	dlh_ctx_free(t->ctx);
	t->ctx = NULL;
	t->dev = NULL;
	daemon_stop(t);
	if (t->dir[0]) {
		dir_remove(t->dir);
		t->dir[0] = '\0';
	}
	kit_events_clear(t);
	free(t->ev);
	t->ev = NULL;
	t->evcap = 0;
}

int kit_target_reset(struct kit_target *t, struct dlh_extack *ext)
{
	const struct dlh_conform_opts *o = t->opts;

	kit_target_close(t);
	return kit_target_open(t, o, NULL, ext);
}

int kit_target_restart(struct kit_target *t, struct dlh_extack *ext)
{
	char *state = malloc(1 << 20), *states = NULL;
	int err;

	if (!state)
		return dlh_sdk_extack(ext, -ENOMEM, "Out of memory");
	if (t->opts->dlhald) {
		/* dlhald wrote the state before it acknowledged each change. */
		dlh_ctx_free(t->ctx);
		t->ctx = NULL;
		daemon_stop(t);
		err = daemon_start(t, ext);
		if (!err)
			err = ctx_open(t, NULL, ext);
		free(state);
		return err;
	}
	err = dlh_dev_sim_get(t->dev, NULL, "state", state, 1 << 20, ext);
	if (!err) {
		size_t len = strlen(dlh_dev_handle(t->dev)) + strlen(state) + 16;

		states = malloc(len);
		if (states)
			snprintf(states, len, "{\"%s\": %s}", dlh_dev_handle(t->dev), state);
	}
	free(state);
	if (err || !states) {
		free(states);
		return err ? err : -ENOMEM;
	}
	dlh_ctx_free(t->ctx);
	kit_events_clear(t);
	t->ctx = NULL;
	err = ctx_open(t, states, ext);
	free(states);
	return err;
}
