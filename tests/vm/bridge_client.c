/* SPDX-License-Identifier: MIT */
/*
 * A /dev/dlhal client for tests/vm/guest.sh: one command a line on stdin, one
 * answer a line on stdout ("ok" or "err -ERRNO"); the file closes at EOF.
 *   dev add|del|pub NAME
 *   port add DEV INDEX eth|ib|notset NETDEV|- NUMBER LANES SPLITTABLE SPLIT SUBPORT
 *   port del DEV INDEX
 *   info DEV DRIVER|- N [KIND NAME VALUE]   DEV_INFO: N versions claimed, the first one given
 *   bind DEV DRIVER|- [SERIAL]              DEV_BIND: a driver with no info of its own
 *   nest DEV PARENT   DEV_NEST: DEV nested in PARENT
 *   raw HEX           one write() of exactly these bytes (hostile input)
 *   sizes             the two message sizes
 *   read              wait up to 5 s for a request: "req TYPE SEQ DEV INDEX ARG" or "none"
 *   reply SEQ ERR MSG|- [del:INDEX | add:INDEX:TYPE:NETDEV|-:NUMBER:LANES:SPLITTABLE:SPLIT:SUBPORT | perf:N]...
 *                     (perf:N: the reply's actions performed, for a reload)
 *   reply-dev SEQ DEV add:...   a reply whose change names instance DEV
 *   reply-last ERR MSG|- [changes]... a reply to the request read last
 */
#include <dlhal/bridge.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void answer(ssize_t n, size_t want)
{
	if (n == (ssize_t)want)
		printf("ok\n");
	else
		printf("err %d\n", n < 0 ? -errno : -EIO);
	fflush(stdout);
}

static int port_type(const char *s);

/* "del:INDEX" or "add:INDEX:TYPE:NETDEV:NUMBER:LANES:SPLITTABLE:SPLIT:SUBPORT" into @p. */
static int change_parse(const char *s, const char *dev, struct dlhal_bridge_port *p)
{
	unsigned int number, lanes, splittable, split, subport;
	char type[16], netdev[64];

	memset(p, 0, sizeof(*p));
	snprintf(p->dev, sizeof(p->dev), "%.63s", dev);
	if (sscanf(s, "del:%u", &p->index) == 1) {
		p->type = DLHAL_BRIDGE_PORT_DEL;
		return 0;
	}
	if (sscanf(s, "add:%u:%15[^:]:%63[^:]:%u:%u:%u:%u:%u", &p->index, type, netdev, &number, &lanes, &splittable,
		   &split, &subport) != 8)
		return -1;
	p->type = DLHAL_BRIDGE_PORT_ADD;
	p->port_type = (__u8)port_type(type);
	if (strcmp(netdev, "-"))
		snprintf(p->netdev, sizeof(p->netdev), "%.15s", netdev);
	p->number = number;
	p->lanes = lanes;
	p->splittable = (__u8)splittable;
	p->split = (__u8)split;
	p->subport = subport;
	return 0;
}

static char last_dev[64] = "0000:03:00.0";
static unsigned int last_seq;

static void reply(int fd, char *args, const char *dev)
{
	struct {
		struct dlhal_bridge_reply r;
		struct dlhal_bridge_port c[DLHAL_BRIDGE_CHANGES_MAX];
	} m = {0};
	char *save = NULL, *tok;
	int seq, err;

	tok = strtok_r(args, " \n", &save);
	seq = tok ? atoi(tok) : 0;
	tok = strtok_r(NULL, " \n", &save);
	err = tok ? atoi(tok) : 0;
	tok = strtok_r(NULL, " \n", &save);
	m.r.type = DLHAL_BRIDGE_REPLY;
	m.r.seq = (__u32)seq;
	m.r.err = err;
	if (tok && strcmp(tok, "-"))
		for (size_t i = 0; tok[i] && i + 1 < sizeof(m.r.msg); i++)
			m.r.msg[i] = tok[i] == '_' ? ' ' : tok[i];
	while ((tok = strtok_r(NULL, " \n", &save)) && m.r.nchanges < DLHAL_BRIDGE_CHANGES_MAX) {
		if (!strncmp(tok, "perf:", 5))
			m.r.performed = (__u32)strtoul(tok + 5, NULL, 0);
		else if (!change_parse(tok, dev, &m.c[m.r.nchanges]))
			m.r.nchanges++;
	}
	answer(write(fd, &m, sizeof(m.r) + m.r.nchanges * sizeof(m.c[0])), sizeof(m.r) + m.r.nchanges * sizeof(m.c[0]));
}

static int port_type(const char *s)
{
	return !strcmp(s, "eth") ? DLHAL_BRIDGE_PORT_ETH : !strcmp(s, "ib") ? DLHAL_BRIDGE_PORT_IB : atoi(s);
}

