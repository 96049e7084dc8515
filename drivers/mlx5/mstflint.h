/* SPDX-License-Identifier: MIT */
/*
 * A ConnectX card's configuration through Debian's mstflint programs, as
 * operators and NVIDIA's own Kubernetes operator reach it: mstconfig's query
 * and set of LINK_TYPE_Pn, mstfwreset's reset. The programs run without a
 * shell, for a bounded time, with a bounded output that is read as hostile
 * input: a table that is not mstconfig's is refused, naming what is wrong.
 */
#ifndef DLHAL_MLX5_MSTFLINT_H
#define DLHAL_MLX5_MSTFLINT_H

#include "emu.h"

#include <dlhal/sdk.h>
#include <stddef.h>

#define MLX5_MST_OUT_MAX    (64 * 1024) /* more output than this is not mstconfig's */
#define MLX5_MST_TIMEOUT_MS 30000	/* a query takes about a second on a card; a set a few */

/* What a query says of the card's ports' type. */
struct mlx5_nv {
	unsigned int nports;		      /* LINK_TYPE_P1.. found, in order; 0: not a VPI card */
	bool has_default, has_current;	      /* the columns the firmware could give */
	uint8_t link_type[3][MLX5_MAX_PORTS]; /* [enum mlx5_nv_which][port], enum mlx5_link_type */
	char device_type[24];		      /* "Device type:", "ConnectX6" */
};

/*
 * mstconfig -e q's output (@len bytes, not terminated) into @nv. -EPROTO, naming the line and what is
 * wrong, for anything but its table: no heading, a LINK_TYPE line of other columns, a value other
 * than IB(1) or ETH(2), a port missing, a NUL, a line over 4096 bytes.
 */
int mlx5_nv_parse(const char *out, size_t len, struct mlx5_nv *nv, struct dlh_extack *ext);

/*
 * Runs @argv[0] (looked up on PATH, no shell) with @argv, stdin /dev/null, stdout and stderr into
 * @out (@cap bytes, NUL-terminated, *len without it), for at most @timeout_ms (then killed).
 * *status: the exit code. -ENOENT: no such program (the message names the package, mstflint);
 * -ETIMEDOUT; -EMSGSIZE: more output than @cap - 1; -EIO: killed by a signal; -errno otherwise.
 */
int mlx5_mst_run(const char *const *argv, char *out, size_t cap, size_t *len, int *status, unsigned int timeout_ms,
		 struct dlh_extack *ext);

/* mstconfig -d @bdf -e q: the card's LINK_TYPE_Pn. Errors: the run's; -EIO with mstconfig's "-E-" line. */
int mlx5_mst_query(const char *bdf, struct mlx5_nv *nv, struct dlh_extack *ext);
/* mstconfig -d @bdf -y set LINK_TYPE_P<port + 1>=<type>, then a query to see it stored. */
int mlx5_mst_set(const char *bdf, unsigned int port, enum mlx5_link_type type, struct dlh_extack *ext);

#endif
