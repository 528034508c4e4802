package trail

import (
	"context"
	"errors"
	"log/slog"
	"sort"

	"github.com/moltgate/moltgate/audit"
	"github.com/moltgate/moltgate/classify"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/pii/consent"
	"github.com/moltgate/moltgate/tracing"
	"github.com/moltgate/moltgate/wire"
)

// Config is what a Trail needs.
type Config struct {
	// Ledger is where the decisions are committed. Required; Close
	// closes it.
	Ledger *audit.Ledger
	// Sink is offered a copy of every event. Default none; Close closes
	// it.
	Sink *audit.Sink
	// Events makes the CloudEvents (source, ids, time). Required.
	Events audit.Config
	// All records the messages allowed too ([audit] decisions = "all");
	// default: the blocks and the personal data transmitted.
	All bool
	// Log receives what could not be recorded. Required.
	Log *slog.Logger
	// Stored is told the outcome of every write to the ledger (nil when
	// it was committed), so that a ledger whose storage fails is counted
	// and reported with the gateway's other stores. It is called on the
	// ledger's writer and must not block. Default none.
	Stored func(error)
}

// Trail appends the gateway's boundary decisions to its ledger as
// CloudEvents, and offers a copy to the HTTP sink if one is configured.
// Decisions are committed in the background, batched by the ledger; "PII
// transmitted" on the way out is committed before the message leaves, and
// a message whose transmission cannot be recorded does not leave.
type Trail struct {
	l    *audit.Ledger
	ev   audit.Config
	sink *audit.Sink
	all  bool
	log  *slog.Logger
	// stored is Config.Stored, or a function that does nothing.
	stored func(error)
	// held are the allowed decisions of exchanges waiting for their
	// receipts (exchanges.go); nil unless receipts are kept and every
	// decision recorded.
	held *exchanges
}

// New makes the trail over cfg.Ledger.
func New(cfg Config) *Trail {
	stored := cfg.Stored
	if stored == nil {
		stored = func(error) {}
	}
	return &Trail{l: cfg.Ledger, ev: cfg.Events, sink: cfg.Sink, all: cfg.All, log: cfg.Log, stored: stored}
}

// Ledger is the ledger the trail appends to.
func (a *Trail) Ledger() *audit.Ledger { return a.l }

// Close closes the sink and the ledger, which commits the decisions
// queued first.
func (a *Trail) Close(ctx context.Context) error {
	if a.held != nil {
		a.held.close()
	}
	var err error
	if a.sink != nil {
		err = a.sink.Close(ctx)
	}
	return errors.Join(err, a.l.Close())
}

// Inbound records the pipeline's decision on a message from another
// organisation.
func (a *Trail) Inbound(ctx context.Context, in *pipeline.Inbound, ans pipeline.Answer) {
	m := in.M
	d := audit.Decision{Direction: "inbound", Face: in.Origin.Face, Peer: m.From.Org}
	code := ans.Code
	if in.Gate != nil {
		d.PIITypes = in.Gate.Types
		if in.Gate.Allow {
			code = "" // the boundary let it in; what the agent made of it is not its decision
		}
	}
	a.decide(ctx, m, d, code, reasonOf(in.Gate, code), false)
}

// Reply records the gate's decision on a reply to one of this gateway's
// own calls. A nil trail records nothing.
func (a *Trail) Reply(ctx context.Context, m *wire.Message, g classify.Decision) {
	if a == nil {
		return
	}
	d := audit.Decision{Direction: "inbound", Face: "peer", Peer: m.From.Org, PIITypes: g.Types}
	var code wire.Code
	if !g.Allow && g.Err != nil {
		code = g.Err.Code
	}
	a.decide(ctx, m, d, code, reasonOf(&g, code), false)
}

// Outbound records the gate's decision on a message leaving for a peer.
// When it lets personal data go, the record is committed before it returns,
// and an error means the message must not leave. A nil trail records
// nothing.
func (a *Trail) Outbound(ctx context.Context, m *wire.Message, g classify.Decision) error {
	if a == nil {
		return nil
	}
	d := audit.Decision{Direction: "outbound", Face: "peer", Peer: m.To.Org, PIITypes: g.Types}
	var code wire.Code
	if !g.Allow && g.Err != nil {
		code = g.Err.Code
	}
	return a.decide(ctx, m, d, code, reasonOf(&g, code), true)
}

