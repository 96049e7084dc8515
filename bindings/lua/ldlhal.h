/* SPDX-License-Identifier: MIT */
/* The Lua module's shared pieces: the context userdata and the object helpers. */
#ifndef LDLHAL_H
#define LDLHAL_H

#include <dlhal/dlhal.h>
#include <lauxlib.h>
#include <lua.h>
#include <stdbool.h>
#include <stdint.h>

#define LDLHAL_CTX  "dlhal.ctx"
#define LDLHAL_DEV  "dlhal.dev"
#define LDLHAL_PORT "dlhal.port"
#define LDLHAL_SUB  "dlhal.subscription"

/*
 * An options table holds only the keys @known (a typo must not change what
 * happens: open another backend, or split for real where a dry run was
 * meant); misuse raises, naming the argument @idx and the key.
 */
void ldlhal_options_check(lua_State *L, int idx, const char *const *known, const char *list);

struct lctx {
	struct dlh_ctx *ctx; /* NULL once closed */
	lua_State *L;	     /* the main thread: callbacks run on it */
	struct dlh_sub *sub; /* our one subscription to the context */
	int err_ref;	     /* the first error a callback raised, for run/step; LUA_NOREF */
	int subs_ref;	     /* registry: table of subscription userdata -> callback */
	bool in_event;	     /* inside a callback: no operations */
	bool stop;	     /* ctx:stop() asked run to return */
	uint64_t clock;	     /* last time the driver clock was advanced (ms, monotonic) */
	char lost[200];	     /* a backend went away (DLH_EVENT_LOST): run, step and dispatch fail with it */
	/* ports that an operation created, in order (for split's return) */
	char (*made)[DLH_HANDLE_MAX];
	size_t nmade, capmade;
	bool collecting;
	/* Bumped on every port or device removal (and on close): a cached
	 * pointer taken at the same generation still points at a live object. */
	uint64_t gen;
};

/* Device and port objects name their object by handle and look it up on
 * every use: one that was removed answers nil, "...: was removed", "ENODEV"
 * instead of pointing at freed memory. Uservalue 1 is the context userdata. */
struct lobj {
	char handle[DLH_HANDLE_MAX]; /* the port's or the device's */
	char dev[DLH_HANDLE_MAX];    /* the device's */
	uint32_t index;		     /* ports */
	void *cached;		     /* the object at generation @gen (NULL: look it up) */
	uint64_t gen;
};

/* errors: nil, message, errname (luv's convention); returns 3 */
int ldlhal_fail(lua_State *L, int err, const char *msg);
int ldlhal_fail_ext(lua_State *L, int err, const struct dlh_extack *ext);

struct lctx *ldlhal_ctx_check(lua_State *L, int idx);
/* apply.c */
int ldlhal_ctx_apply(lua_State *L);
/* The open context of @idx; raises when closed. */
struct dlh_ctx *ldlhal_ctx_live(lua_State *L, int idx);
/* Before an operation: not inside a callback (raises). */
/* Raises "cannot WHAT inside an event callback" when called from one ("run the loop", "change ports"). */
void ldlhal_ctx_enter(lua_State *L, struct lctx *c, const char *what);

/* Pushes a new object for @port / @dev, tied to the context userdata at @ctx_idx. */
void ldlhal_port_push(lua_State *L, int ctx_idx, const struct dlh_port *port);
void ldlhal_dev_push(lua_State *L, int ctx_idx, const struct dlh_dev *dev);
/* A port's / device's fields as a plain table. */
void ldlhal_port_table(lua_State *L, const struct dlh_port *port);
void ldlhal_dev_table(lua_State *L, const struct dlh_dev *dev);
/* A struct dlh_pending as {split = N, type = "ib", message = "..."} (absent fields nil). */
void ldlhal_pending_push(lua_State *L, const struct dlh_pending *p);

/*
 * libdlhal's writer building Lua tables: the members go into the table on
 * top of the stack (pushed by the caller before writing).
 */
#define LWRITER_DEPTH 8
struct lwriter_level {
	bool array;
	lua_Integer n;
	char key[32];
};
struct lwriter {
	lua_State *L;
	int depth; /* 0: the caller's table */
	struct lwriter_level lv[LWRITER_DEPTH];
};
void ldlhal_writer(lua_State *L, struct lwriter *lw, struct dlh_writer *w);

/* Replaces the array on top of the stack with an iterator over it (a snapshot). */
void ldlhal_iter_push(lua_State *L);
/* obj:sim(key[, value]) for @dev, or its @port: the value, true, or nil, msg, errname. */
int ldlhal_sim(lua_State *L, struct lctx *c, struct dlh_dev *dev, struct dlh_port *port);

void ldlhal_ctx_open(lua_State *L);
void ldlhal_dev_open(lua_State *L);
void ldlhal_port_open(lua_State *L);

#endif
