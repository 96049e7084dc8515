#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: dlhal developers
# MIT License (see https://opensource.org/licenses/MIT)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: ports
short_description: Split and type switch and NIC ports, planned by the drivers first
version_added: "0.1.0"
description:
  - Takes the devices' ports to what I(ports) says, with the planning and
    order of C(dl apply) (dlhal's docs/desired-state.md) - one implementation,
    driven through dl's JSON interface.
  - The entries are planned whole before anything changes, each step on the
    ports the ones before it leave, by the drivers' own rules. Entries that
    conflict (a split by 4 that takes a port another entry names) or a step
    a driver refuses fail the task with nothing changed.
  - Ports are named by device and front-panel number, which a split does not
    change; I(ports[].netdev) is the weaker match (a split renames netdevs).
  - Changes a device keeps for its next reset (an Intel E810's port options)
    report I(reboot_required); I(reload=true) resets those devices where the
    driver can.
author:
  - dlhal developers
extends_documentation_fragment:
  - dlhal.devlink.backend
options:
  ports:
    description:
      - The desired ports. Each entry names a port by I(ports[].device) and
        I(ports[].number), or by I(ports[].netdev), and says I(ports[].split),
        I(ports[].type) or both.
    type: list
    elements: dict
    required: true
    suboptions:
      device:
        description: The device handle, C(BUS/DEV), for example C(pci/0000:03:00.0).
        type: str
      number:
        description:
          - The front-panel port number (C(dl port show -d)'s C(port)), 0 to 65535 (an E810's PF 0 is
            port 0).
          - An integer; a boolean is refused, not taken as 0 or 1.
        type: raw
      netdev:
        description: Instead of I(ports[].device) and I(ports[].number), the port whose netdev this is now.
        type: str
      split:
        description:
          - C(1) for whole, or the number of ports to split into (2, 4...), up to 64.
          - An integer; a boolean is refused (C(true) is not 1, which would mean whole).
        type: raw
      type:
        description: The port type.
        type: str
        choices: [eth, ib, auto]
  atomic:
    description:
      - When a step fails while running (the hardware, another client), undo the
        steps done, in reverse order. Without it the steps done stay.
    type: bool
    default: false
  reload:
    description:
      - After staging, reset the devices that have something pending for their
        next reset, where the driver can (devlink reload, fw_activate), and run
        what the reset made possible.
    type: bool
    default: false
notes:
  - With I(sim) every task starts from fresh emulated boards.
  - In check mode through the kernel, a device that a profile stands for (its
    Linux driver and board, as C(devlink dev info) reports them) is planned
    exactly by its vendor's rules; another's plan is partial (the kernel's
    devlink has no dry run) and the module warns. Through a dlhald the
    daemon's driver plans.
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
'''

EXAMPLES = r'''
- name: Break out cages 17 and 18 of a Spectrum into 4x25G and 2x50G
  dlhal.devlink.ports:
    socket: /run/dlhal/dlhald.sock
    ports:
      - {device: pci/0000:03:00.0, number: 17, split: 4}
      - {device: pci/0000:03:00.0, number: 18, split: 2}

- name: A ConnectX-3 port follows its link; undo everything if a step fails
  dlhal.devlink.ports:
    atomic: true
    ports:
      - {netdev: ens4, type: auto}

- name: An E810 split, reset at once
  dlhal.devlink.ports:
    kernel: true
    reload: true
    ports:
      - {netdev: ens16f0, split: 4}
'''

RETURN = r'''
changed:
  description: Whether a port changed (in check mode, would change).
  returned: always
  type: bool
result:
  description: >-
    What became of the run, as C(dl -j apply) says: nothing, would, done,
    partial (a check through the kernel), refused, conflict, unmet, undone,
    undo_failed.
  returned: always
  type: str
  sample: done
steps:
  description: >-
    The steps, in the order they run (in check mode, would run), each with the
    entry (index into I(ports)) that asks for it, its result and the drivers'
    plans (the ports that would go and come).
  returned: always
  type: list
  elements: dict
  sample:
    - change: split
      device: pci/0000:03:00.0
      number: 17
      count: 4
      entry: 0
      result: done
      staged: false
      partial: false
      plans:
        - del: [pci/0000:03:00.0/1, pci/0000:03:00.0/3]
          new: [{port: pci/0000:03:00.0/1, netdev: eth0, lanes: 1, split: true, split_group: 16, subport: 0}]
reboot_required:
  description: Whether a change waits for a device's next reset.
  returned: always
  type: bool
pending:
  description: The devices (an E810's split) and ports (a ConnectX-4..7's type) with a change pending until their next reset, and what it is.
  returned: always
  type: dict
  sample: {"pci/0000:16:00.0": {"split": 4, "message": "Reboot required to finish port split"}}
partial:
  description: Whether some step could not be planned (check mode through the kernel).
  returned: always
  type: bool
conflict:
  description: The two entries (indexes into I(ports)) that conflict.
  returned: when the entries conflict
  type: list
  elements: int
  sample: [1, 0]
unmet:
  description: The entries that match no port or that the steps would not meet, each with the reason.
  returned: when an entry is unmet
  type: list
  elements: dict
  sample: [{"entry": 1, "reason": "matches no port"}]
'''

import json
import os
import tempfile

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.dlhal.devlink.plugins.module_utils.dl import (
    BACKEND_ARGS,
    BACKEND_EXCLUSIVE,
    docs_of,
    port_line,
    run_batch,
)

PORT_SPEC = dict(
    device=dict(type='str'),
    number=dict(type='raw'),
    netdev=dict(type='str'),
    split=dict(type='raw'),
    type=dict(type='str', choices=['eth', 'ib', 'auto']),
)


def entries_json(ports):
    """The entries as dl apply --format json reads them: each named ports[N] by dl itself."""
    keys = ('device', 'number', 'netdev', 'split', 'type')
    return json.dumps({'ports': [dict((k, e.get(k)) for k in keys) for e in ports]}) + '\n'


def ports_text(ports, devices):
    """The ports of @devices as dl port show lines, sorted by handle."""
    def key(h):
        dev, _, idx = h.rpartition('/')
        return (dev, int(idx) if idx.isdigit() else 0)
    return ''.join(port_line(h, ports[h]) + '\n' for h in sorted(ports, key=key) if h.rpartition('/')[0] in devices)


def pending_of(devs, ports=None):
    """The devices and ports with something pending until their next reset (dl -j -d dev show, port show)."""
    out = {}
    for objs in (devs or {}, ports or {}):
        for handle, d in objs.items():
            p = d.get('dlhal', {}).get('pending') or d.get('pending')
            if p:
                out[handle] = p
    return out


ARGUMENT_SPEC = dict(
    ports=dict(type='list', elements='dict', required=True, options=PORT_SPEC),
    atomic=dict(type='bool', default=False),
    reload=dict(type='bool', default=False),
    **BACKEND_ARGS
)


def run_module():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, mutually_exclusive=BACKEND_EXCLUSIVE, supports_check_mode=True)
    fd, path = tempfile.mkstemp(prefix='dlhal-', suffix='.json', dir=module.tmpdir)
    try:
        with os.fdopen(fd, 'w') as f:
            f.write(entries_json(module.params['ports']))
        cmd = 'apply %s --format json' % path
        cmd += ' --dry-run' if module.check_mode else ''
        cmd += ' --atomic' if module.params['atomic'] else ''
        cmd += ' --reload' if module.params['reload'] and not module.check_mode else ''
        rc, docs, err = run_batch(module, ['port show', cmd, 'port show', 'dev show'], details=True)
    finally:
        os.unlink(path)
    applied = docs_of(docs, 'apply')
    listed = docs_of(docs, 'port')
    devs = docs_of(docs, 'dev')
    if not applied or len(listed) != 2:
        module.fail_json(msg='dl: %s' % (err.strip() or 'no answer'), rc=rc)
    a = applied[0]
    steps = a.get('steps', [])
    # a device's (an E810's split) or a port's (a ConnectX-4..7's type), as the ports are now
    pending = pending_of(devs[0] if devs else {}, listed[1])
    res = dict(
        changed=bool(a.get('changed')) or (module.check_mode and a.get('result') in ('would', 'partial')),
        result=a.get('result'),
        steps=steps,
        partial=bool(a.get('partial')),
        pending=pending,
        reboot_required=bool(pending) or any(s.get('staged') for s in steps),
    )
    touched = set(s['device'] for s in steps)
    before = listed[0]
    # a dry run's report has the ports as the steps would leave them (dl apply's "after")
    after = a.get('after', before) if module.check_mode else listed[1]
    if module._diff:
        res['diff'] = dict(before=ports_text(before, touched), after=ports_text(after, touched))
    if res['partial']:
        module.warn("the kernel's devlink has no dry run: %d step(s) could only be checked by its core; "
                    "the driver decides when they run" % sum(1 for s in steps if s.get('partial')))
    if a.get('conflict'):
        res['conflict'] = a['conflict']['entries']
    if a.get('unmet'):
        res['unmet'] = [dict(entry=u['entry'], reason=u['reason']) for u in a['unmet']]
    if a.get('error'):
        module.fail_json(msg=a['error'], **res)
    module.exit_json(**res)


def main():
    run_module()


if __name__ == '__main__':
    main()
