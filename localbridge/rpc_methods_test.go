package localbridge_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/jsonrpc"
)

func TestRPCApprovals(t *testing.T) {
	f := newFace(t, nil)
	notices := make(chan localbridge.ApprovalNotice, 10)
	terminal := f.dial(t, localbridge.ClientOptions{Name: "terminal", OnApproval: func(n localbridge.ApprovalNotice) { notices <- n }})
	caller := f.dial(t, localbridge.ClientOptions{})
	next := func() localbridge.ApprovalNotice {
		t.Helper()
		select {
		case n := <-notices:
			return n
		case <-time.After(20 * time.Second):
			t.Fatal("no approval notification")
		}
		panic("unreachable")
	}
	type out struct {
		res json.RawMessage
		err error
	}
	query := func(input string) chan out {
		ch := make(chan out, 1)
		go func() {
			res, err := caller.Query(context.Background(), localbridge.QueryRequest{To: "echo@acme", From: "cli", Tool: "count", Input: json.RawMessage(input), Class: "pii"}, nil)
			ch <- out{res, err}
		}()
		return ch
	}

	done := query(`{"by":3}`)
	n := next()
	req := n.Request
	if req == nil || req.Tool.Name != "count" || req.Agent != "echo" || string(req.Arguments) != `{"by":"[masked]"}` || req.Risk.Level != "critical" ||
		!strings.HasPrefix(req.QueryID, "q-") || req.Caller == nil || req.Caller.ID != "cli@acme" || req.Timeout <= 0 || req.Classification != "pii" {
		t.Fatalf("request %+v", req)
	}
	list, err := terminal.Approvals(context.Background())
	if err != nil || len(list) != 1 || list[0].ExecutionID != req.ExecutionID {
		t.Fatalf("list %+v %v", list, err)
	}
	if err := terminal.Approve(context.Background(), req.ExecutionID, true); err != nil {
		t.Fatal(err)
	}
	if o := <-done; o.err != nil || string(o.res) != `{"count":3}` {
		t.Fatalf("%s %v", o.res, o.err)
	}
	if n := next(); n.Resolved == nil || n.Resolved.Status != "approved" || n.Resolved.ExecutionID != req.ExecutionID {
		t.Fatalf("resolution %+v %+v first %+v", n, n.Request, req)
	}

	done = query(`{"by":1}`)
	req = next().Request
	if err := terminal.Approve(context.Background(), req.ExecutionID, false); err != nil {
		t.Fatal(err)
	}
	var re *localbridge.RPCError
	if o := <-done; !errors.As(o.err, &re) || re.Code != jsonrpc.CodePermissionDenied || re.MoltSpeakCode != "E_CAPABILITY" {
		t.Fatalf("denied: %v", o.err)
	}
	next()
	if err := terminal.Approve(context.Background(), req.ExecutionID, true); !errors.As(err, &re) || re.Field != "execution_id" {
		t.Fatalf("decided twice: %v", err)
	}

	// A terminal that connects later is shown what is already waiting.
	done = query(`{"by":1}`)
	req = next().Request
	late := make(chan localbridge.ApprovalNotice, 10)
	f.dial(t, localbridge.ClientOptions{OnApproval: func(n localbridge.ApprovalNotice) { late <- n }})
	select {
	case n := <-late:
		if n.Request == nil || n.Request.ExecutionID != req.ExecutionID {
			t.Fatalf("late terminal got %+v", n)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("late terminal not told")
	}
	terminal.Approve(context.Background(), req.ExecutionID, true)
	if o := <-done; o.err != nil {
		t.Fatal(o.err)
	}
}

func TestRPCDirectoryPingConsent(t *testing.T) {
	f := newFace(t, nil)
	f.runAgent(t, "prog", partialAgent())
	c := f.dial(t, localbridge.ClientOptions{})
	ctx := context.Background()
	res, err := c.Discover(ctx, localbridge.DiscoverRequest{Capability: "progress"})
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Results []struct {
			AgentID             string   `json:"agent_id"`
			Org                 string   `json:"org"`
			CapabilitiesMatched []string `json:"capabilities_matched"`
			Status              string   `json:"status"`
		} `json:"results"`
		Total   int  `json:"total"`
		HasMore bool `json:"has_more"`
	}
	json.Unmarshal(res, &d)
	if d.Total != 1 || d.Results[0].AgentID != "prog" || d.Results[0].Org != "acme" || d.Results[0].Status != "alive" || d.HasMore {
		t.Fatalf("discover %s", res)
	}
	res, _ = c.Discover(ctx, localbridge.DiscoverRequest{Query: json.RawMessage(`{"capability":"*","limit":1,"filters":{"verified":true}}`)})
	json.Unmarshal(res, &d)
	if d.Total != 2 || len(d.Results) != 1 || !d.HasMore {
		t.Fatalf("discover all %s", res)
	}
	var re *localbridge.RPCError
	if _, err := c.Discover(ctx, localbridge.DiscoverRequest{Capability: "bad cap"}); !errors.As(err, &re) || re.Field != "capability" {
		t.Fatalf("bad capability: %v", err)
	}

	res, err = c.Ping(ctx, "echo@acme")
	var p struct {
		Status string   `json:"status"`
		Active []string `json:"capabilities_active"`
	}
	json.Unmarshal(res, &p)
	if err != nil || p.Status != "alive" || strings.Join(p.Active, ",") != "count,echo,fail,sleep" {
		t.Fatalf("ping %s %v", res, err)
	}
	if _, err := c.Ping(ctx, "echo@beta"); !errors.As(err, &re) || re.MoltSpeakCode != "E_AGENT_NOT_FOUND" {
		t.Fatalf("ping elsewhere: %v", err)
	}

	tok, err := c.IssueConsent(ctx, localbridge.ConsentRequest{Grantee: "bob@beta", Purpose: "support", DataTypes: []string{"email", "phone"}, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	claims, sig, _ := strings.Cut(strings.TrimPrefix(tok, "consent-token:"), ".")
	cb, _ := base64.RawURLEncoding.DecodeString(claims)
	sb, _ := base64.RawURLEncoding.DecodeString(sig)
	if !ed25519.Verify(f.issuer.key.Public().(ed25519.PublicKey), cb, sb) || !bytes.Contains(cb, []byte(`"grantee":"bob@beta"`)) {
		t.Fatalf("token %q does not verify", tok)
	}
	r := f.raw(t, true)
	for i, bad := range []struct{ params, field string }{
		{`{"purpose":"p","data_types":["email"]}`, "grantee"},
		{`{"grantee":"bob","purpose":"p","data_types":["email"]}`, "grantee"},
		{`{"grantee":"bob@beta","data_types":["email"]}`, "purpose"},
		{`{"grantee":"bob@beta","purpose":"p","data_types":[]}`, "data_types"},
		{`{"grantee":"bob@beta","purpose":"p","data_types":["E-MAIL"]}`, "data_types"},
		{`{"grantee":"bob@beta","purpose":"p","data_types":["email"],"ttl":"forever"}`, "ttl"},
		{`{"grantee":"bob@beta","purpose":"p","data_types":["email"],"ttl":"-1h"}`, "ttl"},
		{`{"grantee":"bob@beta","purpose":"p","data_types":["email"],"ttl":"1h","ttl_seconds":5}`, "ttl"},
		// A second to a year, as moltgate consent issue has it too.
		{`{"grantee":"bob@beta","purpose":"p","data_types":["email"],"ttl":"1ns"}`, "ttl"},
		{`{"grantee":"bob@beta","purpose":"p","data_types":["email"],"ttl":"8761h"}`, "ttl"},
		{`{"grantee":"bob@beta","purpose":"p","data_types":["email"],"ttl_seconds":31536001}`, "ttl"},
		// 2^55 + 3600 seconds is an hour once multiplied into nanoseconds and wrapped.
		{`{"grantee":"bob@beta","purpose":"p","data_types":["email"],"ttl_seconds":36028797018967568}`, "ttl"},
	} {
		r.line(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"consent.issue","params":%s}`, i, bad.params))
		m := r.msg()
		if m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidParams || errData(t, m.Error)["field"] != bad.field {
			t.Errorf("%s: %+v", bad.params, m.Error)
		}
	}
	if strings.Contains(f.logs.String(), tok) {
		t.Fatal("the consent token reached the log")
	}
}

// askerFunc is a ConsentAsker from a function.
type askerFunc func(context.Context, localbridge.ConsentAsk) (localbridge.ConsentAnswer, error)

func (f askerFunc) AskConsent(ctx context.Context, req localbridge.ConsentAsk) (localbridge.ConsentAnswer, error) {
	return f(ctx, req)
}

// TestRPCConsentRequest: consent.request carries a local caller's request
// to the asker and its answer back, is offered only with an asker, and
// refuses malformed parameters by field before asking anyone.
func TestRPCConsentRequest(t *testing.T) {
	var (
		mu    sync.Mutex
		asked []localbridge.ConsentAsk
	)
	seen := func() []localbridge.ConsentAsk {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(asked)
	}
	f := newFace(t, func(c *localbridge.RPCConfig) {
		c.Asker = askerFunc(func(ctx context.Context, req localbridge.ConsentAsk) (localbridge.ConsentAnswer, error) {
			mu.Lock()
			asked = append(asked, req)
			mu.Unlock()
			if req.Purpose == "marketing" {
				return localbridge.ConsentAnswer{Reason: "not granted"}, nil
			}
			return localbridge.ConsentAnswer{Granted: true, Proof: "consent-token:x.y", DataTypes: req.DataTypes, Purpose: req.Purpose}, nil
		})
	})
	c := f.dial(t, localbridge.ClientOptions{})
	if !strings.Contains(strings.Join(c.Server().Methods, ","), "consent.request") {
		t.Fatalf("methods %v", c.Server().Methods)
	}
	ctx := context.Background()
	ans, err := c.AskConsent(ctx, localbridge.ConsentAsk{To: "echo@beta", From: "client", DataTypes: []string{"email"}, Purpose: "support", Human: "user:4711", Duration: "24h"})
	if err != nil || !ans.Granted || ans.Proof != "consent-token:x.y" {
		t.Fatalf("granted: %+v %v", ans, err)
	}
	if a := seen(); len(a) != 1 || a[0].Human != "user:4711" || a[0].Duration != "24h" || a[0].From != "client" {
		t.Fatalf("asked %+v", a)
	}
	if ans, err := c.AskConsent(ctx, localbridge.ConsentAsk{To: "echo@beta", DataTypes: []string{"email"}, Purpose: "marketing"}); err != nil || ans.Granted || ans.Reason != "not granted" {
		t.Fatalf("refused: %+v %v", ans, err)
	}
	r := f.raw(t, true)
	for i, bad := range []struct{ params, field string }{
		{`{"purpose":"p","data_types":["email"]}`, "to"},
		{`{"to":"echo","purpose":"p","data_types":["email"]}`, "to"},
		{`{"to":"echo@beta","from":"a@b","purpose":"p","data_types":["email"]}`, "from"},
		{`{"to":"echo@beta","data_types":["email"]}`, "purpose"},
		{`{"to":"echo@beta","purpose":"p","data_types":[]}`, "data_types"},
		{`{"to":"echo@beta","purpose":"p","data_types":["E-MAIL"]}`, "data_types"},
	} {
		r.line(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"consent.request","params":%s}`, i+1, bad.params))
		m := r.msg()
		if m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidParams || errData(t, m.Error)["field"] != bad.field {
			t.Errorf("%s: %+v", bad.params, m.Error)
		}
	}
	if a := seen(); len(a) != 2 {
		t.Fatalf("malformed requests reached the asker: %+v", a[2:])
	}

	plain := newFace(t, nil).dial(t, localbridge.ClientOptions{})
	if _, err := plain.AskConsent(ctx, localbridge.ConsentAsk{To: "echo@beta", DataTypes: []string{"email"}, Purpose: "p"}); err == nil {
		t.Fatal("consent.request answered without an asker")
	}
}
