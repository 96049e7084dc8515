/* SPDX-License-Identifier: MIT */
/*
 * The context: dlhal.open(), lookups and iteration, events, and a small
 * loop (run/step) over the context's descriptors and driver timers, or
 * fds/dispatch/timeout for another loop (luv, cqueues) to drive it.
 */
#include "ldlhal.h"

#include <dlhal/protocol.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

struct lctx *ldlhal_ctx_check(lua_State *L, int idx)
{
	return luaL_checkudata(L, idx, LDLHAL_CTX);
}

struct dlh_ctx *ldlhal_ctx_live(lua_State *L, int idx)
{
	struct lctx *c = ldlhal_ctx_check(L, idx);

	if (!c->ctx)
		luaL_error(L, "dlhal context is closed");
	return c->ctx;
}

void ldlhal_ctx_enter(lua_State *L, struct lctx *c, const char *what)
{
	if (c->in_event)
		luaL_error(L, "cannot %s inside an event callback", what);
}

/* The context userdata of @c, from a weak table: callbacks need it, and it must not be kept alive. */
#define CTX_MAP "dlhal.ctxmap"

static void map_push(lua_State *L, struct lctx *c)
{
	lua_getfield(L, LUA_REGISTRYINDEX, CTX_MAP);
	lua_rawgetp(L, -1, c);
	lua_remove(L, -2);
}

static void map_set(lua_State *L, struct lctx *c, int idx)
{
	idx = lua_absindex(L, idx);
	lua_getfield(L, LUA_REGISTRYINDEX, CTX_MAP);
	lua_pushvalue(L, idx);
	lua_rawsetp(L, -2, c);
	lua_pop(L, 1);
}

/* ---- events -------------------------------------------------------------------------------- */

static void made_add(struct lctx *c, const char *handle)
{
	for (size_t i = 0; i < c->nmade; i++)
		if (!strcmp(c->made[i], handle))
			return;
	if (c->nmade == c->capmade) {
		size_t cap = c->capmade ? 2 * c->capmade : 16;
		void *m = realloc(c->made, cap * sizeof(*c->made));

		if (!m)
			return;
		c->made = m;
		c->capmade = cap;
	}
	strncpy(c->made[c->nmade], handle, DLH_HANDLE_MAX - 1);
	c->made[c->nmade++][DLH_HANDLE_MAX - 1] = '\0';
}

/* Calls every subscriber with the event table on top of the stack; keeps the first error.
 * The callbacks are copied first: a callback may subscribe or cancel. */
static void deliver(lua_State *L, struct lctx *c)
{
	int ev = lua_gettop(L), n = 0;

	lua_newtable(L);
	lua_rawgeti(L, LUA_REGISTRYINDEX, c->subs_ref);
	lua_pushnil(L);
	while (lua_next(L, -2)) {
		lua_rawseti(L, ev + 1, ++n);
	}
	lua_pop(L, 1);
	for (int i = 1; i <= n; i++) {
		lua_rawgeti(L, ev + 1, i);
		lua_pushvalue(L, ev);
		c->in_event = true;
		if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
			if (c->err_ref == LUA_NOREF)
				c->err_ref = luaL_ref(L, LUA_REGISTRYINDEX);
			else
				lua_pop(L, 1);
		}
		c->in_event = false;
	}
	lua_pop(L, 1);
}

