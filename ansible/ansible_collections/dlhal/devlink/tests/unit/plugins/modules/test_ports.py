# -*- coding: utf-8 -*-
# Copyright: dlhal developers
# MIT License (see https://opensource.org/licenses/MIT)
"""Unit tests of the ports module: entries handed to dl as they are, dl's report to the task's."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

import pytest

from ansible.module_utils import basic
from ansible.module_utils.common.text.converters import to_bytes
from ansible_collections.dlhal.devlink.plugins.modules import ports


def set_module_args(args):
    basic._ANSIBLE_ARGS = to_bytes(json.dumps({'ANSIBLE_MODULE_ARGS': args}))


class Exit(Exception):
    pass


class Fail(Exception):
    pass


def exit_json(*args, **kwargs):
    raise Exit(kwargs)


def fail_json(*args, **kwargs):
    kwargs['failed'] = True
    raise Fail(kwargs)


@pytest.fixture(autouse=True)
def module_exits(monkeypatch):
    monkeypatch.setattr(basic.AnsibleModule, 'exit_json', exit_json)
    monkeypatch.setattr(basic.AnsibleModule, 'fail_json', fail_json)
    monkeypatch.setattr(basic.AnsibleModule, 'get_bin_path', lambda self, name, required=False: '/usr/bin/' + name)


SW = 'pci/0000:03:00.0'


# The dl of dlhal's build (tests/ansible.sh sets it): what the module leaves to dl is tested through it.
DL = os.environ.get('DLHAL_DL')
needs_dl = pytest.mark.skipif(not DL, reason='DLHAL_DL (the dl to run) is not set')


def run_real(monkeypatch, args, check_mode=False, diff=False):
    """The module's result with a real dl on an emulated SN2700: (failed, result)."""
    monkeypatch.setattr(basic.AnsibleModule, 'get_bin_path', lambda self, name, required=False: DL)
    args = dict(args, sim='sn2700', dl_path=DL, _ansible_check_mode=check_mode, _ansible_diff=diff)
    set_module_args(args)
    try:
        ports.main()
    except Exit as e:
        return False, e.args[0]
    except Fail as e:
        return True, e.args[0]
    raise AssertionError('the module neither exited nor failed')


def test_entries_are_handed_to_dl_as_json_each_field_as_given():
    doc = json.loads(ports.entries_json([
        {'device': SW, 'number': 17, 'netdev': None, 'split': 4, 'type': None},
        {'device': None, 'number': None, 'netdev': 'ens4', 'split': None, 'type': 'auto'},
        {'device': SW, 'number': '18', 'netdev': None, 'split': True, 'type': None},
    ]))
    assert doc == {'ports': [
        {'device': SW, 'number': 17, 'netdev': None, 'split': 4, 'type': None},
        {'device': None, 'number': None, 'netdev': 'ens4', 'split': None, 'type': 'auto'},
        {'device': SW, 'number': '18', 'netdev': None, 'split': True, 'type': None}]}, 'dl judges, not Python'


@needs_dl
@pytest.mark.parametrize('entry,why', [
    ({'device': SW}, 'ports[0]: give device and number, or netdev'),
    ({'netdev': 'eth0', 'device': SW, 'number': 1, 'split': 2}, 'not both'),
    ({'device': SW, 'number': 17}, 'ports[0]: says nothing'),
    ({'device': SW, 'number': -1, 'split': 2}, 'ports[0].number: -1 is not a front-panel port number, 0 to'),
    ({'device': SW, 'number': 17, 'split': True}, 'ports[0].split: true is a boolean: expected a whole number'),
    ({'device': SW, 'number': True, 'split': 2}, 'ports[0].number: true is a boolean'),
    ({'device': SW, 'number': 17, 'split': 'two'}, 'ports[0].split: "two" is not a number'),
    ({'device': SW + '\n', 'number': 17, 'split': 2}, 'ports[0].device: "pci/0000:03:00.0?": expected BUS/DEV'),
    ({'netdev': 'eth0\n', 'split': 2}, 'is not a netdev name'),
    ({'device': SW, 'number': 17, 'split': 65}, 'ports[0].split: 65: expected 1 (whole) to 64'),
    ({'device': 'pci', 'number': 17, 'split': 2}, 'ports[0].device: "pci": expected BUS/DEV'),
    ({'netdev': 'a/b', 'split': 2}, 'ports[0].netdev: "a/b" is not a netdev name'),
])
def test_malformed_entries_are_named_with_the_field(monkeypatch, entry, why):
    failed, res = run_real(monkeypatch, {'ports': [entry]})
    assert failed and why in res['msg'] and res['result'] == 'error' and not res['changed']


@needs_dl
def test_a_conflict_names_both_entries(monkeypatch):
    failed, res = run_real(monkeypatch, {'ports': [{'device': SW, 'number': 17, 'split': 4},
                                                   {'device': SW, 'number': 1, 'split': 2}]})
    assert failed and res['conflict'] == [1, 0]
    assert res['msg'] == ('ports[1] conflicts with ports[0]: split %s port 17 into 4 (ports[0]) would remove %s/3, '
                          'port 1 (nothing was changed)' % (SW, SW))


