package audit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // database/sql driver "sqlite"
)

// Entry is one event in the chain: its place and the hashes of the link
// that holds it. The events committed together are one link, hashed into
// the chain together (LinkBatch); each is addressed by the link's Seq and
// its Index in it.
type Entry struct {
	// Seq numbers the links from 1, without gaps.
	Seq int64
	// Index is the event's place in its link, from 0 (always 0 in a link
	// of one event written before links held batches).
	Index int
	// Prev is the hash of the link before (all zero for the first).
	Prev [32]byte
	// Hash is the link's hash: LinkBatch(Prev, Seq, its events), or
	// Link(Prev, Seq, Event) for a link written before batches.
	Hash [32]byte
	// Event is the event's JSON exactly as it was hashed.
	Event json.RawMessage
}

// Link computes an entry's hash: SHA-256 over a domain string, the
// previous hash, the sequence number (8 bytes, big-endian) and the event's
// bytes. The sequence number is inside the hash so that entries cannot
// be renumbered to hide a deletion.
//
//	"moltgate audit v1\n" || prev[32] || seq[8] || event
func Link(prev [32]byte, seq int64, event []byte) [32]byte {
	h := sha256.New()
	h.Write([]byte(linkDomain))
	h.Write(prev[:])
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(seq))
	h.Write(n[:])
	h.Write(event)
	var out [32]byte
	h.Sum(out[:0])
	return out
}

const linkDomain = "moltgate audit v1\n"

