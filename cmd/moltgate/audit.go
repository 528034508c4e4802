package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/moltgate/moltgate/audit"
	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/receipt"
)

// auditFileName is the audit ledger's file in a gateway's data directory
// when the gateway stores its state in SQLite.
const auditFileName = gateway.AuditFileName

func runAudit(ctx context.Context, e *env, args []string) error {
	return runSubcommand(e, "audit", args, true,
		subcommand{"verify", func(args []string) error { return runAuditVerify(ctx, e, args) }},
		subcommand{"show", func(args []string) error { return runAuditShow(ctx, e, args) }},
	)
}

// openLedger opens the audit ledger of the gateway in d: the SQLite file in
// its data directory, or the PostgreSQL database its configuration names.
// It returns a description of where the ledger is, for messages.
func openLedger(ctx context.Context, e *env, d gateway.Dir) (*audit.Ledger, string, func(), error) {
	cfg, err := d.ReadConfig()
	if err != nil {
		return nil, "", nil, err
	}
	if cfg.Storage.Driver == "postgres" {
		dsn := cfg.Storage.DSN
		if dsn == "" {
			dsn = e.getenv("MOLTGATE_POSTGRES_DSN")
		}
		db, err := sql.Open("pgx", dsn)
		if err != nil {
			return nil, "", nil, fmt.Errorf("open the audit ledger's database: %w", err)
		}
		l, err := audit.OpenPostgres(ctx, db)
		if err != nil {
			db.Close()
			return nil, "", nil, err
		}
		return l, "the PostgreSQL database of storage.dsn", func() { l.Close(); db.Close() }, nil
	}
	path := filepath.Join(d.DataDir(), auditFileName)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil, fmt.Errorf("no audit ledger at %s: the gateway has recorded no boundary decision yet", path)
	}
	l, err := audit.OpenSQLite(ctx, path)
	if err != nil {
		return nil, "", nil, err
	}
	return l, path, func() { l.Close() }, nil
}

func runAuditVerify(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "audit verify")
	dir := fs.String("dir", "", "gateway directory")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	d, err := requireDir(*dir)
	if err != nil {
		return err
	}
	l, where, done, err := openLedger(ctx, e, d)
	if err != nil {
		return err
	}
	defer done()
	n, err := l.Verify(ctx)
	if err != nil {
		return err
	}
	pass, err := keys.PassphraseFromEnv(e.getenv)
	if err != nil {
		return err
	}
	orgKeys, err := gateway.OrgKeys(d, pass)
	if err != nil {
		return err
	}
	checked, unknown, err := verifyReceipts(ctx, l, orgKeys)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "audit ledger in %s: %d entries, every link holds; %d receipts, both signatures of each hold\n", where, n, checked)
	if len(unknown) > 0 {
		fmt.Fprintf(e.stdout, "not checked: receipts signed by %s, whose org keys this gateway no longer holds (check them with moltgate receipt verify and the peer documents)\n",
			strings.Join(unknown, ", "))
	}
	return nil
}

// verifyReceipts checks both signatures of every receipt in the ledger,
// kept alone or with its exchange, against the org keys the gateway knows
// (any of an organisation's, since a key may have been handed over since
// the receipt was signed). A receipt that does not hold is an error naming
// its entry; one signed by an organisation whose keys the gateway no
// longer holds (a peer removed) is counted apart, by organisation.
func verifyReceipts(ctx context.Context, l *audit.Ledger, orgKeys map[string][]keys.Ed25519Public) (checked int, unknown []string, err error) {
	missing := map[string]bool{}
	for _, typ := range []string{audit.TypeReceipt, audit.TypeExchange} {
		es, err := l.Entries(ctx, audit.Filter{Type: typ})
		if err != nil {
			return 0, nil, err
		}
		for _, en := range es {
			var ev audit.Event
			if err := json.Unmarshal(en.Event, &ev); err != nil {
				return 0, nil, fmt.Errorf("audit ledger: entry %d.%d: %w", en.Seq, en.Index, err)
			}
			b, err := audit.ReceiptOf(&ev)
			if err == nil {
				var r *receipt.Receipt
				if r, err = receipt.Parse(b); err == nil {
					err = verifyWithAnyKey(r, orgKeys, missing)
				}
			}
			if err != nil {
				return 0, nil, fmt.Errorf("audit ledger: entry %d.%d (%s, request %s): %w", en.Seq, en.Index, ev.Type, ev.Subject, err)
			}
			checked++
		}
	}
	for org := range missing {
		unknown = append(unknown, org)
	}
	sort.Strings(unknown)
	return checked, unknown, nil
}

