/* SPDX-License-Identifier: MIT */
/* dlhald: hosts dlhal drivers and serves the devlink protocol on a UNIX socket. */
#ifndef DLHALD_H
#define DLHALD_H

#include <dlhal/bridge.h>
#include <dlhal/dlhal.h>
#include <dlhal/sdk.h>
#include <ev.h>
#include <netlink/msg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Largest state one device's driver may save. */
#define DLHALD_STATE_MAX (256u << 10)

/* A client's queue may hold this much before the client is dropped. */
#define DLHALD_QUEUE_MAX (4u << 20)

struct record {
	struct record *next;
	size_t len;
	unsigned char data[];
};

struct client {
	struct client *next;
	struct server *srv;
	ev_io rio, wio;
	int fd;
	uid_t uid;
	bool may_write;
	bool subscribed;
	bool dropped;
	bool lost;	 /* notifications dropped: an ENOBUFS notice follows once the queue drains */
	bool warned;	 /* its overflow was logged */
	bool pend_reply; /* pend holds a reply, not only notifications */
	struct record *head, *tail;
	size_t queued;
	/* What the request in hand (or a timer) produced for this client, sent as one record. */
	unsigned char *pend;
	size_t pend_len;
	struct plan_cache *plan; /* its last dry run's sequence, for the next to go on from (proto.c) */
};

struct server {
	struct ev_loop *loop;
	struct dlh_ctx *ctx;
	struct dlh_sub *sub;
	ev_io lio;
	int lfd;
	const char *path;
	gid_t group; /* (gid_t)-1: root only */
	struct client *clients;
	unsigned long drops;
	/* Bounds (dlhald(8)): */
	unsigned int max_clients;  /* connections in all */
	unsigned int max_per_user; /* connections of one unprivileged uid */
	size_t client_queue;	   /* notification bytes queued for one client */
	size_t queue_total;	   /* bytes queued for all clients */
	size_t queued_total;
	unsigned int nclients;
	unsigned long overflows, refused;
	uid_t refused_uid;	/* the uid whose refusal was logged last */
	const char *state;	/* --state FILE, or NULL */
	bool state_dirty;	/* the model changed since FILE was written */
	char state_failed[512]; /* why the last write failed, logged once; "" when it did not */
	/* Notifications to subscribers, each counted once a subscriber (--metrics-file). */
	unsigned long long events_delivered, events_dropped;
	unsigned long model_gen; /* events of the model seen: a cached dry run is of the model as it was */
};

/* A device in the kernel through /dev/dlhal, and the ports the kernel holds for it. */
struct bridge_dev {
	struct dlh_dev *dev; /* NULL once the device went (a reset): its instance goes at the next sync */
	char name[DLH_DEV_NAME_MAX];
	bool published;
	bool as_linux; /* published as the Linux driver its profile names: it follows the running kernel's */
	bool eth_only; /* as mlx5_core: Ethernet ports only, no type set through devlink */
	/*
	 * As Linux 6.7 on: its Ethernet port on an instance nested in this one, "mlx5_core.eth.N",
	 * there while the function runs Ethernet; "": on this one (6.1's layout).
	 */
	char eth_name[DLH_DEV_NAME_MAX];
	bool eth_up, eth_published;
	struct dlhal_bridge_port *mirror; /* what the kernel holds */
	size_t n;
	struct { /* the refusal logged last: not again until another */
		uint32_t index, type;
		int err;
	} failed;
};

struct bridge {
	struct server *srv;
	int fd;
	ev_io io;
	ev_prepare sync;
	ev_timer retry; /* a sync the kernel put off (-EBUSY: an op's waiter has not let go yet) is tried again */
	struct bridge_dev *devs;
	size_t ndevs;
	struct dlh_sub *sub;		     /* devices that come and go */
	bool added;			     /* a device came that has no instance yet */
	char release[DLH_LINUX_RELEASE_MAX]; /* the running kernel's: a device published as its driver follows it */
	unsigned int eth_next;		     /* the next nested Ethernet instance's N */
	bool no_nest;			     /* the kernel has no nested instances (before 6.7) */
	/* The last op the kernel asked for, to undo it if the kernel cannot take its ports. */
	struct {
		uint32_t seq, type, index, count;
		enum dlh_port_type prev_type;
		struct dlhal_bridge_port *before; /* the model before the op */
		size_t nbefore;
		struct dlhal_bridge_port *held; /* what the kernel held then */
		size_t nheld;
	} last;
};

