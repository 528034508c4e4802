#!/usr/bin/python3
"""Writes the sixth probe of the pii accuracy corpus (pii/testdata/corpus/apart/probe6.jsonl) to stdout.

A sixth probe, written apart from the corpus generators and from the first five probes, sharing
only their row bookkeeping (probe_registry.py): function-calling arguments holding arrays of
records, spreadsheet ranges as arrays, OCR'd forms with broken spacing, e-mail threads with quoted
replies, chat exports, insurance claims, prescriptions with dosages, summaries and translation
tasks that restate a person's details, names in appositions, possessives, after titles and under
sign-offs, framework logs, Jupyter outputs, docker run, JDBC URLs, git's credential store and
kubeconfig files, in Catalan, Icelandic, Welsh, Maltese, Albanian, Serbian, Luxembourgish and
Latin American Spanish, and Hebrew, Persian, Arabic, Nepali and Thai in their own scripts; beside
hard negatives of the same shapes (probe6_block.py, probe6_pass.py; values in probe6_values.py).

    /usr/bin/python3 probe6_rows.py > ../../testdata/corpus/apart/probe6.jsonl

Run with Debian's python3 (Faker 0.9.3 from python3-fake-factory, python3-stdnum,
python3-cryptography). The output depends only on SEED and those versions. With PROBE6_PHONES=1 it
writes the phone numbers it made to stderr, one "REGION<TAB>number" a line, for the check against
libphonenumber's metadata.
"""

import os
import sys

import probe6_block  # noqa: F401  (registers the must-block shapes)
import probe6_pass  # noqa: F401  (registers the must-pass shapes)
from probe6_values import PHONES_SEEN, REG

REG.write(sys.stdout)
if os.environ.get("PROBE6_PHONES"):
    for region, s in PHONES_SEEN:
        sys.stderr.write("%s\t%s\n" % (region, s))
