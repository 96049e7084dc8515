/* SPDX-License-Identifier: MIT */
/*
 * dl: the devlink tool of the Linux 4.6 merge (seed 001), on dlhal.
 * Syntax and output follow the seed; options and JSON follow iproute2's
 * devlink where the two overlap.
 */
#include "dl.h"
#include "host.h"
#include "ice.h"
#include "mlx5.h"
#include "kernel.h"
#include "mlx4.h"
#include "mlxsw.h"

#include <dlhal/protocol.h>
#include <dlhal/sdk.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OPT_SIM = 256, OPT_KERNEL };

/* The options, once: getopt's table, the usage's OPTIONS line and its help are made from it. */
static const struct dl_option {
	int val; /* the short option, or OPT_* for a long one alone */
	const char *name;
	const char *arg; /* NULL: takes none */
	const char *help;
} dl_options[] = {
    {'v', "verbose", NULL, "echo batch commands, show driver log lines"},
    {'d', "details", NULL, "more port and device attributes"},
    {'j', "json", NULL, "JSON output, one document a command"},
    {'p', "pretty", NULL, "indented JSON"},
    {'f', "force", NULL, "go on after a failed batch line"},
    {'b', "batch", "FILE", "one command a line of FILE (- for standard input)"},
    {'s', "socket", "PATH", "a dlhald's devices (the default when " DLHAL_SOCKET_DEFAULT " exists)"},
    {OPT_KERNEL, "kernel", NULL, "the kernel's devlink family (the default when it exists)"},
    {OPT_SIM, "sim", "PROFILE[,PROFILE...]", "emulated devices in this process: a built-in profile or a file"},
    {'V', "version", NULL, "print the version"},
    {'h', "help", NULL, "this text"},
};

/* The objects, once: dispatch, --help and the usage's OBJECT line. */
static const struct dl_object {
	const char *name;
	int (*cmd)(struct dl *dl);
	void (*usage)(FILE *f);
} dl_objects[] = {
    {"dev", cmd_dev, dev_usage}, {"port", cmd_port, port_usage},    {"monitor", cmd_monitor, monitor_usage},
    {"sim", cmd_sim, sim_usage}, {"apply", cmd_apply, apply_usage}, {"panel", cmd_panel, panel_usage},
};

#define DL_N(a) (sizeof(a) / sizeof((a)[0]))

/* "-b/--batch FILE", "--kernel": an option as the usage writes it. */
static void option_word(const struct dl_option *o, char *word, size_t len)
{
	if (o->val < 256)
		snprintf(word, len, "-%c/--%s%s%s", o->val, o->name, o->arg ? " " : "", o->arg ? o->arg : "");
	else
		snprintf(word, len, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: dl [ OPTIONS ] OBJECT { COMMAND | help }\n"
		   "       dl [ OPTIONS ] -b/--batch FILE\n"
		   "where  OBJECT := {");
	for (size_t i = 0; i < DL_N(dl_objects); i++)
		fprintf(f, "%s %s", i ? " |" : "", dl_objects[i].name);
	fprintf(f, " }\n       OPTIONS := {");
	/* wrapped within 80 columns, the continuation under the first option */
	for (size_t i = 0, col = 19; i < DL_N(dl_options); i++) {
		const struct dl_option *o = &dl_options[i];
		char word[64];

		option_word(o, word, sizeof(word));
		if (i && col + strlen(word) + 5 > 78) {
			fprintf(f, " |\n                   ");
			col = 19;
		} else if (i) {
			fprintf(f, " |");
			col += 2;
		}
		fprintf(f, " %s", word);
		col += strlen(word) + 1;
	}
	fprintf(f, " }\n");
	for (size_t i = 0; i < DL_N(dl_options); i++) {
		const struct dl_option *o = &dl_options[i];
		char word[64];

		option_word(o, word, sizeof(word));
		fprintf(f, "  %-30s %s\n", word, o->help);
	}
	fprintf(f, "Built-in profiles for --sim: ");
	for (const char *const *p = dlh_sim_profiles(); *p; p++)
		fprintf(f, "%s%s", p == dlh_sim_profiles() ? "" : ", ", *p);
	fprintf(f, "\n\"dl OBJECT help\" (or --help anywhere after OBJECT) gives an object's commands.\n");
}

const char *dl_arg(struct dl *dl)
{
	return dl->argc > 0 ? dl->argv[0] : NULL;
}

const char *dl_shift(struct dl *dl)
{
	if (dl->argc <= 0)
		return NULL;
	dl->argc--;
	return *dl->argv++;
}

/* iproute2's matches(): a non-empty prefix of the command. */
bool dl_match(const char *word, const char *cmd)
{
	size_t n = strlen(word);

	return n && n <= strlen(cmd) && !strncmp(cmd, word, n);
}

