/* SPDX-License-Identifier: MIT */
/* The ConnectX-4..7 VPI driver, for programs that link it in. */
#ifndef DLHAL_MLX5_H
#define DLHAL_MLX5_H

#include <dlhal/sdk.h>

extern const struct dlh_sdk_driver mlx5_driver;

#endif
