/* SPDX-License-Identifier: MIT */
/* The Spectrum driver, for programs that link it in. */
#ifndef MLXSW_H
#define MLXSW_H

#include <dlhal/sdk.h>

extern const struct dlh_sdk_driver mlxsw_driver;

#endif