int dl_usage_err(void (*usage_fn)(FILE *), const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (usage_fn)
		usage_fn(stderr);
	return DL_EUSAGE;
}

/* As iproute2 prints a kernel error: the extack message, then the errno text. */
int dl_op_err(int err, const struct dlh_extack *ext)
{
	char buf[DLH_EXTACK_MSG_MAX + DLH_HANDLE_MAX + 4];
	size_t n;

	/* No message (the kernel often sends none): only the errno line, as iproute2. */
	dlh_extack_str(ext, buf, sizeof(buf));
	n = strlen(buf);
	if (ext && ext->msg[0])
		fprintf(stderr, "Error: %s%s\n", buf, buf[n - 1] == '.' ? "" : ".");
	fprintf(stderr, "dl answers: %s\n", strerror(-err));
	return DL_EOP;
}

/*
 * An operation's outcome: its error as dl_op_err() prints it, or, for a
 * success that came with a message (a staged driver's "Reboot required to
 * finish port split"), that message as iproute2 prints a kernel's extack on
 * success: "Warning: ...", exit 0.
 */
int dl_op_done(int err, const struct dlh_extack *ext)
{
	char buf[DLH_EXTACK_MSG_MAX + DLH_HANDLE_MAX + 4];
	size_t n;

	if (err)
		return dl_op_err(err, ext);
	if (ext && ext->msg[0]) {
		dlh_extack_str(ext, buf, sizeof(buf));
		n = strlen(buf);
		fprintf(stderr, "Warning: %s%s\n", buf, buf[n - 1] == '.' ? "" : ".");
	}
	return DL_OK;
}

/* A change's end: as dl_op_done(), and exit 4 when a kernel device did otherwise than planned. */
int dl_change_done(struct dl *dl, unsigned long misses_before, int err, const struct dlh_extack *ext)
{
	int ret = dl_op_done(err, ext);

	return ret == DL_OK && dlh_ctx_plan_misses(dl->ctx) != misses_before ? DL_EMISS : ret;
}

/* A handle that is malformed or names nothing is a usage error. */
int dl_lookup_err(int err, const struct dlh_extack *ext, void (*usage_fn)(FILE *))
{
	char buf[DLH_EXTACK_MSG_MAX + DLH_HANDLE_MAX + 4];

	(void)err;
	return dl_usage_err(usage_fn, "%s", dlh_extack_str(ext, buf, sizeof(buf)));
}

static void log_line(void *arg, enum dlh_log_level level, const struct dlh_dev *dev, const char *msg)
{
	struct dl *dl = arg;

	if (dl->verbose || level <= DLH_LOG_ERR)
		fprintf(stderr, "%s%s%s\n", dev ? dlh_dev_handle(dev) : "", dev ? ": " : "", msg);
}

static void backends_usage(const struct dlh_extack *ext)
{
	fprintf(stderr,
		"dl: no devices to work on: %s.\n"
		"Backends:\n"
		"  -s PATH                     a dlhald's devices (the default when " DLHAL_SOCKET_DEFAULT " exists)\n"
		"  --kernel                    the kernel's devlink family (the default when it exists)\n"
		"  --sim PROFILE[,PROFILE...]  emulated devices in this process (try: dl --sim sn2700 port)\n",
		ext->msg);
}

#ifdef DL_TWIN
/*
 * This dl is linked statically: it starts with no dynamic loader, which is
 * most of what a short command costs (docs/benchmarks.md). A driver module
 * binds to its host's dlh_ symbols, which a static program cannot offer, so
 * the same dl linked dynamically runs the command instead: dl-dynamic next
 * to this file (a build tree), else DL_TWIN_REL from this file's directory
 * (an install, wherever it was moved), else DL_TWIN. Only before the
 * command has done anything (modules load while the context is made); after
 * that, an error.
 */
static char **dl_argv_all;
static bool dl_acted;

static int module_load_twin(const char *path, struct dlh_extack *ext)
{
	char self[PATH_MAX], twin[PATH_MAX + sizeof(DL_TWIN_REL) + 16];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (dl_acted)
		return dlh_sdk_extack(ext, -ENOEXEC, "%s: run %s to load modules in a batch", path, DL_TWIN);
	fflush(NULL);
	if (n > 0) {
		const char *dir;

		self[n] = '\0';
		dir = dirname(self);
		snprintf(twin, sizeof(twin), "%s/dl-dynamic", dir);
		if (!access(twin, X_OK))
			execv(twin, dl_argv_all);
		snprintf(twin, sizeof(twin), "%s/%s", dir, DL_TWIN_REL);
		if (!access(twin, X_OK))
			execv(twin, dl_argv_all);
	}
	execv(DL_TWIN, dl_argv_all);
	return dlh_sdk_extack(ext, -ENOEXEC, "%s needs %s, which cannot run: %s", path, DL_TWIN, strerror(errno));
}
#endif

