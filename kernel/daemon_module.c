/* SPDX-License-Identifier: MIT */
/* Entry point of the dlhald client (the same codec over a UNIX socket) as a loadable module. */
#include "kernel.h"

DLH_SDK_MODULE(daemon_driver);
