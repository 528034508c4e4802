package directory_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/wire"
)

// syncEnv is acme's registry (the source) and globex's (the puller), on
// one clock and one trust store.
type syncEnv struct {
	*registryEnv
	gstore directory.Store
	greg   *directory.Registry
	src    directory.Source // acme's registry, as globex knows it
}

// attest re-signs a sync item as acme's registry would, after changes.
func (s *syncEnv) attest(t *testing.T, it wire.Value) wire.Value {
	t.Helper()
	rec, err := decodeRecord(it)
	if err != nil {
		t.Fatal(err)
	}
	a := directory.AttestedOf(rec)
	v, _ := wire.ValueOf(directory.Attest(&a, "acme", s.acme.gateway.Signing))
	return it.With("attestation", v)
}

func newSyncEnv(t *testing.T) *syncEnv {
	e := newRegistryEnv(t, false)
	s := &syncEnv{registryEnv: e, src: directory.Source{Org: "acme", Key: orgKey(e.acme)}}
	s.gstore, s.greg = e.newRegistry(t, e.globex, false)
	return s
}

// export pages through acme's changes for globex since a time.
func (s *syncEnv) export(since time.Time, removed bool) []wire.Value {
	s.t.Helper()
	var items []wire.Value
	q := directory.SyncRequest{Since: since, IncludeRemoved: removed, Limit: 2}
	for i := 0; ; i++ {
		page, err := s.reg.Export(s.t.Context(), q, "globex", 0)
		if err != nil {
			s.t.Fatal(err)
		}
		for _, m := range page.Get("entries").Elems() {
			items = append(items, m.Value)
		}
		next, _ := page.Get("next").Str()
		if next == "" {
			return items
		}
		q.Cursor = next
		if i > 20 {
			s.t.Fatal("export does not end")
		}
	}
}

func page(items ...wire.Value) wire.Value {
	return wire.ObjectValue(wire.Member{Key: "entries", Value: wire.ArrayValue(items...)}, wire.Member{Key: "next", Value: wire.StringValue("")})
}

func (s *syncEnv) imp(items ...wire.Value) directory.ImportResult {
	s.t.Helper()
	res, err := s.greg.Import(s.t.Context(), page(items...), s.src)
	if err != nil {
		s.t.Fatalf("import: %v", err)
	}
	return res
}

func (s *syncEnv) globexSees() string {
	s.t.Helper()
	ans, err := s.greg.Discover(s.t.Context(), &wire.DiscoverPayload{}, directory.Viewer{Local: true}, true)
	if err != nil {
		s.t.Fatal(err)
	}
	n := names(ans)
	slices.Sort(n)
	return joined(n)
}

