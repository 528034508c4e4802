#!/usr/bin/python3
"""Writes the eighth probe of the pii accuracy corpus (pii/testdata/corpus/apart/probe8.jsonl) to stdout.

An eighth probe, written apart from the corpus generators and from the first seven probes, sharing
only their row bookkeeping (probe_registry.py): what agents of different organisations exchange
about business (CRM and ticketing results as GraphQL and OData, payroll records, travel bookings
with PNRs, passports and loyalty numbers, card statements, clinical referrals and insurance claims,
school and tenancy tables, calendar invites and vCards, Markdown and HTML tables, meeting minutes,
support threads, planning scratchpads that quote a user, summaries that paraphrase a person, vendor
tokens in config blobs, headers and tool arguments), in Slovak, Croatian, Macedonian, Russian,
Georgian, Armenian, Bengali, Tamil, Amharic, Kinyarwanda, Afrikaans, Basque, Galician, Central
American and Venezuelan Spanish, Jamaican English, Mauritian French and Mozambican Portuguese;
beside hard negatives of the same shapes (probe8_block.py, probe8_pass.py; values in
probe8_values.py).

    /usr/bin/python3 probe8_rows.py > ../../testdata/corpus/apart/probe8.jsonl

Run with Debian's python3 (python3-stdnum, python3-cryptography). The output depends only on SEED
and those versions. With PROBE8_PHONES=1 it writes the phone numbers it made to stderr, one
"REGION<TAB>number" a line, for the check against libphonenumber's metadata.
"""

import os
import sys

import probe8_block  # noqa: F401  (registers the must-block shapes)
import probe8_pass  # noqa: F401  (registers the must-pass shapes)
from probe8_values import PHONES_SEEN, REG

REG.write(sys.stdout)
if os.environ.get("PROBE8_PHONES"):
    for region, s in PHONES_SEEN:
        sys.stderr.write("%s\t%s\n" % (region, s))
