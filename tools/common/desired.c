/* SPDX-License-Identifier: MIT */
/* Desired state: the file (libinih), the steps to it, applying them. */
#include "desired.h"

#include <errno.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>

/*
 * The file is read by our own reader, a whole line at a time (Debian's
 * libinih reads into a 200-byte buffer and would parse a longer line's tail
 * as a line of its own). The reader also sees the section headers inih
 * passes no handler call for (an empty [Port] or [Match] must not join its
 * neighbours), and ends the stream at the first error so that the error
 * reported is the first one, with its own line and reason.
 */
struct parse {
	struct desired *d;
	FILE *f;
	char *buf; /* getline's */
	size_t cap;
	int line;      /* of the line inih is on */
	int fail_line; /* of the first error of ours; 0: none */
	char why[256];
};

static int fail(struct parse *p, const char *fmt, const char *a, const char *b)
{
	if (!p->fail_line) {
		p->fail_line = p->line;
		snprintf(p->why, sizeof(p->why), fmt, a, b);
	}
	return 0;
}

/* An entry is checked whole when the next [Match] starts or the file ends. */
static void entry_check(struct parse *p, const struct desired_entry *e)
{
	const char *bad = NULL;
	int line = e->match_line;

	if (!e->netdev[0] && (!e->device[0] || !e->number)) {
		bad = "[Match] needs Device= and Number=, or Netdev=";
	} else if (e->netdev[0] && (e->device[0] || e->number)) {
		bad = "[Match] takes Device= and Number=, or Netdev=, not both";
	} else if (!e->split && !e->type) {
		bad = "[Port] says nothing: expected Split= and/or Type=";
		if (e->port_line)
			line = e->port_line;
	}
	if (bad && !p->fail_line) {
		p->fail_line = line;
		snprintf(p->why, sizeof(p->why), "%s", bad);
	}
}

static void section_start(struct parse *p, const char *name, size_t len)
{
	struct desired *d = p->d;
	struct desired_entry *e;
	char shown[64];

	snprintf(shown, sizeof(shown), "%.*s", (int)(len < 48 ? len : 48), name);
	if (len == 5 && !memcmp(name, "Match", 5)) {
		if (d->n)
			entry_check(p, &d->e[d->n - 1]);
		if (p->fail_line)
			return;
		if (d->n == DESIRED_ENTRIES_MAX) {
			fail(p, "more than %s entries%s", "1024", "");
			return;
		}
		e = realloc(d->e, (d->n + 1) * sizeof(*e));
		if (!e) {
			fail(p, "out of memory%s%s", "", "");
			return;
		}
		d->e = e;
		memset(&d->e[d->n++], 0, sizeof(*e));
		d->e[d->n - 1].match_line = p->line;
	} else if (len == 4 && !memcmp(name, "Port", 4)) {
		if (!d->n)
			fail(p, "[Port] before any [Match]%s%s", "", "");
		else if (!d->e[d->n - 1].port_line)
			d->e[d->n - 1].port_line = p->line;
	} else {
		fail(p, "unknown section [%s]%s, expected [Match] or [Port]", shown, "");
	}
}

/*
 * inih's reader: the next line whole, or NULL to end the stream (at the end
 * of the file, or after an error). A comment line is handed on as an empty
 * line, whatever its length; any other line must fit inih's buffer.
 */
static char *reader(char *str, int num, void *stream)
{
	struct parse *p = stream;
	const char *s;
	ssize_t len;

	if (p->fail_line)
		return NULL;
	len = getline(&p->buf, &p->cap, p->f);
	if (len < 0)
		return NULL;
	p->line++;
	if (strlen(p->buf) != (size_t)len) {
		fail(p, "NUL byte in the line%s%s", "", "");
		return NULL;
	}
	for (s = p->buf; *s == ' ' || *s == '\t' || *s == '\r' || *s == '\f' || *s == '\v'; s++)
		;
	/* a UTF-8 byte order mark, which inih skips on the first line */
	if (p->line == 1 && !strncmp(s, "\xef\xbb\xbf", 3))
		s += 3;
	if (*s == ';' || *s == '#') {
		snprintf(str, (size_t)num, "\n");
		return str;
	}
	while (len && (p->buf[len - 1] == '\n' || p->buf[len - 1] == '\r'))
		len--;
	/* inih's buffer holds the line, "\r\n" and the NUL */
	if (len > num - 3) {
		char n[16];

		snprintf(n, sizeof(n), "%d", num - 3);
		fail(p, "line too long: at most %s bytes%s", n, "");
		return NULL;
	}
	if (*s == '[') {
		const char *end = strchr(s + 1, ']');

		if (end) {
			section_start(p, s + 1, (size_t)(end - s - 1));
			if (p->fail_line)
				return NULL;
		}
	}
	snprintf(str, (size_t)num, "%.*s\n", (int)len, p->buf);
	return str;
}

