/* SPDX-License-Identifier: MIT */
/* Entry point when the Spectrum driver is built as a loadable module. */
#include "mlxsw.h"

DLH_SDK_MODULE(mlxsw_driver);
