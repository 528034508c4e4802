// Package audit keeps a gateway's audit trail: each decision taken at the
// organisation's boundary (a message allowed or blocked, and why, its class,
// the consent it travelled under and the types of personal data it held,
// never the values) is a CloudEvents 1.0 event, appended to a ledger in
// which every link is chained to the one before it by SHA-256. The events
// committed together are one link (LinkBatch: one row and one hash for the
// batch, each event a line of it), and each event is still addressed on
// its own, by its link's number and its place in it ("entry 12.3").
//
// The chain makes the trail tamper-evident: Verify recomputes every link
// and names the first entry that was edited, deleted or moved, or whose
// link had an event edited, deleted, added or moved. A head row, written
// in the same transaction as each link, holds the last one, so that
// cutting entries off the end is seen too. Links written before batches,
// an event each (Link), verify as they did. The ledger lives in SQLite
// (one gateway) or PostgreSQL (replicas of one organisation share one
// chain: appends are serialised by a row lock on the head).
//
// A Sink sends events to an HTTP collector as well. It is off unless
// configured, buffers, and never blocks the caller: when its buffer is
// full it drops events and counts them, since the ledger already holds
// them.
package audit