static int parse_uint(const char *v, unsigned int max, unsigned int *out)
{
	char *end;
	unsigned long n;

	if (!*v || *v < '0' || *v > '9')
		return -1;
	n = strtoul(v, &end, 10);
	if (*end || n > max)
		return -1;
	*out = (unsigned int)n;
	return 0;
}

/* BUS/DEV: one slash, neither side empty. */
static bool handle_ok(const char *v, size_t max)
{
	const char *slash = strchr(v, '/');

	return strlen(v) < max && slash && slash != v && slash[1] && !strchr(slash + 1, '/');
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
	struct parse *p = user;
	struct desired *d = p->d;
	struct desired_entry *e;
	bool in_port = !strcmp(section, "Port");

	if (p->fail_line)
		return 0;
	/* keys before any section: the reader saw no header */
	if (!in_port && strcmp(section, "Match"))
		return fail(p, "key %s outside [Match] or [Port]%s", name, "");
	if (!d->n)
		return fail(p, "[Port] before any [Match]%s%s", "", "");
	e = &d->e[d->n - 1];
	if (!in_port && e->port_line)
		return fail(p, "%s= in [Match] after its [Port]%s", name, "");
	if (!in_port && !e->match_keys++)
		e->match_line = p->line;
	if (!in_port && !strcmp(name, "Device")) {
		if (e->device[0] || !handle_ok(value, sizeof(e->device)))
			return fail(p, "Device=%s: expected one BUS/DEV handle per [Match]%s", value, "");
		snprintf(e->device, sizeof(e->device), "%s", value);
	} else if (!in_port && !strcmp(name, "Number")) {
		if (e->number || parse_uint(value, 65535, &e->number) || !e->number)
			return fail(p, "Number=%s: expected one front-panel port number, 1 to 65535%s", value, "");
	} else if (!in_port && !strcmp(name, "Netdev")) {
		if (e->netdev[0] || !*value || strlen(value) >= sizeof(e->netdev) || strchr(value, '/'))
			return fail(p, "Netdev=%s: expected one netdev name per [Match]%s", value, "");
		snprintf(e->netdev, sizeof(e->netdev), "%s", value);
	} else if (in_port && !strcmp(name, "Split")) {
		if (e->split || parse_uint(value, 64, &e->split) || !e->split)
			return fail(p, "Split=%s: expected 1 (whole) or the number of ports, up to 64%s", value, "");
		e->split_line = p->line;
	} else if (in_port && !strcmp(name, "Type")) {
		if (e->type || dlh_port_type_parse(value, &e->type) || e->type == DLH_PORT_TYPE_NOTSET)
			return fail(p, "Type=%s: expected eth, ib or auto%s", value, "");
		e->type_line = p->line;
	} else {
		return fail(p, "unknown key %s in [%s]", name, section);
	}
	return 1;
}

int desired_load(struct desired *d, const char *path, char *why, size_t whylen)
{
	struct parse p = {.d = d};
	int line;

	memset(d, 0, sizeof(*d));
	snprintf(d->path, sizeof(d->path), "%s", path);
	p.f = fopen(path, "re");
	if (!p.f) {
		int err = errno;

		snprintf(why, whylen, "%s: %s", path, strerror(err));
		return -err;
	}
	line = ini_parse_stream(reader, &p, on_key, &p);
	if (!p.fail_line && line >= 0 && d->n)
		entry_check(&p, &d->e[d->n - 1]);
	fclose(p.f);
	free(p.buf);
	if (line == -2) {
		snprintf(why, whylen, "%s: out of memory", path);
		desired_free(d);
		return -ENOMEM;
	}
	/* inih's own error (a line that is no INI line) when it came first */
	if (line > 0 && (!p.fail_line || line < p.fail_line)) {
		p.fail_line = line;
		snprintf(p.why, sizeof(p.why), "not a line of an INI file");
	}
	if (p.fail_line) {
		snprintf(why, whylen, "%s:%d: %s", path, p.fail_line, p.why);
		desired_free(d);
		return -EINVAL;
	}
	return 0;
}

void desired_free(struct desired *d)
{
	free(d->e);
	d->e = NULL;
	d->n = 0;
}

