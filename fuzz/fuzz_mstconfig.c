/* SPDX-License-Identifier: MIT */
/* mstconfig's query output (drivers/mlx5's mlx5_nv_parse): what a program on the machine prints. */
#include "mstflint.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mlx5_nv nv;
	struct dlh_extack ext = {0};

	if (mlx5_nv_parse((const char *)data, size, &nv, &ext)) {
		if (!ext.msg[0])
			abort(); /* a refusal says why */
		return 0;
	}
	/* what is taken is what the rules can use: ports in range, each value a type */
	if (nv.nports > MLX5_MAX_PORTS || !memchr(nv.device_type, '\0', sizeof(nv.device_type)))
		abort();
	for (unsigned int w = 0; w < 3; w++)
		for (unsigned int p = 0; p < nv.nports; p++)
			if ((w == MLX5_NV_NEXT || (w == MLX5_NV_DEFAULT ? nv.has_default : nv.has_current)) &&
			    nv.link_type[w][p] != MLX5_LINK_TYPE_IB && nv.link_type[w][p] != MLX5_LINK_TYPE_ETH)
				abort();
	return 0;
}
