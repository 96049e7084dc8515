/* SPDX-License-Identifier: MIT */
/* The ice driver as a loadable module. */
#include "ice.h"

DLH_SDK_MODULE(ice_driver);
