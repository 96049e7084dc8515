# -*- coding: utf-8 -*-
# Copyright: dlhal developers
# MIT License (see https://opensource.org/licenses/MIT)
"""Unit tests of the info module: dl's listings become facts; what is not dl's JSON fails."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible.module_utils import basic
from ansible.module_utils.common.text.converters import to_bytes
from ansible_collections.dlhal.devlink.plugins.modules import info


class Done(Exception):
    pass


def done(self, **kwargs):
    raise Done(kwargs)


@pytest.fixture(autouse=True)
def module_exits(monkeypatch):
    monkeypatch.setattr(basic.AnsibleModule, 'exit_json', done)
    monkeypatch.setattr(basic.AnsibleModule, 'fail_json', lambda self, **kw: done(self, failed=True, **kw))
    monkeypatch.setattr(basic.AnsibleModule, 'get_bin_path', lambda self, name, required=False: '/usr/bin/' + name)


def answer(monkeypatch, out, rc=0, err=''):
    monkeypatch.setattr(basic.AnsibleModule, 'run_command', lambda self, argv, data=None, binary_data=False:
                        (rc, out, err))
    basic._ANSIBLE_ARGS = to_bytes(json.dumps({'ANSIBLE_MODULE_ARGS': {'kernel': True}}))


def test_devices_and_ports_become_facts(monkeypatch):
    dev = {'pci/0000:16:00.0': {'dlhal': {'driver': 'ice', 'pending': {'split': 4}}}}
    port = {'pci/0000:16:00.0/0': {'type': 'eth', 'netdev': 'ens16f0'}}
    answer(monkeypatch, json.dumps({'dev': dev}) + '\n' + json.dumps({'port': port}) + '\n')
    with pytest.raises(Done) as e:
        info.main()
    res = e.value.args[0]
    assert res['changed'] is False and 'failed' not in res
    assert res['ansible_facts'] == {'dlhal_devices': dev, 'dlhal_ports': port}


def test_what_is_not_dls_json_fails(monkeypatch):
    answer(monkeypatch, 'Segmentation fault\n', rc=139)
    with pytest.raises(Done) as e:
        info.main()
    assert e.value.args[0]['failed'] and 'not its JSON' in e.value.args[0]['msg']


def test_a_failed_listing_fails_with_dls_error(monkeypatch):
    answer(monkeypatch, '', rc=1, err='Error: kernel: Cannot open the devlink family\n')
    with pytest.raises(Done) as e:
        info.main()
    assert e.value.args[0]['failed'] and 'Cannot open the devlink family' in e.value.args[0]['msg']
