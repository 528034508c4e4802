package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/pii/consent"
	"github.com/moltgate/moltgate/wire"
)

// maxConsentTTL bounds a consent granted over the wire, as consent.issue
// bounds one issued locally.
const maxConsentTTL = localbridge.MaxConsentTTL

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
func (s *Room) consentOp(ctx context.Context, in *pipeline.Inbound, st Agent, p *wire.ConsentPayload) pipeline.Answer {
	m := in.M
	if p.Action != "request" {
		return s.pipe.Refuse(m, in.Sess, wire.Errorf(wire.ErrInvalidParam, "p.action",
			"a peer may only request a consent; grant and deny answer a request, and the issuer revokes"))
	}
	if len(p.DataTypes) == 0 {
		return s.pipe.Refuse(m, in.Sess, wire.Errorf(wire.ErrMissingField, "p.data_types", "name the personal data types the consent is for"))
	}
	for i, t := range p.DataTypes {
		if !slices.Contains(consent.Types(), t) {
			return s.pipe.Refuse(m, in.Sess, wire.Errorf(wire.ErrInvalidParam, fmt.Sprintf("p.data_types[%d]", i),
				"not a personal data type a consent can name (%s)", strings.Join(consent.Types(), ", ")))
		}
	}
	if strings.TrimSpace(p.Purpose) == "" {
		return s.pipe.Refuse(m, in.Sess, wire.Errorf(wire.ErrMissingField, "p.purpose", "say what the data is for"))
	}
	ttl, err := s.consentDuration(p.Duration)
	if err != nil {
		return s.pipe.Refuse(m, in.Sess, err)
	}
	grantee := m.From.Ref().String()
	human := p.Human
	if human == "" {
		human = "operator@" + s.cfg.Org
	}
	args, _ := json.Marshal(map[string]any{"data_types": p.DataTypes, "purpose": p.Purpose, "duration": ttl.String(), "human": p.Human})
	// ctx ends with the request (its exp, at most listen.request_timeout):
	// so does the wait for a decision.
	expires, _ := ctx.Deadline()
	req := localbridge.ApprovalRequest{
		ID: pipeline.NewMessageID(s.rand), Agent: st.ID, Tool: "consent",
		Description: fmt.Sprintf("%s asks for consent to receive %s (of %s) for %q, for %s", grantee,
			strings.Join(p.DataTypes, ", "), human, p.Purpose, ttl),
		Arguments: args, Class: m.Cls.String(),
		Risk: localbridge.Risk{Level: localbridge.RiskHigh, Reversible: true,
			Reasons: []string{"personal data may go to another organisation under this consent"}},
		Caller:        localbridge.Caller{Type: "agent", ID: grantee},
		CorrelationID: m.ID, RequestedAt: s.now(), Expires: expires,
	}
	ok, err := s.approvals.Approve(ctx, req)
	deny := func(reason string) pipeline.Answer {
		s.log.Info("consent refused", "agent", st.ID, "grantee", grantee, "types", strings.Join(p.DataTypes, ","), "reason", reason)
		r := m.Reply(wire.OpConsent, &wire.ConsentPayload{Action: "deny", DataTypes: p.DataTypes, Purpose: p.Purpose, Reason: reason})
		return s.finish(ctx, in, st, r)
	}
	switch {
	case ctx.Err() != nil && !errors.Is(err, context.DeadlineExceeded):
		return s.pipe.Refuse(m, in.Sess, ctx.Err())
	case errors.Is(err, context.DeadlineExceeded):
		return deny("no decision came in time")
	case err != nil || !ok:
		return deny("not granted")
	}
	tok, err := s.IssueConsent(ctx, localbridge.ConsentRequest{Grantee: grantee, Purpose: p.Purpose,
		DataTypes: p.DataTypes, GrantedBy: human, TTL: ttl})
	if err != nil {
		return s.pipe.Refuse(m, in.Sess, wire.Errorf(wire.ErrInvalidParam, "p.data_types", "cannot grant this consent: %v", err))
	}
	s.log.Info("consent granted", "agent", st.ID, "grantee", grantee, "types", strings.Join(p.DataTypes, ","), "ttl", ttl.String())
	r := m.Reply(wire.OpConsent, &wire.ConsentPayload{Action: "grant", DataTypes: p.DataTypes, Purpose: p.Purpose,
		Duration: ttl.String(), Human: human, Proof: tok})
	return s.finish(ctx, in, st, r)
}

// consentDuration reads a consent request's duration: "" is an hour,
// "session" the gateway's session lifetime, anything else a Go duration
// ("24h") of at most a year.
func (s *Room) consentDuration(d string) (time.Duration, error) {
	switch d {
	case "":
		return time.Hour, nil
	case "session":
		return s.cfg.SessionTTL, nil
	}
	ttl, err := time.ParseDuration(d)
	if err != nil || ttl <= 0 || ttl > maxConsentTTL {
		return 0, wire.Errorf(wire.ErrInvalidParam, "p.duration", `want "session" or a duration such as "24h", of at most a year`)
	}
	return ttl, nil
}

// CheckGrant checks the proof of a granted consent: signed by the peer's
// organisation key, for grantee, for the asked purpose and types, and not
// expired at now.
func CheckGrant(orgKey keys.Ed25519Public, grantee wire.Ref, req localbridge.ConsentAsk, proof string, now time.Time) error {
	bad := func(why string) error {
		return wire.Errorf(wire.ErrConsent, "p.proof", "the granted consent %s", why)
	}
	tok, err := consent.Parse(proof)
	switch {
	case err != nil:
		return bad("is not a consent token whose signature checks")
	case !tok.Issuer.Equal(orgKey):
		return bad("is not signed by the peer's organisation key")
	case tok.Grantee != grantee.String():
		return bad("names another grantee")
	case tok.Purpose != req.Purpose:
		return bad("is for another purpose")
	case !tok.Covers(req.DataTypes):
		return bad("does not cover every type asked for")
	case tok.Expires <= now.UnixMilli():
		return bad("has expired")
	}
	return nil
}

// IssueConsent answers consent.issue: a consent token signed with the org
// key.
func (s *Room) IssueConsent(ctx context.Context, req localbridge.ConsentRequest) (string, error) {
	grantee, err := wire.ParseRef(req.Grantee)
	if err != nil {
		return "", wire.Errorf(wire.ErrInvalidParam, "grantee", "want agent@org")
	}
	id, err := consent.NewID(s.rand)
	if err != nil {
		return "", err
	}
	ttl := req.TTL
	if ttl <= 0 {
		ttl = time.Hour
	}
	now := s.now()
	granted := req.GrantedBy
	if granted == "" {
		granted = "operator@" + s.cfg.Org
	}
	signer := s.cfg.Signer.Current()
	return consent.Issue(signer.Signing, consent.Claims{ID: id, Issuer: signer.Signing.Public(), GrantedBy: granted,
		Grantee: grantee.String(), Purpose: req.Purpose, DataTypes: req.DataTypes,
		IssuedAt: now.UnixMilli(), Expires: now.Add(ttl).UnixMilli()})
}
