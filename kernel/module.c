/* SPDX-License-Identifier: MIT */
/* Entry point when the kernel backend is built as a loadable module. */
#include "kernel.h"

DLH_SDK_MODULE(kernel_driver);
