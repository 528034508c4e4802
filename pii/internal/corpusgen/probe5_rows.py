#!/usr/bin/python3
"""Writes the fifth probe of the pii accuracy corpus (pii/testdata/corpus/probe5.jsonl) to stdout.

A fifth probe, written apart from the corpus generators and from the first four probes, sharing
only their row bookkeeping (probe_registry.py): rental and tenancy applications, school records,
pharmacy and lab results, courier notes, contracts, agent scratchpads and chains of thought,
function-call arguments with nested objects, HAR captures, package-registry configs, Helm values
and Ansible inventories, GraphQL errors, MIME headers and folded calendar files, in Dutch, Polish,
Turkish, Swedish, Norwegian, Danish, Finnish, Czech, Filipino, Malay, Hebrew in Latin letters,
South African and Irish English and Quebec French; beside hard negatives of the same shapes
(probe5_block.py, probe5_pass.py; values in probe5_values.py).

    /usr/bin/python3 probe5_rows.py > ../../testdata/corpus/probe5.jsonl

Run with Debian's python3 (Faker 0.9.3 from python3-fake-factory, python3-stdnum,
python3-unidecode, python3-cryptography). The output depends only on SEED and those versions. With
PROBE5_PHONES=1 it writes the phone numbers it made to stderr, one "REGION<TAB>number" a line, for
the check against libphonenumber's metadata.
"""

import os
import sys

import probe5_block  # noqa: F401  (registers the must-block shapes)
import probe5_pass  # noqa: F401  (registers the must-pass shapes)
from probe5_values import PHONES_SEEN, REG

REG.write(sys.stdout)
if os.environ.get("PROBE5_PHONES"):
    for region, s in PHONES_SEEN:
        sys.stderr.write("%s\t%s\n" % (region, s))