/* The device and front-panel number an entry means now; 0 if it matches no port. */
static int entry_target(const struct desired_entry *e, struct dlh_ctx *ctx, struct dlh_dev **dev, unsigned int *number)
{
	struct dlh_port *p;

	if (e->netdev[0]) {
		p = dlh_port_find_netdev(ctx, e->netdev);
		if (!p)
			return 0;
		*dev = dlh_port_dev(p);
		*number = dlh_port_number(p);
		return 1;
	}
	*dev = dlh_dev_find(ctx, e->device);
	*number = e->number;
	if (!*dev)
		return 0;
	for (p = dlh_port_first(*dev); p; p = dlh_port_next(p))
		if (dlh_port_number(p) == *number)
			return 1;
	return 0;
}

/* The ports of front-panel port @number: how many, how many split, and the first. */
static unsigned int group(struct dlh_dev *dev, unsigned int number, unsigned int *nsplit, struct dlh_port **first)
{
	unsigned int n = 0;

	*nsplit = 0;
	*first = NULL;
	for (struct dlh_port *p = dlh_port_first(dev); p; p = dlh_port_next(p)) {
		if (dlh_port_number(p) != number)
			continue;
		if (!n++)
			*first = p;
		*nsplit += dlh_port_is_split(p);
	}
	return n;
}

static int step_add(struct step **v, size_t *n, const struct step *s)
{
	struct step *nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[(*n)++] = *s;
	return 0;
}

/*
 * A port whose split is a firmware option of its device (ice: the splittable
 * port of a device with options): the count it has now is the active
 * option's, or the pending one's once one is stored. False for any other port.
 */
static bool option_split(struct dlh_dev *dev, struct dlh_port *first, unsigned int *now, bool *pending)
{
	struct dlh_fw_option opts[16];
	struct dlh_pending p;
	size_t n = 0;

	if (!first || !dlh_port_splittable(first) || dlh_dev_fw_options(dev, opts, 16, &n, NULL))
		return false;
	*now = 1;
	for (size_t i = 0; i < n && i < 16; i++)
		if (opts[i].active)
			*now = opts[i].split;
	*pending = dlh_dev_pending(dev, &p) && p.split;
	if (*pending)
		*now = p.split;
	return true;
}

int desired_steps(const struct desired *d, struct dlh_ctx *ctx, struct step **steps, size_t *nsteps, FILE *notes,
		  size_t *npending)
{
	struct step *un = NULL, *sp = NULL, *ty = NULL;
	size_t nun = 0, nsp = 0, nty = 0;
	int err = 0;

	*steps = NULL;
	*nsteps = 0;
	if (npending)
		*npending = 0;
	for (size_t i = 0; i < d->n && !err; i++) {
		const struct desired_entry *e = &d->e[i];
		unsigned int number, nsplit, n;
		struct dlh_port *first;
		struct dlh_dev *dev;
		struct step s;

		if (!entry_target(e, ctx, &dev, &number)) {
			if (notes)
				fprintf(notes, "%s:%d: matches no port now\n", d->path, e->match_line);
			continue;
		}
		n = group(dev, number, &nsplit, &first);
		unsigned int now;
		bool pend;

		if (e->split && option_split(dev, first, &now, &pend)) {
			if (now != e->split) {
				s = (struct step){.kind = e->split == 1 ? STEP_UNSPLIT : STEP_SPLIT,
						  .count = e->split,
						  .line = e->split_line,
						  .staged = true};
				if (e->split == 1) {
					snprintf(s.port, sizeof(s.port), "%s", dlh_port_handle(first));
					err = step_add(&un, &nun, &s);
				} else {
					snprintf(s.port, sizeof(s.port), "%s#%u", dlh_dev_handle(dev), number);
					err = step_add(&sp, &nsp, &s);
				}
			} else if (pend) {
				if (notes)
					fprintf(notes, "%s:%d: pending until a reset of %s: split into %u\n", d->path,
						e->split_line, dlh_dev_handle(dev), e->split);
				if (npending)
					(*npending)++;
			}
		} else if (e->split && (nsplit ? nsplit : 1) != e->split) {
			if (nsplit) {
				s = (struct step){.kind = STEP_UNSPLIT, .line = e->split_line};
				snprintf(s.port, sizeof(s.port), "%s", dlh_port_handle(first));
				err = step_add(&un, &nun, &s);
			}
			if (!err && e->split > 1) {
				s = (struct step){.kind = STEP_SPLIT, .count = e->split, .line = e->split_line};
				snprintf(s.port, sizeof(s.port), "%s#%u", dlh_dev_handle(dev), number);
				err = step_add(&sp, &nsp, &s);
			}
		}
		if (!err && e->type) {
			bool differs = false;

			for (struct dlh_port *p = dlh_port_first(dev); p; p = dlh_port_next(p))
				differs |= dlh_port_number(p) == number && dlh_port_desired_type(p) != e->type;
			/* a split or unsplit makes new ports: their type is set after it */
			if (differs || (e->split && (nsplit ? nsplit : 1) != e->split)) {
				s = (struct step){.kind = STEP_TYPE, .type = e->type, .line = e->type_line};
				snprintf(s.port, sizeof(s.port), "%s#%u", dlh_dev_handle(dev), number);
				err = step_add(&ty, &nty, &s);
			}
		}
		(void)n;
	}
	for (size_t i = 0; !err && i < nun; i++)
		err = step_add(steps, nsteps, &un[i]);
	for (size_t i = 0; !err && i < nsp; i++)
		err = step_add(steps, nsteps, &sp[i]);
	for (size_t i = 0; !err && i < nty; i++)
		err = step_add(steps, nsteps, &ty[i]);
	free(un);
	free(sp);
	free(ty);
	if (err) {
		free(*steps);
		*steps = NULL;
		*nsteps = 0;
	}
	return err;
}

