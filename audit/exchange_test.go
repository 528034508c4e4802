package audit

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"testing"
)

// An exchange's event is byte for byte what encoding/json writes of it,
// whatever its receipt holds (RFC 8785 leaves '<', '&' and U+2028
// unescaped, which encoding/json escapes); its peer is the ledger's peer
// column, and ReceiptOf gives back the receipt as stored.
func TestExchangeEvent(t *testing.T) {
	c := testConfig()
	for _, rc := range []string{
		`{"callee":"echo@globex","code":"","ts":1800000000000,"type":"moltgate.receipt.v2"}`,
		"{\"callee\":\"echo@globex\",\"code\":\"<E&>\u2028\",\"type\":\"moltgate.receipt.v2\"}",
	} {
		x := &Exchange{Peer: "globex", Receipt: json.RawMessage(rc), Decisions: []Decision{
			{Direction: "outbound", Face: "peer", Op: "tool", MessageID: "q-1", From: "client@acme", To: "echo@globex", Peer: "globex", Class: "int"},
			{Direction: "inbound", Face: "peer", Op: "respond", MessageID: "r-1", From: "echo@globex", To: "client@acme", Peer: "globex", Class: "int", PIITypes: []string{"email"}},
		}}
		ev, err := c.NewEvent(TypeExchange, "q-1", x)
		if err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		generic, err := c.NewEvent(TypeExchange, "q-1", json.RawMessage(data))
		if err != nil {
			t.Fatal(err)
		}
		generic.ID, generic.Time = ev.ID, ev.Time
		want, _ := json.Marshal(generic)
		if got := appendEvent(nil, &ev); !bytes.Equal(got, want) {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
		if p := peerOf(&ev); p != "globex" {
			t.Fatalf("peer %q", p)
		}
		var back Event
		if err := json.Unmarshal(want, &back); err != nil {
			t.Fatal(err)
		}
		got, err := ReceiptOf(&back)
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		json.Unmarshal(got, &a)
		json.Unmarshal([]byte(rc), &b)
		if ja, _ := json.Marshal(a); !bytes.Equal(ja, mustJSON(t, b)) {
			t.Fatalf("receipt back %s, want %s", got, rc)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ReceiptOf: a receipt's data as it is, an exchange's receipt, nothing of
// a decision, and an error naming the event for an exchange without one.
func TestReceiptOf(t *testing.T) {
	rc := json.RawMessage(`{"type":"moltgate.receipt.v2"}`)
	for _, c := range []struct {
		ev      Event
		want    string
		wantErr bool
	}{
		{Event{ID: "a", Type: TypeReceipt, Data: rc}, string(rc), false},
		{Event{ID: "b", Type: TypeExchange, Data: json.RawMessage(`{"peer":"globex","decisions":[],"receipt":` + string(rc) + `}`)}, string(rc), false},
		{Event{ID: "c", Type: TypeAllowed, Data: json.RawMessage(`{"direction":"inbound"}`)}, "", false},
		{Event{ID: "d", Type: TypeExchange, Data: json.RawMessage(`{"peer":"globex","decisions":[],"receipt":null}`)}, "", true},
		{Event{ID: "e", Type: TypeExchange, Data: json.RawMessage(`[1]`)}, "", true},
	} {
		got, err := ReceiptOf(&c.ev)
		if (err != nil) != c.wantErr || string(got) != c.want {
			t.Errorf("event %s: got %s, %v", c.ev.ID, got, err)
		}
		if err != nil && !bytes.Contains([]byte(err.Error()), []byte(c.ev.ID)) {
			t.Errorf("event %s: the error does not name it: %v", c.ev.ID, err)
		}
	}
}

// An exchange's event is stored and filtered by its peer like a decision.
func TestExchangeStored(t *testing.T) {
	c := testConfig()
	backends(t, func(t *testing.T, l *Ledger, _ *sql.DB, _ func() *Ledger) {
		ev, err := c.NewEvent(TypeExchange, "q-1", &Exchange{Peer: "globex", Receipt: json.RawMessage(`{"type":"moltgate.receipt.v2"}`),
			Decisions: []Decision{{Direction: "outbound", Peer: "globex"}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Append(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
		es, err := l.Entries(context.Background(), Filter{Peer: "globex", Type: TypeExchange})
		if err != nil || len(es) != 1 {
			t.Fatalf("entries: %d, %v", len(es), err)
		}
		if _, err := l.Verify(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}