static void on_event(const struct dlh_event *e, void *arg)
{
	struct lctx *c = arg;
	lua_State *L = c->L;
	int top;

	if (e->type == DLH_EVENT_PORT_DEL || e->type == DLH_EVENT_DEV_DEL)
		c->gen++; /* objects' cached pointers are looked up again */
	if (c->collecting && e->type == DLH_EVENT_PORT_NEW)
		made_add(c, dlh_port_handle(e->port));
	if (e->type == DLH_EVENT_LOST && !c->lost[0])
		snprintf(c->lost, sizeof(c->lost), "%s: %s", e->bus, e->msg);
	if (!L)
		return;
	top = lua_gettop(L);
	/* nobody listens: no event table to build */
	lua_rawgeti(L, LUA_REGISTRYINDEX, c->subs_ref);
	lua_pushnil(L);
	if (!lua_istable(L, -2) || !lua_next(L, -2)) {
		lua_settop(L, top);
		return;
	}
	lua_settop(L, top);
	/* the event table, its objects, and delivery's list, callback and argument */
	if (!lua_checkstack(L, 24))
		return;
	map_push(L, c);
	if (lua_isnil(L, -1)) {
		lua_settop(L, top);
		return;
	}
	lua_createtable(L, 0, 6);
	lua_pushstring(L, dlh_event_object(e->type));
	lua_setfield(L, -2, "object");
	lua_pushstring(L, dlh_event_action(e->type));
	lua_setfield(L, -2, "action");
	if (e->type == DLH_EVENT_RESYNC || e->type == DLH_EVENT_LOST) {
		/* no object: the bus whose notifications were lost (and which read its state again), or
		 * whose source went away (and why) */
		lua_pushstring(L, e->bus);
		lua_setfield(L, -2, "bus");
		if (e->msg) {
			lua_pushstring(L, e->msg);
			lua_setfield(L, -2, "message");
		}
		deliver(L, c);
		lua_settop(L, top);
		return;
	}
	if (e->port) {
		lua_pushstring(L, dlh_port_handle(e->port));
		lua_setfield(L, -2, "handle");
		ldlhal_port_push(L, top + 1, e->port);
		lua_setfield(L, -2, "port");
		/* what the port was at the event (a deleted one is gone right after) */
		ldlhal_port_table(L, e->port);
		lua_setfield(L, -2, "state");
	} else {
		lua_pushstring(L, dlh_dev_handle(e->dev));
		lua_setfield(L, -2, "handle");
		ldlhal_dev_table(L, e->dev);
		lua_setfield(L, -2, "state");
	}
	ldlhal_dev_push(L, top + 1, e->dev);
	lua_setfield(L, -2, "dev");
	/* a plan miss: how the kernel's outcome differs from the vendor's rules' plan */
	if (e->msg) {
		lua_pushstring(L, e->msg);
		lua_setfield(L, -2, "message");
	}
	deliver(L, c);
	lua_settop(L, top);
}

/* Raises the first error a callback raised since the last run/step, if any: nil, message. */
static int pending_error(lua_State *L, struct lctx *c)
{
	/* a backend that went away: nothing more will come, every loop says so (nil, msg, errname) */
	if (c->err_ref == LUA_NOREF && c->lost[0]) {
		lua_pushnil(L);
		lua_pushstring(L, c->lost);
		lua_pushstring(L, "ECONNRESET");
		return 3;
	}
	if (c->err_ref == LUA_NOREF)
		return 0;
	lua_pushnil(L);
	lua_rawgeti(L, LUA_REGISTRYINDEX, c->err_ref);
	luaL_unref(L, LUA_REGISTRYINDEX, c->err_ref);
	c->err_ref = LUA_NOREF;
	return 2;
}

static int sub_cancel(lua_State *L)
{
	struct lctx *c;

	luaL_checkudata(L, 1, LDLHAL_SUB);
	lua_getiuservalue(L, 1, 1);
	c = luaL_testudata(L, -1, LDLHAL_CTX);
	if (c && c->subs_ref != LUA_NOREF) {
		lua_rawgeti(L, LUA_REGISTRYINDEX, c->subs_ref);
		lua_pushvalue(L, 1);
		lua_pushnil(L);
		lua_rawset(L, -3);
	}
	return 0;
}

static int ctx_subscribe(lua_State *L)
{
	struct lctx *c = ldlhal_ctx_check(L, 1);
	struct dlh_ctx *ctx = ldlhal_ctx_live(L, 1);

	luaL_checktype(L, 2, LUA_TFUNCTION);
	/* The whole model first, as dl monitor reads it: a lazy backend (a dlhald, the kernel) would
	 * otherwise fill on the next lookup or listing, and its "new" events would tell the script that
	 * what existed all along had just come. Only changes reach a subscriber. */
	for (struct dlh_dev *dev = dlh_dev_first(ctx); dev; dev = dlh_dev_next(dev))
		dlh_port_first(dev);
	lua_newuserdatauv(L, 1, 1);
	luaL_setmetatable(L, LDLHAL_SUB);
	lua_pushvalue(L, 1);
	lua_setiuservalue(L, -2, 1);
	lua_rawgeti(L, LUA_REGISTRYINDEX, c->subs_ref);
	lua_pushvalue(L, -2);
	lua_pushvalue(L, 2);
	lua_rawset(L, -3);
	lua_pop(L, 1);
	return 1;
}

/* ---- the loop ------------------------------------------------------------------------------ */

/* Runs the drivers' timers that fell due since the last call. */
static void clock_catch_up(struct lctx *c)
{
	uint64_t t = now_ms();

	if (t > c->clock)
		dlh_ctx_clock_advance(c->ctx, t - c->clock);
	c->clock = t;
}

