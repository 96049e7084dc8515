/* SPDX-License-Identifier: MIT */
/* mstflint's programs, run and read (mstflint.h). */
#include "mstflint.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define LINE_MAX_LEN 4096

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The child, its exit reaped whatever happens (killed first when it overstays). */
static int reap(pid_t pid, bool kill_it, int *wstatus)
{
	if (kill_it)
		kill(pid, SIGKILL);
	while (waitpid(pid, wstatus, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

/*
 * Whether @name is an executable on PATH (or, with a '/', where it says): looked up before the spawn,
 * since a spawn that cannot exec may report it only as the child's exit 127 (under valgrind, or
 * where posix_spawn is fork and exec).
 */
static bool on_path(const char *name)
{
	const char *path = getenv("PATH"), *s, *e;
	char buf[4096];

	if (strchr(name, '/'))
		return !access(name, X_OK);
	for (s = path ? path : "/usr/bin:/bin"; *s; s = *e ? e + 1 : e) {
		e = strchrnul(s, ':');
		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)(e - s), e > s ? s : ".", name) < (int)sizeof(buf) &&
		    !access(buf, X_OK))
			return true;
	}
	return false;
}

int mlx5_mst_run(const char *const *argv, char *out, size_t cap, size_t *len, int *status, unsigned int timeout_ms,
		 struct dlh_extack *ext)
{
	posix_spawn_file_actions_t fa;
	uint64_t deadline = now_ms() + timeout_ms;
	int fds[2], err, wstatus = 0;
	bool overflow = false, timed_out = false;
	pid_t pid;

	*len = 0;
	out[0] = '\0';
	if (!on_path(argv[0]))
		return dlh_sdk_extack(ext, -ENOENT, "%s not found: install Debian's mstflint package", argv[0]);
	if (pipe2(fds, O_CLOEXEC))
		return dlh_sdk_extack(ext, -errno, "%s: %s", argv[0], strerror(errno));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
	err = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (err) {
		close(fds[0]);
		if (err == ENOENT)
			return dlh_sdk_extack(ext, -ENOENT, "%s not found: install Debian's mstflint package", argv[0]);
		return dlh_sdk_extack(ext, -err, "%s: %s", argv[0], strerror(err));
	}
	for (;;) {
		struct pollfd p = {.fd = fds[0], .events = POLLIN};
		uint64_t t = now_ms();
		char sink[1];
		ssize_t n;
		int r;

		if (t >= deadline) {
			timed_out = true;
			break;
		}
		r = poll(&p, 1, (int)(deadline - t));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			timed_out = r == 0;
			break;
		}
		/* one byte past the cap is enough to know: more output than mstconfig's, the child is killed */
		n = *len == cap - 1 ? read(fds[0], sink, 1) : read(fds[0], out + *len, cap - 1 - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (*len == cap - 1) {
			overflow = true;
			break;
		}
		*len += (size_t)n;
	}
	close(fds[0]);
	out[*len] = '\0';
	err = reap(pid, timed_out || overflow, &wstatus);
	if (err)
		return dlh_sdk_extack(ext, err, "%s: %s", argv[0], strerror(-err));
	if (timed_out)
		return dlh_sdk_extack(ext, -ETIMEDOUT, "%s took more than %u ms: killed", argv[0], timeout_ms);
	if (overflow)
		return dlh_sdk_extack(ext, -EMSGSIZE, "%s wrote more than %zu bytes: not its output", argv[0], cap - 1);
	if (!WIFEXITED(wstatus))
		return dlh_sdk_extack(ext, -EIO, "%s was killed by signal %d", argv[0], WTERMSIG(wstatus));
	*status = WEXITSTATUS(wstatus);
	return 0;
}

/* "IB(1)", "ETH(2)" or a bare "1", "2" (mstconfig prints the number alone when it has no word). */
static int value_parse(const char *tok, size_t n, uint8_t *t)
{
	if (n == 1 && (tok[0] == '1' || tok[0] == '2')) {
		*t = (uint8_t)(tok[0] - '0');
		return 0;
	}
	if (n == 5 && !memcmp(tok, "IB(1)", 5)) {
		*t = MLX5_LINK_TYPE_IB;
		return 0;
	}
	if (n == 6 && !memcmp(tok, "ETH(2)", 6)) {
		*t = MLX5_LINK_TYPE_ETH;
		return 0;
	}
	return -EPROTO;
}

