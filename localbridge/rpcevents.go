package localbridge

import (
	"encoding/json"

	"github.com/moltgate/moltgate/events"
	"github.com/moltgate/moltgate/localbridge/jsonrpc"
)

// Methods and notification of the event stream on the JSON-RPC face.
const (
	MethodEventsSubscribe   = "events.subscribe"
	MethodEventsUnsubscribe = "events.unsubscribe"
	NotifyEvent             = "event"
)

// EventsSubscribed is the result of events.subscribe.
type EventsSubscribed struct {
	Subscribed bool   `json:"subscribed"`
	StreamID   string `json:"stream_id"` // every event's session_id
	Missed     bool   `json:"missed,omitempty"`
}

// eventsSubscribe subscribes the connection to the gateway's event stream: each event, after
// the answer, is an "event" notification whose params are the event. A subscription already
// held is replaced. A connection that reads too slowly loses its subscription, and is told
// with one events.unsubscribed-style notification: an "event" whose type is
// "stream.dropped", outside the stream's numbering.
func (c *rpcConn) eventsSubscribe(r *jsonrpc.Request) (any, *jsonrpc.Error, func()) {
	var p struct {
		After string `json:"after"`
	}
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err, nil
	}
	sub, err := c.s.cfg.Events.Subscribe(p.After)
	if err != nil {
		return nil, invalidParams("after", err.Error()), nil
	}
	c.mu.Lock()
	old := c.events
	c.events = sub
	c.mu.Unlock()
	if old != nil {
		old.Close()
	}
	res := EventsSubscribed{Subscribed: true, StreamID: c.s.cfg.Events.ID(), Missed: sub.Missed}
	// The events go out after the answer, so that a client knows what they belong to.
	return res, nil, func() { go c.sendEvents(sub) }
}

func (c *rpcConn) eventsUnsubscribe(r *jsonrpc.Request) (any, *jsonrpc.Error) {
	c.mu.Lock()
	old := c.events
	c.events = nil
	c.mu.Unlock()
	if old != nil {
		old.Close()
	}
	return map[string]bool{"unsubscribed": old != nil}, nil
}

// sendEvents writes sub's events as notifications until it ends or the connection does.
func (c *rpcConn) sendEvents(sub *events.Subscription) {
	defer sub.Close()
	for {
		select {
		case e, ok := <-sub.C:
			if !ok {
				if sub.Err() == events.ErrBehind {
					c.s.log.Warn("event subscription dropped: the client reads too slowly")
					c.notify(NotifyEvent, map[string]any{"type": "stream.dropped", "payload": map[string]string{"reason": "behind"}})
				}
				return
			}
			if c.write(eventNotification(e)) != nil {
				return
			}
		case <-c.ctx.Done():
			return
		}
	}
}

// eventNotification is e as an "event" notification: its params are the event as the other
// faces send it, byte for byte.
func eventNotification(e events.Event) []byte {
	j, _ := json.Marshal(e)
	b := make([]byte, 0, len(j)+48)
	b = append(b, `{"jsonrpc":"2.0","method":"event","params":`...)
	b = append(b, j...)
	return append(b, "}\n"...)
}
