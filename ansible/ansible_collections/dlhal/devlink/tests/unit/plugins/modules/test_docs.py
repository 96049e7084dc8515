# -*- coding: utf-8 -*-
# Copyright: dlhal developers
# MIT License (see https://opensource.org/licenses/MIT)
"""What ansible-test's validate-modules checks, offline: each module's DOCUMENTATION says what its
argument_spec takes (names, types, defaults, choices, required, suboptions), and EXAMPLES and RETURN
are YAML. (validate-modules itself needs a venv from PyPI.)"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest
import yaml

from ansible_collections.dlhal.devlink.plugins.doc_fragments.backend import ModuleDocFragment
from ansible_collections.dlhal.devlink.plugins.modules import info, ports


def compare(doc_options, spec, where):
    assert sorted(doc_options) == sorted(spec), '%s: documented %s, argument_spec %s' % (
        where, sorted(doc_options), sorted(spec))
    for name, s in spec.items():
        d = doc_options[name]
        here = '%s.%s' % (where, name)
        assert d.get('type', 'str') == s.get('type', 'str'), here
        assert d.get('default') == s.get('default'), here
        assert d.get('choices') == s.get('choices'), here
        assert bool(d.get('required')) == bool(s.get('required')), here
        assert d.get('elements') == s.get('elements'), here
        assert d.get('description'), here + ': no description'
        if 'options' in s:
            compare(d.get('suboptions', {}), s['options'], here)


@pytest.mark.parametrize('mod', [ports, info], ids=['ports', 'info'])
def test_documentation_matches_the_argument_spec(mod):
    doc = yaml.safe_load(mod.DOCUMENTATION)
    # the fragments it names, merged as ansible-doc merges them
    assert doc['extends_documentation_fragment'] == ['dlhal.devlink.backend']
    doc['options'].update(yaml.safe_load(ModuleDocFragment.DOCUMENTATION)['options'])
    assert doc['module'] == mod.__name__.rsplit('.', 1)[1]
    assert doc['short_description'] and doc['version_added']
    compare(doc['options'], mod.ARGUMENT_SPEC, doc['module'])
    examples = yaml.safe_load(mod.EXAMPLES)
    assert examples and all('dlhal.devlink.' + doc['module'] in task for task in examples[:1])
    ret = yaml.safe_load(mod.RETURN)
    for name, r in ret.items():
        assert r.get('description') and r.get('returned') and r.get('type'), name
