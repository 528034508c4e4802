#!/usr/bin/python3
"""Writes the fourth probe of the pii accuracy corpus (pii/testdata/corpus/probe4.jsonl) to stdout.

A fourth probe, written apart from the corpus generators and from the first three probes, sharing
only their row bookkeeping (probe_registry.py): agents' tool calls and results, drafted e-mails,
meeting notes, HR, insurance and bank workflows, travel bookings, medical scheduling, code review
comments, stack traces and logs, in Brazilian Portuguese, Italian, Latin American Spanish,
Romanian, Hungarian, Greek in Latin letters, Korean, Vietnamese, Indonesian, Swahili, Indian,
Nigerian and Kenyan English, with Arabic names in Latin letters; written carelessly or to get a
value past a gate (split, encoded, in Markdown tables, CSV, YAML, XML, SQL and URLs); beside hard
negatives of the same shapes (probe4_block.py, probe4_pass.py; values in probe4_values.py).

    /usr/bin/python3 probe4_rows.py > ../../testdata/corpus/probe4.jsonl

Run with Debian's python3 (Faker 0.9.3 from python3-fake-factory, python3-stdnum,
python3-unidecode, python3-cryptography). The output depends only on SEED and those versions. With
PROBE4_PHONES=1 it writes the phone numbers it made to stderr, one "REGION<TAB>number" a line, for
the check against libphonenumber's metadata.
"""

import os
import sys

import probe4_block  # noqa: F401  (registers the must-block shapes)
import probe4_pass  # noqa: F401  (registers the must-pass shapes)
from probe4_values import PHONES_SEEN, REG

REG.write(sys.stdout)
if os.environ.get("PROBE4_PHONES"):
    for region, s in PHONES_SEEN:
        sys.stderr.write("%s\t%s\n" % (region, s))