/* The context, created on first use so that help and usage errors need no backend. */
static int ctx_make(struct dl *dl, struct dlh_ctx **out)
{
	const struct dlh_backends b = {
	    .socket = dl->socket, .kernel = dl->kernel, .kernel_scope = dl->kernel_scope, .sim = dl->sim};
	struct dlh_backends_failure failed;
	struct dlh_extack ext;
	int err;

	if (dl->ctx) {
		*out = dl->ctx;
		return 0;
	}
	if (dlh_ctx_new(&dl->ctx, &ext))
		return dl_op_err(-ENOMEM, &ext);
	dlh_ctx_log_set(dl->ctx, log_line, dl);
	if (dlh_sdk_driver_register(dl->ctx, &mlxsw_driver, &ext) ||
	    dlh_sdk_driver_register(dl->ctx, &mlx4_driver, &ext) ||
	    dlh_sdk_driver_register(dl->ctx, &ice_driver, &ext) ||
	    dlh_sdk_driver_register(dl->ctx, &mlx5_driver, &ext) ||
	    dlh_sdk_driver_register(dl->ctx, &kernel_driver, &ext) ||
	    dlh_sdk_driver_register(dl->ctx, &daemon_driver, &ext))
		return dl_op_err(-EINVAL, &ext);
	if (dl->sim && strlen(dl->sim) >= 1024)
		return dl_usage_err(NULL, "--sim: profile list is longer than %d characters", 1023);
	err = dlh_ctx_backends_attach(dl->ctx, &b, &failed, &ext);
	if (!err) {
		*out = dl->ctx;
		return 0;
	}
	/* two backends serve one device handle: the options the user gave do not go together */
	if (err == -EEXIST && !failed.profile[0]) {
		fprintf(stderr, "dl: %s.\n", ext.msg);
		return DL_EUSAGE;
	}
	switch (failed.backend) {
	case DLH_BACKEND_DAEMON:
		fprintf(stderr, "dl: %s.\n", ext.msg);
		return DL_EUSAGE;
	case DLH_BACKEND_KERNEL:
		if (err != -EPROTONOSUPPORT)
			return dl_op_err(err, &ext);
		if (failed.asked)
			fprintf(stderr, "dl --kernel: %s.\n", ext.msg);
		else
			backends_usage(&ext);
		return DL_EUSAGE;
	default:
		fprintf(stderr, "--sim %s: ", failed.profile);
		return err == -ENOENT || err == -EINVAL ? dl_lookup_err(err, &ext, NULL) : dl_op_err(err, &ext);
	}
}

/*
 * The context; a backend that cannot be had fails this command and every
 * later one of a batch with the same message (the context is not kept).
 */
int dl_ctx(struct dl *dl, struct dlh_ctx **out)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *err, *saved = stderr;
	int ret;

	if (dl->ctx_ret) {
		fputs(dl->ctx_err, stderr);
		return dl->ctx_ret;
	}
	if (dl->ctx) {
		*out = dl->ctx;
		return 0;
	}
	/* what the attempt says goes to stderr as ever, and is kept for the lines after it */
	err = open_memstream(&buf, &len);
	if (err)
		stderr = err;
	ret = ctx_make(dl, out);
	if (err) {
		stderr = saved;
		fclose(err);
		fputs(buf, stderr);
	}
	if (ret) {
		snprintf(dl->ctx_err, sizeof(dl->ctx_err), "%s", buf ? buf : "dl: no backend\n");
		dl->ctx_ret = ret;
		dl->closing = true; /* the devices going away are not events to print */
		dlh_ctx_free(dl->ctx);
		dl->ctx = NULL;
		dl->closing = false;
	}
	free(buf);
	return ret;
}

static int dl_cmd(struct dl *dl)
{
	const char *obj = dl_shift(dl);
	const struct dl_object *o = NULL;

	if (!obj || dl_match(obj, "help")) {
		usage(obj ? stdout : stderr);
		return obj ? DL_OK : DL_EUSAGE;
	}
	/* a prefix takes the first object it matches, in the table's order, as in iproute2 */
	for (size_t i = 0; i < DL_N(dl_objects) && !o; i++)
		if (dl_match(obj, dl_objects[i].name))
			o = &dl_objects[i];
	if (!o)
		return dl_usage_err(NULL, "Object \"%s\" not found, try \"dl help\"", obj);
	/* --help anywhere after the object: that object's usage, whatever else the line says */
	for (int i = 0; i < dl->argc; i++)
		if (!strcmp(dl->argv[i], "--help")) {
			o->usage(stdout);
			return DL_OK;
		}
	return o->cmd(dl);
}

