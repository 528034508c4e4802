package localbridge_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/osp"
)

func TestHeartbeatLoss(t *testing.T) {
	b := newBridge(t, localbridge.Config{HeartbeatInterval: 20 * time.Millisecond, MissedHeartbeats: 25})
	r, w := b.connectRaw(t, "r")
	if w.HeartbeatIntervalMS != 20 {
		t.Fatalf("interval %d", w.HeartbeatIntervalMS)
	}
	r.send(osp.TypeHeartbeat, osp.Heartbeat{SessionID: w.SessionID, UptimeMS: 1234, InflightCalls: 0, Status: "ok", Details: json.RawMessage(`{"queue_depth":3}`)})
	waitFor(t, "heartbeat recorded", func() bool { a, _ := b.core.Agent("r"); return a.Uptime == 1234*time.Millisecond })
	a, _ := b.core.Agent("r")
	if !a.Healthy || a.Status != localbridge.StatusOK || string(a.Details) != `{"queue_depth":3}` || a.LastHeartbeat.IsZero() {
		t.Fatalf("info %+v", a)
	}

	// Silence: unhealthy, and no calls.
	waitFor(t, "marked unhealthy", func() bool { a, _ := b.core.Agent("r"); return !a.Healthy && a.Connected })
	if a, _ := b.core.Agent("r"); a.Status != localbridge.StatusUnhealthy {
		t.Fatalf("status %q", a.Status)
	}
	_, err := b.core.Call(context.Background(), localbridge.CallRequest{Agent: "r", Tool: "t"}, nil)
	if codeOf(err) != localbridge.CodeAgentUnavailable || !localbridge.OutcomeOf(err).Recoverable {
		t.Fatalf("call to an unhealthy agent: %v", err)
	}
	if len(b.audit.find(localbridge.AuditHeartbeatLost)) == 0 {
		t.Fatal("no audit event")
	}

	// A heartbeat brings it back.
	r.heartbeat(w, "ok")
	waitFor(t, "healthy again", func() bool { a, _ := b.core.Agent("r"); return a.Healthy })

	// Continued silence ends the connection.
	got := r.expectClosed()
	if len(got) == 0 || got[len(got)-1].Type != osp.TypeGoodbye {
		t.Fatalf("no goodbye: %+v", got)
	}
	var bye osp.Goodbye
	got[len(got)-1].DecodePayload(&bye)
	if bye.Reason != "heartbeat_timeout" {
		t.Fatalf("goodbye %q", bye.Reason)
	}
	waitFor(t, "offline", func() bool { a, _ := b.core.Agent("r"); return !a.Connected && a.Status == localbridge.StatusOffline })
}

func TestHeartbeatStatus(t *testing.T) {
	b := newBridge(t, localbridge.Config{})
	r, w := b.connectRaw(t, "r")
	r.heartbeat(w, "degraded")
	waitFor(t, "degraded", func() bool { a, _ := b.core.Agent("r"); return a.Status == localbridge.StatusDegraded && a.Healthy })
	r.heartbeat(w, "unhealthy")
	waitFor(t, "unhealthy", func() bool { a, _ := b.core.Agent("r"); return a.Status == localbridge.StatusUnhealthy && !a.Healthy })
	if _, err := b.core.Call(context.Background(), localbridge.CallRequest{Agent: "r", Tool: "t"}, nil); codeOf(err) != localbridge.CodeAgentUnavailable {
		t.Fatalf("got %v", err)
	}
	r.heartbeat(w, "ok")
	waitFor(t, "ok", func() bool { a, _ := b.core.Agent("r"); return a.Status == localbridge.StatusOK })
	for _, bad := range []osp.Heartbeat{{SessionID: "other", Status: "ok"}, {SessionID: w.SessionID, Status: "fine"}} {
		r.send(osp.TypeHeartbeat, bad)
		if e := r.expect(osp.TypeError); e.Error.Code != osp.CodeInvalidMessage {
			t.Fatalf("got %v", e.Error)
		}
	}
}

func TestAgentChangeNotifications(t *testing.T) {
	changes := make(chan localbridge.AgentInfo, 100)
	b := newBridge(t, localbridge.Config{OnAgentChange: func(a localbridge.AgentInfo) { changes <- a }})
	r, w := b.connectRaw(t, "r")
	await := func(what string, cond func(localbridge.AgentInfo) bool) {
		t.Helper()
		timeout := time.After(20 * time.Second)
		for {
			select {
			case a := <-changes:
				if a.ID == "r" && cond(a) {
					return
				}
			case <-timeout:
				t.Fatalf("no notification: %s", what)
			}
		}
	}
	await("tools registered", func(a localbridge.AgentInfo) bool { return len(a.Tools) == 1 && a.Connected })
	r.heartbeat(w, "degraded")
	await("degraded", func(a localbridge.AgentInfo) bool { return a.Status == localbridge.StatusDegraded })
	r.conn.Close()
	await("offline", func(a localbridge.AgentInfo) bool { return !a.Connected })
	b.core.RemoveAgent("r")
	await("removed", func(a localbridge.AgentInfo) bool { return a.Status == localbridge.StatusRemoved })
}
