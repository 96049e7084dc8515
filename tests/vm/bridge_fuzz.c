/* SPDX-License-Identifier: MIT */
/*
 * A hostile client of /dev/dlhal, for tests/vm/bridge-cases.sh:
 *   bridge_fuzz SECONDS PROCS SEED
 * PROCS processes. The even ones are chaos: up to three files open at once,
 * every message type (well-formed, mutated and random), instance names that
 * race across processes (fz0, fz2, fz4, and hostile ones), files closed at
 * random, also right after a reply. The odd ones are drivers that devlink
 * clients (the script's loops) can reach: each keeps instance fzN (N its
 * number) published with four splittable ports, and answers the requests it
 * gets rightly, with an error (also one no caller may get), with changes the
 * kernel must refuse, or not at all, and now and then closes its file right
 * after a reply and starts again. Prints one line of counts; the checks are
 * the script's: dmesg, the slab's allocation traces, the hung-task detector.
 */
#include <dlhal/bridge.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned long long rng;

static unsigned int rnd(unsigned int n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? (unsigned int)(rng % n) : 0;
}

static const char *const names[] = {
    "fz0", "fz1", "fz2", "fz3", "fz4", "fz5", ".", "..", "platform", "virtual", "\xe9t\xe9", "\xff", "a/b", "",
};
/* (fz1, fz3... are the drivers' own: the chaos processes race them for the names too) */

static void name_pick(char *dst, size_t len)
{
	unsigned int i = rnd(20);

	if (i < sizeof(names) / sizeof(names[0]))
		snprintf(dst, len, "%s", names[i]);
	else
		snprintf(dst, len, "fz%u", rnd(6));
}

/* A few bytes of @m changed at random: most messages are well-formed, some not. */
static void mutate(void *m, size_t len)
{
	unsigned char *b = m;

	if (rnd(4))
		return;
	for (unsigned int n = 1 + rnd(3); n--;)
		b[rnd((unsigned int)len)] = (unsigned char)rnd(256);
}

static void port_fill(struct dlhal_bridge_port *p, const char *dev)
{
	static const unsigned int numbers[] = {1, 2, 17, 65535, 9999999, 4000000000U};

	memset(p, 0, sizeof(*p));
	p->type = rnd(5) ? DLHAL_BRIDGE_PORT_ADD : DLHAL_BRIDGE_PORT_DEL;
	p->index = rnd(8);
	snprintf(p->dev, sizeof(p->dev), "%s", dev);
	p->number = numbers[rnd(6)];
	p->subport = rnd(3) ? rnd(4) : numbers[rnd(6)];
	p->lanes = 1 << rnd(3);
	p->split = (__u8)rnd(2);
	p->splittable = (__u8)(!p->split && p->lanes > 1 && rnd(2));
	switch (rnd(3)) {
	case 0:
		p->port_type = DLHAL_BRIDGE_PORT_ETH;
		if (rnd(10))
			snprintf(p->netdev, sizeof(p->netdev), "fzn%u_%u", rnd(6), rnd(12));
		else
			snprintf(p->netdev, sizeof(p->netdev), "lo");
		break;
	case 1:
		p->port_type = DLHAL_BRIDGE_PORT_IB;
		break;
	default:
		p->port_type = DLHAL_BRIDGE_PORT_NOTSET;
	}
}

struct counts {
	unsigned long writes, ok, reads, replies, closes;
};

