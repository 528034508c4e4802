package docs

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/events"
	"github.com/moltgate/moltgate/localbridge"
)

// offered answers nothing: the face below is asked only what it offers.
type offered struct{}

var errOffered = errors.New("not asked")

func (offered) Query(context.Context, localbridge.QueryRequest, func(localbridge.StreamEvent) error) (json.RawMessage, error) {
	return nil, errOffered
}
func (offered) Discover(context.Context, localbridge.DiscoverRequest) (json.RawMessage, error) {
	return nil, errOffered
}
func (offered) SyncDirectory(context.Context, localbridge.SyncRequest) (json.RawMessage, error) {
	return nil, errOffered
}
func (offered) Ping(context.Context, localbridge.PingRequest) (json.RawMessage, error) {
	return nil, errOffered
}
func (offered) IssueConsent(context.Context, localbridge.ConsentRequest) (string, error) {
	return "", errOffered
}
func (offered) AskConsent(context.Context, localbridge.ConsentAsk) (localbridge.ConsentAnswer, error) {
	return localbridge.ConsentAnswer{}, errOffered
}

// TestRPCInitializeExample holds the initialize answer of protocol.md to the
// one a face configured as moltgate serve configures it gives: every method
// and capability, in order.
func TestRPCInitializeExample(t *testing.T) {
	blocks, _ := fenced(t, "json rpc")
	var doc localbridge.InitializeResult
	for _, line := range strings.Split(blocks[0], "\n") {
		var m struct {
			ID     json.RawMessage
			Result json.RawMessage
		}
		if json.Unmarshal([]byte(line), &m) == nil && string(m.ID) == "1" && m.Result != nil {
			if err := json.Unmarshal(m.Result, &doc); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if doc.Status != "ready" {
		t.Fatalf("the first JSON-RPC example has no initialize answer: %+v", doc)
	}

	dir, err := os.MkdirTemp("", "rpcdoc")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	l, err := localbridge.ListenUnix(filepath.Join(dir, "rpc.sock"))
	if err != nil {
		t.Fatal(err)
	}
	var o offered
	face := localbridge.NewRPCServer(localbridge.RPCConfig{Query: o, Directory: o, Sync: o, Ping: o, Consent: o, Asker: o,
		Approvals: &localbridge.Approvals{}, Events: events.New(events.Config{}), SessionDir: filepath.Join(dir, "sessions"),
		ServerVersion: doc.ServerInfo.Version, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	go face.Serve(l)
	defer face.Close()
	c, err := net.Dial("unix", filepath.Join(dir, "rpc.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := c.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocol_version":"1.0.0","client_info":{"name":"doc","version":"0"},"capabilities":["tool_approval"]}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var live struct{ Result localbridge.InitializeResult }
	if err := json.Unmarshal(line, &live); err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	if !reflect.DeepEqual(live.Result, doc) {
		t.Errorf("protocol.md's initialize answer\n%+v\nis not the face's\n%+v", doc, live.Result)
	}
}