@needs_dl
def test_check_mode_predicts_the_ports_from_the_plans(monkeypatch):
    failed, res = run_real(monkeypatch, {'ports': [{'device': SW, 'number': 17, 'split': 2}]}, check_mode=True,
                           diff=True)
    assert not failed and res['changed'] and res['result'] == 'would'
    after = res['diff']['after'].splitlines()
    assert after[:3] == [SW + '/1: type eth netdev eth0 split_group 16', SW + '/2: type eth netdev eth32 split_group 16',
                         SW + '/3: type eth netdev eth1']
    assert res['diff']['before'].splitlines()[0] == SW + '/1: type eth netdev eth0', 'the listing read is not changed'


def dl_answers(monkeypatch, apply_doc, rc=0, seen=None):
    """dl's batch answers: the ports before, the apply report, the ports after, the devices."""
    def run_command(self, argv, data=None, binary_data=False):
        assert data is None  # the batch is a file (-b PATH), never a pipe dl may not read
        if seen is not None:
            with open(argv[-1]) as f:
                seen.append((argv, f.read()))
        lines = [{'port': {SW + '/1': {'type': 'eth', 'netdev': 'eth0'}}}, {'apply': apply_doc},
                 {'port': {SW + '/1': {'type': 'eth', 'netdev': 'eth0', 'split_group': 16}}},
                 {'dev': {SW: {'dlhal': {'driver': 'mlxsw'}}}}]
        return rc, '\n'.join(json.dumps(x) for x in lines) + '\n', ''
    monkeypatch.setattr(basic.AnsibleModule, 'run_command', run_command)


def test_the_module_runs_one_dl_batch_with_an_argument_list_and_reports_changes(monkeypatch):
    seen = []
    dl_answers(monkeypatch, {'result': 'done', 'changed': True, 'partial': False, 'steps': [
        {'change': 'split', 'device': SW, 'number': 17, 'count': 2, 'entry': 0, 'result': 'done', 'plans': []}]},
        seen=seen)
    set_module_args({'socket': '/run/d.sock', 'atomic': True, 'ports': [{'device': SW, 'number': 17, 'split': 2}]})
    with pytest.raises(Exit) as e:
        ports.main()
    res = e.value.args[0]
    assert res['changed'] is True and res['result'] == 'done' and res['reboot_required'] is False
    argv, data = seen[0]
    assert argv[:-1] == ['/usr/bin/dl', '-s', '/run/d.sock', '-j', '-f', '-d', '-b']
    assert not os.path.exists(argv[-1])  # the batch file is gone with the run
    cmds = data.splitlines()
    assert cmds[0] == 'port show' and cmds[2] == 'port show' and cmds[3] == 'dev show'
    assert cmds[1].startswith('apply ') and cmds[1].endswith(' --atomic') and '--dry-run' not in cmds[1]


def test_nothing_to_do_is_not_a_change(monkeypatch):
    dl_answers(monkeypatch, {'result': 'nothing', 'changed': False, 'steps': []})
    set_module_args({'sim': 'sn2700', 'ports': [{'device': SW, 'number': 17, 'split': 1}]})
    with pytest.raises(Exit) as e:
        ports.main()
    assert e.value.args[0]['changed'] is False


def test_a_conflict_fails_the_task_naming_the_entries(monkeypatch):
    dl_answers(monkeypatch, {'result': 'conflict', 'changed': False, 'steps': [],
                             'conflict': {'entries': [1, 0], 'lines': [11, 5]},
                             'error': 'X:11 conflicts with X:5: nope (nothing was changed)'})
    set_module_args({'sim': 'sn2700', 'ports': [{'device': SW, 'number': 17, 'split': 4},
                                                {'device': SW, 'number': 1, 'split': 2}]})
    with pytest.raises(Fail) as e:
        ports.main()
    res = e.value.args[0]
    assert res['conflict'] == [1, 0] and res['result'] == 'conflict' and res['changed'] is False


def test_backends_are_exclusive_and_choices_are_checked(monkeypatch):
    """What argument_spec says (a split that is not a number is dl's: test_malformed_entries_are_named_with_the_field)."""
    set_module_args({'sim': 'sn2700', 'kernel': True, 'ports': [{'device': SW, 'number': 17, 'split': 2}]})
    with pytest.raises(Fail) as e:
        ports.main()
    assert 'mutually exclusive' in e.value.args[0]['msg']
    set_module_args({'ports': [{'device': SW, 'number': 17, 'type': 'fc'}]})
    with pytest.raises(Fail) as e:
        ports.main()
    assert 'type' in e.value.args[0]['msg'] and 'eth' in e.value.args[0]['msg']


@pytest.mark.parametrize('rc,err,msg', [
    (2, 'dl: Cannot connect to dlhald at /nope.sock: No such file or directory.\n',
     'dl: Cannot connect to dlhald at /nope.sock: No such file or directory.'),
    (2, '--sim nope: Unknown profile "nope"\n', '--sim nope: Unknown profile "nope"'),
    (0, '', 'dl answered nothing (exit 0): is /bin/true dl?'),
])
def test_a_backend_that_is_not_there_fails_the_task_with_dls_own_words(monkeypatch, rc, err, msg):
    monkeypatch.setattr(basic.AnsibleModule, 'run_command', lambda self, argv, data=None: (rc, '', err))
    set_module_args({'sim': 'nope', 'dl_path': '/bin/true', 'ports': [{'device': SW, 'number': 17, 'split': 2}]})
    with pytest.raises(Fail) as e:
        ports.main()
    assert e.value.args[0]['msg'] == msg
