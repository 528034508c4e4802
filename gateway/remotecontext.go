package gateway

import (
	"encoding/json"

	"github.com/moltgate/moltgate/wire"
)

// ExtContext is the extension member in which a local caller's context
// (the JSON-RPC face's context.update, and a query's own context) travels
// with its call to a peer's agent: namespaced, so that a receiver that does
// not know it ignores it. The gate scans it as it scans the payload.
const ExtContext = "moltgate.context"

// withContext sets the context extension of ext from a caller's context,
// a JSON object the face has checked; an empty or absent one sets nothing.
func withContext(ext wire.Value, callerCtx json.RawMessage) (wire.Value, error) {
	if len(callerCtx) == 0 || string(callerCtx) == "null" {
		return ext, nil
	}
	v, err := wire.Parse(callerCtx, 0)
	if err != nil || v.Kind() != wire.Object {
		return ext, wire.Errorf(wire.ErrInvalidParam, "context", "must be a JSON object")
	}
	if len(v.Members()) == 0 {
		return ext, nil
	}
	if ext.IsAbsent() {
		ext = wire.ObjectValue()
	}
	return ext.With(ExtContext, v), nil
}

// extContext is the caller's context a peer's message carries, for the
// agent's call (core.tool.call's context): nil when it carries none, and
// an error when what it carries is not an object.
func extContext(m *wire.Message) (json.RawMessage, error) {
	v := m.Ext.Get(ExtContext)
	if v.IsAbsent() {
		return nil, nil
	}
	if v.Kind() != wire.Object {
		return nil, wire.Errorf(wire.ErrInvalidParam, "ext."+ExtContext, "must be an object")
	}
	return wire.AppendCanonical(nil, v), nil
}
