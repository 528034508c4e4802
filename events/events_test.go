package events

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"
)

func fixed() Config {
	return Config{Now: func() time.Time { return time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC) }, Rand: bytes.NewReader(make([]byte, 16))}
}

func TestOrderAndForm(t *testing.T) {
	s := New(fixed())
	sub, err := s.Subscribe("")
	if err != nil {
		t.Fatal(err)
	}
	s.Emit(AgentUpdated, map[string]string{"id": "a", "name": "A"})
	s.Emit(CallCompleted, []int{1}) // not an object: the payload is {}
	e1, e2 := <-sub.C, <-sub.C
	if e1.ID != "1" || e2.ID != "2" || e1.SessionID != s.ID() || e1.CreatedAt != "2026-11-26T12:00:00.000Z" {
		t.Fatalf("events %+v %+v", e1, e2)
	}
	if string(e1.Payload) != `{"id":"a","name":"A"}` || string(e2.Payload) != `{}` {
		t.Fatalf("payloads %s %s", e1.Payload, e2.Payload)
	}
	if got := string(AppendSSE(nil, e1)); got != "id: 1\nevent: agent.updated\ndata: {\"id\":\"1\",\"session_id\":\"00000000000000000000000000000000\",\"type\":\"agent.updated\",\"payload\":{\"id\":\"a\",\"name\":\"A\"},\"created_at\":\"2026-11-26T12:00:00.000Z\"}\n\n" {
		t.Fatalf("SSE form %q", got)
	}
	sub.Close()
	if _, ok := <-sub.C; ok || sub.Err() != nil {
		t.Fatal("a closed subscription delivers, or has an error")
	}
}

func TestBehindIsDropped(t *testing.T) {
	cfg := fixed()
	cfg.Buffer = 2
	s := New(cfg)
	sub, _ := s.Subscribe("")
	for i := 0; i < 3; i++ {
		s.Emit(AgentUpdated, map[string]int{"n": i}) // the third finds the buffer full
	}
	n := 0
	for range sub.C {
		n++
	}
	if n != 2 || !errors.Is(sub.Err(), ErrBehind) {
		t.Fatalf("got %d events and %v, want 2 and ErrBehind", n, sub.Err())
	}
	// It resumes after the last it saw, and gets the rest.
	again, _ := s.Subscribe("2")
	if e := <-again.C; e.ID != "3" || again.Missed {
		t.Fatalf("resumed with %+v, missed %v", e, again.Missed)
	}
}

func TestResume(t *testing.T) {
	cfg := fixed()
	cfg.Keep = 3
	s := New(cfg)
	for i := 0; i < 5; i++ {
		s.Emit(AgentUpdated, map[string]int{"n": i})
	}
	for _, tc := range []struct {
		after  string
		ids    string
		missed bool
	}{
		{"", "", false},
		{"4", "5", false},
		{"2", "345", false},
		{"1", "345", true},  // 2 is no longer kept
		{"0", "345", true},  // neither is 1
		{"99", "345", true}, // an id of the stream before a restart
	} {
		sub, err := s.Subscribe(tc.after)
		if err != nil {
			t.Fatal(err)
		}
		ids := ""
		for len(sub.C) > 0 {
			ids += (<-sub.C).ID
		}
		if ids != tc.ids || sub.Missed != tc.missed {
			t.Errorf("after %q: %q missed %v, want %q missed %v", tc.after, ids, sub.Missed, tc.ids, tc.missed)
		}
		sub.Close()
	}
	if _, err := s.Subscribe("x"); err == nil {
		t.Fatal("a malformed id was taken")
	}
}

func TestCloseAndNil(t *testing.T) {
	var none *Stream
	none.Emit(AgentUpdated, nil) // hooks need not check
	none.Close()
	s := New(fixed())
	sub, _ := s.Subscribe("")
	s.Close()
	if _, ok := <-sub.C; ok || !errors.Is(sub.Err(), ErrClosed) {
		t.Fatalf("after Close: %v", sub.Err())
	}
	if _, err := s.Subscribe(""); !errors.Is(err, ErrClosed) {
		t.Fatalf("Subscribe after Close: %v", err)
	}
	s.Emit(AgentUpdated, nil)
}

func ExampleStream() {
	s := New(Config{Rand: bytes.NewReader(make([]byte, 16))})
	sub, _ := s.Subscribe("")
	defer sub.Close()
	s.Emit(AgentUpdated, map[string]string{"id": "greeter", "name": "Greeter", "status": "ok"})
	e := <-sub.C
	fmt.Println(e.ID, e.Type, string(e.Payload))
	// Output: 1 agent.updated {"id":"greeter","name":"Greeter","status":"ok"}
}
