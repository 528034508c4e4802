package audit

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// SpecVersion is the CloudEvents version of every event.
const SpecVersion = "1.0"

// Event types. Each names what happened at the boundary; the data says
// to whom and why.
const (
	// TypeAllowed is a message that passed every check and was routed.
	TypeAllowed = "dev.moltgate.boundary.allowed"
	// TypeBlocked is a message refused at the boundary.
	TypeBlocked = "dev.moltgate.boundary.blocked"
	// TypePIITransmitted is personal data that crossed the boundary under
	// a consent. It is always recorded, whatever else is configured.
	TypePIITransmitted = "dev.moltgate.pii.transmitted"
	// TypeReceipt is a receipt of a cross-organisation exchange, signed by
	// both gateways.
	TypeReceipt = "dev.moltgate.receipt"
)

// Event is a CloudEvents 1.0 event in its JSON format. Data is the event's
// payload, JSON; for the boundary types it is a Decision, for TypeExchange
// an Exchange.
type Event struct {
	SpecVersion     string    `json:"specversion"`
	ID              string    `json:"id"`
	Source          string    `json:"source"`
	Type            string    `json:"type"`
	Time            time.Time `json:"time"`
	Subject         string    `json:"subject,omitempty"`
	DataContentType string    `json:"datacontenttype,omitempty"`
	// TraceParent is the W3C trace context of the call the event belongs
	// to (CloudEvents' distributed tracing extension).
	TraceParent string          `json:"traceparent,omitempty"`
	Data        json.RawMessage `json:"data,omitempty"`

	// encoded: NewEvent wrote Data, so it is valid JSON and peer is the
	// organisation it names.
	encoded bool
	peer    string
	// marshalled: Data is a Decision as encoding/json writes it, compact
	// and escaped, which the ledger copies without looking for what
	// json.Marshal would rewrite.
	marshalled bool
}

// Decision is the data of a boundary event. It names parties, rules and
// types, never content: nothing in it comes from a message's payload.
type Decision struct {
	// Direction is "inbound" or "outbound".
	Direction string `json:"direction"`
	// Face is the face the message came in on (http, batch, websocket,
	// grpc, local).
	Face string `json:"face,omitempty"`
	// Op is the message's operation.
	Op string `json:"op,omitempty"`
	// MessageID is the message's id.
	MessageID string `json:"message_id,omitempty"`
	// From and To are agent@org references.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// Peer is the other organisation.
	Peer string `json:"peer,omitempty"`
	// Class is the message's classification tag.
	Class string `json:"class,omitempty"`
	// Code and Reason say why a message was blocked: the MoltSpeak error
	// code and the gate's reason (such as pii_without_consent).
	Code   string `json:"code,omitempty"`
	Reason string `json:"reason,omitempty"`
	// ConsentID is the id of the consent the message travelled under.
	ConsentID string `json:"consent_id,omitempty"`
	// PIITypes are the types of personal data found or declared.
	PIITypes []string `json:"pii_types,omitempty"`
	// NoStorage records that the consent forbids the receiver to store
	// the data.
	NoStorage bool `json:"no_storage,omitempty"`
}

// size is room for d's JSON form, escapes aside: its buffer is allocated
// once, not grown from nothing through six sizes.
func (d *Decision) size() int {
	n := 192 + len(d.Direction) + len(d.Face) + len(d.Op) + len(d.MessageID) + len(d.From) + len(d.To) +
		len(d.Peer) + len(d.Class) + len(d.Code) + len(d.Reason) + len(d.ConsentID)
	for _, t := range d.PIITypes {
		n += len(t) + 3
	}
	return n
}

// Raw is event data its maker has encoded already: compact, valid JSON by
// construction (a receipt's RFC 8785 form), with no "peer" member. NewEvent
// takes it as it is, neither checking nor encoding it again: a receipt is
// a kilobyte or two, and reading it back three times cost more than
// making it.
type Raw []byte

// Config is what NewEvent needs to name and number events.
type Config struct {
	// Source is the CloudEvents source of this gateway's events, such as
	// "moltgate://acme". Required.
	Source string
	// Rand makes event ids. Default crypto/rand.Reader.
	Rand io.Reader
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

// NewEvent makes an event of type typ about subject (a message id, or
// empty) with data marshalled as JSON.
func (c Config) NewEvent(typ, subject string, data any) (Event, error) {
	if c.Source == "" {
		return Event{}, errors.New("audit event: source is empty: set Config.Source to this gateway's URI")
	}
	r := c.Rand
	if r == nil {
		r = rand.Reader
	}
	now := c.Now
	if now == nil {
		now = time.Now
	}
	var id [16]byte
	if _, err := io.ReadFull(r, id[:]); err != nil {
		return Event{}, fmt.Errorf("audit event id: %w", err)
	}
	ev := Event{SpecVersion: SpecVersion, ID: hex.EncodeToString(id[:]), Source: c.Source, Type: typ,
		Time: now().UTC().Truncate(time.Millisecond), Subject: subject, DataContentType: "application/json"}
	switch d := data.(type) {
	case Decision:
		ev.Data, ev.encoded, ev.marshalled, ev.peer = appendDecision(make([]byte, 0, d.size()), &d), true, true, d.Peer
	case *Decision:
		ev.Data, ev.encoded, ev.marshalled, ev.peer = appendDecision(make([]byte, 0, d.size()), d), true, true, d.Peer
	case Raw:
		ev.Data, ev.encoded = json.RawMessage(d), true
	case *Exchange:
		// The receipt is RFC 8785's form, which escapes less than
		// encoding/json: the ledger looks for what it would rewrite.
		ev.Data, ev.encoded, ev.peer = appendExchange(make([]byte, 0, d.size()), d), true, d.Peer
	default:
		raw, err := json.Marshal(data)
		if err != nil {
			return Event{}, fmt.Errorf("audit event data: %w", err)
		}
		ev.Data = raw
	}
	return ev, nil
}

// validate checks the attributes CloudEvents requires.
func (e *Event) validate() error {
	switch {
	case e.SpecVersion != SpecVersion:
		return fmt.Errorf("audit event: specversion is %q; want %q", e.SpecVersion, SpecVersion)
	case e.ID == "":
		return errors.New("audit event: id is empty")
	case e.Source == "":
		return errors.New("audit event: source is empty")
	case e.Type == "":
		return errors.New("audit event: type is empty")
	}
	return nil
}