/* Waits up to @ms (<0: until something happens) for a descriptor or a timer, and dispatches. */
static void wait_once(struct lctx *c, int64_t ms)
{
	struct pollfd pfd[16];
	int fds[16];
	size_t n = dlh_ctx_io_fds(c->ctx, fds, 16);
	int64_t next = dlh_ctx_timeout(c->ctx);

	if (n > 16)
		n = 16;
	for (size_t i = 0; i < n; i++)
		pfd[i] = (struct pollfd){.fd = fds[i], .events = POLLIN};
	if (next >= 0 && (ms < 0 || next < ms))
		ms = next;
	if (poll(pfd, n, ms < 0 ? -1 : (int)(ms > 1000000 ? 1000000 : ms)) > 0) {
		for (size_t i = 0; i < n && c->ctx; i++)
			if (pfd[i].revents)
				dlh_ctx_io_ready(c->ctx, pfd[i].fd);
	}
	if (c->ctx)
		clock_catch_up(c);
}

/* ctx:step([ms]): one wait of at most @ms (default 0), then what fell due. */
static int ctx_step(lua_State *L)
{
	struct lctx *c = ldlhal_ctx_check(L, 1);
	lua_Integer ms = luaL_optinteger(L, 2, 0);
	int n;

	if (ms < 0)
		return luaL_argerror(L, 2, "expected milliseconds, an integer >= 0");
	ldlhal_ctx_live(L, 1);
	ldlhal_ctx_enter(L, c, "step the loop");
	wait_once(c, ms);
	if ((n = pending_error(L, c)))
		return n;
	lua_pushboolean(L, 1);
	return 1;
}

/* ctx:run{timeout = ms}: dispatches until the timeout passes or ctx:stop(); forever without one. */
static int ctx_run(lua_State *L)
{
	struct lctx *c = ldlhal_ctx_check(L, 1);
	lua_Integer timeout = -1;
	uint64_t end;
	int n;

	ldlhal_ctx_live(L, 1);
	if (!lua_isnoneornil(L, 2)) {
		luaL_checktype(L, 2, LUA_TTABLE);
		ldlhal_options_check(L, 2, (const char *const[]){"timeout", NULL}, "timeout");
		if (lua_getfield(L, 2, "timeout") != LUA_TNIL) {
			if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 0)
				return luaL_argerror(L, 2, "timeout: expected milliseconds, an integer >= 0");
			timeout = lua_tointeger(L, -1);
		}
		lua_pop(L, 1);
	}
	ldlhal_ctx_enter(L, c, "run the loop");
	c->stop = false;
	end = now_ms() + (uint64_t)(timeout < 0 ? 0 : timeout);
	while (c->ctx && !c->stop && c->err_ref == LUA_NOREF && !c->lost[0]) {
		int64_t left = timeout < 0 ? -1 : (int64_t)(end - now_ms());

		if (timeout >= 0 && (left <= 0 || now_ms() >= end))
			break;
		wait_once(c, left);
	}
	if ((n = pending_error(L, c)))
		return n;
	lua_pushboolean(L, 1);
	return 1;
}

static int ctx_stop(lua_State *L)
{
	ldlhal_ctx_check(L, 1)->stop = true;
	return 0;
}