/* The next blank-separated token of [*at, end): its start, *n its length; NULL at the end. */
static const char *token(const char **at, const char *end, size_t *n)
{
	const char *s = *at, *e;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	for (e = s; e < end && *e != ' ' && *e != '\t'; e++)
		;
	*at = e;
	*n = (size_t)(e - s);
	return e > s ? s : NULL;
}

/* One "[*] LINK_TYPE_Pn  V V V" line: the port's values in the columns the heading names. */
static int param_line(const char *s, const char *end, struct mlx5_nv *nv, unsigned int ncols, unsigned int lineno,
		      struct dlh_extack *ext)
{
	static const enum mlx5_nv_which order[3] = {MLX5_NV_DEFAULT, MLX5_NV_CURRENT, MLX5_NV_NEXT};
	enum mlx5_nv_which cols[3];
	unsigned int k = 0, port;
	const char *tok;
	size_t n;

	if (s < end && *s == '*')
		s++;
	tok = token(&s, end, &n);
	if (!tok || n < 12 || memcmp(tok, "LINK_TYPE_P", 11))
		return 0; /* another parameter: not ours to read */
	if (n != 12 || tok[11] < '1' || tok[11] > '0' + MLX5_MAX_PORTS)
		return dlh_sdk_extack(ext, -EPROTO, "mstconfig: line %u: %.*s is no port of a card of %d", lineno,
				      (int)(n > 32 ? 32 : n), tok, MLX5_MAX_PORTS);
	port = (unsigned int)(tok[11] - '1');
	if (port != nv->nports)
		return dlh_sdk_extack(ext, -EPROTO, "mstconfig: line %u: LINK_TYPE_P%u out of order", lineno, port + 1);
	for (unsigned int i = 0; i < 3; i++)
		if (i != 0 || nv->has_default)
			if (i != 1 || nv->has_current)
				cols[k++] = order[i];
	for (unsigned int i = 0; i < ncols; i++) {
		tok = token(&s, end, &n);
		if (!tok || value_parse(tok, n, &nv->link_type[cols[i]][port]))
			return dlh_sdk_extack(ext, -EPROTO,
					      "mstconfig: line %u: LINK_TYPE_P%u: expected %u values, "
					      "each IB(1) or ETH(2)",
					      lineno, port + 1, ncols);
	}
	if (token(&s, end, &n))
		return dlh_sdk_extack(ext, -EPROTO, "mstconfig: line %u: LINK_TYPE_P%u: more than %u values", lineno,
				      port + 1, ncols);
	nv->nports++;
	return 0;
}

int mlx5_nv_parse(const char *out, size_t len, struct mlx5_nv *nv, struct dlh_extack *ext)
{
	const char *s = out, *end = out + len;
	unsigned int lineno = 0, ncols = 0;
	bool table = false;

	memset(nv, 0, sizeof(*nv));
	if (memchr(out, '\0', len))
		return dlh_sdk_extack(ext, -EPROTO, "mstconfig: a NUL in its output");
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s)), *e = nl ? nl : end;
		int err;

		lineno++;
		if (e - s > LINE_MAX_LEN)
			return dlh_sdk_extack(ext, -EPROTO, "mstconfig: line %u is over %d bytes", lineno,
					      LINE_MAX_LEN);
		if (!table && e - s >= 12 && !memcmp(s, "Device type:", 12)) {
			const char *at = s + 12, *tok;
			size_t n;

			tok = token(&at, e, &n);
			if (tok)
				snprintf(nv->device_type, sizeof(nv->device_type), "%.*s", (int)n, tok);
		} else if (e - s >= 15 && !memcmp(s, "Configurations:", 15)) {
			/* the heading names the columns: Default and Current when the firmware gives them */
			const char *h = s + 15;
			size_t hl = (size_t)(e - h);

			/* one device, one table: a second could give the first's ports other columns */
			if (ncols)
				return dlh_sdk_extack(ext, -EPROTO, "mstconfig: line %u: a second configuration table",
						      lineno);
			nv->has_default = memmem(h, hl, "Default", 7) != NULL;
			nv->has_current = memmem(h, hl, "Current", 7) != NULL;
			if (!memmem(h, hl, "Next Boot", 9))
				return dlh_sdk_extack(ext, -EPROTO, "mstconfig: line %u: no Next Boot column", lineno);
			ncols = 1 + nv->has_default + nv->has_current;
			table = true;
		} else if (table && e > s && (*s == ' ' || *s == '*')) {
			err = param_line(s, e, nv, ncols, lineno, ext);
			if (err)
				return err;
		} else if (table) {
			table = false; /* the table ends at its first line that is no parameter's */
		}
		s = nl ? nl + 1 : end;
	}
	if (!ncols)
		return dlh_sdk_extack(ext, -EPROTO, "mstconfig: no configuration table in its output");
	return 0;
}

