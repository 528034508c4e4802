package demoagent

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
)

func TestForecast(t *testing.T) {
	a, b := Forecast("Lisbon", 5), Forecast("lisbon", 5)
	if !reflect.DeepEqual(a, b) || len(a) != 5 {
		t.Fatalf("forecasts differ or have the wrong length: %v %v", a, b)
	}
	for i, d := range a {
		if d.N != i+1 || d.Low > d.High || d.Conditions == "" {
			t.Fatalf("day %d: %+v", i, d)
		}
	}
}

// TestConcierge serves the concierge to a local bridge Core over a real
// socket, as a gateway does, and calls its tools.
func TestConcierge(t *testing.T) {
	dir, err := os.MkdirTemp("", "da")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "core.sock")
	l, err := localbridge.ListenUnix(sock)
	if err != nil {
		t.Fatal(err)
	}
	core := localbridge.NewCore(localbridge.Config{Logger: slog.New(slog.DiscardHandler)})
	go core.Serve(l)
	defer core.Close()
	if err := core.AddAgent(localbridge.AgentSpec{ID: ConciergeID}); err != nil {
		t.Fatal(err)
	}
	tok, err := core.ProvisionToken(ConciergeID, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, err := New(ConciergeID)
	if err != nil {
		t.Fatal(err)
	}
	a.ID = ConciergeID
	go a.Serve(ctx, conn, tok.Reveal())
	deadline := time.Now().Add(10 * time.Second)
	for info, _ := core.Agent(ConciergeID); len(info.Tools) != 3; info, _ = core.Agent(ConciergeID) {
		if time.Now().After(deadline) {
			t.Fatalf("agent did not register: %+v", info)
		}
		time.Sleep(5 * time.Millisecond)
	}

	call := func(tool, input string, chunks *[]string) map[string]any {
		t.Helper()
		res, err := core.Call(ctx, localbridge.CallRequest{Agent: ConciergeID, Tool: tool, Input: json.RawMessage(input),
			Caller: localbridge.Caller{Type: "agent", ID: "assistant@acme"}}, func(c localbridge.Chunk) error {
			*chunks = append(*chunks, c.Text)
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		var out map[string]any
		if err := json.Unmarshal(res.Output, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	var chunks []string
	out := call("forecast", `{"city":"Lisbon","days":3}`, &chunks)
	want := Forecast("Lisbon", 3)
	if len(chunks) != 3 || chunks[0] != want[0].String()+"\n" || chunks[2] != want[2].String()+"\n" {
		t.Fatalf("streamed %q, want the three days of %v", chunks, want)
	}
	if out["asked_by"] != "assistant@acme" || out["days"] != 3.0 {
		t.Fatalf("forecast result %v", out)
	}
	chunks = nil
	out = call("invite", `{"attendee":"jane.doe@example.com","event":"Friday review"}`, &chunks)
	if b, _ := json.Marshal(out); strings.Contains(string(b), "jane") || out["status"] != "invitation sent" {
		t.Fatalf("invite result %s", b)
	}
	out = call("note", `{"text":"four"}`, &chunks)
	if out["bytes"] != 4.0 {
		t.Fatalf("note result %v", out)
	}
	if _, err := core.Call(ctx, localbridge.CallRequest{Agent: ConciergeID, Tool: "forecast", Input: json.RawMessage(`{"city":"Lisbon","days":9}`)}, nil); err == nil {
		t.Fatal("a forecast of 9 days passed the schema")
	}
}

func TestNewUnknown(t *testing.T) {
	if _, err := New("nobody"); err == nil {
		t.Fatal("New made an agent of an unknown name")
	}
}
