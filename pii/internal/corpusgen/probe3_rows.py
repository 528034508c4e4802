#!/usr/bin/python3
"""Writes the third probe of the pii accuracy corpus (pii/testdata/corpus/probe3.jsonl) to stdout.

A third probe, written apart from the corpus generators and from the first two probes, sharing only
their row bookkeeping (probe_registry.py): agents' tool results, support tickets, CRM exports, log
lines and chat transcripts in English, German, Czech, Latvian, Estonian, Dutch, Swedish, Polish,
Bulgarian, Turkish, Chinese and Japanese; people from Faker locales none of the others uses; phone
numbers of 22 other regions, written with " - " separators, spaced country codes, dots and after
CJK characters; other identifier schemes, card networks, IBAN countries, vendors and encodings;
beside hard negatives of the same shapes (probe3_block.py, probe3_pass.py; values in
probe3_values.py, keys in probe3_keys.py).

    /usr/bin/python3 probe3_rows.py > ../../testdata/corpus/probe3.jsonl

Run with Debian's python3 (Faker 0.9.3 from python3-fake-factory, cryptography from
python3-cryptography). The output depends only on SEED and those versions. With PROBE3_PHONES=1 it
writes the phone numbers it made to stderr, one "REGION<TAB>number" a line, for the check against
libphonenumber's metadata.
"""

import os
import sys

import probe3_block  # noqa: F401  (registers the must-block shapes)
import probe3_pass  # noqa: F401  (registers the must-pass shapes)
from probe3_values import PHONES_SEEN, REG

REG.write(sys.stdout)
if os.environ.get("PROBE3_PHONES"):
    for region, s in PHONES_SEEN:
        sys.stderr.write("%s\t%s\n" % (region, s))
