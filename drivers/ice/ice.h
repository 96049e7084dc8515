/* SPDX-License-Identifier: MIT */
#ifndef DLHAL_ICE_H
#define DLHAL_ICE_H

#include <dlhal/sdk.h>

/* Intel E810 (Linux 6.1's ice): device-wide port options, chosen by a split and applied at a reset. */
extern const struct dlh_sdk_driver ice_driver;

#endif
