/* SPDX-License-Identifier: MIT */
/*
 * dlhald's request handling: records in, replies out, through the server's
 * own read path (server_client_add on socketpairs, the libev loop). Three
 * clients, 0 being root; before each fuzzed record, root sends a request
 * holding a canary, and no answer to another client may ever hold it.
 *
 * Set up once, reset per input (issue 46: fresh devices per input ran 232
 * inputs a second): each input starts from the same state. A client the
 * input left with state of its own (subscribed, dropped, a queue, a dry
 * run's sequence kept for the next) is replaced; the devices are loaded
 * again only after an input that may have
 * changed them (an event was emitted, or it held an emulator control or a
 * reset).
 */
#include "chunks.h"
#include "dlhald.h"
#include "ice.h"
#include "mlx5.h"
#include "mlx4.h"
#include "mlxsw.h"

#include <dlhal/protocol.h>
#include <dlhal/sdk.h>
#include <linux/devlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/msg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CLIENTS 3
#define CANARY	"canary-7f3a9c51"

static struct server srv;
static int peer[CLIENTS];
static struct client *client[CLIENTS];
static unsigned long events; /* emitted by the model: it changed */
static bool dirty;	     /* the devices may differ from the setup's */
static unsigned char canary_req[256];
static size_t canary_len;

static void put_attr(unsigned char *b, size_t *off, uint16_t type, const void *data, uint16_t len)
{
	struct nlattr a = {.nla_len = (uint16_t)(NLA_HDRLEN + len), .nla_type = type};

	memcpy(b + *off, &a, sizeof(a));
	memcpy(b + *off + NLA_HDRLEN, data, len);
	*off += NLA_ALIGN(a.nla_len);
}

/* Root asks to set an emulator key to the canary: a request whose bytes must stay root's. */
static void canary_build(void)
{
	struct nlmsghdr n = {.nlmsg_type = DLHAL_FAMILY, .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK};
	struct genlmsghdr g = {.cmd = DLHAL_CMD_SIM_SET, .version = 1};
	size_t off = NLMSG_HDRLEN + GENL_HDRLEN;

	put_attr(canary_req, &off, DEVLINK_ATTR_BUS_NAME, "pci", 4);
	put_attr(canary_req, &off, DEVLINK_ATTR_DEV_NAME, "0000:03:00.0", 13);
	put_attr(canary_req, &off, DLHAL_ATTR_SIM_KEY, CANARY, sizeof(CANARY));
	put_attr(canary_req, &off, DLHAL_ATTR_SIM_VALUE, CANARY, sizeof(CANARY));
	n.nlmsg_len = (uint32_t)off;
	memcpy(canary_req, &n, sizeof(n));
	memcpy(canary_req + NLMSG_HDRLEN, &g, sizeof(g));
	canary_len = off;
}

