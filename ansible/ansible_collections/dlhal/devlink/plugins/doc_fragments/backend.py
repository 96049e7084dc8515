# -*- coding: utf-8 -*-
# Copyright: dlhal developers
# MIT License (see https://opensource.org/licenses/MIT)

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # The backend options both modules take, as dl has them (module_utils/dl.py's BACKEND_ARGS).
    DOCUMENTATION = r'''
options:
  socket:
    description: Talk to the dlhald listening on this UNIX socket (C(dl -s)).
    type: path
  kernel:
    description: Use the kernel's devlink (C(dl --kernel)).
    type: bool
  sim:
    description: Emulated boards of these profiles, comma-separated (C(dl --sim)); for tests.
    type: str
  dl_path:
    description: The dl program, a path or a name looked up on the PATH.
    type: path
    default: dl
notes:
  - Without I(socket), I(kernel) or I(sim), dl chooses as it does on the command line.
requirements:
  - dlhal's C(dl) on the managed host
'''