// LinkBatch computes the hash of a link that holds a batch of events:
// SHA-256 over a domain string, the previous hash, the sequence number (8
// bytes, big-endian) and the events, each a line of compact JSON, joined by
// newlines (which no event holds):
//
//	"moltgate audit v2\n" || prev[32] || seq[8] || event1 "\n" event2 ...
//
// One hash and one row per batch: a ledger that records every decision
// writes some thousands of events a second, and a row and a hash each cost
// more than the events themselves.
func LinkBatch(prev [32]byte, seq int64, events [][]byte) [32]byte {
	h := sha256.New()
	h.Write([]byte(batchDomain))
	h.Write(prev[:])
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(seq))
	h.Write(n[:])
	for i, ev := range events {
		if i > 0 {
			h.Write([]byte{'\n'})
		}
		h.Write(ev)
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

const batchDomain = "moltgate audit v2\n"

// batchType is the type column of a link that holds a batch: no
// CloudEvents type, whose types are reverse-DNS names.
const batchType = "*"

// dialect is what differs between SQLite and PostgreSQL here.
type dialect struct {
	name     string
	numbered bool // $1 placeholders instead of ?
	lockRows bool // FOR UPDATE on the head row
}

var (
	sqliteDialect   = dialect{name: "sqlite"}
	postgresDialect = dialect{name: "postgres", numbered: true, lockRows: true}
)

// q rewrites ? placeholders for the dialect.
func (d dialect) q(query string) string {
	if !d.numbered {
		return query
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteByte(query[i])
	}
	return b.String()
}

const schema = `
CREATE TABLE IF NOT EXISTS audit_entries (
	seq   BIGINT PRIMARY KEY,
	prev  TEXT NOT NULL,
	hash  TEXT NOT NULL,
	at    BIGINT NOT NULL,
	type  TEXT NOT NULL,
	peer  TEXT NOT NULL,
	event TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_entries_at ON audit_entries (at);
CREATE TABLE IF NOT EXISTS audit_head (
	id   INTEGER PRIMARY KEY,
	seq  BIGINT NOT NULL,
	hash TEXT NOT NULL
);
INSERT INTO audit_head (id, seq, hash) VALUES (1, 0, '` + zeroHex + `') ON CONFLICT DO NOTHING;
`

const zeroHex = "0000000000000000000000000000000000000000000000000000000000000000"

// Ledger is an append-only, hash-chained store of events. It is safe for
// concurrent use; appends are written in batches, one transaction each,
// the next batch forming while the one before commits.
//
// What a crash keeps: an event whose Append returned is on disk, synced.
// An event only enqueued is committed within linger of being queued, and
// then survives the gateway's process dying; it survives the machine
// failing (power, kernel) once the file is synced, which a SQLite ledger
// does at the next commit an Append waits for, at the next checkpoint,
// and at least every syncEvery (PostgreSQL, at every commit, as the
// server is configured). What a machine failure loses is always the end
// of the chain, never a link inside it: SQLite's write-ahead log is
// replayed in order up to the first frame that was not synced, so the
// ledger found after it is a prefix of the one written, and verifies.
type Ledger struct {
	db     *sql.DB
	d      dialect
	closer func() error
	// The writer's statements, compiled once: a batch is some seventy
	// events at a busy gateway's pace, and compiling them again each
	// time cost as much as the insert.
	head, insert, update *sql.Stmt
	// lastSync is when a commit last synced a SQLite file (the writer's
	// alone), by now (time.Now).
	lastSync time.Time
	now      func() time.Time

	reqs     chan *appendReq
	stop     chan struct{}
	done     chan struct{}
	closeErr error
	once     sync.Once
}

type appendReq struct {
	ev   []byte
	at   int64
	typ  string
	peer string
	// done receives the outcome of Append, which waits for it; nil for
	// Enqueue, whose then (if set) is told on the writer.
	done chan appendRes
	then func(Entry, error)
}

func (r *appendReq) answer(e Entry, err error) {
	switch {
	case r.done != nil:
		r.done <- appendRes{e: e, err: err}
	case r.then != nil:
		r.then(e, err)
	}
}

type appendRes struct {
	e   Entry
	err error
}

// maxBatch bounds the events written in one transaction.
const maxBatch = 512

// Queued bounds the events waiting for the writer; past it, Append and
// Enqueue wait for room.
const Queued = 4096

// linger is how long the writer waits for more events before it commits a
// batch that no one waits for (only Enqueue's): a commit and its fsync cost
// as much as some twenty entries, and events that come in a burst share
// them. At 10 ms a gateway recording every decision of a busy exchange
// committed a hundred times a second, and the commits were the largest
// single cost of its trail. Each commit also writes again the pages a
// row only touches (the table's leaf, the index on time, the head), a
// third of what a 25 ms batch wrote: at 100 ms the writer costs some
// 30% less per event (BenchmarkPacedLedger), and a gateway whose process
// dies loses at most the last 100 ms of the events nothing waited for.
// A batch that an Append waits for is committed at once.
const linger = 100 * time.Millisecond

// syncEvery bounds how long a SQLite ledger's committed events may stay
// unsynced. Each commit synced the file until the commits that no one
// waits for (every decision and receipt, with decisions = "all") were a
// third of the ledger's CPU at some forty commits a second; synced once a
// second, a machine failure loses at most the last second of them, which
// the gateway's process dying (the more common failure) never loses once
// committed. A commit that an Append waits for is synced at once.
const syncEvery = time.Second

// OpenSQLite opens (creating it with mode 0600 if needed) the ledger in
// the SQLite file at path.
func OpenSQLite(ctx context.Context, path string) (*Ledger, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("open audit ledger %q: the path must be non-empty and contain no ? or #", path)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open audit ledger: %w", err)
	}
	st, err := f.Stat()
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("open audit ledger: %w", err)
	}
	file := "file:" + (&url.URL{Path: path}).EscapedPath()
	if st.Size() == 0 {
		if err := newSQLite(ctx, file); err != nil {
			return nil, fmt.Errorf("open audit ledger %s: %w", path, err)
		}
	}
	db, err := sql.Open("sqlite", file+
		"?_txlock=immediate&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, fmt.Errorf("open audit ledger: %w", err)
	}
	// One writer at a time: SQLite's write lock would serialise them anyway.
	db.SetMaxOpenConns(1)
	l, err := open(ctx, db, sqliteDialect, db.Close)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open audit ledger %s: %w", path, err)
	}
	return l, nil
}

