/* SPDX-License-Identifier: MIT */
/* Entry point when the ConnectX-3 driver is built as a loadable module. */
#include "mlx4.h"

DLH_SDK_MODULE(mlx4_driver);
