/* SPDX-License-Identifier: MIT */
/*
 * The listening socket and its clients. Each client's records are handled in
 * order as they arrive. Replies and notifications are written at once; what
 * a full socket refuses waits in a per-client queue written when the socket
 * is writable, so a client that stops reading slows nobody else. What that
 * costs is bounded (dlhald(8)): a client's notifications past --client-queue
 * bytes are dropped and, once its queue has drained, it gets ENOBUFS, as a
 * netlink socket that overflowed does, and reads the state again; replies
 * past DLHALD_QUEUE_MAX drop the client; all queues together hold at most
 * --queue-total bytes; and connections are capped per unprivileged uid and
 * in all. Each overflow, drop and refusal is logged once.
 */
#include "dlhald.h"

#include <dlhal/protocol.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <syslog.h>
#include <unistd.h>

static void client_free(struct client *c)
{
	struct server *srv = c->srv;

	srv->nclients--;
	metrics_dirty();
	srv->queued_total -= c->queued;
	if (c->uid == srv->refused_uid)
		srv->refused_uid = (uid_t)-1;

	for (struct client **pp = &srv->clients; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	ev_io_stop(srv->loop, &c->rio);
	ev_io_stop(srv->loop, &c->wio);
	close(c->fd);
	free(c->pend);
	proto_client_free(c);
	while (c->head) {
		struct record *r = c->head;

		c->head = r->next;
		free(r);
	}
	free(c);
}

/*
 * The client's notifications overflowed and its queue has drained: an
 * NLMSG_ERROR with -ENOBUFS on its notification connection says so, after
 * everything it was sent before (the library then reads the state again).
 * Returns true if the socket is full: tried again when it is writable.
 */
static bool lost_notice(struct client *c)
{
	struct {
		struct nlmsghdr h;
		struct nlmsgerr e;
	} m = {.h = {.nlmsg_len = sizeof(m), .nlmsg_type = NLMSG_ERROR}, .e = {.error = -ENOBUFS}};
	ssize_t n = send(c->fd, &m, sizeof(m), MSG_DONTWAIT | MSG_NOSIGNAL);

	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return true;
	c->lost = false;
	return false;
}

static void on_writable(struct ev_loop *loop, ev_io *w, int revents)
{
	struct client *c = w->data;

	(void)loop;
	(void)revents;
	while (c->head) {
		struct record *r = c->head;
		ssize_t n = send(c->fd, r->data, r->len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n < 0) {
			dlhald_log(LOG_DEBUG, "client %d: %s", c->fd, strerror(errno));
			client_free(c);
			return;
		}
		c->head = r->next;
		c->queued -= r->len;
		c->srv->queued_total -= r->len;
		free(r);
	}
	c->tail = NULL;
	if (c->lost && !c->dropped && lost_notice(c))
		return;
	ev_io_stop(c->srv->loop, &c->wio);
}

static void record_send(struct client *c, const void *data, size_t len, bool reply);

/*
 * Replies and notifications collect per client while a request is handled
 * and leave as one record each: a get's reply travels with its ack, and one
 * operation's notifications reach a monitor in one read.
 */
static void pend_add(struct client *c, const void *data, size_t len, bool reply)
{
	if (c->dropped)
		return;
	if (c->pend_len + len > DLHAL_RECORD_MAX / 2 && c->pend_len) {
		record_send(c, c->pend, c->pend_len, c->pend_reply);
		c->pend_len = 0;
		c->pend_reply = false;
	}
	if (len > DLHAL_RECORD_MAX / 2) {
		record_send(c, data, len, reply);
		return;
	}
	if (!c->pend && !(c->pend = malloc(DLHAL_RECORD_MAX / 2)))
		return;
	memcpy(c->pend + c->pend_len, data, len);
	c->pend_len += len;
	c->pend_reply |= reply;
}

/* A reply to the client's own request: never dropped alone (the client is, past DLHALD_QUEUE_MAX). */
void client_send(struct client *c, const void *data, size_t len)
{
	pend_add(c, data, len, true);
}

/* A notification: dropped past the client's bounds, and the client told so. */
void client_notify(struct client *c, const void *data, size_t len)
{
	pend_add(c, data, len, false);
}

static void client_flush(struct client *c)
{
	if (c->pend_len && !c->dropped)
		record_send(c, c->pend, c->pend_len, c->pend_reply);
	c->pend_len = 0;
	c->pend_reply = false;
}

void server_flush(struct server *srv, struct client *last)
{
	/* Others first: a subscriber has an operation's notifications before
	 * the requester has its ack, as the kernel delivers them. */
	for (struct client *c = srv->clients, *next; c; c = next) {
		next = c->next;
		if (c != last)
			client_flush(c);
	}
	if (last)
		client_flush(last);
}

static void client_drop(struct client *c)
{
	/* Freed by the write watcher on the next turn, not under a caller's feet. */
	c->dropped = true;
	dlhald_log(LOG_WARNING, "client %d (uid %u) does not read: dropped with %zu bytes queued", c->fd,
		   (unsigned)c->uid, c->queued);
	c->srv->drops++;
	shutdown(c->fd, SHUT_RDWR);
	ev_io_start(c->srv->loop, &c->wio);
}

/* The notifications in a record (each is one netlink message). */
static unsigned long long record_msgs(const void *data, size_t len)
{
	struct nlmsghdr *h = (struct nlmsghdr *)data;
	int rem = (int)len;
	unsigned long long n = 0;

	for (; nlmsg_ok(h, rem); h = nlmsg_next(h, &rem))
		n++;
	return n;
}

static void record_send(struct client *c, const void *data, size_t len, bool reply)
{
	struct server *srv = c->srv;
	struct record *r;

	if (c->dropped)
		return;
	/* After an overflow, notifications wait for the ENOBUFS notice: the client reads the state then. */
	if (!reply && c->lost) {
		srv->events_dropped += record_msgs(data, len);
		return;
	}
	if (!reply)
		srv->events_delivered += record_msgs(data, len);
	/* Nothing queued: write now. Notifications an operation causes are then
	 * in the subscriber's socket before the operation's ack is in the
	 * requester's, as the kernel delivers them. */
	if (!c->head) {
		ssize_t n = send(c->fd, data, len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n == (ssize_t)len)
			return;
		if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
			/* SEQPACKET sends all or nothing; anything else is a dead peer. */
			c->dropped = true;
			shutdown(c->fd, SHUT_RDWR);
			ev_io_start(c->srv->loop, &c->wio);
			return;
		}
	}
	if (reply && (c->queued + len > DLHALD_QUEUE_MAX || srv->queued_total + len > srv->queue_total)) {
		client_drop(c);
		return;
	}
	if (!reply && (c->queued + len > srv->client_queue || srv->queued_total + len > srv->queue_total)) {
		srv->events_delivered -= record_msgs(data, len);
		srv->events_dropped += record_msgs(data, len);
		c->lost = true;
		srv->overflows++;
		if (!c->warned)
			dlhald_log(LOG_WARNING,
				   "client %d (uid %u) does not read its events: dropping them (%zu bytes queued, %zu "
				   "for all); it gets ENOBUFS once it reads",
				   c->fd, (unsigned)c->uid, c->queued, srv->queued_total);
		c->warned = true;
		ev_io_start(srv->loop, &c->wio);
		return;
	}
	r = malloc(sizeof(*r) + len);
	if (!r)
		return;
	r->next = NULL;
	r->len = len;
	memcpy(r->data, data, len);
	if (c->tail)
		c->tail->next = r;
	else
		c->head = r;
	c->tail = r;
	c->queued += len;
	srv->queued_total += len;
	ev_io_start(srv->loop, &c->wio);
}

