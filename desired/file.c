/* SPDX-License-Identifier: MIT */
/*
 * Desired state from an INI file ([Match]/[Port], docs/desired-state.md),
 * read with libinih: the only part of dlhal that needs it.
 */
#include "internal.h"

#include <errno.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The file is read by our own reader, a whole line at a time (Debian's
 * libinih reads into a 200-byte buffer and would parse a longer line's tail
 * as a line of its own). The reader also sees the section headers inih
 * passes no handler call for (an empty [Port] or [Match] must not join its
 * neighbours), and ends the stream at the first error so that the error
 * reported is the first one, with its own line and reason.
 */
struct parse {
	struct dlh_desired *d;
	FILE *f;
	char *buf; /* getline's */
	size_t cap;
	int line;      /* of the line inih is on */
	int fail_line; /* of the first error of ours; 0: none */
	int header;    /* of the last [Match] header: an entry's keys name their own lines */
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
static void entry_check(struct parse *p, const struct dlh_desired_entry *e)
{
	const char *bad = NULL;
	int line = e->match_line;

	if (!e->netdev[0] && (!e->device[0] || !e->has_number)) {
		bad = "[Match] needs Device= and Number=, or Netdev=";
	} else if (e->netdev[0] && (e->device[0] || e->has_number)) {
		bad = "[Match] takes Device= and Number=, or Netdev=, not both";
	} else if (!e->split && !e->type && !e->port_line) {
		/* no [Port] at all: the [Match] that lacks it, not its first key */
		bad = "[Match] has no [Port]: expected a [Port] with Split= and/or Type=";
		line = p->header;
	} else if (!e->split && !e->type) {
		bad = "[Port] says nothing: expected Split= and/or Type=";
		line = e->port_line;
	}
	if (bad && !p->fail_line) {
		p->fail_line = line;
		snprintf(p->why, sizeof(p->why), "%s", bad);
	}
}

static void section_start(struct parse *p, const char *name, size_t len)
{
	struct dlh_desired *d = p->d;
	struct dlh_desired_entry *e;
	char shown[64];

	snprintf(shown, sizeof(shown), "%.*s", (int)(len < 48 ? len : 48), name);
	if (len == 5 && !memcmp(name, "Match", 5)) {
		if (d->n)
			entry_check(p, &d->e[d->n - 1]);
		if (p->fail_line)
			return;
		if (d->n == DLH_DESIRED_ENTRIES_MAX) {
			fail(p, "more than %s entries%s", "1024", "");
			return;
		}
		e = dlh__desired_grow(d);
		if (!e) {
			fail(p, "out of memory%s%s", "", "");
			return;
		}
		e->match_line = p->line;
		p->header = p->line;
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
	/* a UTF-8 byte order mark (and the blanks after it) on the first line */
	if (p->line == 1 && !strncmp(s, "\xef\xbb\xbf", 3))
		for (s += 3; *s == ' ' || *s == '\t' || *s == '\r' || *s == '\f' || *s == '\v'; s++)
			;
	if (*s == ';' || *s == '#') {
		snprintf(str, (size_t)num, "\n");
		return str;
	}
	/* Indentation means nothing (as in systemd's unit files): inih would take an indented line
	 * as the previous value's continuation. A ';' or '#' after a blank starts a comment, in any
	 * value; one that follows a character is part of the value (and refused where it cannot be). */
	len -= s - p->buf;
	memmove(p->buf, s, (size_t)len + 1);
	for (char *c = p->buf + 1; *c; c++)
		if ((*c == ';' || *c == '#') && (c[-1] == ' ' || c[-1] == '\t')) {
			*c = '\0';
			len = c - p->buf;
			break;
		}
	while (len && (p->buf[len - 1] == '\n' || p->buf[len - 1] == '\r' || p->buf[len - 1] == ' ' ||
		       p->buf[len - 1] == '\t'))
		len--;
	s = p->buf;
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

/* A key said twice in one section: named, with the line of the first. */
static int repeated(struct parse *p, const char *name, int first)
{
	char at[16];

	snprintf(at, sizeof(at), "%d", first);
	return fail(p, "%s= repeated: the first is on line %s", name, at);
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
	struct parse *p = user;
	struct dlh_desired *d = p->d;
	struct dlh_desired_entry *e;
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
		if (e->device[0])
			return repeated(p, name, e->device_line);
		if (!dlh__desired_handle_ok(value))
			return fail(p, "Device=%s: expected one BUS/DEV handle per [Match]%s", value, "");
		snprintf(e->device, sizeof(e->device), "%s", value);
		e->device_line = p->line;
	} else if (!in_port && !strcmp(name, "Number")) {
		if (e->has_number)
			return repeated(p, name, e->number_line);
		if (parse_uint(value, 65535, &e->number))
			return fail(p, "Number=%s: expected one front-panel port number, 0 to 65535%s", value, "");
		e->has_number = true;
		e->number_line = p->line;
	} else if (!in_port && !strcmp(name, "Netdev")) {
		if (e->netdev[0])
			return repeated(p, name, e->netdev_line);
		if (!dlh__desired_netdev_ok(value))
			return fail(p, "Netdev=%s: expected one netdev name per [Match]%s", value, "");
		snprintf(e->netdev, sizeof(e->netdev), "%s", value);
		e->netdev_line = p->line;
	} else if (in_port && !strcmp(name, "Split")) {
		if (e->split)
			return repeated(p, name, e->split_line);
		if (parse_uint(value, 64, &e->split) || !e->split)
			return fail(p, "Split=%s: expected 1 (whole) or the number of ports, up to 64%s", value, "");
		e->split_line = p->line;
	} else if (in_port && !strcmp(name, "Type")) {
		if (e->type)
			return repeated(p, name, e->type_line);
		if (dlh_port_type_parse(value, &e->type) || e->type == DLH_PORT_TYPE_NOTSET)
			return fail(p, "Type=%s: expected eth, ib or auto%s", value, "");
		e->type_line = p->line;
	} else {
		return fail(p, "unknown key %s in [%s]", name, section);
	}
	return 1;
}

DLH_EXPORT int dlh_desired_load(const char *path, struct dlh_desired **out, char *why, size_t whylen)
{
	struct dlh_desired *d;
	struct parse p = {0};
	struct stat st;
	int line, rerr;

	*out = NULL;
	if (dlh_desired_new(path, &d)) {
		snprintf(why, whylen, "%s: out of memory", path);
		return -ENOMEM;
	}
	p.d = d;
	/* "-": standard input (a program's generated file: the Ansible module's) */
	p.f = strcmp(path, "-") ? fopen(path, "re") : fdopen(dup(STDIN_FILENO), "r");
	if (!p.f) {
		int err = errno;

		dlh_desired_free(d);
		snprintf(why, whylen, "%s: %s", path, strerror(err));
		return -err;
	}
	/* a directory opens, and reads as nothing: it is refused as a missing file is */
	if (!fstat(fileno(p.f), &st) && S_ISDIR(st.st_mode)) {
		fclose(p.f);
		dlh_desired_free(d);
		snprintf(why, whylen, "%s: %s", path, strerror(EISDIR));
		return -EISDIR;
	}
	line = ini_parse_stream(reader, &p, on_key, &p);
	if (!p.fail_line && line >= 0 && d->n)
		entry_check(&p, &d->e[d->n - 1]);
	/* a read that failed half way is no end of the file */
	rerr = ferror(p.f) ? (errno ? errno : EIO) : 0;
	fclose(p.f);
	if (rerr && !p.fail_line) {
		free(p.buf);
		dlh_desired_free(d);
		snprintf(why, whylen, "%s: %s", path, strerror(rerr));
		return -rerr;
	}
	free(p.buf);
	if (line == -2) {
		snprintf(why, whylen, "%s: out of memory", path);
		dlh_desired_free(d);
		return -ENOMEM;
	}
	/* inih's own error (a line that is no INI line) when it came first */
	if (line > 0 && (!p.fail_line || line < p.fail_line)) {
		p.fail_line = line;
		snprintf(p.why, sizeof(p.why), "not a line of an INI file");
	}
	if (p.fail_line) {
		snprintf(why, whylen, "%s:%d: %s", path, p.fail_line, p.why);
		dlh_desired_free(d);
		return -EINVAL;
	}
	*out = d;
	return 0;
}
