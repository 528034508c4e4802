package gateway

import (
	"encoding/json"
	"strings"

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

// extContext is the agent's call context (core.tool.call's context) for a
// peer's message: the caller's context the message carries, and over it
// what the gateway itself tells the agent (own, an object or nil: the
// consent the call came under). The caller's members named "moltgate.…"
// are dropped: those are the gateway's to say. It is an error when what the
// message carries is not an object.
func extContext(m *wire.Message, own json.RawMessage) (json.RawMessage, error) {
	v := m.Ext.Get(ExtContext)
	if v.IsAbsent() {
		return own, nil
	}
	if v.Kind() != wire.Object {
		return nil, wire.Errorf(wire.ErrInvalidParam, "ext."+ExtContext, "must be an object")
	}
	out := wire.ObjectValue()
	for _, mb := range v.Members() {
		if !strings.HasPrefix(mb.Key, "moltgate.") {
			out = out.With(mb.Key, mb.Value)
		}
	}
	if len(own) > 0 {
		g, err := wire.Parse(own, 0)
		if err != nil {
			return nil, err
		}
		for _, mb := range g.Members() {
			out = out.With(mb.Key, mb.Value)
		}
	}
	if len(out.Members()) == 0 {
		return nil, nil
	}
	return wire.AppendCanonical(nil, out), nil
}
