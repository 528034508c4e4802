package archtest

import (
	"bufio"
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/moltgate/moltgate"

// imports are the packages of the module one package imports, directly and
// through others.
type imports struct{ direct, all []string }

// deps lists every package of the module with the packages of the module
// it imports, as the go command resolves them for this platform (tests
// excluded: the rules are about what ships).
func deps(t *testing.T) map[string]imports {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the import rules are read with the go command, which is not on PATH: %v", err)
	}
	cmd := exec.Command(goCmd, "list", "-f", `{{.ImportPath}}|{{join .Imports " "}}|{{join .Deps " "}}`, module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v: %s", err, stderr.String())
	}
	own := func(list string) []string {
		var o []string
		for _, d := range strings.Fields(list) {
			if d == module || strings.HasPrefix(d, module+"/") {
				o = append(o, rel(d))
			}
		}
		return o
	}
	m := map[string]imports{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "|")
		if len(f) != 3 {
			continue
		}
		m[rel(f[0])] = imports{direct: own(f[1]), all: own(f[2])}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// rel is a package's path inside the module ("." for the root).
func rel(p string) string {
	if p == module {
		return "."
	}
	return strings.TrimPrefix(p, module+"/")
}

// under reports whether pkg is root or inside it.
func under(pkg, root string) bool { return pkg == root || strings.HasPrefix(pkg, root+"/") }

// rule says what the packages it covers may not depend on.
type rule struct {
	name   string
	covers func(pkg string) bool
	// direct: the rule is about what the packages import themselves, not
	// what those imports import.
	direct bool
	// allowed, if set, is the whole list of the module's packages they may
	// depend on; forbidden is checked besides.
	allowed   []string
	forbidden func(dep string) bool
}

func rules() []rule {
	isAny := func(roots ...string) func(string) bool {
		return func(p string) bool {
			return slices.ContainsFunc(roots, func(r string) bool { return under(p, r) })
		}
	}
	// The directory's storage backends and the state replicas share in
	// PostgreSQL: a face or the pipeline reaches storage only through what
	// the gateway gives it.
	storage := []string{"directory/sqlitestore", "directory/pgstore", "directory/internal/sqlstore", "internal/pgshared"}
	return []rule{
		{name: "keys is the bottom layer", covers: isAny("keys"), allowed: []string{}},
		{name: "wire stands on keys alone", covers: isAny("wire"), allowed: []string{"keys"}},
		{name: "crypto stands on wire and keys alone", covers: isAny("crypto"), allowed: []string{"keys", "wire"}},
		{name: "retired keys stand on keys alone", covers: isAny("gateway/retired"), allowed: []string{"keys"}},
		{
			name:   "the pipeline knows no storage, no face, no peer and no local bridge",
			covers: isAny("gateway/pipeline"),
			forbidden: func(d string) bool {
				return isAny(storage...)(d) || d == "gateway" || isAny("gateway/face", "gateway/peers", "localbridge")(d)
			},
		},
		{
			name:      "faces never reach peers, storage or the gateway",
			covers:    isAny("gateway/face"),
			forbidden: func(d string) bool { return isAny(storage...)(d) || d == "gateway" || isAny("gateway/peers")(d) },
		},
		{
			// A face is added, changed or removed without touching
			// another: what they share is the framing layer.
			name:   "faces never import one another but the shared framing",
			covers: func(p string) bool { return under(p, "gateway/face") && !under(p, "gateway/face/frames") },
			forbidden: func(d string) bool {
				return under(d, "gateway/face") && !under(d, "gateway/face/frames")
			},
		},
		{
			// The framing layer the stream faces share is below both.
			name:   "peers never reach a face, storage, the local bridge or the gateway",
			covers: isAny("gateway/peers"),
			forbidden: func(d string) bool {
				return isAny(storage...)(d) || d == "gateway" || isAny("localbridge")(d) ||
					(isAny("gateway/face")(d) && d != "gateway/face/frames")
			},
		},
		{
			// What they need of the pipeline, they get through an
			// interface of their own.
			name:      "faces import no keys, crypto or directory of their own",
			covers:    isAny("gateway/face"),
			direct:    true,
			forbidden: isAny("keys", "crypto", "directory"),
		},
		{
			// The registry uses the directory through directory.Store,
			// and reaches peers and local agents through its own
			// interfaces: it knows no transport beyond the HTTP client
			// it is given.
			name:   "the registry knows no storage backend, no face, no peer and not the gateway",
			covers: isAny("gateway/registry"),
			forbidden: func(d string) bool {
				return isAny(storage...)(d) || d == "gateway" || isAny("gateway/face", "gateway/peers")(d)
			},
		},
		{
			// The local room answers for the organisation's own agents
			// through the local bridge; peers, faces and storage are
			// the gateway's to wire.
			name:   "the local room knows no storage, no face, no peer, no registry and not the gateway",
			covers: isAny("gateway/local"),
			forbidden: func(d string) bool {
				return isAny(storage...)(d) || d == "gateway" || isAny("gateway/face", "gateway/peers", "gateway/registry")(d)
			},
		},
		{
			// Revocation enforcement reaches peers through the peer
			// table and the directory through directory.Store.
			name:   "the revocation room knows no storage, no face, no local bridge, no registry and not the gateway",
			covers: isAny("gateway/revoke"),
			forbidden: func(d string) bool {
				return isAny(storage...)(d) || d == "gateway" || isAny("localbridge", "gateway/registry", "gateway/local")(d) ||
					(isAny("gateway/face")(d) && d != "gateway/face/frames")
			},
		},
		{
			// The trail records what it is given; which store holds the
			// ledger is the gateway's to choose.
			name:   "the trail knows no storage backend, no face, no local bridge, no registry and not the gateway",
			covers: isAny("gateway/trail"),
			forbidden: func(d string) bool {
				return isAny(storage...)(d) || d == "gateway" || isAny("localbridge", "gateway/registry", "gateway/local")(d) ||
					(isAny("gateway/face")(d) && d != "gateway/face/frames")
			},
		},
		{
			// The rooms are given the feed's methods as hooks; it only
			// reports.
			name:   "the feed knows no storage, no face, no peer, no registry and not the gateway",
			covers: isAny("gateway/feed"),
			forbidden: func(d string) bool {
				return isAny(storage...)(d) || d == "gateway" || isAny("gateway/face", "gateway/peers", "gateway/registry")(d)
			},
		},
		{
			// Handovers reach peers through the peer table, pins and
			// trust through keys and identity, and peer files through a
			// hook the gateway gives.
			name:   "the rotation room knows no storage, no face, no local bridge, no registry and not the gateway",
			covers: isAny("gateway/rotation"),
			forbidden: func(d string) bool {
				return isAny(storage...)(d) || d == "gateway" || isAny("localbridge", "gateway/registry", "gateway/local", "gateway/revoke")(d) ||
					(isAny("gateway/face")(d) && d != "gateway/face/frames")
			},
		},
		{
			// The key switch reaches the key material, the handovers,
			// the local agents and the revocation lists through
			// orgkey.Source and interfaces of its own; the gateway
			// wires it.
			name:   "the key switch knows no storage, no face, no local bridge and no other room but orgkey, ownfile and retired",
			covers: isAny("gateway/keyswitch"),
			forbidden: func(d string) bool {
				return isAny(storage...)(d) || d == "localbridge" ||
					(under(d, "gateway") && !isAny("gateway/keyswitch", "gateway/orgkey", "gateway/ownfile", "gateway/retired")(d))
			},
		},
		{
			// The roster is given the local bridge, the directory and
			// the ceilings through interfaces of its own, and the event
			// stream as hooks: it stands below every other room.
			name:   "the roster knows no storage and no other room of the gateway",
			covers: isAny("gateway/roster"),
			forbidden: func(d string) bool {
				return isAny(storage...)(d) || (under(d, "gateway") && !under(d, "gateway/roster"))
			},
		},
		{
			// The other rooms reach the local agents through interfaces
			// of their own (local.Agents, registry.Locals), which the
			// gateway meets with the roster.
			name:      "no room but the gateway imports the roster",
			covers:    func(p string) bool { return under(p, "gateway") && p != "gateway" && !under(p, "gateway/roster") },
			forbidden: isAny("gateway/roster"),
		},
		{
			// A face is the edge: the rooms behind it are given what
			// they need, and never call into one. The framing layer the
			// stream faces share is below them all.
			name:   "the rooms behind the faces never import a face",
			covers: func(p string) bool { return under(p, "gateway") && p != "gateway" && !under(p, "gateway/face") },
			forbidden: func(d string) bool {
				return under(d, "gateway/face") && !under(d, "gateway/face/frames")
			},
		},
		{
			name:      "the layers below the gateway never import it",
			covers:    isAny("keys", "wire", "crypto", "identity", "handshake", "classify", "pii", "directory", "localbridge"),
			forbidden: isAny("gateway"),
		},
	}
}

func TestImportRules(t *testing.T) {
	all := deps(t)
	for _, must := range []string{"keys", "wire", "crypto", "gateway", "gateway/pipeline", "gateway/registry", "gateway/local", "gateway/peers", "gateway/revoke", "gateway/trail", "gateway/feed", "gateway/rotation", "gateway/roster", "gateway/keyswitch", "gateway/retired"} {
		if _, ok := all[must]; !ok {
			t.Fatalf("go list did not list package %s: the rules would check nothing", must)
		}
	}
	for _, r := range rules() {
		n := 0
		for pkg, im := range all {
			if !r.covers(pkg) {
				continue
			}
			n++
			ds := im.all
			if r.direct {
				ds = im.direct
			}
			for _, d := range ds {
				if r.allowed != nil && !slices.Contains(r.allowed, d) && !under(d, pkg) {
					t.Errorf("%s: %s imports %s; it may import only %v of this module", r.name, pkg, d, r.allowed)
				}
				if r.forbidden != nil && r.forbidden(d) {
					t.Errorf("%s: %s imports %s", r.name, pkg, d)
				}
			}
		}
		t.Logf("%s: %d packages", r.name, n)
	}
}

// TestRulesCatch shows that each kind of rule refuses what it names, so
// that a rule that covers nothing or forbids nothing does not pass unseen.
func TestRulesCatch(t *testing.T) {
	bad := map[string]string{
		"wire":                  "crypto",
		"keys":                  "wire",
		"crypto":                "identity",
		"gateway/pipeline":      "directory/sqlitestore",
		"gateway/face/ws":       "gateway/peers",
		"gateway/face/mcp":      "keys",
		"gateway/face/a2a":      "gateway/face/httpface",
		"gateway/face/grpcface": "directory/pgstore",
		"gateway/registry":      "directory/pgstore",
		"gateway/local":         "gateway/peers",
		"gateway/revoke":        "directory/sqlitestore",
		"gateway/trail":         "gateway",
		"gateway/feed":          "gateway/peers",
		"gateway/rotation":      "gateway/registry",
		"gateway/keyswitch":     "gateway/rotation",
		"gateway/limit":         "gateway/face/wsface",
		"gateway/roster":        "gateway/registry",
		"gateway/peers":         "gateway/roster",
		"classify":              "gateway",
	}
	for pkg, dep := range bad {
		caught := false
		for _, r := range rules() {
			if !r.covers(pkg) {
				continue
			}
			if (r.allowed != nil && !slices.Contains(r.allowed, dep)) || (r.forbidden != nil && r.forbidden(dep)) {
				caught = true
			}
		}
		if !caught {
			t.Errorf("no rule refuses %s importing %s", pkg, dep)
		}
	}
}
