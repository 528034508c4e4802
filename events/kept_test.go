package events

import (
	"bytes"
	"testing"
	"time"
)

// TestKeptWhileNobodyWatches: events emitted with no subscriber are kept
// as given and encoded when a subscriber resumes before them, with the
// ids, times and payloads they would have had if encoded at once; a
// subscriber that comes back after a gap is replayed what it missed.
func TestKeptWhileNobodyWatches(t *testing.T) {
	clock := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	s := New(Config{Now: func() time.Time { clock = clock.Add(time.Second); return clock }, Rand: bytes.NewReader(make([]byte, 16))})
	s.Emit(AgentUpdated, map[string]string{"id": "a", "name": "A"})
	s.Emit(CallCompleted, []int{1}) // not an object: the payload is {}
	sub, err := s.Subscribe("")
	if err != nil {
		t.Fatal(err)
	}
	s.Emit(AgentRemoved, map[string]string{"id": "a"})
	live := <-sub.C
	sub.Close()
	s.Emit(AgentUpdated, map[string]string{"id": "b"})

	again, err := s.Subscribe("0")
	if err != nil {
		t.Fatal(err)
	}
	var got []Event
	for len(again.C) > 0 {
		got = append(got, <-again.C)
	}
	want := []struct{ id, typ, payload, at string }{
		{"1", AgentUpdated, `{"id":"a","name":"A"}`, "2026-11-26T12:00:01.000Z"},
		{"2", CallCompleted, `{}`, "2026-11-26T12:00:02.000Z"},
		{"3", AgentRemoved, `{"id":"a"}`, "2026-11-26T12:00:03.000Z"},
		{"4", AgentUpdated, `{"id":"b"}`, "2026-11-26T12:00:04.000Z"},
	}
	if len(got) != len(want) || again.Missed {
		t.Fatalf("replayed %d events (missed %v), want %d", len(got), again.Missed, len(want))
	}
	for i, w := range want {
		e := got[i]
		if e.ID != w.id || e.Type != w.typ || string(e.Payload) != w.payload || e.CreatedAt != w.at || e.SessionID != s.ID() {
			t.Errorf("event %d: %+v, want %+v", i, e, w)
		}
	}
	if live.ID != got[2].ID || string(live.Payload) != string(got[2].Payload) || live.CreatedAt != got[2].CreatedAt {
		t.Errorf("the event given live %+v differs from its replay %+v", live, got[2])
	}
	again.Close()
	resumed, _ := s.Subscribe("3")
	if e := <-resumed.C; e.ID != "4" || string(e.Payload) != `{"id":"b"}` || len(resumed.C) != 0 {
		t.Errorf("resumed after 3 with %+v and %d more", e, len(resumed.C))
	}
}