static void drain(void)
{
	static unsigned char buf[DLHAL_RECORD_MAX];

	for (int i = 0; i < CLIENTS; i++) {
		ssize_t n;

		while ((n = recv(peer[i], buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
			if (i && memmem(buf, (size_t)n, CANARY, strlen(CANARY))) {
				fprintf(stderr, "client %d received bytes of root's request\n", i);
				abort();
			}
		}
	}
}

static void deliver(int client, const void *data, size_t len)
{
	/* A zero-length record is a close on SEQPACKET; the server's loop sees it as one. */
	if (send(peer[client], data, len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		return;
	ev_run(srv.loop, EVRUN_NOWAIT);
	drain();
}

static void on_event(const struct dlh_event *ev, void *arg)
{
	(void)ev;
	(void)arg;
	events++;
}

static int clients_add(void)
{
	for (int i = 0; i < CLIENTS; i++) {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv))
			return -1;
		client[i] = server_client_add(&srv, sv[0], i ? 65534 : 0, i == 0);
		if (!client[i])
			return -1;
		peer[i] = sv[1];
	}
	return 0;
}

static void clients_close(void)
{
	server_close(&srv);
	for (int i = 0; i < CLIENTS; i++)
		close(peer[i]);
}

/* Whether the server's clients are as clients_add() left them: nothing of an input kept. */
static bool clients_clean(void)
{
	int n = 0;

	for (struct client *c = srv.clients; c; c = c->next, n++) {
		bool ours = false;

		for (int i = 0; i < CLIENTS; i++)
			ours |= c == client[i];
		if (!ours || c->subscribed || c->dropped || c->lost || c->warned || c->head || c->pend_len ||
		    c->queued || c->plan)
			return false;
	}
	return n == CLIENTS;
}

static struct dlh_sub *counter;

static int setup(void)
{
	struct dlh_extack ext;
	char why[512];

	server_init(&srv);
	srv.group = (gid_t)-1;
	srv.loop = ev_default_loop(0);
	if (dlh_ctx_new(&srv.ctx, &ext) || dlh_sdk_driver_register(srv.ctx, &mlxsw_driver, &ext) ||
	    dlh_sdk_driver_register(srv.ctx, &mlx4_driver, &ext) ||
	    dlh_sdk_driver_register(srv.ctx, &ice_driver, &ext) ||
	    dlh_sdk_driver_register(srv.ctx, &mlx5_driver, &ext) ||
	    state_load(srv.ctx, "cx3-vpi,sn2700,e810-cqda2", NULL, "fuzz", why, sizeof(why)))
		return -1;
	for (struct dlh_dev *dev = dlh_dev_first(srv.ctx); dev; dev = dlh_dev_next(dev))
		dlh_port_first(dev);
	if (clients_add() || dlh_ctx_subscribe(srv.ctx, on_event, NULL, &counter))
		return -1;
	dirty = false;
	return dlh_ctx_subscribe(srv.ctx, proto_event, &srv, &srv.sub);
}

static void teardown(void)
{
	dlh_ctx_unsubscribe(srv.sub);
	dlh_ctx_unsubscribe(counter);
	clients_close();
	dlh_ctx_free(srv.ctx);
}

/*
 * Whether a record may change the devices without an event saying so: an
 * emulator control or a reset, in a message the server takes as one (it
 * cuts a record as proto_handle() does; a split, unsplit or type change
 * that takes effect emits an event, and a staged one sets something
 * pending, which emits one too).
 */
static bool record_changes(const uint8_t *data, size_t len)
{
	/* a record sits anywhere in the input: read as the server does, from an aligned buffer */
	static uint32_t buf[DLHAL_RECORD_MAX / sizeof(uint32_t)];
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	int rem = (int)(len < sizeof(buf) ? len : sizeof(buf));

	memcpy(buf, data, (size_t)rem);
	for (; nlmsg_ok(h, rem); h = nlmsg_next(h, &rem)) {
		uint8_t cmd;

		if (h->nlmsg_type != DLHAL_FAMILY || h->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
			continue;
		cmd = ((const struct genlmsghdr *)nlmsg_data(h))->cmd;
		if (cmd == DLHAL_CMD_SIM_SET || cmd == DEVLINK_CMD_RELOAD)
			return true;
	}
	return false;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	log_init(true, 0);
	canary_build();
	return 0;
}

/* dlhald.c's, which the harness does not link: no desired-state file. */
const struct dlh_desired *dlhald_desired(void)
{
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned long events_before;
	struct chunk c;

	if (!srv.ctx || dirty) {
		if (srv.ctx)
			teardown();
		if (setup()) {
			fprintf(stderr, "fuzz_daemon: setup failed\n");
			abort();
		}
	} else if (!clients_clean()) {
		clients_close();
		if (clients_add()) {
			fprintf(stderr, "fuzz_daemon: clients failed\n");
			abort();
		}
	}
	events_before = events;
	while (chunk_next(&data, &size, &c)) {
		int client = c.tag % CLIENTS;

		/* root's canary before what another client sends, which must never see it */
		if (client)
			deliver(0, canary_req, canary_len);
		if (c.len) {
			dirty |= record_changes(c.data, c.len);
			deliver(client, c.data, c.len);
		}
	}
	dirty |= events != events_before;
	return 0;
}