// decide appends the decision on m and, when m carried personal data under
// a consent and passed, the transmission. wait commits the transmission
// before returning. What is recorded is settled first: a decision that
// records nothing (an allowed message, with decisions = "blocked") costs
// no allocation.
func (a *Trail) decide(ctx context.Context, m *wire.Message, d audit.Decision, code wire.Code, reason string, wait bool) error {
	// Every block is recorded; what is allowed with "all", but a
	// stream's chunks only when they carry personal data (the call's
	// request and answer record the rest).
	record := code != "" || a.all && m.Op != wire.OpStream
	var transmit bool
	if m.PIIMeta != nil {
		d.PIITypes = mergeTypes(d.PIITypes, m.PIIMeta.Types)
		d.ConsentID, d.NoStorage = consentOf(m)
		transmit = code == "" && len(d.PIITypes) > 0 && d.ConsentID != ""
	}
	if !record && !transmit {
		return nil
	}
	d.Op, d.MessageID, d.From, d.To, d.Class = string(m.Op), m.ID, m.From.Ref().String(), m.To.String(), m.Cls.String()
	d.Code, d.Reason = string(code), reason
	trace := tracing.Inject(ctx).TraceParent
	if record {
		typ := audit.TypeAllowed
		if code != "" {
			typ = audit.TypeBlocked
		}
		if code != "" || transmit || a.held == nil || !a.held.put(m, d, trace) {
			a.append(ctx, typ, m.ID, trace, d, false)
		}
	}
	if transmit {
		return a.append(ctx, audit.TypePIITransmitted, m.ID, trace, d, wait)
	}
	return nil
}

// append makes the event and appends it, waiting for its commit if wait
// is set, and otherwise in the background.
func (a *Trail) append(ctx context.Context, typ, subject, trace string, d audit.Decision, wait bool) error {
	ev, err := a.ev.NewEvent(typ, subject, d)
	if err != nil {
		a.log.Error("audit event not made", "type", typ, "err", err.Error())
		return err
	}
	ev.TraceParent = trace
	if wait {
		if a.sink != nil {
			a.sink.Offer(ev)
		}
		_, err := a.l.Append(ctx, ev)
		a.stored(err)
		if err != nil {
			a.log.Error("audit event not recorded", "type", typ, "message_id", subject, "err", err.Error())
			// The call is refused as every storage outage is: retryable,
			// since nothing left and the ledger may come back.
			return wire.StorageUnavailable("audit ledger", err)
		}
		return nil
	}
	return a.appendEvent(ctx, ev)
}

// appendEvent offers ev to the sink and queues it for the ledger, waiting
// only while audit.Queued events are already queued: past that, a message
// waits for room, since the trail is never cut short to keep a call fast.
func (a *Trail) appendEvent(ctx context.Context, ev audit.Event) error {
	if a.sink != nil {
		a.sink.Offer(ev)
	}
	// The callback holds the event's type and subject, not the event,
	// whose data the ledger has copied.
	typ, subject, stored, log := ev.Type, ev.Subject, a.stored, a.log
	err := a.l.Enqueue(ctx, ev, func(_ audit.Entry, err error) {
		stored(err)
		if err != nil {
			log.Error("audit event not recorded", "type", typ, "subject", subject, "err", err.Error())
		}
	})
	if err != nil {
		a.log.Error("audit event not recorded", "type", ev.Type, "subject", ev.Subject, "err", err.Error())
	}
	return err
}

// consentOf is the id of the consent m travels under, and whether it
// forbids storage; "" if it has none that parses.
func consentOf(m *wire.Message) (id string, noStorage bool) {
	if m.PIIMeta == nil || m.PIIMeta.Consent == nil {
		return "", false
	}
	tok, err := consent.Parse(m.PIIMeta.Consent.Proof)
	if err != nil {
		return "", false
	}
	return tok.Claims.ID, tok.Claims.Constraints != nil && tok.Claims.Constraints.NoStorage
}

// reasonOf is why a message was blocked: the gate's reason, or the
// refusal's code for a refusal before the gate.
func reasonOf(g *classify.Decision, code wire.Code) string {
	if code == "" {
		return ""
	}
	if g != nil && !g.Allow {
		return g.Reason.String()
	}
	return string(code)
}

// mergeTypes is the union of two lists of types, sorted.
func mergeTypes(a, b []string) []string {
	if len(b) == 0 {
		return a
	}
	seen := map[string]bool{}
	var out []string
	for _, t := range append(append([]string(nil), a...), b...) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}
