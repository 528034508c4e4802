package local

import (
	"context"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// callTool runs a tool and streams its chunks back as stream messages.
func (s *Room) callTool(ctx context.Context, in *pipeline.Inbound, st Agent, tool string, input wire.Value, emit func([]byte) error) (wire.Value, error) {
	m := in.M
	raw := []byte("{}")
	if !input.IsAbsent() {
		if input.Kind() != wire.Object {
			return wire.Value{}, wire.Errorf(wire.ErrInvalidParam, "p.input", "must be an object")
		}
		raw = wire.AppendCanonical(nil, input)
	}
	req := localbridge.CallRequest{
		Agent: st.ID, Tool: tool, Input: raw,
		RequestID: m.ID, CorrelationID: m.ID, IdempotencyKey: m.From.Ref().String() + "/" + m.ID,
		Caller: localbridge.Caller{Type: "agent", ID: m.From.Ref().String()},
		Class:  m.Cls.String(), Context: s.callContextOf(m, st.ID),
	}
	if s.cfg.ExtContext != nil {
		var err error
		if req.Context, err = s.cfg.ExtContext(m, req.Context); err != nil {
			return wire.Value{}, err
		}
	}
	// A call that streams is answered with a stream, in order:
	//
	//	stream {action: start, stream_id: request id, chunk_size}
	//	stream {action: chunk, stream_id, seq, type: channel, data}   one per chunk
	//	stream {action: end, stream_id, seq: last + 1, status}
	//	respond or error                                              the call's answer
	//
	// A call that sends no chunk is answered with its answer alone.
	var (
		onChunk func(localbridge.Chunk) error
		started bool
		lastSeq int64
	)
	// send sends one stream message; the gate decides on it with checked,
	// if given, in place of its data.
	send := func(p *wire.StreamPayload, checked *wire.Value) error {
		var check *wire.Message
		if checked != nil {
			wide := *p
			wide.Data = *checked
			check = m.Reply(wire.OpStream, &wide)
		}
		body, err := s.sealLocalReplyChecked(ctx, in, st, m.Reply(wire.OpStream, p), check)
		if err != nil {
			return err
		}
		return emit(body)
	}
	// Text and partial results go through a textStream, which checks
	// each chunk in the context of the text around it; see there.
	var text *textStream
	if emit != nil {
		text = newTextStream(s.cfg.ChunkBytes, func(channel, piece, context string) error {
			lastSeq++
			p := &wire.StreamPayload{Action: "chunk", StreamID: m.ID, Seq: lastSeq, Type: channel, Data: wire.StringValue(piece)}
			if context == "" {
				return send(p, nil)
			}
			wide := wire.StringValue(context + piece)
			return send(p, &wide)
		}, func(channel string, v wire.Value, context string) error {
			// A structured chunk cannot be cut; one over the limit
			// fails the call (E_TOO_LARGE) when it is checked.
			lastSeq++
			p := &wire.StreamPayload{Action: "chunk", StreamID: m.ID, Seq: lastSeq, Type: channel, Data: v}
			if context == "" {
				return send(p, nil)
			}
			wide := wire.ArrayValue(v, wire.StringValue(context))
			return send(p, &wide)
		})
	}
	if emit != nil {
		onChunk = func(c localbridge.Chunk) error {
			if !started {
				started = true
				if err := send(&wire.StreamPayload{Action: "start", StreamID: m.ID, ChunkSize: int64(s.cfg.ChunkBytes)}, nil); err != nil {
					return err
				}
			}
			if len(c.JSON) > 0 {
				v, err := wire.Parse(c.JSON, 0)
				if err != nil {
					return err
				}
				return text.addJSON(c.Channel, v)
			}
			return text.add(c.Channel, c.Text)
		}
	}
	// The call's causation_id is the trace context of its span: the
	// agent's own spans, and the trace id it logs, join the caller's.
	bctx, traceparent, endSpan := s.observe.BridgeCall(ctx, st.ID, tool)
	req.CausationID = traceparent
	res, err := s.core.Call(bctx, req, onChunk)
	endSpan(err)
	if started {
		if ferr := text.close(); ferr != nil && err == nil {
			err = ferr
		}
		status := "success"
		switch {
		case localbridge.IsCanceled(err):
			status = "cancelled"
		case err != nil:
			status = "error"
		}
		// If this cannot go, neither can the answer after it, whose
		// failure is the one reported.
		send(&wire.StreamPayload{Action: "end", StreamID: m.ID, Seq: lastSeq + 1, Status: status}, nil)
	}
	if err != nil {
		return wire.Value{}, err
	}
	out, perr := wire.Parse(res.Output, 0)
	if perr != nil {
		return wire.Value{}, wire.Errorf(wire.ErrTaskFailed, "", "agent returned output that is not JSON")
	}
	return out, nil
}
