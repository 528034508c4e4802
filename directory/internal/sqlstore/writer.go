package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrClosed is returned by writes after Close.
var ErrClosed = errors.New("directory store closed")

// A WriteFunc is one write: it runs inside a transaction and either
// succeeds as a whole or leaves no trace.
type WriteFunc func(ctx context.Context, tx *sql.Tx) error

// Writer runs writes.
type Writer interface {
	Write(ctx context.Context, fn WriteFunc) error
	Close() error
}

// TxWriter runs each write in a transaction of its own, retrying it when
// retryable says the failure was transient (a serialisation failure, a
// deadlock, or losing an insert race).
func TxWriter(db *sql.DB, retryable func(error) bool) Writer {
	return &txWriter{db: db, retryable: retryable}
}

type txWriter struct {
	db        *sql.DB
	retryable func(error) bool
}

const maxRetries = 8

func (w *txWriter) Write(ctx context.Context, fn WriteFunc) error {
	var err error
	for attempt := 0; attempt < maxRetries; attempt++ {
		if attempt > 0 {
			t := time.NewTimer(time.Duration(attempt*attempt) * time.Millisecond)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		}
		err = w.once(ctx, fn)
		if err == nil || w.retryable == nil || !w.retryable(err) {
			return err
		}
	}
	return err
}

func (w *txWriter) once(ctx context.Context, fn WriteFunc) error {
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(ctx, tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

func (w *txWriter) Close() error { return nil }

// BatchWriter commits writes in groups over db, which must hold a single
// connection: while one transaction commits (and syncs to disk), the writes
// that arrive queue up and then share the next transaction, each inside a
// savepoint of its own so that a failing write takes only itself back.
// Durable commits thus cost one sync per group rather than one per write.
func BatchWriter(db *sql.DB) Writer {
	w := &batchWriter{
		db:   db,
		reqs: make(chan *writeReq),
		done: make(chan struct{}),
	}
	w.wg.Add(1)
	go w.loop()
	return w
}

// maxBatch bounds one group, to keep the write lock short.
const maxBatch = 256

type batchWriter struct {
	db        *sql.DB
	reqs      chan *writeReq
	done      chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
}

type writeReq struct {
	ctx context.Context
	fn  WriteFunc
	res chan error
}

func (w *batchWriter) Write(ctx context.Context, fn WriteFunc) error {
	r := &writeReq{ctx: ctx, fn: fn, res: make(chan error, 1)}
	select {
	case w.reqs <- r:
	case <-w.done:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	// Once handed over the write may commit; wait for the verdict unless
	// the caller gives up, in which case the outcome is unknown to it, as
	// with any database.
	select {
	case err := <-r.res:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (w *batchWriter) Close() error {
	w.closeOnce.Do(func() { close(w.done) })
	w.wg.Wait()
	return nil
}

func (w *batchWriter) loop() {
	defer w.wg.Done()
	batch := make([]*writeReq, 0, maxBatch)
	for {
		select {
		case r := <-w.reqs:
			batch = append(batch[:0], r)
		case <-w.done:
			return
		}
	drain:
		for len(batch) < maxBatch {
			select {
			case r := <-w.reqs:
				batch = append(batch, r)
			default:
				break drain
			}
		}
		w.run(batch)
	}
}

// run commits one group. Each write runs with its caller's values but not
// its cancellation: interrupting a statement inside a SQLite transaction
// rolls back the whole transaction, which would take the group's other
// writes with it. A write whose caller has already given up is skipped.
func (w *batchWriter) run(batch []*writeReq) {
	errs := make([]error, len(batch))
	live := 0
	for i, r := range batch {
		if errs[i] = r.ctx.Err(); errs[i] == nil {
			live++
		}
	}
	if live == 0 {
		w.reply(batch, errs)
		return
	}
	ctx := context.Background()
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		w.fail(batch, errs, fmt.Errorf("begin: %w", err))
		return
	}
	for i, r := range batch {
		if errs[i] != nil {
			continue
		}
		if _, err := tx.ExecContext(ctx, "SAVEPOINT w"); err != nil {
			_ = tx.Rollback()
			w.fail(batch, errs, fmt.Errorf("savepoint: %w", err))
			return
		}
		if err := r.fn(context.WithoutCancel(r.ctx), tx); err != nil {
			errs[i] = err
			if _, rerr := tx.ExecContext(ctx, "ROLLBACK TO w"); rerr != nil {
				_ = tx.Rollback()
				w.fail(batch, errs, fmt.Errorf("rollback to savepoint: %w", rerr))
				return
			}
		}
		if _, err := tx.ExecContext(ctx, "RELEASE w"); err != nil {
			_ = tx.Rollback()
			w.fail(batch, errs, fmt.Errorf("release savepoint: %w", err))
			return
		}
	}
	if err := tx.Commit(); err != nil {
		w.fail(batch, errs, fmt.Errorf("commit: %w", err))
		return
	}
	w.reply(batch, errs)
}

// fail answers err to every write of the group that had not failed on its
// own.
func (w *batchWriter) fail(batch []*writeReq, errs []error, err error) {
	for i := range batch {
		if errs[i] == nil {
			errs[i] = err
		}
	}
	w.reply(batch, errs)
}

func (w *batchWriter) reply(batch []*writeReq, errs []error) {
	for i, r := range batch {
		r.res <- errs[i]
	}
}