/* server.c */
/* The bounds' defaults (dlhald(8)); call before server_open() or server_client_add(). */
void server_init(struct server *srv);
int server_open(struct server *srv, const char *path, gid_t group, mode_t mode);
/* Serve on @fd, a listening AF_UNIX SOCK_SEQPACKET socket someone else made (systemd); it is not unlinked. */
int server_adopt(struct server *srv, int fd, gid_t group);
/* A connected client on @fd (taken over: closed when the client goes), read on the server's loop. */
struct client *server_client_add(struct server *srv, int fd, uid_t uid, bool may_write);
void server_close(struct server *srv);
void client_send(struct client *c, const void *data, size_t len);
void client_notify(struct client *c, const void *data, size_t len);
void client_send_msg(struct client *c, struct nl_msg *msg);
void server_notify(struct server *srv, struct nl_msg *msg);
/* Sends what is pending: every other client's first, then @first's (may be NULL). */
void server_flush(struct server *srv, struct client *last);

/* proto.c */
void proto_handle(struct client *c, const unsigned char *buf, size_t len);
/* What proto.c keeps for a client: freed with it. */
void proto_client_free(struct client *c);
void proto_event(const struct dlh_event *ev, void *arg);

/* state.c: the state file; every failure says which file, field and why in @why */
int state_read(const char *path, char **devices, char *why, size_t whylen);
/*
 * One daemon per state file: an exclusive lock on PATH.lock (flock, kept
 * across the fork of daemonizing), which holds the holder's pid. Returns the
 * lock's descriptor (left open for the daemon's life), or -1 with @why naming
 * the file and the pid that holds it.
 */
int state_lock(const char *path, char *why, size_t whylen);
/* After a fork: the pid in the lock file is this process's. */
void state_lock_pid(int fd);
int state_parse(const char *text, size_t len, const char *path, char **devices, char *why, size_t whylen);
/* Loads the --sim profiles, each device from its saved state in @devices (may be NULL). */
int state_load(struct dlh_ctx *ctx, const char *profiles, const char *devices, const char *path, char *why,
	       size_t whylen);
/* What vendors' rules learnt of kernel devices, back from @saved if it is of this boot; what does not fit is logged and
 * dropped. */
void state_kernel_restore(struct dlh_ctx *ctx, const char *saved, const char *path);
int state_write(struct dlh_ctx *ctx, const char *path, char *why, size_t whylen);
/* Writes the file if the model changed since; 0 when it is durable. */
int state_commit(struct server *srv, char *why, size_t whylen);

/* bridge.c: --kernel-bridge */
int bridge_open(struct bridge *b, struct server *srv, const char *path, char *why, size_t whylen);
void bridge_close(struct bridge *b);

/* metrics.c: --metrics-file (docs/fleet.md) */
/* A port change's kind is its enum dlh_change (a desired step's too); a reload is the one more. */
enum metrics_op {
	METRICS_OP_SPLIT = DLH_CHANGE_SPLIT,
	METRICS_OP_UNSPLIT = DLH_CHANGE_UNSPLIT,
	METRICS_OP_TYPE = DLH_CHANGE_TYPE,
	METRICS_OP_RELOAD,
	METRICS_OP_COUNT
};
enum metrics_source { METRICS_SOURCE_CLIENT, METRICS_SOURCE_DESIRED, METRICS_SOURCE_COUNT };
/* Writes PATH now (0, or a negative errno: logged), then after each change and every @interval seconds. */
int metrics_start(struct server *srv, const char *path, double interval);
void metrics_stop(void);
/* An operation done (@err 0) or refused, and how long it took; nothing without --metrics-file. */
void metrics_op(enum metrics_op op, enum metrics_source source, int err, double seconds);
/* Something counted changed (a client came or went): written before the loop next waits. */
void metrics_dirty(void);
double metrics_now(void);

/* dlhald.c: the desired-state file in force (--desired), or NULL */
struct dlh_desired;
const struct dlh_desired *dlhald_desired(void);

/* log.c */
void log_init(bool foreground, int verbosity);
void dlhald_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void dlhald_log_driver(void *arg, enum dlh_log_level level, const struct dlh_dev *dev, const char *msg);

#endif
