package directory_test

import (
	"testing"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/wire"
)

// FuzzVerifyAttestation: whatever a registry or a network sends, checking
// it never panics and accepts nothing but the genuine record.
func FuzzVerifyAttestation(f *testing.F) {
	e := newRegistryEnv(f, false)
	bot := e.acme.agent(f, "bot")
	e.mustRegister(bot, e.create(e.acme, bot, profile("echo.text")))
	rec, err := e.reg.Lookup(f.Context(), directory.ID{Agent: "bot", Org: "acme"}, directory.Viewer{})
	if err != nil {
		f.Fatal(err)
	}
	good := wire.AppendCanonical(nil, recordValue(f, rec))
	f.Add(good)
	f.Add([]byte(`{"agent_id":"bot","attestation":{"type":"moltgate.registry-attestation.v1","registry":"acme"}}`))
	f.Add([]byte(`[]`))
	key, now := orgKey(e.acme), e.clock.Now()
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := wire.Parse(b, 0)
		if err != nil {
			return
		}
		a, err := directory.VerifyAttestation(v, "acme", key, now)
		if err == nil && string(wire.AppendCanonical(nil, v)) != string(good) {
			// Only the attested fields are covered; the rest may differ,
			// but the attested fields must be the genuine ones.
			want := directory.AttestedOf(&directory.Entry{AgentID: rec.AgentID, Org: rec.Org, PublicKey: rec.PublicKey,
				EncryptionKey: rec.EncryptionKey, Endpoint: directory.Endpoint{URL: rec.Endpoint}, Capabilities: rec.Capabilities,
				RegisteredAt: time.UnixMilli(rec.RegisteredAt), ExpiresAt: time.UnixMilli(rec.ExpiresAt)})
			if string(a.SigningBytes("acme")) != string(want.SigningBytes("acme")) {
				t.Fatalf("accepted a record attesting other fields: %s", b)
			}
		}
	})
}

// FuzzSyncRequest: the params of registry.sync round-trip.
func FuzzSyncRequest(f *testing.F) {
	f.Add([]byte(`{"since":1800000000000,"limit":10,"cursor":"c","include_removed":true}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := wire.Parse(b, 0)
		if err != nil {
			return
		}
		q, err := directory.ParseSyncRequest(v)
		if err != nil {
			return
		}
		again, err := directory.ParseSyncRequest(q.Params())
		if err != nil || !again.Since.Equal(q.Since) || again.Limit != q.Limit || again.Cursor != q.Cursor || again.IncludeRemoved != q.IncludeRemoved {
			t.Fatalf("%s: %+v, then %+v, %v", b, q, again, err)
		}
	})
}