// verifyWithAnyKey checks each side's proof of r against each key known
// for its organisation until one holds. A side whose organisation has no
// key known is noted in missing, not refused.
func verifyWithAnyKey(r *receipt.Receipt, orgKeys map[string][]keys.Ed25519Public, missing map[string]bool) error {
	for _, side := range []struct {
		org    string
		verify func(receipt.KeyOf, *receipt.Roots) error
	}{{orgOfRef(r.Callee), r.VerifyCallee}, {orgOfRef(r.Caller), r.VerifyCaller}} {
		ks := orgKeys[side.org]
		if len(ks) == 0 {
			missing[side.org] = true
			continue
		}
		var err error
		for _, k := range ks {
			if err = side.verify(func(string) (keys.Ed25519Public, bool) { return k, true }, nil); err == nil {
				break
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func runAuditShow(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "audit show")
	dir := fs.String("dir", "", "gateway directory")
	since := fs.Duration("since", 0, "show entries of the last D only (e.g. 24h)")
	peer := fs.String("peer", "", "show entries about this organisation only")
	asJSON := fs.Bool("json", false, "one CloudEvent per line, as stored")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	d, err := requireDir(*dir)
	if err != nil {
		return err
	}
	if *since < 0 {
		return usagef("--since %v: want a positive duration", *since)
	}
	l, _, done, err := openLedger(ctx, e, d)
	if err != nil {
		return err
	}
	defer done()
	f := audit.Filter{Peer: *peer}
	if *since > 0 {
		f.Since = e.now().Add(-*since)
	}
	es, err := l.Entries(ctx, f)
	if err != nil {
		return err
	}
	if *asJSON {
		for _, en := range es {
			fmt.Fprintf(e.stdout, "%s\n", en.Event)
		}
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SEQ\tTIME\tTYPE\tPEER\tSUMMARY")
	for _, en := range es {
		var ev audit.Event
		if err := json.Unmarshal(en.Event, &ev); err != nil {
			return fmt.Errorf("audit ledger: entry %d: %w", en.Seq, err)
		}
		peer, sum := eventSummary(&ev)
		// An entry is addressed by its link and its place in it.
		fmt.Fprintf(tw, "%d.%d\t%s\t%s\t%s\t%s\n", en.Seq, en.Index, ev.Time.Format(time.RFC3339), strings.TrimPrefix(ev.Type, "dev.moltgate."),
			orDash(peer), sum)
	}
	tw.Flush()
	fmt.Fprintf(e.stdout, "%d entries\n", len(es))
	return nil
}

// eventSummary is the organisation an event is about and one line of what
// it says: a decision's summary; an exchange's decisions, one after the
// other, and its receipt's outcome; a receipt's parties and outcome.
func eventSummary(ev *audit.Event) (peer, line string) {
	switch ev.Type {
	case audit.TypeExchange:
		var x audit.Exchange
		if json.Unmarshal(ev.Data, &x) != nil {
			return "", "(unreadable exchange)"
		}
		var parts []string
		for _, d := range x.Decisions {
			parts = append(parts, summary(d))
		}
		if r, err := receipt.Parse(x.Receipt); err == nil {
			parts = append(parts, "receipt="+outcome(r))
		}
		return x.Peer, strings.Join(parts, "; ")
	case audit.TypeReceipt:
		r, err := receipt.Parse(ev.Data)
		if err != nil {
			return "", "(unreadable receipt)"
		}
		peer := orgOfRef(r.Caller)
		if ev.Source == "moltgate://"+peer {
			peer = orgOfRef(r.Callee)
		}
		return peer, "from=" + r.Caller + " to=" + r.Callee + " outcome=" + outcome(r)
	}
	var dec audit.Decision
	json.Unmarshal(ev.Data, &dec)
	return dec.Peer, summary(dec)
}

// summary is one line of what a decision says: direction, operation,
// parties, code and reason, class, consent and types. Never content.
func summary(d audit.Decision) string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	add("dir", d.Direction)
	add("op", d.Op)
	add("from", d.From)
	add("to", d.To)
	add("cls", d.Class)
	add("code", d.Code)
	add("reason", d.Reason)
	add("consent", d.ConsentID)
	add("types", strings.Join(d.PIITypes, ","))
	if d.NoStorage {
		parts = append(parts, "no_storage")
	}
	return strings.Join(parts, " ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func runReceipt(ctx context.Context, e *env, args []string) error {
	return runSubcommand(e, "receipt", args, true,
		subcommand{"verify", func(args []string) error { return runReceiptVerify(e, args) }},
	)
}

// peerDocs collects --peer-doc FILE, repeated.
type peerDocs []string

func (p *peerDocs) String() string     { return strings.Join(*p, ",") }
func (p *peerDocs) Set(s string) error { *p = append(*p, s); return nil }

func runReceiptVerify(e *env, args []string) error {
	fs := newFlags(e, "receipt verify")
	var docs peerDocs
	fs.Var(&docs, "peer-doc", "the peer document (moltgate peer export) of an organisation of the exchange; give both")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if len(docs) == 0 {
		return usagef("--peer-doc is required: give the peer documents of both organisations of the exchange")
	}
	orgKeys := map[string]keys.Ed25519Public{}
	for _, path := range docs {
		b, err := os.ReadFile(path)
		if err != nil {
			return usagef("--peer-doc: %v", err)
		}
		doc, err := gateway.ParsePeerDoc(b)
		if err != nil {
			return fmt.Errorf("--peer-doc %s: %w", path, err)
		}
		orgKeys[doc.Org] = doc.OrgKey
	}
	b, err := readInput(e, 1<<16)
	if err != nil {
		return err
	}
	if b, err = receiptIn(b); err != nil {
		return err
	}
	r, err := receipt.Parse(b)
	if err != nil {
		return err
	}
	if err := r.Verify(func(org string) (keys.Ed25519Public, bool) { k, ok := orgKeys[org]; return k, ok }); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "receipt verified: %s called %s (request %s), outcome %s; signed by %s's org key and countersigned by %s's\n",
		r.Caller, r.Callee, r.RequestID, outcome(r), orgOfRef(r.Callee), orgOfRef(r.Caller))
	return nil
}

// receiptIn is the receipt in what was given: a receipt, or a ledger's
// event that holds one (a line of audit show --json).
func receiptIn(b []byte) ([]byte, error) {
	var probe struct {
		SpecVersion string `json:"specversion"`
	}
	if json.Unmarshal(b, &probe) != nil || probe.SpecVersion == "" {
		return b, nil // a receipt, or what receipt.Parse names as wrong
	}
	var ev audit.Event
	if err := json.Unmarshal(b, &ev); err != nil {
		return nil, fmt.Errorf("receipt verify: the event given: %w", err)
	}
	rc, err := audit.ReceiptOf(&ev)
	if err != nil {
		return nil, fmt.Errorf("receipt verify: %w", err)
	}
	if rc == nil {
		return nil, usagef("receipt verify: the event given is a %s, which holds no receipt: give a receipt, or a %s or %s event", ev.Type, audit.TypeReceipt, audit.TypeExchange)
	}
	return rc, nil
}

func outcome(r *receipt.Receipt) string {
	if r.Code != "" {
		return r.Outcome + " " + r.Code
	}
	return r.Outcome
}

func orgOfRef(ref string) string {
	_, org, _ := strings.Cut(ref, "@")
	return org
}
