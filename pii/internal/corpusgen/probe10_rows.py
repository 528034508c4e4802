#!/usr/bin/python3
"""Writes the tenth probe of the pii accuracy corpus (pii/testdata/corpus/apart/probe10.jsonl) to stdout.

A tenth probe, written apart from the corpus generators and from the earlier probes, sharing only
their row bookkeeping (probe_registry.py): people in narrative prose and notes, identified by their
name, their date of birth or their health in context rather than by a structured identifier (case
notes, referral letters, HR incident reports, biographies, notices of living people, reviews and
testimonials, diary entries, an assistant's memory notes, chat in lower case, minutes and action
items), with names transliterated from Arabic, Russian, Bulgarian, Georgian, Chinese, Korean,
Japanese, Hindi, Yoruba and Amharic, names with particles, family names first, initials and
nicknames, health and dates of birth in thirteen languages; beside hard negatives of the same
shapes (probe10_block.py, probe10_pass.py; values in probe10_values.py).

    /usr/bin/python3 probe10_rows.py > ../../testdata/corpus/apart/probe10.jsonl

Run with Debian's python3 (Faker 0.9.3 from python3-fake-factory, python3-stdnum,
python3-unidecode, python3-cryptography). The output depends only on SEED and those versions. With
PROBE10_PHONES=1 it writes the phone numbers it made to stderr, one "REGION<TAB>number" a line,
for the check against libphonenumber's metadata.
"""

import os
import sys

import probe10_block  # noqa: F401  (registers the must-block shapes)
import probe10_pass  # noqa: F401  (registers the must-pass shapes)
from probe10_values import PHONES_SEEN, REG

REG.write(sys.stdout)
if os.environ.get("PROBE10_PHONES"):
    for region, s in PHONES_SEEN:
        sys.stderr.write("%s\t%s\n" % (region, s))