/* Splits a batch line into words: blanks separate, quotes group, '#' starts a comment. */
static int makeargs(char *line, char **argv, int max)
{
	int argc = 0;
	char *p = line;

	for (;;) {
		char *w;

		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p || *p == '#')
			return argc;
		if (argc == max)
			return -E2BIG;
		if (*p == '"' || *p == '\'') {
			char q = *p++;

			w = p;
			while (*p && *p != q)
				p++;
			if (!*p)
				return -EINVAL;
		} else {
			w = p;
			while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
				p++;
		}
		argv[argc++] = w;
		if (*p)
			*p++ = '\0';
	}
}

static int batch(struct dl *dl)
{
	FILE *f = strcmp(dl->batch, "-") ? fopen(dl->batch, "r") : stdin;
	const char *name = f == stdin ? "stdin" : dl->batch;
	char *line = NULL, *argv[64];
	size_t cap = 0;
	int lineno = 0, ret = DL_OK;

	dl->in_batch = true;
	if (!f) {
		fprintf(stderr, "Cannot open file \"%s\" for batch: %s\n", dl->batch, strerror(errno));
		return DL_EUSAGE;
	}
	/* Emulated devices are made before the first line runs: a profile's driver module then loads
	 * before anything was printed or changed (see module_load_twin). */
	if (dl->sim) {
		struct dlh_ctx *ctx;

		ret = dl_ctx(dl, &ctx);
		if (ret) {
			if (f != stdin)
				fclose(f);
			return ret;
		}
	}
#ifdef DL_TWIN
	dl_acted = true;
#endif
	while (getline(&line, &cap, f) >= 0) {
		int argc, err;

		lineno++;
		/* a UTF-8 byte order mark, which an editor may put first (desired files accept one too) */
		if (lineno == 1 && !strncmp(line, "\xef\xbb\xbf", 3))
			memmove(line, line + 3, strlen(line + 3) + 1);
		argc = makeargs(line, argv, (int)(sizeof(argv) / sizeof(argv[0])));
		if (argc == 0)
			continue;
		if (argc < 0) {
			fprintf(stderr, "%s:%d: %s\n", name, lineno,
				argc == -E2BIG ? "too many words" : "unterminated quote");
			err = DL_EUSAGE;
		} else {
			if (dl->verbose) {
				printf("$ dl");
				for (int i = 0; i < argc; i++)
					printf(" %s", argv[i]);
				printf("\n");
			}
			dl->argc = argc;
			dl->argv = argv;
			fflush(stdout);
			err = dl_cmd(dl);
		}
		fflush(stdout);
		if (err) {
			fprintf(stderr, "Command failed %s:%d\n", name, lineno);
			if (ret == DL_OK || err == DL_EUSAGE)
				ret = err;
			if (!dl->force)
				break;
		}
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return ret;
}

int main(int argc, char **argv)
{
	struct option opts[DL_N(dl_options) + 1] = {{0}};
	char shorts[2 * DL_N(dl_options) + 2] = "+"; /* "+": stop at the first non-option ("split eth0 -1") */
	struct dl dl = {0};
	int opt, ret;

	for (size_t i = 0, n = 1; i < DL_N(dl_options); i++) {
		opts[i] = (struct option){dl_options[i].name, dl_options[i].arg ? required_argument : no_argument, NULL,
					  dl_options[i].val};
		if (dl_options[i].val < 256) {
			shorts[n++] = (char)dl_options[i].val;
			if (dl_options[i].arg)
				shorts[n++] = ':';
		}
	}
	while ((opt = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
		switch (opt) {
		case 'v':
			dl.verbose = true;
			break;
		case 'd':
			dl.details = true;
			break;
		case 'j':
			dl.json = true;
			break;
		case 'p':
			dl.pretty = true;
			break;
		case 'f':
			dl.force = true;
			break;
		case 'b':
			dl.batch = optarg;
			break;
		case 'V':
			printf("dl utility, dlhal-%s\n", DLH_VERSION);
			return DL_OK;
		case 'h':
			usage(stdout);
			return DL_OK;
		case OPT_SIM:
			dl.sim = optarg;
			break;
		case OPT_KERNEL:
			dl.kernel = true;
			break;
		case 's':
			dl.socket = optarg;
			break;
		default:
			usage(stderr);
			return DL_EUSAGE;
		}
	}
	dl.argc = argc - optind;
	dl.argv = argv + optind;
#ifdef DL_TWIN
	dl_argv_all = argv;
	dlh__module_load_hook = module_load_twin;
#endif
	if (dl.batch) {
		if (dl.argc)
			ret = dl_usage_err(usage, "Unexpected argument \"%s\" with --batch", dl.argv[0]);
		else
			ret = batch(&dl);
	} else {
		ret = dl_cmd(&dl);
	}
	jsonw_free(&dl.jw);
	dl.closing = true;
	dlh_ctx_free(dl.ctx);
	return ret;
}