int main(int argc, char **argv)
{
	char line[1024], a[8][128];
	int fd = open(argc > 1 ? argv[1] : "/dev/dlhal", O_RDWR);

	if (fd < 0) {
		printf("open %d\n", -errno);
		return 1;
	}
	printf("open 0\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		int n = sscanf(line, "%127s %127s %127s %127s %127s %127s %127s %127s", a[0], a[1], a[2], a[3], a[4],
			       a[5], a[6], a[7]);
		struct dlhal_bridge_port p = {0};
		struct dlhal_bridge_dev d = {0};

		if (n >= 3 && !strcmp(a[0], "dev")) {
			d.type = !strcmp(a[1], "add")	? DLHAL_BRIDGE_DEV_ADD
				 : !strcmp(a[1], "pub") ? DLHAL_BRIDGE_DEV_PUBLISH
							: DLHAL_BRIDGE_DEV_DEL;
			snprintf(d.name, sizeof(d.name), "%.63s", a[2]);
			answer(write(fd, &d, sizeof(d)), sizeof(d));
		} else if (n >= 4 && !strcmp(a[0], "port") && !strcmp(a[1], "del")) {
			p.type = DLHAL_BRIDGE_PORT_DEL;
			snprintf(p.dev, sizeof(p.dev), "%.63s", a[2]);
			p.index = (__u32)strtoul(a[3], NULL, 0);
			answer(write(fd, &p, sizeof(p)), sizeof(p));
		} else if (n >= 3 && !strcmp(a[0], "port") && !strcmp(a[1], "add")) {
			/* port add DEV INDEX TYPE NETDEV NUMBER LANES SPLITTABLE SPLIT SUBPORT */
			unsigned int number, lanes, splittable, split, subport;
			char type[16], netdev[64];

			if (sscanf(line, "port add %63s %u %15s %63s %u %u %u %u %u", p.dev, &p.index, type, netdev,
				   &number, &lanes, &splittable, &split, &subport) != 9) {
				printf("usage\n");
				fflush(stdout);
				continue;
			}
			p.type = DLHAL_BRIDGE_PORT_ADD;
			p.port_type = (__u8)port_type(type);
			if (strcmp(netdev, "-"))
				memcpy(p.netdev, netdev,
				       strlen(netdev) < sizeof(p.netdev) ? strlen(netdev) + 1 : sizeof(p.netdev));
			p.number = number;
			p.lanes = lanes;
			p.splittable = (__u8)splittable;
			p.split = (__u8)split;
			p.subport = subport;
			answer(write(fd, &p, sizeof(p)), sizeof(p));
		} else if (n >= 4 && !strcmp(a[0], "info")) {
			/* info DEV DRIVER|- NVERSIONS [KIND NAME VALUE]: the first version given, others empty */
			struct dlhal_bridge_info in = {.type = DLHAL_BRIDGE_DEV_INFO};

			snprintf(in.dev, sizeof(in.dev), "%.63s", a[1]);
			if (strcmp(a[2], "-"))
				snprintf(in.driver, sizeof(in.driver), "%.31s", a[2]);
			in.nversions = (__u32)strtoul(a[3], NULL, 0);
			if (n >= 7) {
				in.versions[0].kind = (__u32)strtoul(a[4], NULL, 0);
				snprintf(in.versions[0].name, sizeof(in.versions[0].name), "%.31s", a[5]);
				snprintf(in.versions[0].value, sizeof(in.versions[0].value), "%.63s", a[6]);
			}
			answer(write(fd, &in, sizeof(in)), sizeof(in));
		} else if (n >= 3 && !strcmp(a[0], "bind")) {
			struct dlhal_bridge_info in = {.type = DLHAL_BRIDGE_DEV_BIND};

			snprintf(in.dev, sizeof(in.dev), "%.63s", a[1]);
			if (strcmp(a[2], "-"))
				snprintf(in.driver, sizeof(in.driver), "%.31s", a[2]);
			if (n >= 4)
				snprintf(in.serial, sizeof(in.serial), "%.63s", a[3]);
			answer(write(fd, &in, sizeof(in)), sizeof(in));
		} else if (n == 3 && !strcmp(a[0], "nest")) {
			struct dlhal_bridge_nest m = {.type = DLHAL_BRIDGE_DEV_NEST};

			snprintf(m.dev, sizeof(m.dev), "%.63s", a[1]);
			snprintf(m.parent, sizeof(m.parent), "%.63s", a[2]);
			answer(write(fd, &m, sizeof(m)), sizeof(m));
		} else if (!strncmp(line, "raw ", 4)) {
			unsigned char buf[512];
			size_t len = strcspn(line + 4, "\n") / 2;

			if (len > sizeof(buf))
				len = sizeof(buf);
			for (size_t i = 0; i < len; i++)
				sscanf(line + 4 + 2 * i, "%2hhx", &buf[i]);
			answer(write(fd, buf, len), len);
		} else if (n == 1 && !strcmp(a[0], "read")) {
			struct pollfd pfd = {.fd = fd, .events = POLLIN};
			struct dlhal_bridge_req r;

			if (poll(&pfd, 1, 5000) == 1 && read(fd, &r, sizeof(r)) == sizeof(r)) {
				printf("req %u %u %.63s %u %u\n", r.type, r.seq, r.dev, r.index, r.arg);
				last_seq = r.seq;
				snprintf(last_dev, sizeof(last_dev), "%.63s", r.dev);
			} else
				printf("none\n");
			fflush(stdout);
		} else if (!strncmp(line, "reply-last ", 11)) {
			char buf[1024];

			snprintf(buf, sizeof(buf), "%u %s", last_seq, line + 11);
			reply(fd, buf, last_dev);
		} else if (!strncmp(line, "reply ", 6)) {
			reply(fd, line + 6, last_dev);
		} else if (n >= 3 && !strcmp(a[0], "reply-dev")) {
			char *rest = strchr(strchr(line, ' ') + 1, ' ') + 1;
			char seq[16];

			snprintf(seq, sizeof(seq), "%.15s", a[1]);
			/* reply-dev SEQ DEV CHANGE: the change names DEV */
			char buf[1024];

			snprintf(buf, sizeof(buf), "%s 0 - %s", seq, rest + strlen(a[2]) + 1);
			reply(fd, buf, a[2]);
		} else if (n == 1 && !strcmp(a[0], "sizes")) {
			printf("dev %zu port %zu\n", sizeof(d), sizeof(p));
			fflush(stdout);
		} else {
			printf("usage\n");
			fflush(stdout);
		}
	}
	close(fd);
	return 0;
}