/* For another loop: the descriptors to watch, dispatch(fd) when one is readable, timeout(). */
static int ctx_fds(lua_State *L)
{
	int fds[64];
	size_t n = dlh_ctx_io_fds(ldlhal_ctx_live(L, 1), fds, 64);

	lua_createtable(L, (int)n, 0);
	for (size_t i = 0; i < n && i < 64; i++) {
		lua_pushinteger(L, fds[i]);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	return 1;
}

static int ctx_dispatch(lua_State *L)
{
	struct lctx *c = ldlhal_ctx_check(L, 1);
	int n;

	ldlhal_ctx_live(L, 1);
	ldlhal_ctx_enter(L, c, "dispatch the loop");
	if (!lua_isnoneornil(L, 2))
		dlh_ctx_io_ready(c->ctx, (int)luaL_checkinteger(L, 2));
	if (c->ctx)
		clock_catch_up(c);
	if ((n = pending_error(L, c)))
		return n;
	lua_pushboolean(L, 1);
	return 1;
}

static int ctx_timeout(lua_State *L)
{
	int64_t t = dlh_ctx_timeout(ldlhal_ctx_live(L, 1));

	if (t < 0)
		lua_pushnil(L);
	else
		lua_pushinteger(L, t);
	return 1;
}

/* ---- lookups and iteration ----------------------------------------------------------------- */

static int ctx_devices(lua_State *L)
{
	struct dlh_ctx *ctx = ldlhal_ctx_live(L, 1);
	int n = 0;

	lua_newtable(L);
	for (struct dlh_dev *d = dlh_dev_first(ctx); d; d = dlh_dev_next(d)) {
		ldlhal_dev_push(L, 1, d);
		lua_rawseti(L, -2, ++n);
	}
	ldlhal_iter_push(L);
	return 1;
}

static int ctx_ports(lua_State *L)
{
	struct dlh_ctx *ctx = ldlhal_ctx_live(L, 1);
	int n = 0;

	lua_newtable(L);
	for (struct dlh_port *p = dlh_port_first_all(ctx); p; p = dlh_port_next_all(p)) {
		ldlhal_port_push(L, 1, p);
		lua_rawseti(L, -2, ++n);
	}
	ldlhal_iter_push(L);
	return 1;
}

/* ctx:port("eth0") or ctx:port("pci/0000:03:00.0/1") */
static int ctx_port(lua_State *L)
{
	struct dlh_ctx *ctx = ldlhal_ctx_live(L, 1);
	const char *what = luaL_checkstring(L, 2);
	struct dlh_extack ext;
	struct dlh_port *p;
	int err = dlh_port_lookup(ctx, what, &p, &ext);

	if (err)
		return ldlhal_fail_ext(L, err, &ext);
	ldlhal_port_push(L, 1, p);
	return 1;
}

static int ctx_dev(lua_State *L)
{
	struct dlh_ctx *ctx = ldlhal_ctx_live(L, 1);
	const char *what = luaL_checkstring(L, 2);
	struct dlh_extack ext;
	struct dlh_dev *d;
	int err = dlh_dev_lookup(ctx, what, &d, &ext);

	if (err)
		return ldlhal_fail_ext(L, err, &ext);
	ldlhal_dev_push(L, 1, d);
	return 1;
}

/* ---- open and close ------------------------------------------------------------------------ */

static void close_ctx(lua_State *L, struct lctx *c)
{
	if (c->ctx) {
		/* The devices going away with the context are no events to deliver. */
		dlh_ctx_unsubscribe(c->sub);
		c->sub = NULL;
		c->L = NULL;
		c->gen++;
		dlh_ctx_free(c->ctx);
		c->ctx = NULL;
	}
	if (c->subs_ref != LUA_NOREF) {
		luaL_unref(L, LUA_REGISTRYINDEX, c->subs_ref);
		c->subs_ref = LUA_NOREF;
	}
	if (c->err_ref != LUA_NOREF) {
		luaL_unref(L, LUA_REGISTRYINDEX, c->err_ref);
		c->err_ref = LUA_NOREF;
	}
	free(c->made);
	c->made = NULL;
	c->nmade = c->capmade = 0;
}

/* __gc, __close and close(): one idempotent function. */
static int ctx_close(lua_State *L)
{
	struct lctx *c = ldlhal_ctx_check(L, 1);

	if (c->in_event)
		return luaL_error(L, "cannot close the context inside an event callback");
	close_ctx(L, c);
	return 0;
}

/* The profiles of a list {"a", "b"}, into @names (NULL-terminated); misuse raises. */
static void profile_list(lua_State *L, int idx, const char **names, size_t max)
{
	size_t n = 0;

	for (lua_Integer i = 1; lua_rawgeti(L, idx, i) != LUA_TNIL; i++) {
		if (lua_type(L, -1) != LUA_TSTRING || !lua_rawlen(L, -1))
			luaL_argerror(L, 1, "sim: profile names are non-empty strings");
		if (n + 1 >= max)
			luaL_argerror(L, 1, "sim: too many profiles");
		names[n++] = lua_tostring(L, -1); /* stays valid: the table holds it */
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	names[n] = NULL;
}

/*
 * dlhal.open([opts]): {sim = "sn2700" or {...}}, {socket = PATH}, {kernel = true}; without
 * any, dlhald's socket if it exists, else the kernel, as dl chooses.
 */
static int dlhal_open(lua_State *L)
{
	const char *socket = NULL, *sims[64];
	struct dlh_backends b = {0};
	bool kernel = false, sim = false;
	struct dlh_extack ext;
	struct lctx *c;
	int err;

	if (!lua_isnoneornil(L, 1)) {
		luaL_checktype(L, 1, LUA_TTABLE);
		ldlhal_options_check(L, 1, (const char *const[]){"sim", "socket", "kernel", NULL},
				     "sim, socket, kernel");
		if (lua_getfield(L, 1, "socket") != LUA_TNIL && (lua_type(L, -1) != LUA_TSTRING || !lua_rawlen(L, -1)))
			return luaL_argerror(L, 1, "socket: expected a path, a non-empty string");
		socket = lua_isnil(L, -1) ? NULL : lua_tostring(L, -1);
		if (lua_getfield(L, 1, "kernel") != LUA_TNIL && !lua_isboolean(L, -1))
			return luaL_argerror(
			    L, 1, lua_pushfstring(L, "kernel: expected a boolean, got %s", luaL_typename(L, -1)));
		kernel = lua_toboolean(L, -1);
		lua_getfield(L, 1, "sim");
		sim = !lua_isnil(L, -1);
		if (sim && !(lua_type(L, -1) == LUA_TSTRING  ? lua_rawlen(L, -1) > 0
			     : lua_type(L, -1) == LUA_TTABLE ? lua_rawlen(L, -1) > 0
							     : false))
			return luaL_argerror(L, 1, "sim: expected a profile name or a non-empty list of them");
		if (lua_type(L, -1) == LUA_TSTRING) {
			if (lua_rawlen(L, -1) >= 1024)
				return luaL_argerror(L, 1, "sim: profile list too long");
			b.sim = lua_tostring(L, -1);
		} else if (sim) {
			profile_list(L, lua_gettop(L), sims, sizeof(sims) / sizeof(sims[0]));
			b.sims = sims;
		}
		lua_pop(L, 1);
		/* the socket string stays on the stack while used */
	}
	c = lua_newuserdatauv(L, sizeof(*c), 0);
	memset(c, 0, sizeof(*c));
	c->err_ref = c->subs_ref = LUA_NOREF;
	luaL_setmetatable(L, LDLHAL_CTX);
	if (dlh_ctx_new(&c->ctx, &ext))
		return ldlhal_fail_ext(L, -ENOMEM, &ext);
	lua_newtable(L);
	c->subs_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	map_set(L, c, -1);
	c->clock = now_ms();
	/* Callbacks run on the main thread, which lives as long as the state: a
	 * coroutine that opened or last used the context may be gone when a
	 * lookup fills the model and emits events. */
	lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
	c->L = lua_tothread(L, -1);
	lua_pop(L, 1);
	if (dlh_ctx_subscribe(c->ctx, on_event, c, &c->sub)) {
		close_ctx(L, c);
		return ldlhal_fail(L, -ENOMEM, "Out of memory");
	}
	b.socket = socket;
	b.kernel = kernel;
	err = dlh_ctx_backends_attach(c->ctx, &b, NULL, &ext);
	if (err) {
		close_ctx(L, c);
		return ldlhal_fail_ext(L, err, &ext);
	}
	return 1;
}

void ldlhal_ctx_open(lua_State *L)
{
	static const luaL_Reg methods[] = {
	    {"devices", ctx_devices},	{"apply", ldlhal_ctx_apply},
	    {"ports", ctx_ports},	{"port", ctx_port},
	    {"dev", ctx_dev},		{"subscribe", ctx_subscribe},
	    {"run", ctx_run},		{"step", ctx_step},
	    {"stop", ctx_stop},		{"fds", ctx_fds},
	    {"dispatch", ctx_dispatch}, {"timeout", ctx_timeout},
	    {"close", ctx_close},	{NULL, NULL},
	};

	luaL_newmetatable(L, LDLHAL_CTX);
	luaL_newlib(L, methods);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, ctx_close);
	lua_setfield(L, -2, "__gc");
	lua_pushcfunction(L, ctx_close);
	lua_setfield(L, -2, "__close");
	lua_pushliteral(L, "dlhal.ctx");
	lua_setfield(L, -2, "__metatable");
	lua_pop(L, 1);

	luaL_newmetatable(L, LDLHAL_SUB);
	lua_newtable(L);
	lua_pushcfunction(L, sub_cancel);
	lua_setfield(L, -2, "cancel");
	lua_setfield(L, -2, "__index");
	lua_pop(L, 1);

	lua_newtable(L);
	lua_createtable(L, 0, 1);
	lua_pushliteral(L, "v");
	lua_setfield(L, -2, "__mode");
	lua_setmetatable(L, -2);
	lua_setfield(L, LUA_REGISTRYINDEX, CTX_MAP);

	lua_pushcfunction(L, dlhal_open);
	lua_setfield(L, -2, "open");
}
