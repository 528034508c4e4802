package directory

import (
	"encoding/binary"
	"errors"
	"hash/maphash"
	"strings"

	"github.com/moltgate/moltgate/pii"
	"github.com/moltgate/moltgate/wire"
)

// Personal data and secrets in the directory.
//
// What a registry holds it publishes: every record to the organisations
// that may see it, and the signed registration behind it in registry sync
// pages. A consent names one grantee and cannot cover that, so a registry
// holds nothing the gate would stop: a registration in which the scanner
// finds personal data or secret material is refused.
//
// The scan is the gate's own (the same scanner, member names read as
// context, the registration whole), on what a peer's gate will see. What a
// registry publishes must pass the gates of the peers that receive it:
// one entry they would stop makes them refuse every discovery answer and
// sync page that carries it.

// CheckContent refuses register message m if the scanner finds personal
// data or secret material anywhere in it, header included: the message is
// published as it is, in registry sync pages, and the entry made of it in
// every record. Secret material is E_CLASSIFICATION, as the gate has it;
// personal data is E_INVALID_PROFILE, since no consent can make it
// publishable. Either names the member that holds it, never its content.
//
// Register and Import check every message they keep. A gateway checks a
// register message before its gate as well, whose refusal would name no
// member.
func (r *Registry) CheckContent(m *wire.Message) error {
	t, err := m.Tree()
	if err != nil {
		return wire.Errorf(wire.ErrSchema, "", "the registration has no JSON form")
	}
	return contentError(r.sc.ScanTree("", t, nil))
}

// contentError is the refusal of a registration in which fs were found,
// or nil if fs is empty. Secrets come first, as in the gate.
func contentError(fs []pii.Finding) error {
	if len(fs) == 0 {
		return nil
	}
	found := pii.Summarize(fs)
	if found.Secret {
		names := make([]string, len(found.SecretTypes))
		for i, t := range found.SecretTypes {
			names[i] = t.String()
		}
		f := first(fs, pii.ClassSecret)
		return wire.Errorf(wire.ErrClassification, f.Path,
			"secret material (%s) in a registration: it would be published to every organisation that may see the entry",
			strings.Join(names, ", ")).WithSuggestion(removeIt(f))
	}
	names := make([]string, len(found.Types))
	for i, t := range found.Types {
		names[i] = string(t)
	}
	f := first(fs, pii.ClassPII)
	return wire.Errorf(wire.ErrInvalidProfile, f.Path,
		"personal data (%s) in a registration: it would be published to every organisation that may see the entry, which no consent covers",
		strings.Join(names, ", ")).WithSuggestion(removeIt(f))
}

func first(fs []pii.Finding, c pii.Class) pii.Finding {
	for _, f := range fs {
		if f.Type.Class() == c {
			return f
		}
	}
	return fs[0]
}

// removeIt tells the registrant what to do about f.
func removeIt(f pii.Finding) wire.Suggestion {
	from := "the registration"
	if f.Path == "p.profile" || strings.HasPrefix(f.Path, "p.profile.") {
		from = "the profile"
	}
	return wire.Suggestion{Action: wire.ActionRetry, Fix: "remove the " + f.Type.String() + " from " + from + " and register again"}
}

// Entries that hold personal data or secrets anyway, written before the
// rule or straight into a store that several replicas share, are withheld
// from every answer that leaves this gateway: discovery, lookups and sync
// pages. Local callers still see them, so that they can be found and
// fixed. A verdict is kept per version of what an entry shows, so an
// answer costs a hash per record and a scan only for what was not seen
// before; a withheld entry is logged when it is first seen.

// publishable reports whether what a record shows of e may leave this
// gateway; with reg, the signed registration behind it as well, which a
// sync page carries.
func (r *Registry) publishable(e *Entry, reg bool) bool {
	sum := r.contentSum(e, reg)
	if ok, seen := r.verdicts.Get(sum); seen {
		return ok
	}
	err := r.scanEntry(e, reg)
	r.verdicts.Add(sum, err == nil)
	var we *wire.Error
	if errors.As(err, &we) {
		r.log.Warn("directory entry withheld from other organisations: it holds personal data or secret material",
			"agent", e.ID().String(), "code", string(we.Code), "field", we.Field)
	}
	return err == nil
}

// scanEntry scans what a record shows of e, under the member names a
// record gives it, as a peer's gate will see it; with reg, and the signed
// registration under "registration", as a sync page carries it.
func (r *Registry) scanEntry(e *Entry, reg bool) error {
	strs := func(ss []string) wire.Value {
		vs := make([]wire.Value, len(ss))
		for i, s := range ss {
			vs[i] = wire.StringValue(s)
		}
		return wire.ArrayValue(vs...)
	}
	m := []wire.Member{
		{Key: "agent_id", Value: wire.StringValue(e.AgentID)},
		{Key: "org", Value: wire.StringValue(e.Org)},
		{Key: "name", Value: wire.StringValue(e.Name)},
		{Key: "description", Value: wire.StringValue(e.Description)},
		{Key: "endpoint", Value: wire.StringValue(e.Endpoint.URL)},
		{Key: "transport", Value: wire.StringValue(e.Endpoint.Transport)},
		{Key: "websocket", Value: wire.StringValue(e.Endpoint.WebSocket)},
		{Key: "public_key", Value: wire.StringValue(e.PublicKey)},
		{Key: "encryption_key", Value: wire.StringValue(e.EncryptionKey)},
		{Key: "capabilities", Value: strs(e.Capabilities)},
		{Key: "tags", Value: strs(e.Tags)},
	}
	if e.Metadata != nil {
		md, err := wire.Parse(e.Metadata, 0)
		if err != nil {
			return wire.Errorf(wire.ErrInvalidProfile, "metadata", "not valid JSON")
		}
		m = append(m, wire.Member{Key: "metadata", Value: md})
	}
	fs := r.sc.ScanTree("", wire.ObjectValue(m...), nil)
	if reg && len(e.Registration) > 0 {
		if t, err := wire.Parse(e.Registration, 0); err == nil {
			fs = r.sc.AppendTree(fs, "registration", t, nil)
		}
	}
	return contentError(fs)
}

// contentSum identifies what publishable looks at, under a seed of this
// registry's own, so that no one can choose two contents that collide.
func (r *Registry) contentSum(e *Entry, reg bool) uint64 {
	var h hasher
	h.h.SetSeed(r.seed)
	for _, s := range [...]string{e.AgentID, e.Org, e.Name, e.Description, e.Endpoint.URL, e.Endpoint.Transport,
		e.Endpoint.WebSocket, e.PublicKey, e.EncryptionKey} {
		h.str(s)
	}
	h.strs(e.Capabilities)
	h.strs(e.Tags)
	h.bytes(e.Metadata)
	if reg {
		h.bytes(e.Registration)
	} else {
		h.n(-1)
	}
	return h.h.Sum64()
}

// hasher hashes a sequence of strings, each with its length, so that no
// two sequences hash the same bytes.
type hasher struct{ h maphash.Hash }

func (s *hasher) n(n int) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(n))
	s.h.Write(b[:])
}

func (s *hasher) str(v string) {
	s.n(len(v))
	s.h.WriteString(v)
}

func (s *hasher) bytes(v []byte) {
	s.n(len(v))
	s.h.Write(v)
}

func (s *hasher) strs(vs []string) {
	s.n(len(vs))
	for _, v := range vs {
		s.str(v)
	}
}
