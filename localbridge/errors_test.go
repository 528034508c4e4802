package localbridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/osp"
)

func TestOutcomeOf(t *testing.T) {
	e := func(code string) error { return &localbridge.Error{Code: code, Message: "m", Field: "f"} }
	cases := []struct {
		err    error
		status string
		code   string
	}{
		{nil, "success", ""},
		{e(osp.CodeToolCanceled), "cancelled", ""},
		{e(osp.CodeInvalidInput), "error", "E_INVALID_PARAM"},
		{e(localbridge.CodeUnknownTool), "error", "E_INVALID_PARAM"},
		{e(osp.CodeToolTimeout), "timeout", "E_TIMEOUT"},
		{e(localbridge.CodeTimeout), "timeout", "E_TIMEOUT"},
		{e(localbridge.CodeApprovalDenied), "error", "E_CAPABILITY"},
		{e(localbridge.CodeUnknownAgent), "error", "E_AGENT_NOT_FOUND"},
		{e(localbridge.CodeOverloaded), "error", "E_RATE_LIMIT"},
		{e(localbridge.CodeInternal), "error", "E_INTERNAL"},
		{e(localbridge.CodeDisconnected), "error", "E_TASK_FAILED"},
		{e("tool.whatever"), "error", "E_TASK_FAILED"},
		{e(osp.CodeInvalidSeq), "error", "E_TASK_FAILED"},
		{fmt.Errorf("wrapped: %w", e(osp.CodeInvalidInput)), "error", "E_INVALID_PARAM"},
		{context.Canceled, "cancelled", ""},
		{context.DeadlineExceeded, "timeout", "E_TIMEOUT"},
		{errors.New("boom"), "error", "E_INTERNAL"},
	}
	for _, c := range cases {
		o := localbridge.OutcomeOf(c.err)
		if o.Status != c.status || o.Code != c.code {
			t.Errorf("%v: got %+v, want %s/%s", c.err, o, c.status, c.code)
		}
	}
	if o := localbridge.OutcomeOf(e(osp.CodeInvalidInput)); o.Field != "f" {
		t.Errorf("field %q", o.Field)
	}
}

func TestTokenRedaction(t *testing.T) {
	b := newBridge(t, localbridge.Config{})
	b.core.AddAgent(localbridge.AgentSpec{ID: "a"})
	tok, _ := b.core.ProvisionToken("a", 0)
	secret := tok.Reveal()
	var sb strings.Builder
	log := slog.New(slog.NewJSONHandler(&sb, nil))
	log.Info("x", "tok", tok)
	log.Info("x", slog.Any("tok", tok))
	j, _ := json.Marshal(struct{ T localbridge.Token }{tok})
	for _, s := range []string{
		fmt.Sprint(tok), fmt.Sprintf("%v %+v %#v %s %q %x %X %d", tok, tok, tok, tok, tok, tok, tok, tok),
		tok.String(), sb.String(), string(j), fmt.Sprint([]any{tok}), fmt.Sprintf("%v", struct{ T localbridge.Token }{tok}),
	} {
		if strings.Contains(s, secret) || strings.Contains(s, secret[6:]) {
			t.Fatalf("token revealed in %q", s)
		}
	}
	other, _ := b.core.ProvisionToken("a", 0)
	if !tok.Equal(tok) || tok.Equal(other) || tok.IsZero() || !(localbridge.Token{}).IsZero() {
		t.Fatal("Equal/IsZero")
	}
	if len(secret) != len("ostok_")+43 {
		t.Fatalf("token length %d", len(secret))
	}
}

func TestRPCErrorCode(t *testing.T) {
	for code, want := range map[string]int{
		"E_INVALID_PARAM": -32602, "E_SCHEMA": -32602, "E_TOO_LARGE": -32602,
		"E_CAPABILITY": -32005, "E_CONSENT": -32005, "E_CLASSIFICATION": -32005, "E_SIGNATURE": -32005, "E_REPLAY": -32005,
		"E_TIMEOUT": -32003, "E_TASK_FAILED": -32002, "E_INTERNAL": -32603,
		"E_AGENT_NOT_FOUND": -32000, "E_RATE_LIMIT": -32000, "E_PEER_UNAVAILABLE": -32000, "": -32000,
	} {
		if got := localbridge.RPCErrorCode(code); got != want {
			t.Errorf("%s: %d, want %d", code, got, want)
		}
	}
}
