package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/pii/consent"
	"github.com/moltgate/moltgate/wire"
)

// maxConsentTTL bounds a consent granted over the wire, as consent.issue
// bounds one issued locally.
const maxConsentTTL = 365 * 24 * time.Hour

// consentOp answers a peer's consent request for one of this
// organisation's agents. A person here decides, through the same queue as
// tool approvals (`moltgate approvals`, tool.request_approval on the
// JSON-RPC face):
//
//	peer → here   consent {action: request, data_types, purpose, duration?, human?}
//	here → peer   consent {action: grant, data_types, purpose, duration, human, proof}
//	          or  consent {action: deny, data_types, purpose, reason}
//
// The proof is a consent token this organisation signs, whose grantee is
// the requesting agent: this organisation's messages to that agent may
// carry the granted types under it (moltgate call --consent), and the
// requester can show it to anyone who trusts this organisation's key.
// Other actions are not the peer's to send: grants and denials answer a
// request, and a consent is revoked by the organisation that issued it.
func (s *Server) consentOp(ctx context.Context, in *inbound, st *agentState, p *wire.ConsentPayload) answer {
	m := in.m
	if p.Action != "request" {
		return s.refuse(m, in.sess, wire.Errorf(wire.ErrInvalidParam, "p.action",
			"a peer may only request a consent; grant and deny answer a request, and the issuer revokes"))
	}
	if len(p.DataTypes) == 0 {
		return s.refuse(m, in.sess, wire.Errorf(wire.ErrMissingField, "p.data_types", "name the personal data types the consent is for"))
	}
	for i, t := range p.DataTypes {
		if !slices.Contains(consent.Types(), t) {
			return s.refuse(m, in.sess, wire.Errorf(wire.ErrInvalidParam, fmt.Sprintf("p.data_types[%d]", i),
				"not a personal data type a consent can name (%s)", strings.Join(consent.Types(), ", ")))
		}
	}
	if strings.TrimSpace(p.Purpose) == "" {
		return s.refuse(m, in.sess, wire.Errorf(wire.ErrMissingField, "p.purpose", "say what the data is for"))
	}
	ttl, err := s.consentDuration(p.Duration)
	if err != nil {
		return s.refuse(m, in.sess, err)
	}
	grantee := m.From.Ref().String()
	human := p.Human
	if human == "" {
		human = "operator@" + s.cfg.Org
	}
	args, _ := json.Marshal(map[string]any{"data_types": p.DataTypes, "purpose": p.Purpose, "duration": ttl.String(), "human": p.Human})
	now := s.now()
	expires := now.Add(s.cfg.Listen.RequestTimeout.D())
	if dl, ok := ctx.Deadline(); ok && dl.Before(expires) {
		expires = dl
	}
	req := localbridge.ApprovalRequest{
		ID: newMessageID(s.rand), Agent: st.spec.ID, Tool: "consent",
		Description: fmt.Sprintf("%s asks for consent to receive %s (of %s) for %q, for %s", grantee,
			strings.Join(p.DataTypes, ", "), human, p.Purpose, ttl),
		Arguments: args, Class: m.Cls.String(),
		Risk: localbridge.Risk{Level: localbridge.RiskHigh, Reversible: true,
			Reasons: []string{"personal data may go to another organisation under this consent"}},
		Caller:        localbridge.Caller{Type: "agent", ID: grantee},
		CorrelationID: m.ID, RequestedAt: now, Expires: expires,
	}
	actx, cancel := context.WithDeadline(ctx, expires)
	defer cancel()
	ok, err := s.approvals.Approve(actx, req)
	deny := func(reason string) answer {
		s.log.Info("consent refused", "agent", st.spec.ID, "grantee", grantee, "types", strings.Join(p.DataTypes, ","), "reason", reason)
		r := m.Reply(wire.OpConsent, &wire.ConsentPayload{Action: "deny", DataTypes: p.DataTypes, Purpose: p.Purpose, Reason: reason})
		return s.finish(ctx, in, st, r)
	}
	switch {
	case ctx.Err() != nil && !errors.Is(err, context.DeadlineExceeded):
		return s.refuse(m, in.sess, ctx.Err())
	case errors.Is(err, context.DeadlineExceeded):
		return deny("no decision came in time")
	case err != nil || !ok:
		return deny("not granted")
	}
	tok, err := s.IssueConsent(ctx, localbridge.ConsentRequest{Grantee: grantee, Purpose: p.Purpose,
		DataTypes: p.DataTypes, GrantedBy: human, TTL: ttl})
	if err != nil {
		return s.refuse(m, in.sess, wire.Errorf(wire.ErrInvalidParam, "p.data_types", "cannot grant this consent: %v", err))
	}
	s.log.Info("consent granted", "agent", st.spec.ID, "grantee", grantee, "types", strings.Join(p.DataTypes, ","), "ttl", ttl.String())
	r := m.Reply(wire.OpConsent, &wire.ConsentPayload{Action: "grant", DataTypes: p.DataTypes, Purpose: p.Purpose,
		Duration: ttl.String(), Human: human, Proof: tok})
	return s.finish(ctx, in, st, r)
}

// consentDuration reads a consent request's duration: "" is an hour,
// "session" the gateway's session lifetime, anything else a Go duration
// ("24h") of at most a year.
func (s *Server) consentDuration(d string) (time.Duration, error) {
	switch d {
	case "":
		return time.Hour, nil
	case "session":
		return s.cfg.Security.SessionTTL.D(), nil
	}
	ttl, err := time.ParseDuration(d)
	if err != nil || ttl <= 0 || ttl > maxConsentTTL {
		return 0, wire.Errorf(wire.ErrInvalidParam, "p.duration", `want "session" or a duration such as "24h", of at most a year`)
	}
	return ttl, nil
}
