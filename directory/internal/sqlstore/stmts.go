package sqlstore

import (
	"context"
	"database/sql"
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// stmtCache keeps prepared statements of one *sql.DB, least recently used
// out first. Compiling a statement costs SQLite more than running most of
// ours, and database/sql prepares afresh on every call unless handed a
// prepared statement. (pgx caches statements per connection itself.)
//
// A statement is closed when it is both evicted and no longer in use.
type stmtCache struct {
	db  *sql.DB
	mu  sync.Mutex
	lru *simplelru.LRU[string, *cachedStmt]
}

type cachedStmt struct {
	st      *sql.Stmt
	refs    int
	evicted bool
}

const stmtCacheSize = 256

func newStmtCache(db *sql.DB) *stmtCache {
	c := &stmtCache{db: db}
	c.lru, _ = simplelru.NewLRU(stmtCacheSize, func(_ string, cs *cachedStmt) {
		cs.evicted = true
		if cs.refs == 0 {
			cs.st.Close()
		}
	})
	return c
}

// acquire returns the prepared statement for query; release it when done.
func (c *stmtCache) acquire(ctx context.Context, query string) (*cachedStmt, error) {
	c.mu.Lock()
	if cs, ok := c.lru.Get(query); ok {
		cs.refs++
		c.mu.Unlock()
		return cs, nil
	}
	c.mu.Unlock()
	st, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cs, ok := c.lru.Get(query); ok { // prepared meanwhile by another caller
		st.Close()
		cs.refs++
		return cs, nil
	}
	cs := &cachedStmt{st: st, refs: 1}
	c.lru.Add(query, cs)
	return cs, nil
}

func (c *stmtCache) release(cs *cachedStmt) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cs.refs--
	if cs.refs == 0 && cs.evicted {
		cs.st.Close()
	}
}

// close closes every cached statement.
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Purge()
}

// conn runs the store's statements against one database handle or
// transaction, through the statement cache when there is one.
type conn struct {
	cache *stmtCache // nil: no caching
	db    *sql.DB    // when not in a transaction
	tx    *sql.Tx
}

func (c conn) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if c.cache == nil {
		if c.tx != nil {
			return c.tx.ExecContext(ctx, query, args...)
		}
		return c.db.ExecContext(ctx, query, args...)
	}
	cs, err := c.cache.acquire(ctx, query)
	if err != nil {
		return nil, err
	}
	defer c.cache.release(cs)
	st := cs.st
	if c.tx != nil {
		st = c.tx.StmtContext(ctx, st)
		defer st.Close()
	}
	return st.ExecContext(ctx, args...)
}

// rows is *sql.Rows that also releases its cached statement on Close.
type rows struct {
	*sql.Rows
	done func()
}

func (r *rows) Close() error {
	err := r.Rows.Close()
	if r.done != nil {
		r.done()
		r.done = nil
	}
	return err
}

func (c conn) query(ctx context.Context, query string, args ...any) (*rows, error) {
	if c.cache == nil {
		var rs *sql.Rows
		var err error
		if c.tx != nil {
			rs, err = c.tx.QueryContext(ctx, query, args...)
		} else {
			rs, err = c.db.QueryContext(ctx, query, args...)
		}
		if err != nil {
			return nil, err
		}
		return &rows{Rows: rs}, nil
	}
	cs, err := c.cache.acquire(ctx, query)
	if err != nil {
		return nil, err
	}
	st := cs.st
	if c.tx != nil {
		st = c.tx.StmtContext(ctx, st)
	}
	done := func() {
		if c.tx != nil {
			st.Close()
		}
		c.cache.release(cs)
	}
	rs, err := st.QueryContext(ctx, args...)
	if err != nil {
		done()
		return nil, err
	}
	return &rows{Rows: rs, done: done}, nil
}

// scanRow runs a query expected to return at most one row and scans it
// into dest; sql.ErrNoRows when there is none.
func (c conn) scanRow(ctx context.Context, query string, args []any, dest ...any) error {
	rs, err := c.query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rs.Close()
	if !rs.Next() {
		if err := rs.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := rs.Scan(dest...); err != nil {
		return err
	}
	return rs.Close()
}
