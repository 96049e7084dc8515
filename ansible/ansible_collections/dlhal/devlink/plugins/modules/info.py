#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: dlhal developers
# MIT License (see https://opensource.org/licenses/MIT)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: info
short_description: Devlink devices and ports as facts
version_added: "0.1.0"
description:
  - Reads every devlink device and port with dlhal's C(dl -j -d) (C(dev show),
    C(port show)) and returns them, and sets them as the facts
    C(dlhal_devices) and C(dlhal_ports).
  - A device's C(dlhal.pending) says what it keeps for its next reset, its
    C(dlhal.options) the firmware options a reset chooses between; a port's
    C(dlhal.split_counts) the split counts its driver accepts now.
author:
  - dlhal developers
extends_documentation_fragment:
  - dlhal.devlink.backend
options: {}
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  facts:
    support: full
'''

EXAMPLES = r'''
- name: Read the ports
  dlhal.devlink.info:
    socket: /run/dlhal/dlhald.sock

- name: Which ports can be split by 4 now
  ansible.builtin.debug:
    msg: "{{ dlhal_ports | dict2items | selectattr('value.dlhal.split_counts', 'defined')
             | selectattr('value.dlhal.split_counts', 'contains', 4) | map(attribute='key') | list }}"
'''

RETURN = r'''
devices:
  description: Each device by handle, as C(dl -j -d dev show) has it.
  returned: always
  type: dict
  sample: {"pci/0000:03:00.0": {"dlhal": {"driver": "mlxsw"}}}
ports:
  description: Each port by handle, as C(dl -j -d port show) has it.
  returned: always
  type: dict
  sample:
    pci/0000:03:00.0/1: {type: eth, netdev: eth0, flavour: physical, port: 17, splittable: true, lanes: 4}
ansible_facts:
  description: The same, as facts.
  returned: always
  type: dict
  contains:
    dlhal_devices:
      description: As I(devices).
      type: dict
      returned: always
    dlhal_ports:
      description: As I(ports).
      type: dict
      returned: always
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.dlhal.devlink.plugins.module_utils.dl import (
    BACKEND_ARGS,
    BACKEND_EXCLUSIVE,
    docs_of,
    run_batch,
)


ARGUMENT_SPEC = dict(**BACKEND_ARGS)


def run_module():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, mutually_exclusive=BACKEND_EXCLUSIVE, supports_check_mode=True)
    rc, docs, err = run_batch(module, ['dev show', 'port show'], details=True)
    devs, ports = docs_of(docs, 'dev'), docs_of(docs, 'port')
    if rc or len(devs) != 1 or len(ports) != 1:
        module.fail_json(msg='dl: %s' % (err.strip() or 'no answer'), rc=rc)
    module.exit_json(changed=False, devices=devs[0], ports=ports[0],
                     ansible_facts=dict(dlhal_devices=devs[0], dlhal_ports=ports[0]))


def main():
    run_module()


if __name__ == '__main__':
    main()