static void one(int *fds, struct counts *c)
{
	int slot = (int)rnd(3), fd = fds[slot];
	union {
		struct dlhal_bridge_dev d;
		struct dlhal_bridge_port p;
		struct {
			struct dlhal_bridge_reply r;
			struct dlhal_bridge_port ch[8];
		} rep;
		struct dlhal_bridge_info info;
		struct dlhal_bridge_nest nest;
		unsigned char raw[2048];
	} m;
	struct dlhal_bridge_req req;
	size_t len = 0;
	char dev[64];

	if (fd < 0) {
		fds[slot] = open(DLHAL_BRIDGE_PATH, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		return;
	}
	memset(&m, 0, sizeof(m));
	name_pick(dev, sizeof(dev));
	switch (rnd(10)) {
	case 0:
	case 1:
		m.d.type = rnd(4) ? DLHAL_BRIDGE_DEV_ADD : rnd(2) ? DLHAL_BRIDGE_DEV_PUBLISH : DLHAL_BRIDGE_DEV_DEL;
		snprintf(m.d.name, sizeof(m.d.name), "%s", dev);
		len = sizeof(m.d);
		break;
	case 2:
		if (rnd(2)) {
			m.d.type = DLHAL_BRIDGE_DEV_PUBLISH;
			snprintf(m.d.name, sizeof(m.d.name), "%s", dev);
			len = sizeof(m.d);
			break;
		}
		/* one instance nested in another (or itself, or in one of another file) */
		if (!rnd(3)) {
			m.nest.type = DLHAL_BRIDGE_DEV_NEST;
			snprintf(m.nest.dev, sizeof(m.nest.dev), "%s", dev);
			name_pick(m.nest.parent, sizeof(m.nest.parent));
			len = sizeof(m.nest);
			break;
		}
		/* what the instance reports of itself: a driver to bind it to (one of a few, or hostile) */
		m.info.type = rnd(4) ? DLHAL_BRIDGE_DEV_INFO : DLHAL_BRIDGE_DEV_BIND;
		snprintf(m.info.dev, sizeof(m.info.dev), "%s", dev);
		name_pick(m.info.driver, sizeof(m.info.driver));
		m.info.nversions = rnd(18);
		for (unsigned int i = 0; i < m.info.nversions && i < DLHAL_BRIDGE_VERSIONS_MAX; i++) {
			m.info.versions[i].kind = rnd(4);
			snprintf(m.info.versions[i].name, sizeof(m.info.versions[i].name), "v.%u", rnd(3));
			snprintf(m.info.versions[i].value, sizeof(m.info.versions[i].value), "%u", rnd(1000));
		}
		if (!rnd(4))
			snprintf(m.info.serial, sizeof(m.info.serial), "SN%u", rnd(100));
		len = sizeof(m.info);
		break;
	case 3:
	case 4:
	case 5:
		port_fill(&m.p, dev);
		len = sizeof(m.p);
		break;
	case 6:
	case 7:
		c->reads++;
		if (read(fd, &req, sizeof(req)) != sizeof(req))
			return;
		/* answered rightly, wrongly or not at all */
		if (!rnd(5))
			return;
		m.rep.r.type = DLHAL_BRIDGE_REPLY;
		m.rep.r.seq = rnd(8) ? req.seq : rnd(1000);
		if (!rnd(3)) {
			static const int errs[] = {-EINVAL, -EIO, -EINTR, -512, -516, 5, -4096, -EOPNOTSUPP};

			m.rep.r.err = errs[rnd(8)];
		} else {
			m.rep.r.nchanges = rnd(5);
			for (unsigned int i = 0; i < m.rep.r.nchanges; i++)
				port_fill(&m.rep.ch[i], req.dev);
		}
		/* the actions performed: a reload's (right or not), or a stray value on another reply */
		if (!rnd(2))
			m.rep.r.performed =
			    req.type == DLHAL_BRIDGE_REQ_RELOAD && rnd(2) ? 1u << (req.arg & 0xff) : rnd(16);
		snprintf(m.rep.r.msg, sizeof(m.rep.r.msg), "fuzz %u", rnd(3));
		len = sizeof(m.rep.r) + m.rep.r.nchanges * sizeof(m.rep.ch[0]);
		c->replies++;
		break;
	case 8:
		len = rnd(sizeof(m.raw));
		for (size_t i = 0; i < len; i++)
			m.raw[i] = (unsigned char)rnd(256);
		if (len >= 4 && rnd(2)) {
			memset(m.raw, 0, 4);
			m.raw[0] = (unsigned char)(1 + rnd(7));
		}
		break;
	default:
		close(fd);
		fds[slot] = -1;
		c->closes++;
		return;
	}
	mutate(&m, len);
	c->writes++;
	if (write(fd, &m, len) == (ssize_t)len)
		c->ok++;
	/* closed right after a write: the op's thread may still be applying */
	if (!rnd(20)) {
		close(fd);
		fds[slot] = -1;
		c->closes++;
	}
}

/* A driver's instance: fzN with ports 1-4, eth, splittable in 4 lanes, published. */
static int driver_open(unsigned int n)
{
	int fd = open(DLHAL_BRIDGE_PATH, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	struct dlhal_bridge_dev d = {.type = DLHAL_BRIDGE_DEV_ADD};
	struct dlhal_bridge_port p;

	if (fd < 0)
		return -1;
	snprintf(d.name, sizeof(d.name), "fz%u", n);
	if (write(fd, &d, sizeof(d)) != sizeof(d)) {
		close(fd);
		return -1;
	}
	for (unsigned int i = 1; i <= 4; i++) {
		memset(&p, 0, sizeof(p));
		p.type = DLHAL_BRIDGE_PORT_ADD;
		p.index = i;
		snprintf(p.dev, sizeof(p.dev), "fz%u", n);
		p.number = i;
		p.lanes = 4;
		p.splittable = 1;
		p.port_type = DLHAL_BRIDGE_PORT_ETH;
		snprintf(p.netdev, sizeof(p.netdev), "fzd%up%u", n, i);
		if (write(fd, &p, sizeof(p)) != sizeof(p))
			break;
	}
	d.type = DLHAL_BRIDGE_DEV_PUBLISH;
	if (write(fd, &d, sizeof(d)) != sizeof(d)) {
		close(fd);
		return -1;
	}
	return fd;
}

static void driver(unsigned int n, time_t end, struct counts *c)
{
	int fd = driver_open(n);

	while (time(NULL) < end) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		struct {
			struct dlhal_bridge_reply r;
			struct dlhal_bridge_port ch[4];
		} m;
		struct dlhal_bridge_req req;
		unsigned int what = rnd(20);
		size_t len;

		if (fd < 0) {
			usleep(10000);
			fd = driver_open(n);
			continue;
		}
		if (poll(&pfd, 1, 20) != 1 || read(fd, &req, sizeof(req)) != sizeof(req))
			continue;
		c->reads++;
		if (req.type == DLHAL_BRIDGE_REQ_UNDO || what == 0)
			continue; /* an undo notice; or no answer: the op times out */
		memset(&m, 0, sizeof(m));
		m.r.type = DLHAL_BRIDGE_REPLY;
		m.r.seq = req.seq;
		if (what < 5) {
			static const int errs[] = {-EINVAL, -EIO, -EINTR, -512, -EOPNOTSUPP};

			m.r.err = errs[what];
		} else if (what < 8) {
			/* changes the kernel must refuse: a netdev it has */
			m.r.nchanges = 2;
			m.ch[0] = (struct dlhal_bridge_port){.type = DLHAL_BRIDGE_PORT_DEL, .index = req.index};
			m.ch[1] = (struct dlhal_bridge_port){.type = DLHAL_BRIDGE_PORT_ADD,
							     .index = req.index,
							     .number = req.index,
							     .lanes = 4,
							     .splittable = 1,
							     .port_type = DLHAL_BRIDGE_PORT_ETH};
			snprintf(m.ch[1].netdev, sizeof(m.ch[1].netdev), "lo");
		} else if (req.type == DLHAL_BRIDGE_REQ_RELOAD) {
			/* the action asked for, sometimes with the other, sometimes a bit the kernel refuses */
			m.r.performed = 1u << (req.arg & 0xff);
			if (!rnd(3))
				m.r.performed |= 1u << (rnd(2) + 1);
			if (!rnd(5))
				m.r.performed = (__u32)rnd(16);
		} else if (req.type == DLHAL_BRIDGE_REQ_TYPE_SET) {
			m.r.nchanges = 1;
			m.ch[0] = (struct dlhal_bridge_port){
			    .type = DLHAL_BRIDGE_PORT_ADD,
			    .index = req.index,
			    .number = req.index,
			    .lanes = 4,
			    .splittable = 1,
			    .port_type = (__u8)(rnd(2) ? DLHAL_BRIDGE_PORT_IB : DLHAL_BRIDGE_PORT_NOTSET)};
		} else if (req.type == DLHAL_BRIDGE_REQ_SPLIT) {
			/* as Spectrum answers a split by 2: the port goes, two halves come */
			m.r.nchanges = 3;
			m.ch[0] = (struct dlhal_bridge_port){.type = DLHAL_BRIDGE_PORT_DEL, .index = req.index};
			for (unsigned int h = 0; h < 2; h++) {
				m.ch[1 + h] = (struct dlhal_bridge_port){.type = DLHAL_BRIDGE_PORT_ADD,
									 .index = req.index + 10 * h,
									 .number = req.index,
									 .subport = h,
									 .lanes = 2,
									 .split = 1,
									 .port_type = DLHAL_BRIDGE_PORT_ETH};
				snprintf(m.ch[1 + h].netdev, sizeof(m.ch[1 + h].netdev), "fzd%up%us%u", n, req.index,
					 h);
			}
		} else {
			/* an unsplit: both halves go (the second may not exist: then the kernel undoes it) */
			m.r.nchanges = 3;
			m.ch[0] = (struct dlhal_bridge_port){.type = DLHAL_BRIDGE_PORT_DEL, .index = req.index};
			m.ch[1] =
			    (struct dlhal_bridge_port){.type = DLHAL_BRIDGE_PORT_DEL, .index = req.index % 10 + 10};
			m.ch[2] = (struct dlhal_bridge_port){.type = DLHAL_BRIDGE_PORT_ADD,
							     .index = req.index % 10,
							     .number = req.index % 10,
							     .lanes = 4,
							     .splittable = 1,
							     .port_type = DLHAL_BRIDGE_PORT_ETH};
			snprintf(m.ch[2].netdev, sizeof(m.ch[2].netdev), "fzd%up%u", n, req.index % 10);
		}
		for (unsigned int i = 0; i < m.r.nchanges; i++)
			snprintf(m.ch[i].dev, sizeof(m.ch[i].dev), "fz%u", n);
		len = sizeof(m.r) + m.r.nchanges * sizeof(m.ch[0]);
		c->replies++;
		c->writes++;
		if (write(fd, &m, len) == (ssize_t)len)
			c->ok++;
		if (!rnd(10)) {
			close(fd);
			fd = -1;
			c->closes++;
		}
	}
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	unsigned int seconds, procs;
	unsigned long long seed;

	if (argc != 4) {
		fprintf(stderr, "usage: bridge_fuzz SECONDS PROCS SEED\n");
		return 2;
	}
	seconds = (unsigned int)strtoul(argv[1], NULL, 10);
	procs = (unsigned int)strtoul(argv[2], NULL, 10);
	seed = strtoull(argv[3], NULL, 10);
	for (unsigned int i = 0; i < procs; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (!pid) {
			struct counts c = {0};
			int fds[3] = {-1, -1, -1};
			time_t end = time(NULL) + seconds;

			rng = (seed + 1) * 0x9e3779b97f4a7c15ULL + i;
			signal(SIGPIPE, SIG_IGN);
			if (i % 2)
				driver(i, end, &c);
			while (!(i % 2) && time(NULL) < end)
				one(fds, &c);
			printf("proc %u: %lu writes (%lu taken), %lu reads, %lu replies, %lu closes\n", i, c.writes,
			       c.ok, c.reads, c.replies, c.closes);
			return 0;
		}
	}
	while (wait(NULL) > 0)
		;
	return 0;
}
