/* SPDX-License-Identifier: MIT */
/* The kernel devlink backend, for programs that link it in. */
#ifndef DLHAL_KERNEL_H
#define DLHAL_KERNEL_H

#include <dlhal/sdk.h>

extern const struct dlh_sdk_driver kernel_driver;

#endif
