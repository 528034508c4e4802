package pii

import (
	"path/filepath"
	"testing"
)

// The probes under testdata/corpus/apart are scored by TestProbe, and shown in
// docs/pii-accuracy.md beside their figures before any detector was changed for them, but their
// test parts are not in TestAccuracy's tables (nor in TestEvasion's rows): the fifth probe's test
// part, added to them when it was written, put a family under its target and another over its
// floor, and a floor is never lowered to let a corpus in. Such a probe joins the tables once its
// test part no longer does so.
var apartPattern = filepath.Join("testdata", "corpus", "apart", "*.jsonl")

// readCorpusApart reads the probes kept apart from the tables.
func readCorpusApart(t *testing.T) []corpusRow {
	t.Helper()
	return readCorpusFiles(t, apartPattern)
}

// scoreApart is the gate's decision on each row of the probes kept apart, for the document.
func scoreApart(t *testing.T, sc *Scanner) ([]corpusRow, []bool) {
	t.Helper()
	rows := readCorpusApart(t)
	blocked := make([]bool, len(rows))
	for i, r := range rows {
		blocked[i], _ = gateDecision(sc, r.payload(t))
	}
	return rows, blocked
}