void step_describe(const struct desired *d, const struct step *s, char *buf, size_t len)
{
	const char *hash = strchr(s->port, '#');
	char where[DLH_HANDLE_MAX + 32];

	if (hash)
		snprintf(where, sizeof(where), "%.*s port %s", (int)(hash - s->port), s->port, hash + 1);
	else
		snprintf(where, sizeof(where), "%s", s->port);
	switch (s->kind) {
	case STEP_UNSPLIT:
		snprintf(buf, len, "unsplit %s (%s:%d)", where, d->path, s->line);
		break;
	case STEP_SPLIT:
		snprintf(buf, len, "split %s into %u (%s:%d)", where, s->count, d->path, s->line);
		break;
	case STEP_TYPE:
		snprintf(buf, len, "type %s on %s (%s:%d)", dlh_port_type_name(s->type), where, d->path, s->line);
		break;
	}
}

/* The ports of "BUS/DEV#NUMBER" now. */
static int resolve(struct dlh_ctx *ctx, const char *port, struct dlh_dev **dev, unsigned int *number)
{
	char handle[DLH_HANDLE_MAX];
	const char *hash = strchr(port, '#');

	snprintf(handle, sizeof(handle), "%.*s", (int)(hash - port), port);
	*dev = dlh_dev_find(ctx, handle);
	*number = (unsigned int)strtoul(hash + 1, NULL, 10);
	return *dev ? 0 : -ENODEV;
}

static int step_run(struct dlh_ctx *ctx, const struct step *s, struct dlh_extack *ext)
{
	struct dlh_port *p, *first;
	struct dlh_dev *dev;
	unsigned int number, nsplit;
	int err;

	if (s->kind == STEP_UNSPLIT) {
		err = dlh_port_lookup(ctx, s->port, &p, ext);
		return err ? err : dlh_port_unsplit(p, ext);
	}
	err = resolve(ctx, s->port, &dev, &number);
	if (err) {
		snprintf(ext->msg, sizeof(ext->msg), "Device is gone");
		return err;
	}
	if (s->kind == STEP_SPLIT) {
		if (!group(dev, number, &nsplit, &first) || nsplit) {
			snprintf(ext->msg, sizeof(ext->msg), "No whole port %u to split", number);
			return -ENODEV;
		}
		return dlh_port_split(first, s->count, ext);
	}
	/* type: each port of the front-panel port, looked up again after each (a type set may replace it) */
	for (int again = 1; again;) {
		again = 0;
		for (p = dlh_port_first(dev); p; p = dlh_port_next(p)) {
			if (dlh_port_number(p) != number || dlh_port_desired_type(p) == s->type)
				continue;
			err = dlh_port_type_set(p, s->type, ext);
			if (err)
				return err;
			again = 1;
			break;
		}
	}
	return 0;
}

int desired_apply(const struct desired *d, struct dlh_ctx *ctx, const struct step *steps, size_t nsteps, FILE *out,
		  char *why, size_t whylen)
{
	char what[DLH_HANDLE_MAX + 600], buf[DLH_EXTACK_MSG_MAX + DLH_HANDLE_MAX + 8];
	struct dlh_extack ext = {0};

	for (size_t i = 0; i < nsteps; i++) {
		int err = step_run(ctx, &steps[i], &ext);

		step_describe(d, &steps[i], what, sizeof(what));
		if (err) {
			snprintf(why, whylen, "%s: %s", what,
				 ext.msg[0] ? dlh_extack_str(&ext, buf, sizeof(buf)) : strerror(-err));
			return err;
		}
		if (out && ext.msg[0])
			fprintf(out, "pending: %s: %s\n", what, ext.msg);
		else if (out)
			fprintf(out, "done: %s\n", what);
	}
	return 0;
}
