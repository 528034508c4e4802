#!/usr/bin/python3
"""Writes the second probe of the pii accuracy corpus (pii/testdata/corpus/probe2.jsonl) to stdout.

A second probe, written apart from the corpus generators and from the first probe (probe_rows.py):
other payload shapes (CSV in a string, SQL inserts, raw HTTP requests, vCards, SEPA XML, INI files,
shell history, CI logs, Terraform, JWTs, e-mail signatures, Markdown tables), other locales and
scripts, other identifier schemes, other vendors, and careless and hostile writing the first did not
try (ALL CAPS, lower-case names, homoglyphs, "[at]"/"{.}" spelling, spaced letters, base32, hex,
unicode escapes, values split across nested fields), beside hard negatives of the same shapes
(probe2_block.py, probe2_pass.py; values in probe2_values.py).

    /usr/bin/python3 probe2_rows.py > ../../testdata/corpus/probe2.jsonl

Run with Debian's python3 (Faker 0.9.3 from python3-fake-factory, cryptography from
python3-cryptography). The output depends only on SEED and those versions.
"""

import json
import sys

import probe2_block  # noqa: F401  (registers the must-block shapes)
import probe2_pass  # noqa: F401  (registers the must-pass shapes)
from probe2_values import ROWS

for r in ROWS:
    del r["_shape"]
    sys.stdout.write(json.dumps(r, ensure_ascii=False) + "\n")
