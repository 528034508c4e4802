// Package trail is what the gateway records of each exchange: the audit
// trail of its boundary decisions (Trail), the receipts of exchanges with
// peers, signed by the callee and countersigned by the caller (Receipts),
// and the spans and counts of its calls to peers and to local agents
// (Spans).
//
// The trail appends to the audit ledger it is given and offers a copy to
// the HTTP sink if there is one; which store holds the ledger is the
// gateway's to choose. The room knows no face, no storage backend and no
// local bridge.
package trail
