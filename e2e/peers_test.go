package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestPeerListAndRemoveWhileServing: peer list shows what the serving
// gateway knows of a peer, and peer remove makes it stop trusting the peer
// within seconds: its sessions end, calls to it are refused and its
// directory entries go.
func TestPeerListAndRemoveWhileServing(t *testing.T) {
	needProcesses(t)
	acme, globex := pair(t, "websocket", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, _, err := call(ctx, acme.client(), "client", "echo@globex", "echo", `{"text":"hello"}`); err != nil {
		t.Fatal(err)
	}
	mg(t, "sync", "--dir", acme.dir, "--peer", "globex")
	if ks := directoryKeys(t, acme, "globex", "echo"); len(ks) != 1 {
		t.Fatalf("acme's directory: %v", ks)
	}
	var l struct {
		Serving bool `json:"serving"`
		Peers   []struct {
			Org              string     `json:"org"`
			Fingerprint      string     `json:"fingerprint"`
			MaxCls           string     `json:"max_cls"`
			LastContact      *time.Time `json:"last_contact"`
			Sessions         *int       `json:"sessions"`
			RevocationSerial *int64     `json:"revocation_serial"`
		} `json:"peers"`
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		raw := mg(t, "peer", "list", "--dir", acme.dir, "--json")
		if err := json.Unmarshal([]byte(raw), &l); err != nil {
			t.Fatal(err)
		}
		if l.Serving && len(l.Peers) == 1 && l.Peers[0].LastContact != nil && l.Peers[0].Sessions != nil && *l.Peers[0].Sessions > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("peer list never showed the contact and the session: %s", raw)
		}
	}
	p := l.Peers[0]
	if p.Org != "globex" || p.Fingerprint != globex.doc.OrgKey.Fingerprint() || p.MaxCls != "pii" || p.RevocationSerial == nil || *p.RevocationSerial != 0 {
		t.Fatalf("peer list: %+v", p)
	}
	if out := mg(t, "peer", "list", "--dir", acme.dir); !strings.Contains(out, "serial 0") || !strings.Contains(out, p.Fingerprint) {
		t.Fatalf("peer list: %s", out)
	}

	mg(t, "peer", "remove", "--dir", acme.dir, "--org", "globex")
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(acme.log.String(), `"msg":"peer removed"`); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("acme never removed the peer")
		}
	}
	_, _, err := call(ctx, acme.client(), "client", "echo@globex", "echo", `{"text":"hello again"}`)
	if err == nil || codeOf(err) != "E_AGENT_NOT_FOUND" {
		t.Fatalf("a call to a removed peer: %v (%s)", err, codeOf(err))
	}
	if ks := directoryKeys(t, acme, "globex", "echo"); len(ks) != 0 {
		t.Fatalf("acme's directory still holds globex's entries: %v", ks)
	}
	if !strings.Contains(acme.log.String(), `"sessions_ended":`) {
		t.Fatal("acme's log does not say how many sessions ended")
	}
}
