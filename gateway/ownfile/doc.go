// Package ownfile is a signed file an organisation keeps in its gateway
// directory and serves to its peers as the file says now: its revocation
// list (DIR/revocations.json) and its handover statements
// (DIR/handovers.json). Commands write these files while the gateway
// serves; a File reads one again when it changed on disk (its Stamp), or
// when what it is checked against changed (the org key, after a
// rotation), and keeps what it held when what it reads does not check.
package ownfile