void client_send_msg(struct client *c, struct nl_msg *msg)
{
	client_send(c, nlmsg_hdr(msg), nlmsg_hdr(msg)->nlmsg_len);
}

void server_notify(struct server *srv, struct nl_msg *msg)
{
	for (struct client *c = srv->clients, *next; c; c = next) {
		next = c->next;
		if (c->subscribed)
			client_notify(c, nlmsg_hdr(msg), nlmsg_hdr(msg)->nlmsg_len);
	}
}

static void on_readable(struct ev_loop *loop, ev_io *w, int revents)
{
	struct client *c = w->data;
	unsigned char *buf;
	ssize_t n;

	(void)loop;
	(void)revents;
	/* One buffer per request, freed when it is answered: no client's bytes
	 * outlive its request, and nothing read past a record's end can be
	 * another client's (ASan sees it as an overflow). */
	buf = malloc(DLHAL_RECORD_MAX);
	if (!buf)
		return; /* level-triggered: tried again on the next turn */
	n = recv(c->fd, buf, DLHAL_RECORD_MAX, MSG_DONTWAIT | MSG_TRUNC);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
		free(buf);
		return;
	}
	if (n <= 0) {
		/* closed (a zero-length record looks the same on SEQPACKET) */
		free(buf);
		client_free(c);
		return;
	}
	if (n > DLHAL_RECORD_MAX) {
		dlhald_log(LOG_DEBUG, "client %d: %zd-byte record, more than %d", c->fd, n, DLHAL_RECORD_MAX);
		n = DLHAL_RECORD_MAX; /* answered as malformed: its end is missing */
	}
	proto_handle(c, buf, (size_t)n);
	free(buf);
	server_flush(c->srv, c);
}

