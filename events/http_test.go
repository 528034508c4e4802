package events

import (
	"bufio"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// serveBoth serves s as SSE on /events and over a WebSocket on /events/ws.
func serveBoth(t *testing.T, s *Stream) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/events/ws" {
			s.ServeWebSocket(w, r)
			return
		}
		s.ServeSSE(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The HTTP faces resume after the id a client names (?after=, or SSE's Last-Event-ID), and
// say when events after it are no longer kept: SSE with a first comment ": missed", the
// WebSocket with a first message {"missed":true}. A malformed id is a 400 naming it.
func TestHTTPFacesResume(t *testing.T) {
	s := New(Config{Keep: 2})
	srv := serveBoth(t, s)
	for i := 0; i < 4; i++ {
		s.Emit(AgentUpdated, map[string]int{"n": i})
	}
	sse := func(after, lastID string) []string {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+"/events"+after, nil)
		if lastID != "" {
			req.Header.Set("Last-Event-ID", lastID)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var lines []string
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() && len(lines) < 7 {
			if sc.Text() != "" {
				lines = append(lines, sc.Text())
			}
		}
		return lines
	}
	// After 1, with two kept: 3 and 4, and a gap.
	for _, got := range [][]string{sse("?after=1", ""), sse("", "1")} {
		if len(got) != 7 || got[0] != ": missed" || got[1] != "id: 3" || got[4] != "id: 4" || !strings.HasPrefix(got[6], `data: {"id":"4"`) {
			t.Fatalf("SSE after 1: %q", got)
		}
	}
	// After 2: 3 and 4, no gap.
	if got := sse("?after=2", ""); got[0] != ":" || got[1] != "id: 3" {
		t.Fatalf("SSE after 2: %q", got)
	}

	ws := func(after string) []string {
		t.Helper()
		c, _, err := websocket.DefaultDialer.Dial(strings.Replace(srv.URL, "http", "ws", 1)+"/events/ws?after="+after, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetReadDeadline(time.Now().Add(20 * time.Second))
		var msgs []string
		for len(msgs) < 3 {
			_, b, err := c.ReadMessage()
			if err != nil {
				t.Fatalf("after %d messages: %v", len(msgs), err)
			}
			msgs = append(msgs, string(b))
			if len(msgs) == 2 && !strings.Contains(msgs[0], "missed") {
				break
			}
		}
		return msgs
	}
	if got := ws("1"); len(got) != 3 || got[0] != `{"missed":true}` || !strings.HasPrefix(got[1], `{"id":"3"`) || !strings.HasPrefix(got[2], `{"id":"4"`) {
		t.Fatalf("WebSocket after 1: %q", got)
	}
	if got := ws("2"); len(got) != 2 || !strings.HasPrefix(got[0], `{"id":"3"`) {
		t.Fatalf("WebSocket after 2: %q", got)
	}

	for _, path := range []string{"/events?after=seven", "/events/ws?after=seven"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		var body strings.Builder
		bufio.NewReader(resp.Body).WriteTo(&body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body.String(), `after "seven"`) {
			t.Fatalf("%s: %s %q", path, resp.Status, body.String())
		}
	}
}

// A WebSocket client that reads too slowly is dropped with close code 1008 and the reason,
// after every event up to the drop, in order; Emit never waited for it.
func TestWebSocketBehindIsClosed(t *testing.T) {
	s := New(Config{Buffer: 4})
	srv := serveBoth(t, s)
	c, _, err := websocket.DefaultDialer.Dial(strings.Replace(srv.URL, "http", "ws", 1)+"/events/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Sixteen megabytes that the client does not read: more than loopback's buffers hold, so
	// the face's writes wait and its four places fill.
	note := strings.Repeat("x", 8192)
	const n = 2000
	for range n {
		s.Emit(AgentUpdated, map[string]string{"note": note})
	}
	last := 0
	for {
		c.SetReadDeadline(time.Now().Add(20 * time.Second))
		_, b, err := c.ReadMessage()
		var ce *websocket.CloseError
		if errors.As(err, &ce) {
			if ce.Code != websocket.ClosePolicyViolation || !strings.Contains(ce.Text, "fell behind") {
				t.Fatalf("closed with %d %q, want 1008", ce.Code, ce.Text)
			}
			break
		}
		if err != nil {
			t.Fatalf("after event %d: %v", last, err)
		}
		var e Event
		if err := json.Unmarshal(b, &e); err != nil || e.ID != itoa(last+1) {
			t.Fatalf("after event %d: %.100s %v", last, b, err)
		}
		last++
	}
	if last == n {
		t.Fatal("every event was read: the client did not fall behind")
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
