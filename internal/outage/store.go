package outage

import (
	"context"
	"errors"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/wire"
)

// Directory is the name the directory store is watched under.
const Directory = "directory"

// WatchStore returns st with its failures recorded in w under the name
// Directory. A write that goes through ends a failure; so does any answer
// when the database was unreachable. What the store refuses by its own
// rules (not found, stale, a conflict, a bad value) is no failure.
func WatchStore(st directory.Store, w *Watch) directory.Store {
	return &watched{Store: st, w: w}
}

type watched struct {
	directory.Store
	w *Watch
}

// refusal tells the directory's own refusals from failures.
func refusal(err error) bool {
	var fe *directory.FieldError
	var we *wire.Error
	return errors.Is(err, directory.ErrNotFound) || errors.Is(err, directory.ErrExpired) ||
		errors.Is(err, directory.ErrConflict) || errors.Is(err, directory.ErrStale) ||
		errors.Is(err, directory.ErrBadCursor) || errors.As(err, &fe) || errors.As(err, &we)
}

// wrote records the outcome of a write.
func (s *watched) wrote(err error) {
	if err == nil {
		s.w.Worked(Directory)
		return
	}
	s.read(err)
}

// read records the outcome of a read.
func (s *watched) read(err error) {
	cause := Cause(err, refusal)
	switch {
	case cause != "":
		s.w.Failed(Directory, cause, err)
	case err == nil || refusal(err):
		s.w.Answered(Directory)
	}
}

func (s *watched) Put(ctx context.Context, e *directory.Entry, o directory.PutOptions) (directory.Entry, error) {
	out, err := s.Store.Put(ctx, e, o)
	s.wrote(err)
	return out, err
}

func (s *watched) Get(ctx context.Context, id directory.ID, v directory.Viewer) (directory.Entry, error) {
	out, err := s.Store.Get(ctx, id, v)
	s.read(err)
	return out, err
}

func (s *watched) Delete(ctx context.Context, id directory.ID, d directory.Deletion) error {
	err := s.Store.Delete(ctx, id, d)
	s.wrote(err)
	return err
}

func (s *watched) Renew(ctx context.Context, id directory.ID, key string, expiresAt time.Time) (directory.Entry, error) {
	out, err := s.Store.Renew(ctx, id, key, expiresAt)
	s.wrote(err)
	return out, err
}

func (s *watched) Search(ctx context.Context, q *directory.Query) (directory.Page, error) {
	out, err := s.Store.Search(ctx, q)
	s.read(err)
	return out, err
}

func (s *watched) Capabilities(ctx context.Context, q *directory.CapabilityQuery) ([]directory.CapabilityCount, error) {
	out, err := s.Store.Capabilities(ctx, q)
	s.read(err)
	return out, err
}

func (s *watched) Changes(ctx context.Context, q *directory.ChangesQuery) (directory.ChangePage, error) {
	out, err := s.Store.Changes(ctx, q)
	s.read(err)
	return out, err
}

func (s *watched) RecordLiveness(ctx context.Context, id directory.ID, h directory.Heartbeat) error {
	err := s.Store.RecordLiveness(ctx, id, h)
	s.wrote(err)
	return err
}

func (s *watched) Liveness(ctx context.Context, id directory.ID) (directory.Liveness, error) {
	out, err := s.Store.Liveness(ctx, id)
	s.read(err)
	return out, err
}

func (s *watched) Sweep(ctx context.Context) (directory.Swept, error) {
	out, err := s.Store.Sweep(ctx)
	s.wrote(err)
	return out, err
}

func (s *watched) PurgeOrg(ctx context.Context, org string) (int, error) {
	out, err := s.Store.PurgeOrg(ctx, org)
	s.wrote(err)
	return out, err
}

func (s *watched) Ping(ctx context.Context) error {
	err := s.Store.Ping(ctx)
	s.read(err)
	return err
}