/* The first "-E- " line of @out, for the message of a failed run; "" when it has none. */
static void error_line(const char *out, char *buf, size_t size)
{
	const char *e = strstr(out, "-E- ");
	size_t n;

	buf[0] = '\0';
	if (!e)
		return;
	e += 4;
	n = strcspn(e, "\n");
	snprintf(buf, size, "%.*s", (int)n, e);
	for (char *c = buf; *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			*c = '?';
}

static int mstconfig(const char *const *argv, char *out, size_t *len, struct dlh_extack *ext)
{
	char why[96];
	int status = 0, err;

	err = mlx5_mst_run(argv, out, MLX5_MST_OUT_MAX, len, &status, MLX5_MST_TIMEOUT_MS, ext);
	if (err)
		return err;
	if (status) {
		error_line(out, why, sizeof(why));
		/* 2: aborted, 3 and up: errors (mlxcfg_status.h) */
		return dlh_sdk_extack(ext, -EIO, "mstconfig -d %s failed (exit %d)%s%s", argv[2], status,
				      why[0] ? ": " : "", why);
	}
	return 0;
}

static bool bdf_valid(const char *bdf)
{
	/* DDDD:BB:SS.F, hex, as lspci -D prints it */
	static const char form[] = "xxxx:xx:xx.x";

	if (!bdf || strlen(bdf) != sizeof(form) - 1)
		return false;
	for (size_t i = 0; form[i]; i++)
		if (form[i] == 'x' ? !strchr("0123456789abcdefABCDEF", bdf[i]) : bdf[i] != form[i])
			return false;
	return true;
}

int mlx5_mst_query(const char *bdf, struct mlx5_nv *nv, struct dlh_extack *ext)
{
	const char *argv[] = {"mstconfig", "-d", bdf, "-e", "q", NULL};
	char *out;
	size_t len;
	int err;

	if (!bdf_valid(bdf))
		return dlh_sdk_extack(ext, -EINVAL, "Not a PCI address: expected DDDD:BB:SS.F");
	out = malloc(MLX5_MST_OUT_MAX);
	if (!out)
		return dlh_sdk_extack(ext, -ENOMEM, "Out of memory");
	err = mstconfig(argv, out, &len, ext);
	if (!err)
		err = mlx5_nv_parse(out, len, nv, ext);
	free(out);
	return err;
}

int mlx5_mst_set(const char *bdf, unsigned int port, enum mlx5_link_type type, struct dlh_extack *ext)
{
	char param[32];
	const char *argv[] = {"mstconfig", "-d", bdf, "-y", "set", param, NULL};
	struct mlx5_nv nv;
	char *out;
	size_t len;
	int err;

	if (!bdf_valid(bdf))
		return dlh_sdk_extack(ext, -EINVAL, "Not a PCI address: expected DDDD:BB:SS.F");
	if (port >= MLX5_MAX_PORTS || (type != MLX5_LINK_TYPE_IB && type != MLX5_LINK_TYPE_ETH))
		return dlh_sdk_extack(ext, -EINVAL, "No such port or type");
	snprintf(param, sizeof(param), "LINK_TYPE_P%u=%d", port + 1, (int)type);
	out = malloc(MLX5_MST_OUT_MAX);
	if (!out)
		return dlh_sdk_extack(ext, -ENOMEM, "Out of memory");
	err = mstconfig(argv, out, &len, ext);
	free(out);
	/* an exit 0 is the program's word; the configuration read back is the card's */
	if (!err)
		err = mlx5_mst_query(bdf, &nv, ext);
	if (!err && (nv.nports <= port || nv.link_type[MLX5_NV_NEXT][port] != type))
		err = dlh_sdk_extack(ext, -EIO,
				     "mstconfig -d %s set LINK_TYPE_P%u: the card's Next Boot value is not "
				     "the one set",
				     bdf, port + 1);
	return err;
}
