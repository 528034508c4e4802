#!/usr/bin/python3
"""Writes the ninth probe of the pii accuracy corpus (pii/testdata/corpus/apart/probe9.jsonl) to stdout.

A ninth probe, written apart from the corpus generators, the earlier probes and the hostile
rewritings of TestEvasion, sharing only their row bookkeeping (probe_registry.py): what a careless
or hostile agent writes. Debug dumps of objects, tool arguments, shell history and one-liners
(mysql -p, curl -u, export, docker login, git clone with a token, psql URLs), stack traces and
exceptions carrying request bodies, dotfiles and configuration files (TOML, INI, HCL, .properties,
.npmrc, .pypirc, .netrc, .docker/config.json, gh and glab hosts), Terraform state, Postman, HAR and
Insomnia exports, cookies and JWTs; and values written to get past a gate: digits of other
scripts, number words of seven languages, digits between emoji or words, zero-width and direction
marks, reversed values and ciphers the text describes, two layers of encoding, escapes of C,
JavaScript, CSS and HTML's named references, values spread over messages or indexed pieces; beside
hard negatives of the same shapes (probe9_block.py, probe9_pass.py; values in probe9_values.py).

    /usr/bin/python3 probe9_rows.py > ../../testdata/corpus/apart/probe9.jsonl

Run with Debian's python3 (python3-stdnum, python3-cryptography). The output depends only on SEED
and those versions. With PROBE9_PHONES=1 it writes the phone numbers it made to stderr, one
"REGION<TAB>number" a line, for the check against libphonenumber's metadata.
"""

import os
import sys

import probe9_block  # noqa: F401  (registers the must-block shapes)
import probe9_pass  # noqa: F401  (registers the must-pass shapes)
from probe9_values import PHONES_SEEN, REG

REG.write(sys.stdout)
if os.environ.get("PROBE9_PHONES"):
    for region, s in PHONES_SEEN:
        sys.stderr.write("%s\t%s\n" % (region, s))