/* Primary or supplementary member of @want; the peer's group list is read
 * at the size the kernel says it has (ERANGE), not into a fixed array. */
static bool in_group(int fd, gid_t gid, gid_t want)
{
	gid_t small[64], *groups = small, *more;
	socklen_t len = sizeof(small);
	bool found = false;

	if (gid == want)
		return true;
	while (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len)) {
		if (errno != ERANGE || !(more = realloc(groups == small ? NULL : groups, len)))
			goto out;
		groups = more;
	}
	for (size_t i = 0; i < len / sizeof(gid_t) && !found; i++)
		found = groups[i] == want;
out:
	if (groups != small)
		free(groups);
	return found;
}

struct client *server_client_add(struct server *srv, int fd, uid_t uid, bool may_write)
{
	struct client *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->srv = srv;
	c->fd = fd;
	c->uid = uid;
	c->may_write = may_write;
	ev_io_init(&c->rio, on_readable, fd, EV_READ);
	ev_io_init(&c->wio, on_writable, fd, EV_WRITE);
	c->rio.data = c->wio.data = c;
	ev_io_start(srv->loop, &c->rio);
	c->next = srv->clients;
	srv->clients = c;
	srv->nclients++;
	metrics_dirty();
	return c;
}

/*
 * Whether a connection of @uid is taken: an unprivileged uid has at most
 * --max-per-user, and everyone but root at most --max-clients in all (root
 * has 16 more, to mend things). A refused peer gets -EUSERS as the answer to
 * its first request; the refusal is logged once until that uid is below the
 * limit again.
 */
static bool admit(struct server *srv, int fd, uid_t uid)
{
	struct {
		struct nlmsghdr h;
		struct nlmsgerr e;
	} m = {.h = {.nlmsg_len = sizeof(m), .nlmsg_type = NLMSG_ERROR}, .e = {.error = -EUSERS}};
	unsigned int mine = 0;
	const char *why = NULL;

	for (struct client *c = srv->clients; c && uid; c = c->next)
		mine += c->uid == uid;
	if (srv->nclients >= srv->max_clients + (uid ? 0 : 16))
		why = "--max-clients";
	else if (uid && mine >= srv->max_per_user)
		why = "--max-per-user";
	if (!why)
		return true;
	srv->refused++;
	if (srv->refused_uid != uid)
		dlhald_log(LOG_WARNING, "uid %u: %u connections of its own, %u in all: refusing more (%s)",
			   (unsigned)uid, mine, srv->nclients, why);
	srv->refused_uid = uid;
	if (send(fd, &m, sizeof(m), MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		dlhald_log(LOG_DEBUG, "refused client: %s", strerror(errno));
	return false;
}

static void on_accept(struct ev_loop *loop, ev_io *w, int revents)
{
	struct server *srv = w->data;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	bool may_write;
	int fd;

	(void)loop;
	(void)revents;
	fd = accept4(srv->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len)) {
		close(fd);
		return;
	}
	if (!admit(srv, fd, cred.uid)) {
		close(fd);
		return;
	}
	/* As the kernel: anyone who can connect reads; changes need root or the group. */
	may_write = cred.uid == 0 || (srv->group != (gid_t)-1 && in_group(fd, cred.gid, srv->group));
	if (!server_client_add(srv, fd, cred.uid, may_write)) {
		close(fd);
		return;
	}
	dlhald_log(LOG_DEBUG, "client %d: uid %u pid %d%s", fd, (unsigned)cred.uid, (int)cred.pid,
		   may_write ? ", may change" : "");
}

/* A socket file left by a daemon that died is removed; a live one is not taken over. */
static int stale_unlink(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0), live;

	memcpy(sa.sun_path, path, strlen(path) + 1);
	live = fd >= 0 && !connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	if (fd >= 0)
		close(fd);
	if (live)
		return -EADDRINUSE;
	unlink(path);
	return 0;
}

