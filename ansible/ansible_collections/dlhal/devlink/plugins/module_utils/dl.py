# -*- coding: utf-8 -*-
# Copyright: dlhal developers
# MIT License (see https://opensource.org/licenses/MIT)
"""Running dlhal's dl from a module: one argument list, no shell, JSON out."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import tempfile

# The backend options both modules take, as dl has them.
BACKEND_ARGS = dict(
    socket=dict(type='path'),
    kernel=dict(type='bool'),
    sim=dict(type='str'),
    dl_path=dict(type='path', default='dl'),
)
BACKEND_EXCLUSIVE = [['socket', 'kernel', 'sim']]


def dl_argv(module):
    """dl and its backend option: -s SOCKET, --kernel, --sim PROFILES, or none (dl chooses)."""
    params = module.params
    path = params['dl_path']
    if '/' not in path:
        path = module.get_bin_path(path, required=True)
    argv = [path]
    if params.get('socket'):
        argv += ['-s', params['socket']]
    elif params.get('kernel'):
        argv += ['--kernel']
    elif params.get('sim'):
        argv += ['--sim', params['sim']]
    return argv


def parse_docs(out):
    """dl -j prints one JSON document a command: each line parsed, by its top-level key."""
    docs = []
    for line in out.splitlines():
        line = line.strip()
        if not line:
            continue
        doc = json.loads(line)
        if not isinstance(doc, dict) or len(doc) != 1:
            raise ValueError('not a dl document: %s' % line[:80])
        docs.append(doc)
    return docs


def run_batch(module, commands, details=False):
    """Runs @commands as one dl batch (one process: an emulator keeps its state between them).

    The batch is a file, not a pipe: a dl that stops before reading it (a backend that is not
    there) leaves its own message, not a broken pipe. A dl that answers no command at all (its
    backend cannot be had, or dl_path is not dl) fails the task with what it said.
    Returns (rc, docs, stderr); a failed command does not stop the others (-f).
    """
    fd, path = tempfile.mkstemp(prefix='dlhal-batch-', dir=module.tmpdir)
    try:
        with os.fdopen(fd, 'w') as f:
            f.write('\n'.join(commands) + '\n')
        argv = dl_argv(module) + ['-j', '-f'] + (['-d'] if details else []) + ['-b', path]
        rc, out, err = module.run_command(argv)
    finally:
        os.unlink(path)
    try:
        docs = parse_docs(out)
    except ValueError as e:
        module.fail_json(msg='dl printed what is not its JSON: %s' % e, rc=rc, stderr=err, cmd=argv)
    if not docs:
        said = (err or '').strip().splitlines()
        msg = said[0] if said else 'dl answered nothing (exit %d): is %s dl?' % (rc, argv[0])
        module.fail_json(msg=msg, rc=rc, stderr=err, cmd=argv)
    return rc, docs, err


def docs_of(docs, key):
    """The documents of one kind ("port", "dev", "apply"), in order."""
    return [d[key] for d in docs if key in d]


def port_line(handle, port):
    """A port as dl port show prints it: "HANDLE: type eth netdev eth0 split_group 16"."""
    words = ['%s: type %s' % (handle, port.get('type', 'notset'))]
    for key in ('netdev', 'ibdev', 'split_group'):
        if key in port:
            words.append('%s %s' % (key, port[key]))
    return ' '.join(words)
