/* SPDX-License-Identifier: MIT */
/* The mlx5 driver as a loadable module. */
#include "mlx5.h"

DLH_SDK_MODULE(mlx5_driver);
