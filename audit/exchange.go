package audit

import (
	"encoding/json"
	"fmt"

	"github.com/moltgate/moltgate/internal/jsonw"
)

// TypeExchange is one exchange with a peer as a whole: the gateway's
// decisions on its request and its reply, and their receipt signed by both
// gateways. A gateway that records every decision and keeps receipts
// writes one of these per exchange instead of two TypeAllowed events and a
// TypeReceipt: the three say the same parties, ids and outcome, and each
// event costs the ledger more than its data.
const TypeExchange = "dev.moltgate.exchange"

// Exchange is the data of a TypeExchange event.
type Exchange struct {
	// Peer is the other organisation.
	Peer string `json:"peer"`
	// Decisions are the gateway's decisions on the exchange's messages,
	// the request's first: as caller, on its request going out and on the
	// reply coming in; as callee, on the request coming in and on its
	// reply going out.
	Decisions []Decision `json:"decisions"`
	// Receipt is the receipt, doubly signed, as a TypeReceipt event's data
	// holds it.
	Receipt json.RawMessage `json:"receipt"`
}

// appendExchange appends x's JSON form, as json.Marshal writes it but for
// the receipt, which it copies: the event's encoder compacts and escapes
// it as encoding/json would (appendCompact).
func appendExchange(b []byte, x *Exchange) []byte {
	b = append(b, `{"peer":`...)
	b = jsonw.String(b, x.Peer)
	b = append(b, `,"decisions":`...)
	if x.Decisions == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range x.Decisions {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendDecision(b, &x.Decisions[i])
		}
		b = append(b, ']')
	}
	b = append(b, `,"receipt":`...)
	if len(x.Receipt) == 0 {
		return append(b, "null}"...)
	}
	b = append(b, x.Receipt...)
	return append(b, '}')
}

// size is room for x's JSON form, escapes aside.
func (x *Exchange) size() int {
	n := 48 + len(x.Peer) + len(x.Receipt)
	for i := range x.Decisions {
		n += x.Decisions[i].size()
	}
	return n
}

// ReceiptOf is the receipt an event holds, as its data stores it: a
// TypeReceipt event's data, or a TypeExchange event's receipt. It is nil,
// with no error, for an event of any other type.
func ReceiptOf(ev *Event) (json.RawMessage, error) {
	switch ev.Type {
	case TypeReceipt:
		return ev.Data, nil
	case TypeExchange:
		var x struct {
			Receipt json.RawMessage `json:"receipt"`
		}
		if err := json.Unmarshal(ev.Data, &x); err != nil {
			return nil, fmt.Errorf("audit event %s: data: %w", ev.ID, err)
		}
		if len(x.Receipt) == 0 || string(x.Receipt) == "null" {
			return nil, fmt.Errorf("audit event %s: an exchange without its receipt", ev.ID)
		}
		return x.Receipt, nil
	}
	return nil, nil
}
