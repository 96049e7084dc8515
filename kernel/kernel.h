/* SPDX-License-Identifier: MIT */
/* The kernel devlink backend, for programs that link it in. */
#ifndef DLHAL_KERNEL_H
#define DLHAL_KERNEL_H

#include <dlhal/sdk.h>

extern const struct dlh_sdk_driver kernel_driver;
/* The same protocol to a dlhald; config: the socket path (NULL: the default). */
extern const struct dlh_sdk_driver daemon_driver;

#endif