// newSQLite makes the empty file a ledger of 16 KiB pages in WAL mode.
// A batch's row is some fifty kilobytes, and each page of it is a write to
// the write-ahead log and a read and a write at the checkpoint, which at
// SQLite's 4 KiB were most of a commit's cost. The page size is fixed
// once the file holds its first page, which WAL mode writes: the driver
// applies its DSN's pragmas in the order of their names, journal_mode
// before page_size, so both are set here, in order, on a connection of
// their own. A file made before keeps its pages.
func newSQLite(ctx context.Context, file string) error {
	db, err := sql.Open("sqlite", file)
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	for _, p := range []string{"PRAGMA page_size = 16384", "PRAGMA journal_mode = WAL"} {
		if _, err := conn.ExecContext(ctx, p); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	return nil
}

// OpenPostgres opens the ledger in the PostgreSQL database db, creating
// its tables if needed. Replicas that open the same database share one
// chain. db stays open when the Ledger is closed.
func OpenPostgres(ctx context.Context, db *sql.DB) (*Ledger, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("open audit ledger: %w", err)
	}
	defer conn.Close()
	// Replicas starting together must not race to create the tables.
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, schemaLock); err != nil {
		return nil, fmt.Errorf("open audit ledger: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, schemaLock)
	if _, err := conn.ExecContext(ctx, schema); err != nil {
		return nil, fmt.Errorf("open audit ledger: create tables: %w", err)
	}
	return start(ctx, db, postgresDialect, nil)
}

// schemaLock is the advisory lock held while the tables are created.
const schemaLock = 0x61756474 // "audt"

func open(ctx context.Context, db *sql.DB, d dialect, closer func() error) (*Ledger, error) {
	if _, err := db.ExecContext(ctx, schema); err != nil {
		return nil, fmt.Errorf("create tables: %w", err)
	}
	return start(ctx, db, d, closer)
}

func start(ctx context.Context, db *sql.DB, d dialect, closer func() error) (*Ledger, error) {
	l := &Ledger{db: db, d: d, closer: closer, now: time.Now, reqs: make(chan *appendReq, Queued),
		stop: make(chan struct{}), done: make(chan struct{})}
	lock := ""
	if d.lockRows {
		lock = " FOR UPDATE"
	}
	for _, s := range []struct {
		to *(*sql.Stmt)
		q  string
	}{
		{&l.head, "SELECT seq, hash FROM audit_head WHERE id = 1" + lock},
		{&l.insert, "INSERT INTO audit_entries (seq, prev, hash, at, type, peer, event) VALUES (?, ?, ?, ?, ?, ?, ?)"},
		{&l.update, "UPDATE audit_head SET seq = ?, hash = ? WHERE id = 1"},
	} {
		st, err := db.PrepareContext(ctx, d.q(s.q))
		if err != nil {
			l.closeStmts()
			return nil, fmt.Errorf("prepare: %w", err)
		}
		*s.to = st
	}
	go l.writer()
	return l, nil
}

func (l *Ledger) closeStmts() {
	for _, st := range []*sql.Stmt{l.head, l.insert, l.update} {
		if st != nil {
			st.Close()
		}
	}
}

// ErrClosed is returned by Append after Close.
var ErrClosed = errors.New("audit ledger closed")

// Append adds ev to the chain and returns its entry once it is committed.
// Appends that arrive together share one transaction. If ctx ends first,
// Append returns its error, and the event may or may not be in the chain.
func (l *Ledger) Append(ctx context.Context, ev Event) (Entry, error) {
	req, err := newReq(&ev)
	if err != nil {
		return Entry{}, err
	}
	req.done = make(chan appendRes, 1)
	if err := l.queue(ctx, req); err != nil {
		return Entry{}, err
	}
	select {
	case r := <-req.done:
		return r.e, r.err
	case <-l.done:
		// The writer drained the queue before it stopped; a request that
		// came after its last look was not written.
		select {
		case r := <-req.done:
			return r.e, r.err
		default:
			return Entry{}, ErrClosed
		}
	case <-ctx.Done():
		return Entry{}, ctx.Err()
	}
}

// Enqueue adds ev to the chain in the background: it returns once ev is
// queued, waiting only while Queued events are, and then, if not nil, is
// told on the ledger's writer (it must not block) of the entry committed
// or the failure. Events queued before Close are written before it returns.
func (l *Ledger) Enqueue(ctx context.Context, ev Event, then func(Entry, error)) error {
	req, err := newReq(&ev)
	if err != nil {
		return err
	}
	req.then = then
	return l.queue(ctx, req)
}

func newReq(ev *Event) (*appendReq, error) {
	if err := ev.validate(); err != nil {
		return nil, err
	}
	if !ev.encoded && len(ev.Data) > 0 && !json.Valid(ev.Data) {
		return nil, errors.New("audit event: data is not valid JSON")
	}
	raw := appendEvent(make([]byte, 0, 256+len(ev.ID)+len(ev.Source)+len(ev.Subject)+len(ev.TraceParent)+len(ev.Data)), ev)
	if bytes.IndexByte(raw, '\n') >= 0 {
		// Only Raw data could hold one; a link's events are lines.
		return nil, errors.New("audit event: data holds a line break: encode it as compact JSON")
	}
	return &appendReq{ev: raw, at: ev.Time.UnixMilli(), typ: ev.Type, peer: peerOf(ev)}, nil
}

func (l *Ledger) queue(ctx context.Context, req *appendReq) error {
	// A closed ledger's queue may still have room: look at stop first, or
	// the send below could win and wait for a writer that has gone.
	select {
	case <-l.stop:
		return ErrClosed
	default:
	}
	// With room, an event is queued even if ctx has ended (the refusal
	// of a call whose caller gave up is still recorded).
	select {
	case l.reqs <- req:
		return nil
	default:
	}
	select {
	case l.reqs <- req:
		return nil
	case <-l.stop:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// peerOf is the organisation an event is about, for filtering.
func peerOf(ev *Event) string {
	if ev.encoded {
		return ev.peer
	}
	var d struct {
		Peer string `json:"peer"`
	}
	if json.Unmarshal(ev.Data, &d) != nil {
		return ""
	}
	return d.Peer
}

// writer commits queued appends in batches until Close.
func (l *Ledger) writer() {
	defer close(l.done)
	batch := make([]*appendReq, 0, maxBatch)
	timer := time.NewTimer(linger)
	timer.Stop()
	for {
		waited := false
		select {
		case r := <-l.reqs:
			batch = append(batch[:0], r)
			waited = r.done != nil
		case <-l.stop:
			l.drain(batch[:0])
			return
		}
		// What came meanwhile joins the batch; a batch no one waits for
		// lingers for more.
		timer.Reset(linger)
	fill:
		for len(batch) < maxBatch {
			select {
			case r := <-l.reqs:
				batch = append(batch, r)
				waited = waited || r.done != nil
				continue
			default:
			}
			if waited {
				break
			}
			select {
			case r := <-l.reqs:
				batch = append(batch, r)
				waited = r.done != nil
			case <-timer.C:
				break fill
			case <-l.stop:
				break fill
			}
		}
		timer.Stop()
		l.commit(batch)
	}
}

// drain writes what is queued when the ledger closes, in batches.
func (l *Ledger) drain(batch []*appendReq) {
	for {
		batch = batch[:0]
	fill:
		for len(batch) < maxBatch {
			select {
			case r := <-l.reqs:
				batch = append(batch, r)
			default:
				break fill
			}
		}
		if len(batch) == 0 {
			return
		}
		l.commit(batch)
	}
}

// commit writes a batch in one transaction and answers each append.
func (l *Ledger) commit(batch []*appendReq) {
	entries, err := l.write(batch)
	for i, r := range batch {
		if err != nil {
			r.answer(Entry{}, err)
			continue
		}
		r.answer(entries[i], nil)
	}
}

func (l *Ledger) write(batch []*appendReq) ([]Entry, error) {
	// A write that has begun is finished even if its callers gave up:
	// their events are then in the chain, as Append says they may be.
	ctx := context.Background()
	if l.d.lockRows {
		// A PostgreSQL server that stops answering must not hold the
		// writer for ever. SQLite, in process, is bounded by its
		// busy_timeout; a deadline there would cost a goroutine per
		// statement to watch it.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
	}
	for attempt := 0; ; attempt++ {
		entries, err := l.writeOnce(ctx, batch)
		if err == nil || attempt == 2 || !transient(err) {
			if err != nil {
				err = fmt.Errorf("append to audit ledger: %w", err)
			}
			return entries, err
		}
	}
}

func (l *Ledger) writeOnce(ctx context.Context, batch []*appendReq) ([]Entry, error) {
	if l.d.name == sqliteDialect.name {
		return l.writeSQLite(ctx, batch)
	}
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	return l.writeTx(ctx, tx, batch)
}

// writeSQLite commits a batch to a SQLite ledger, synced (synchronous =
// FULL for its transaction) when someone waits for it, when the ledger
// closes, or when the last sync is syncEvery old; otherwise committed to
// the write-ahead log alone (synchronous = NORMAL, the connection's
// setting), which the next synced commit or checkpoint makes durable with
// it.
func (l *Ledger) writeSQLite(ctx context.Context, batch []*appendReq) ([]Entry, error) {
	now := l.now()
	sync := now.Sub(l.lastSync) >= syncEvery
	for _, r := range batch {
		sync = sync || r.done != nil
	}
	select {
	case <-l.stop:
		sync = true
	default:
	}
	// SQLite takes synchronous only outside a transaction, on the
	// connection that will commit: hold it for both.
	conn, err := l.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if sync {
		if _, err := conn.ExecContext(ctx, "PRAGMA synchronous = FULL"); err != nil {
			return nil, fmt.Errorf("sync: %w", err)
		}
		defer func() {
			if _, err := conn.ExecContext(ctx, "PRAGMA synchronous = NORMAL"); err != nil {
				// A connection left synced costs time, not events.
				conn.Raw(func(any) error { return driver.ErrBadConn })
			}
		}()
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	entries, err := l.writeTx(ctx, tx, batch)
	if err == nil && sync {
		l.lastSync = now
	}
	return entries, err
}

// writeTx appends batch as one link in tx and commits it.
func (l *Ledger) writeTx(ctx context.Context, tx *sql.Tx, batch []*appendReq) ([]Entry, error) {
	var seq int64
	var headHex string
	if err := tx.StmtContext(ctx, l.head).QueryRowContext(ctx).Scan(&seq, &headHex); err != nil {
		return nil, fmt.Errorf("read head: %w", err)
	}
	prev, err := parseHash(headHex)
	if err != nil {
		return nil, fmt.Errorf("read head: %w", err)
	}
	// One link, one row, for the whole batch: the row is built as the
	// string the driver takes, hashed as it is built, so that a batch's
	// events are copied once (a busy ledger's rows are some fifty
	// kilobytes, and a copy for the hash and another for the string were
	// a tenth of all the trail allocated).
	seq++
	h, body, at := linkRow(prev, seq, batch)
	if _, err := tx.StmtContext(ctx, l.insert).ExecContext(ctx, seq, hex.EncodeToString(prev[:]), hex.EncodeToString(h[:]), at, batchType, "", body); err != nil {
		return nil, fmt.Errorf("insert entry %d: %w", seq, err)
	}
	entries := make([]Entry, len(batch))
	for i, r := range batch {
		entries[i] = Entry{Seq: seq, Index: i, Prev: prev, Hash: h, Event: r.ev}
	}
	prev = h
	if _, err := tx.StmtContext(ctx, l.update).ExecContext(ctx, seq, hex.EncodeToString(prev[:])); err != nil {
		return nil, fmt.Errorf("update head: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return entries, nil
}

var newline = []byte{'\n'}

// linkRow is the link of batch after prev, numbered seq: its hash
// (LinkBatch), the row that holds its events (each a line, joined by
// newlines) and the latest of their times.
func linkRow(prev [32]byte, seq int64, batch []*appendReq) (hash [32]byte, row string, at int64) {
	size := len(batch)
	for _, r := range batch {
		at = max(at, r.at)
		size += len(r.ev)
	}
	var b strings.Builder
	b.Grow(size)
	hw := sha256.New()
	hw.Write([]byte(batchDomain))
	hw.Write(prev[:])
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(seq))
	hw.Write(n[:])
	for i, r := range batch {
		if i > 0 {
			b.WriteByte('\n')
			hw.Write(newline)
		}
		b.Write(r.ev)
		hw.Write(r.ev)
	}
	hw.Sum(hash[:0])
	return hash, b.String(), at
}

// transient reports failures worth one more try: a lost serialisation or
// a deadlock in PostgreSQL, a busy SQLite file.
func transient(err error) bool {
	s := err.Error()
	return strings.Contains(s, "SQLSTATE 40001") || strings.Contains(s, "SQLSTATE 40P01") ||
		strings.Contains(s, "SQLITE_BUSY") || strings.Contains(s, "database is locked")
}

func parseHash(s string) ([32]byte, error) {
	var h [32]byte
	if len(s) != 64 {
		return h, fmt.Errorf("hash %q is not 64 hex digits", s)
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, fmt.Errorf("hash %q: %w", s, err)
	}
	return h, nil
}

// Close writes what is queued, stops the writer and, for a SQLite ledger,
// closes its file.
func (l *Ledger) Close() error {
	l.once.Do(func() {
		close(l.stop)
		<-l.done
		l.closeStmts()
		if l.closer != nil {
			l.closeErr = l.closer()
		}
	})
	return l.closeErr
}
