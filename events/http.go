package events

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/gorilla/websocket"
)

// keepAlive is how often an idle face tells the client it is still there, so that proxies
// do not close a quiet stream.
const keepAlive = 15 * time.Second

// after is where a client resumes: the SSE Last-Event-ID header, or the after query parameter.
func after(r *http.Request) string {
	if id := r.Header.Get("Last-Event-ID"); id != "" {
		return id
	}
	return r.URL.Query().Get("after")
}

// ServeSSE serves the stream as Server-Sent Events: one event per event, its id the event's,
// its event name the type, and its data the whole event as one line of JSON. A client resumes
// with Last-Event-ID (browsers send it on reconnecting) or ?after=ID. The stream opens with a
// comment line, ": missed" when events were no longer kept; one every 15 s keeps it open.
// The response ends when the client goes, the subscriber falls behind, or the stream closes.
func (s *Stream) ServeSSE(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	// A stream outlives the server's timeouts for requests: it reads nothing more, and each
	// write has a deadline of its own, so that a client that stops reading ends its stream.
	rc.SetReadDeadline(time.Time{})
	send := func(b []byte) error {
		rc.SetWriteDeadline(time.Now().Add(10 * time.Second))
		if _, err := w.Write(b); err != nil {
			return err
		}
		return rc.Flush()
	}
	sub, err := s.Subscribe(after(r))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	defer sub.Close()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	hello := []byte(":\n\n")
	if sub.Missed {
		hello = []byte(": missed\n\n")
	}
	if send(hello) != nil {
		return
	}
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	buf := make([]byte, 0, 512)
	for {
		select {
		case e, ok := <-sub.C:
			if !ok {
				return
			}
			buf = AppendSSE(buf[:0], e)
			// Events waiting already go out in the same write.
			for more := true; more; {
				select {
				case e, ok := <-sub.C:
					if !ok {
						send(buf)
						return
					}
					buf = AppendSSE(buf, e)
				default:
					more = false
				}
			}
			if send(buf) != nil {
				return
			}
		case <-tick.C:
			if send([]byte(":\n\n")) != nil {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}

// AppendSSE appends e as one Server-Sent Event. The JSON has no newline in it, so it is one
// data line.
func AppendSSE(b []byte, e Event) []byte {
	b = append(b, "id: "...)
	b = append(b, e.ID...)
	b = append(b, "\nevent: "...)
	b = append(b, e.Type...)
	b = append(b, "\ndata: "...)
	j, _ := json.Marshal(e)
	b = append(b, j...)
	return append(b, "\n\n"...)
}

var upgrader = websocket.Upgrader{ReadBufferSize: 512, WriteBufferSize: 4096}

// ServeWebSocket serves the stream over a WebSocket: each event is one text message, the whole
// event as JSON. ?after=ID resumes. A first message {"missed":true} says events were no longer
// kept. The client sends nothing; the gateway pings every 15 s. The connection closes when the
// client goes, falls behind (close code 1008 with the reason), or the stream closes (1001).
// A browser page of another origin is refused, as gorilla/websocket's default check does.
func (s *Stream) ServeWebSocket(w http.ResponseWriter, r *http.Request) {
	sub, err := s.Subscribe(after(r))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	defer sub.Close()
	c, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader has answered
	}
	defer c.Close()
	gone := make(chan struct{})
	go func() {
		// Reading takes the client's close and pong frames.
		defer close(gone)
		for {
			if _, _, err := c.NextReader(); err != nil {
				return
			}
		}
	}()
	write := func(typ int, b []byte) error {
		c.SetWriteDeadline(time.Now().Add(10 * time.Second))
		return c.WriteMessage(typ, b)
	}
	if sub.Missed {
		if write(websocket.TextMessage, []byte(`{"missed":true}`)) != nil {
			return
		}
	}
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		select {
		case e, ok := <-sub.C:
			if !ok {
				code, why := websocket.CloseGoingAway, "the stream closed"
				if sub.Err() == ErrBehind {
					code, why = websocket.ClosePolicyViolation, "fell behind; subscribe again after the last id seen"
				}
				write(websocket.CloseMessage, websocket.FormatCloseMessage(code, why))
				return
			}
			j, _ := json.Marshal(e)
			if write(websocket.TextMessage, j) != nil {
				return
			}
		case <-tick.C:
			if write(websocket.PingMessage, nil) != nil {
				return
			}
		case <-gone:
			return
		case <-r.Context().Done():
			return
		}
	}
}
