#!/usr/bin/python3
"""Writes the seventh probe of the pii accuracy corpus (pii/testdata/corpus/apart/probe7.jsonl) to stdout.

A seventh probe, written apart from the corpus generators and from the first six probes, sharing
only their row bookkeeping (probe_registry.py): SQL result grids, browser storage dumps, protobuf
text format, transcribed voicemail, Slack and Teams exports, numbers written as the country code and
one run of digits, SOAP envelopes, OCR'd ID cards, diff hunks, patches and commit messages, HL7 v2
messages, Dockerfiles, systemd units, environment printouts and crash reports, in Lithuanian,
Slovene, Ukrainian, Romanian, West African French, the Spanish of Bolivia, Paraguay, Panama,
Guatemala and the Dominican Republic, and English mixed with them; beside hard negatives of the
same shapes (probe7_block.py, probe7_pass.py; values in probe7_values.py).

    /usr/bin/python3 probe7_rows.py > ../../testdata/corpus/apart/probe7.jsonl

Run with Debian's python3 (Faker 0.9.3 from python3-fake-factory, python3-stdnum,
python3-cryptography). The output depends only on SEED and those versions. With PROBE7_PHONES=1 it
writes the phone numbers it made to stderr, one "REGION<TAB>number" a line, for the check against
libphonenumber's metadata.
"""

import os
import sys

import probe7_block  # noqa: F401  (registers the must-block shapes)
import probe7_pass  # noqa: F401  (registers the must-pass shapes)
from probe7_values import PHONES_SEEN, REG

REG.write(sys.stdout)
if os.environ.get("PROBE7_PHONES"):
    for region, s in PHONES_SEEN:
        sys.stderr.write("%s\t%s\n" % (region, s))
