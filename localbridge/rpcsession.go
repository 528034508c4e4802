package localbridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/moltgate/moltgate/localbridge/jsonrpc"
)

// A session of the JSON-RPC face is a caller's conversation state with remote agents: the
// context its terminal set with context.update, and the recent queries it made (their ids,
// agents, tools and how they ended), never their content. A connection holds one; session.save
// keeps it under a name in the gateway's store, and session.load makes it the connection's.

// Bounds of a session.
const (
	// MaxContextBytes bounds the context a connection holds, as JSON.
	MaxContextBytes = 64 << 10
	// MaxSessionQueries bounds the recent queries a session keeps; older ones are dropped.
	MaxSessionQueries = 100
	// MaxSessionBytes bounds a saved session's file.
	MaxSessionBytes = MaxContextBytes + MaxSessionQueries*1024
)

var sessionIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// SessionQuery is one query a session remembers.
type SessionQuery struct {
	QueryID string `json:"query_id"`
	To      string `json:"to"`
	Tool    string `json:"tool,omitempty"`
	Status  string `json:"status"` // success, error, cancelled or timeout
	At      int64  `json:"at"`     // when it ended, in Unix seconds
}

// SavedSession is a session as session.save keeps it.
type SavedSession struct {
	ID      string          `json:"id"`
	Created int64           `json:"created"` // Unix seconds of its first save
	Saved   int64           `json:"saved"`   // Unix seconds of its last save
	Context json.RawMessage `json:"context"` // a JSON object; {} when none was set
	Queries []SessionQuery  `json:"queries"`
}

// connSession is a connection's session state; guarded by rpcConn.mu.
type connSession struct {
	context map[string]json.RawMessage
	queries []SessionQuery
}

// contextJSON returns the connection's context as a JSON object, nil when empty.
func (cs *connSession) contextJSON() json.RawMessage {
	if len(cs.context) == 0 {
		return nil
	}
	b, _ := json.Marshal(cs.context)
	return b
}

func (cs *connSession) remember(q SessionQuery) {
	cs.queries = append(cs.queries, q)
	if n := len(cs.queries) - MaxSessionQueries; n > 0 {
		// The oldest go; the slice's array is reused, so that a busy connection allocates
		// nothing for it.
		copy(cs.queries, cs.queries[n:])
		cs.queries = cs.queries[:MaxSessionQueries]
	}
}

// mergeContext overlays update's members on base: a member replaces the one of its name, and
// a null member removes it. It fails, naming the field, when the result exceeds
// MaxContextBytes.
func mergeContext(base map[string]json.RawMessage, update json.RawMessage, field string) (map[string]json.RawMessage, *jsonrpc.Error) {
	var members map[string]json.RawMessage
	if err := jsonrpc.Unmarshal(update, &members); err != nil || members == nil {
		return nil, invalidParams(field, field+" must be a JSON object")
	}
	out := make(map[string]json.RawMessage, len(base)+len(members))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range members {
		if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			delete(out, k)
			continue
		}
		out[k] = v
	}
	if b, _ := json.Marshal(out); len(b) > MaxContextBytes {
		return nil, invalidParams(field, fmt.Sprintf("the context would exceed %d bytes; send fewer members, or null to drop one", MaxContextBytes))
	}
	return out, nil
}

// contextUpdate takes a context.update: its parameters are merged into the connection's
// context, which later queries carry.
func (c *rpcConn) contextUpdate(r *jsonrpc.Request) (any, *jsonrpc.Error) {
	raw := r.Params
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	merged, err := mergeContext(c.session.context, raw, "params")
	if err != nil {
		if r.IsNotification() {
			// A notification has no answer to carry the refusal; the log says why.
			c.s.log.Warn("context.update refused", "reason", err.Message)
		}
		return nil, err
	}
	c.session.context = merged
	return map[string]any{"ok": true, "members": len(merged)}, nil
}

// withContext returns q carrying the connection's context, overlaid by the query's own, in
// q.Context: metadata for the agent, never part of a tool's input, which its schema governs.
// The Querier takes it to the agent (Local as the call's context; the gateway, to a peer's
// agent, in the message's "moltgate.context" extension, which the gate scans as it does the
// payload).
func (c *rpcConn) withContext(q QueryRequest) (QueryRequest, *jsonrpc.Error) {
	c.mu.Lock()
	base := c.session.context
	c.mu.Unlock()
	if len(base) == 0 {
		return q, nil
	}
	ctx := base
	if len(q.Context) > 0 {
		var err *jsonrpc.Error
		if ctx, err = mergeContext(base, q.Context, "context"); err != nil {
			return q, err
		}
	}
	q.Context, _ = json.Marshal(ctx)
	return q, nil
}

// sessionPath returns the file of the session named id.
func (s *RPCServer) sessionPath(id string) string {
	return filepath.Join(s.cfg.SessionDir, id+".json")
}

