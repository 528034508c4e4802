#!/usr/bin/python3
"""Writes the probe rows of the pii accuracy corpus (pii/testdata/corpus/probe.jsonl) to stdout.

The probe is written apart from the other generators, without their templates: agents' tool-call
payloads and text in the shapes they take in real traffic, in several languages, written by careless
agents and by hostile ones, beside hard negatives of the same shapes (probe_block.py, probe_pass.py;
values in probe_values.py). Every (family, shape) has PER rows whose values are generated.

    /usr/bin/python3 probe_rows.py > ../../testdata/corpus/probe.jsonl

Run with Debian's python3 (Faker 0.9.3 from python3-fake-factory). The output depends only on SEED
and the Faker version.
"""

import json
import sys

import probe_block  # noqa: F401  (registers the must-block shapes)
import probe_pass  # noqa: F401  (registers the must-pass shapes)
from probe_values import ROWS

for r in ROWS:
    del r["_shape"]
    sys.stdout.write(json.dumps(r, ensure_ascii=False) + "\n")