func TestSyncExportImport(t *testing.T) {
	s := newSyncEnv(t)
	ctx := t.Context()
	t0 := s.clock.Now()
	reg := func(o *testOrg, id, vis string, allowed ...string) {
		a := o.agent(t, id)
		pr := profile("echo.text")
		pr.Visibility, pr.AllowedOrgs = vis, allowed
		s.mustRegister(a, s.create(o, a, pr))
		s.clock.Advance(time.Second)
	}
	reg(s.acme, "pub", "public")
	reg(s.acme, "hidden", "unlisted")
	reg(s.acme, "secret", "private")
	reg(s.acme, "partners", "public", "globex")
	reg(s.acme, "others", "public", "initech")
	reg(s.globex, "gx", "public") // globex's own agent, registered at acme
	// The org gateway's registrations travel too.
	o := s.acme.agent(t, "byorg")
	pr := profile("echo.text")
	pr.AgentID, pr.PublicKey = "byorg", o.Signing.Public()
	s.mustRegister(s.acme.gateway, &wire.RegisterPayload{Action: "create", Profile: pr, IdentityCert: s.acme.cert(t, o, s.clock.Now())})

	items := s.export(t0, false)
	first := items
	var exported []string
	for _, it := range items {
		id, _ := it.Get("agent_id").Str()
		exported = append(exported, id)
		if it.Get("registration").Get("op").String() != `"register"` {
			t.Fatalf("item without its registration: %s", it)
		}
	}
	// Never private ones, never those restricted to others, never globex's own.
	if got := joined(exported); got != "pub,hidden,partners,byorg" {
		t.Fatalf("exported %s", got)
	}
	res := s.imp(items...)
	if res.Applied != 4 || len(res.Refused) != 0 || res.Newest.Before(t0) {
		t.Fatalf("import: %+v", res)
	}
	if got := s.globexSees(); got != "byorg@acme,hidden@acme,partners@acme,pub@acme" {
		t.Fatalf("globex holds %s", got)
	}
	// Imported entries keep their visibility and audience: hidden stays
	// unlisted, partners stays restricted to globex.
	if _, err := s.greg.Lookup(ctx, directory.ID{Agent: "hidden", Org: "acme"}, directory.Viewer{}); err != nil {
		t.Fatalf("unlisted entry by id: %v", err)
	}
	if _, err := s.greg.Lookup(ctx, directory.ID{Agent: "partners", Org: "acme"}, directory.Viewer{Org: "initech"}); err == nil {
		t.Fatal("a restricted entry leaked through sync")
	}
	// globex attests what it holds with its own key.
	rec, err := s.greg.Lookup(ctx, directory.ID{Agent: "pub", Org: "acme"}, directory.Viewer{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := directory.VerifyAttestation(recordValue(t, rec), "globex", orgKey(s.globex), s.clock.Now()); err != nil {
		t.Fatalf("globex's attestation of an imported entry: %v", err)
	}
	// The same page again changes nothing.
	if res := s.imp(items...); res.Applied != 0 || res.Unchanged != 4 {
		t.Fatalf("second import: %+v", res)
	}
	// A renewal moves the expiry; a removal travels as a tombstone.
	t1 := s.clock.Now()
	s.clock.Advance(time.Minute)
	// pub renews itself: its identity is the one registered; find it by
	// its key through acme's store.
	got, _ := s.store.Get(ctx, directory.ID{Agent: "byorg", Org: "acme"}, directory.Viewer{Local: true})
	s.mustRegister(s.acme.gateway, &wire.RegisterPayload{Action: "renew", Profile: &wire.Profile{AgentID: "byorg"}})
	renewed, _ := s.store.Get(ctx, directory.ID{Agent: "byorg", Org: "acme"}, directory.Viewer{Local: true})
	if !renewed.ExpiresAt.After(got.ExpiresAt) {
		t.Fatal("renew did not move the expiry")
	}
	s.mustRegister(s.acme.gateway, &wire.RegisterPayload{Action: "delete", Profile: &wire.Profile{AgentID: "pub"}})
	items = s.export(t1, true)
	res = s.imp(items...)
	if res.Applied != 2 || len(res.Refused) != 0 {
		t.Fatalf("import of renewal and removal: %+v", res)
	}
	if got := s.globexSees(); got != "byorg@acme,hidden@acme,partners@acme" {
		t.Fatalf("after removal globex holds %s", got)
	}
	held, _ := s.gstore.Get(ctx, directory.ID{Agent: "byorg", Org: "acme"}, directory.Viewer{Local: true})
	if !held.ExpiresAt.Equal(renewed.ExpiresAt) {
		t.Fatalf("imported expiry %v, want %v", held.ExpiresAt, renewed.ExpiresAt)
	}
	// The older registration of pub, arriving late, does not bring it back.
	if res := s.imp(first[0]); res.Applied != 0 {
		t.Fatalf("stale registration applied: %+v", res)
	}
	if got := s.globexSees(); strings.Contains(got, "pub@") {
		t.Fatalf("removed entry came back: %s", got)
	}
	// Nor is the same removal written twice.
	if res := s.imp(s.itemsFor(t1, "pub")...); res.Applied != 0 || res.Unchanged != 1 {
		t.Fatalf("removal again: %+v", res)
	}
}

// itemsFor returns the items of acme's export since t naming agent.
func (s *syncEnv) itemsFor(since time.Time, agent string) []wire.Value {
	var out []wire.Value
	for _, it := range s.export(since, true) {
		if id, _ := it.Get("agent_id").Str(); id == agent {
			out = append(out, it)
		}
	}
	return out
}

func TestSyncRefusesForgedEntries(t *testing.T) {
	s := newSyncEnv(t)
	now := s.clock.Now()
	bot := s.acme.agent(t, "bot")
	s.mustRegister(bot, s.create(s.acme, bot, profile("echo.text")))
	items := s.export(now, false)
	if len(items) != 1 {
		t.Fatalf("%d items", len(items))
	}
	good := items[0]

	// A malicious or compromised peer can re-sign what it changed.
	attest := func(it wire.Value) wire.Value { return s.attest(t, it) }
	impostor := s.acme.agent(t, "bot") // claims to be acme's bot, with no certificate
	impostorReg := s.message(impostor, &wire.RegisterPayload{Action: "create", Profile: profile("echo.text")})
	impostorTree, _ := impostorReg.Tree()
	impostorTree = impostorTree.With("sig", wire.StringValue(impostorReg.Sig.String()))

	regTree := good.Get("registration")
	alteredReg := regTree.With("p", regTree.Get("p").With("profile", regTree.Get("p").Get("profile").With("endpoint",
		wire.ObjectValue(wire.Member{Key: "url", Value: wire.StringValue("https://attacker.example/x")}))))

	stranger := s.initech.agent(t, "bot")
	strangerReg := s.message(stranger, s.create(s.initech, stranger, profile("echo.text")))
	strangerTree, _ := strangerReg.Tree()
	strangerTree = strangerTree.With("sig", wire.StringValue(strangerReg.Sig.String()))

	gbot := s.globex.agent(t, "gbot")
	gReg := s.message(gbot, s.create(s.globex, gbot, profile("echo.text")))
	gTree, _ := gReg.Tree()
	gTree = gTree.With("sig", wire.StringValue(gReg.Sig.String()))

	cases := map[string]wire.Value{
		// Altered on the way: the attestation no longer verifies.
		"altered endpoint": good.With("endpoint", wire.StringValue("https://attacker.example/x")),
		"altered key":      good.With("public_key", wire.StringValue(impostor.Signing.Public().String())),
		// Attested by another registry's key.
		"foreign attestation": good.With("attestation", func() wire.Value {
			a, _ := wire.ValueOf(directory.Attest(&directory.Attested{}, "acme", s.globex.gateway.Signing))
			return a
		}()),
		// The peer attests a record its registration does not say.
		"record unlike registration": attest(good.With("endpoint", wire.StringValue("https://attacker.example/x"))),
		// The registration's bytes changed: its signature fails.
		"altered registration": good.With("registration", alteredReg),
		// Signed by a key no certificate vouches for.
		"uncertified registration": attest(good.With("registration", impostorTree).With("public_key", wire.StringValue(impostor.Signing.Public().String())).
			With("encryption_key", wire.StringValue(impostor.Encryption.Public().String()))),
		// An organisation globex does not trust.
		"untrusted org": attest(good.With("registration", strangerTree).With("org", wire.StringValue("initech")).
			With("public_key", wire.StringValue(stranger.Signing.Public().String())).
			With("encryption_key", wire.StringValue(stranger.Encryption.Public().String()))),
		// globex's own agent: no peer speaks for the puller's own org.
		"puller's own org": attest(good.With("registration", gTree).With("org", wire.StringValue("globex")).With("agent_id", wire.StringValue("gbot")).
			With("public_key", wire.StringValue(gbot.Signing.Public().String())).
			With("encryption_key", wire.StringValue(gbot.Encryption.Public().String()))),
		"no registration": attest(good.Without("registration")),
	}
	for name, it := range cases {
		res := s.imp(it)
		if res.Applied != 0 || len(res.Refused) != 1 {
			t.Errorf("%s: %+v", name, res)
			continue
		}
		t.Logf("%s: refused: %v", name, res.Refused[0].Err)
	}
	if got := s.globexSees(); got != "" {
		t.Fatalf("forged entries imported: %s", got)
	}
	// One forged item does not stop the genuine ones beside it.
	res := s.imp(cases["altered endpoint"], good)
	if res.Applied != 1 || len(res.Refused) != 1 || res.Refused[0].Index != 0 {
		t.Fatalf("mixed page: %+v", res)
	}
	// A forged removal: signed by a key that is not the entry's.
	s.clock.Advance(time.Second)
	del := s.message(impostor, &wire.RegisterPayload{Action: "delete"})
	dt, _ := del.Tree()
	forgedRemoval := attest(good.With("registration", dt.With("sig", wire.StringValue(del.Sig.String()))).With("removed", wire.BoolValue(true)))
	if res := s.imp(forgedRemoval); len(res.Refused) != 1 {
		t.Fatalf("forged removal: %+v", res)
	}
	if got := s.globexSees(); got != "bot@acme" {
		t.Fatalf("after a forged removal globex holds %q", got)
	}
	// A malformed page fails as a whole.
	if _, err := s.greg.Import(t.Context(), wire.ObjectValue(), s.src); err == nil {
		t.Fatal("a page without entries was accepted")
	}
}

// decodeRecord reads the attested fields of an exported item back into an
// entry, so a test can re-attest an altered item.
func decodeRecord(it wire.Value) (*directory.Entry, error) {
	var r directory.Record
	if err := it.Decode(&r); err != nil {
		return nil, err
	}
	return &directory.Entry{AgentID: r.AgentID, Org: r.Org, PublicKey: r.PublicKey, EncryptionKey: r.EncryptionKey,
		Endpoint: directory.Endpoint{URL: r.Endpoint}, Capabilities: r.Capabilities,
		RegisteredAt: time.UnixMilli(r.RegisteredAt), ExpiresAt: time.UnixMilli(r.ExpiresAt)}, nil
}

func TestSyncRequestParams(t *testing.T) {
	q := directory.SyncRequest{Since: time.UnixMilli(1800000000000), Cursor: "c", Limit: 10, IncludeRemoved: true}
	got, err := directory.ParseSyncRequest(q.Params())
	if err != nil || !got.Since.Equal(q.Since) || got.Cursor != "c" || got.Limit != 10 || !got.IncludeRemoved {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	for _, bad := range []string{`{"since":"x"}`, `{"limit":5000}`, `{"include_removed":1}`, `[]`, `{"cursor":5}`} {
		v, _ := wire.Parse([]byte(bad), 0)
		if _, err := directory.ParseSyncRequest(v); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// A peer cannot plant a removal of another organisation's agent: signed by
// a key of the peer's choosing and stamped far ahead, it would make the
// puller refuse the agent's genuine registrations as older, and pass the
// removal on to its own peers.
func TestSyncRefusesPlantedRemovals(t *testing.T) {
	s := newSyncEnv(t)
	s.trust.Add("initech", orgKey(s.initech))
	now := s.clock.Now()
	bot := s.initech.agent(t, "bot")
	s.mustRegister(bot, s.create(s.initech, bot, profile("echo.text")))
	genuine := s.export(now, false)
	if len(genuine) != 1 {
		t.Fatalf("%d items", len(genuine))
	}

	// acme's registry, turned hostile, removes initech's bot before globex
	// has heard of it, with a key of its own, a year ahead.
	planted := s.initech.agent(t, "bot")
	del := &wire.Message{V: wire.Version, ID: newUUID(), TS: now.Add(365 * 24 * time.Hour).UnixMilli(), Op: wire.OpRegister,
		From: planted.Sender(), To: wire.Ref{Agent: "registry", Org: "acme"}, Cls: wire.Pub,
		Payload: &wire.RegisterPayload{Action: "delete"}}
	dm, err := cryptoSign(s.registryEnv, del, planted)
	if err != nil {
		t.Fatal(err)
	}
	dt, _ := dm.Tree()
	removal := s.attest(t, genuine[0].With("removed", wire.BoolValue(true)).
		With("registration", dt.With("sig", wire.StringValue(dm.Sig.String()))).
		With("public_key", wire.StringValue(planted.Signing.Public().String())).
		With("encryption_key", wire.StringValue(planted.Encryption.Public().String())).
		With("expires_at", wire.IntValue(now.Add(100*365*24*time.Hour).UnixMilli())))
	if res := s.imp(removal); res.Applied != 0 {
		t.Fatalf("planted removal: %+v", res)
	}
	if res := s.imp(genuine...); res.Applied != 1 {
		t.Fatalf("the genuine registration after a planted removal: %+v", res)
	}
	if got := s.globexSees(); got != "bot@initech" {
		t.Fatalf("globex holds %q", got)
	}
	// Nor does a removal by the entry's organisation outlast what the
	// puller would hold: its expiry is held to MaxTTL from now.
	s.clock.Advance(time.Second)
	s.mustRegister(s.initech.gateway, &wire.RegisterPayload{Action: "delete", Profile: &wire.Profile{AgentID: "bot"}})
	var removed []wire.Value
	for _, it := range s.itemsFor(now, "bot") {
		if r, _ := it.Get("removed").Bool(); r {
			removed = append(removed, s.attest(t, it.With("expires_at", wire.IntValue(now.Add(100*365*24*time.Hour).UnixMilli()))))
		}
	}
	if res := s.imp(removed...); res.Applied != 1 {
		t.Fatalf("the organisation's removal: %+v", res)
	}
	page, err := s.gstore.Changes(t.Context(), &directory.ChangesQuery{IncludeRemoved: true, Viewer: directory.Viewer{Org: "acme"}})
	if err != nil || len(page.Entries) != 1 || !page.Entries[0].Removed {
		t.Fatalf("globex's changes: %+v, %v", page, err)
	}
	if until := page.Entries[0].ExpiresAt; until.After(s.clock.Now().Add(directory.DefaultMaxTTL)) {
		t.Fatalf("a removal held until %v", until)
	}
}

// countingStore counts the registration bytes its Changes reads.
type countingStore struct {
	directory.Store
	read int
}

func (c *countingStore) Changes(ctx context.Context, q *directory.ChangesQuery) (directory.ChangePage, error) {
	p, err := c.Store.Changes(ctx, q)
	for _, e := range p.Entries {
		c.read += len(e.Registration)
	}
	return p, err
}

// A sync page is bounded in bytes, and so is what the exporter reads to
// make it: a peer that asks for a thousand entries of large registrations
// does not make the registry hold them all at once, again and again.
func TestSyncExportReadsWhatAPageHolds(t *testing.T) {
	e := newRegistryEnv(t, false)
	cs := &countingStore{Store: e.store}
	reg, err := directory.NewRegistry(directory.RegistryConfig{Store: cs, Org: "acme", Key: e.acme.gateway.Signing,
		Trust: e.trust, Codec: e.codec, Now: e.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	const n, pad, pageBytes = 24, 100 << 10, 256 << 10
	t0 := e.clock.Now()
	for i := range n {
		a := e.acme.agent(t, fmt.Sprintf("bot%d", i))
		if _, err := reg.Register(t.Context(), e.padded(a, e.create(e.acme, a, profile("echo.text")), pad)); err != nil {
			t.Fatal(err)
		}
	}
	q := directory.SyncRequest{Since: t0, Limit: directory.MaxChangesLimit}
	exported := 0
	for pages := 0; ; pages++ {
		cs.read = 0
		page, err := reg.Export(t.Context(), q, "globex", pageBytes)
		if err != nil {
			t.Fatal(err)
		}
		if size := len(wire.AppendCanonical(nil, page)); size > pageBytes {
			t.Fatalf("a page of %d bytes", size)
		}
		if cs.read > pageBytes+pad {
			t.Fatalf("a page of %d entries read %d bytes of registrations", page.Get("entries").Len(), cs.read)
		}
		exported += page.Get("entries").Len()
		next, _ := page.Get("next").Str()
		if next == "" {
			break
		}
		q.Cursor = next
		if pages > n {
			t.Fatal("export does not end")
		}
	}
	if exported != n {
		t.Fatalf("exported %d of %d", exported, n)
	}
}