void server_init(struct server *srv)
{
	srv->lfd = -1;
	srv->max_clients = 1024;
	srv->max_per_user = 64;
	srv->client_queue = 256u << 10;
	srv->queue_total = 32u << 20;
	srv->refused_uid = (uid_t)-1;
}

int server_open(struct server *srv, const char *path, gid_t group, mode_t mode)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char dir[sizeof(sa.sun_path)], *slash;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		dlhald_log(LOG_ERR, "socket path %s is longer than %zu bytes", path, sizeof(sa.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	memcpy(dir, path, strlen(path) + 1);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST) {
			dlhald_log(LOG_ERR, "cannot create %s: %s", dir, strerror(errno));
			return -errno;
		}
	}
	if (stale_unlink(path)) {
		dlhald_log(LOG_ERR, "another dlhald serves %s", path);
		return -EADDRINUSE;
	}
	srv->lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (srv->lfd < 0 || bind(srv->lfd, (struct sockaddr *)&sa, sizeof(sa))) {
		dlhald_log(LOG_ERR, "cannot bind %s: %s", path, strerror(errno));
		return -errno;
	}
	/* The mode (0666 by default: anyone reads, as anyone reads the
	 * kernel's devlink; changes are decided per request) is set before
	 * listen(): until then nobody can connect, so a stricter mode has no
	 * moment when the socket is open to more. */
	if (chmod(path, mode) || (group != (gid_t)-1 && chown(path, 0, group)) || listen(srv->lfd, 128)) {
		int err = errno;

		dlhald_log(LOG_ERR, "cannot set up %s: %s", sa.sun_path, strerror(err));
		unlink(sa.sun_path);
		return -err;
	}
	srv->path = path;
	srv->group = group;
	ev_io_init(&srv->lio, on_accept, srv->lfd, EV_READ);
	srv->lio.data = srv;
	ev_io_start(srv->loop, &srv->lio);
	return 0;
}

int server_adopt(struct server *srv, int fd, gid_t group)
{
	int type = 0, domain = 0, listening = 0;
	socklen_t len = sizeof(int);

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) || type != SOCK_SEQPACKET ||
	    getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) || domain != AF_UNIX ||
	    getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) || !listening) {
		dlhald_log(LOG_ERR,
			   "socket activation: fd %d is no listening AF_UNIX SOCK_SEQPACKET socket "
			   "(ListenSequentialPacket= in dlhald.socket)",
			   fd);
		return -ENOTSOCK;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) || fcntl(fd, F_SETFD, FD_CLOEXEC)) {
		dlhald_log(LOG_ERR, "socket activation: fd %d: %s", fd, strerror(errno));
		return -errno;
	}
	srv->lfd = fd;
	srv->path = NULL;
	srv->group = group;
	ev_io_init(&srv->lio, on_accept, srv->lfd, EV_READ);
	srv->lio.data = srv;
	ev_io_start(srv->loop, &srv->lio);
	dlhald_log(LOG_INFO, "serving on the socket systemd passed (fd %d)", fd);
	return 0;
}

void server_close(struct server *srv)
{
	while (srv->clients)
		client_free(srv->clients);
	if (srv->lfd < 0)
		return; /* clients only (the fuzzer's socketpairs) */
	ev_io_stop(srv->loop, &srv->lio);
	close(srv->lfd);
	if (srv->path)
		unlink(srv->path);
}