type sessionSaveParams struct {
	ID             string  `json:"id"`
	Path           *string `json:"path"`
	IncludeHistory *bool   `json:"include_history"`
}

func sessionID(id string, path *string) *jsonrpc.Error {
	switch {
	case path != nil:
		return invalidParams("path", "the gateway keeps sessions in its own store, not at a path; name the session with id instead")
	case id == "":
		return invalidParams("id", "id is required: the session's name (letters, digits, '.', '_' and '-')")
	case !sessionIDPattern.MatchString(id):
		return invalidParams("id", "id must be 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit")
	}
	return nil
}

func (c *rpcConn) sessionSave(r *jsonrpc.Request) (any, *jsonrpc.Error) {
	var p sessionSaveParams
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	if err := sessionID(p.ID, p.Path); err != nil {
		return nil, err
	}
	now := c.s.cfg.Now().Unix()
	c.mu.Lock()
	sv := SavedSession{ID: p.ID, Created: now, Saved: now, Context: c.session.contextJSON(), Queries: []SessionQuery{}}
	if p.IncludeHistory == nil || *p.IncludeHistory {
		sv.Queries = append(sv.Queries, c.session.queries...)
	}
	c.mu.Unlock()
	if sv.Context == nil {
		sv.Context = json.RawMessage("{}")
	}
	path := c.s.sessionPath(p.ID)
	c.s.sessionMu.Lock()
	defer c.s.sessionMu.Unlock()
	if old, err := readSession(path); err == nil {
		sv.Created = old.Created
	}
	b, err := json.Marshal(sv)
	if err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "internal error")
	}
	if len(b) > MaxSessionBytes {
		return nil, invalidParams("id", fmt.Sprintf("the session would exceed %d bytes", MaxSessionBytes))
	}
	if err := writeFileAtomic(path, append(b, '\n')); err != nil {
		c.s.log.Error("session not saved", "id", p.ID, "err", err)
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "the session could not be saved; the gateway's log says why")
	}
	return map[string]any{"saved": true, "id": p.ID, "size": len(b) + 1, "messages_count": len(sv.Queries)}, nil
}

func (c *rpcConn) sessionLoad(r *jsonrpc.Request) (any, *jsonrpc.Error) {
	var p struct {
		ID   string  `json:"id"`
		Path *string `json:"path"`
	}
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	if err := sessionID(p.ID, p.Path); err != nil {
		return nil, err
	}
	c.s.sessionMu.Lock()
	sv, err := readSession(c.s.sessionPath(p.ID))
	c.s.sessionMu.Unlock()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, invalidParams("id", "no saved session has that id (save one with session.save)")
	case err != nil:
		c.s.log.Error("session not loaded", "id", p.ID, "err", err)
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "the saved session cannot be read; the gateway's log says why")
	}
	ctx, jerr := mergeContext(nil, sv.Context, "context")
	if jerr != nil {
		c.s.log.Error("session not loaded", "id", p.ID, "err", jerr.Message)
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "the saved session cannot be read; the gateway's log says why")
	}
	if len(sv.Queries) > MaxSessionQueries {
		sv.Queries = sv.Queries[len(sv.Queries)-MaxSessionQueries:]
	}
	c.mu.Lock()
	c.session = connSession{context: ctx, queries: append([]SessionQuery(nil), sv.Queries...)}
	c.mu.Unlock()
	if sv.Queries == nil {
		sv.Queries = []SessionQuery{}
	}
	return map[string]any{"loaded": true, "session": map[string]any{
		"id": sv.ID, "created": sv.Created, "saved": sv.Saved,
		// Blocks are content, which the gateway does not keep.
		"blocks_count": 0, "messages_count": len(sv.Queries),
		"context": sv.Context, "queries": sv.Queries,
	}}, nil
}

// readSession reads a saved session, bounded by MaxSessionBytes.
func readSession(path string) (SavedSession, error) {
	var sv SavedSession
	f, err := os.Open(path)
	if err != nil {
		return sv, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxSessionBytes+2))
	if err != nil {
		return sv, err
	}
	if len(b) > MaxSessionBytes+1 {
		return sv, fmt.Errorf("%s is longer than %d bytes", path, MaxSessionBytes)
	}
	if err := json.Unmarshal(b, &sv); err != nil {
		return sv, fmt.Errorf("%s: %w", path, err)
	}
	if len(sv.Context) == 0 || string(sv.Context) == "null" {
		sv.Context = json.RawMessage("{}")
	}
	return sv, nil
}

// writeFileAtomic writes b to path with mode 0600 through a temporary file in the same
// directory, renamed over path once synced: a reader sees the old file or the new one.
func writeFileAtomic(path string, b []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".session-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// sessionStatus is how a query ended, as a session remembers it.
func sessionStatus(err error, cancelled bool, outcome func(error) Outcome) string {
	switch {
	case cancelled:
		return OutcomeCancelled
	case err == nil:
		return OutcomeSuccess
	}
	return outcome(err).Status
}
