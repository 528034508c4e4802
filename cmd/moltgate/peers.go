package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/peerstatus"
)

// statusFresh is how old the serving gateway's status file may be before
// peer list says it is not serving: it is written at least every half
// minute.
const statusFresh = 90 * time.Second

// peerRow is one peer as peer list shows it.
type peerRow struct {
	Org         string `json:"org"`
	Fingerprint string `json:"fingerprint"`
	OrgKey      string `json:"org_key"`
	Endpoint    string `json:"endpoint"`
	GRPC        string `json:"grpc"`
	MaxCls      string `json:"max_cls"`
	// LastContact, Sessions and RevocationSerial come from the serving
	// gateway; absent when none is serving.
	LastContact      *time.Time `json:"last_contact,omitempty"`
	Sessions         *int       `json:"sessions,omitempty"`
	RevocationSerial *int64     `json:"revocation_serial,omitempty"`
}

func runPeerList(e *env, args []string) error {
	fs := newFlags(e, "peer list")
	dir := fs.String("dir", "", "gateway directory")
	asJSON := fs.Bool("json", false, "print one JSON object with the peers")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	d, err := requireDir(*dir)
	if err != nil {
		return err
	}
	cfg, err := d.ReadConfig()
	if err != nil {
		return err
	}
	peers, err := gateway.LoadPeers(d, cfg.Org)
	if err != nil {
		return err
	}
	st, err := peerstatus.Read(filepath.Join(d.DataDir(), peerstatus.FileName))
	if err != nil {
		return err
	}
	serving := st != nil && e.now().Sub(st.Written) < statusFresh
	rows := make([]peerRow, 0, len(peers))
	for _, p := range peers {
		r := peerRow{Org: p.Org, Fingerprint: p.OrgKey.Fingerprint(), OrgKey: p.OrgKey.String(), Endpoint: p.Endpoint, GRPC: p.GRPC, MaxCls: p.MaxCls.String()}
		if serving {
			if ps, ok := st.Find(p.Org); ok {
				n, serial := ps.Sessions, ps.RevocationSerial
				r.Sessions, r.RevocationSerial = &n, &serial
				if !ps.LastContact.IsZero() {
					t := ps.LastContact
					r.LastContact = &t
				}
			}
		}
		rows = append(rows, r)
	}
	if *asJSON {
		out := map[string]any{"org": cfg.Org, "serving": serving, "peers": rows}
		if st != nil {
			out["status_written"] = st.Written
		}
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintln(e.stdout, string(b))
		return nil
	}
	if len(rows) == 0 {
		fmt.Fprintf(e.stdout, "%s trusts no peer yet (moltgate peer import --dir %s < partner.json)\n", cfg.Org, *dir)
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ORG\tFINGERPRINT\tENDPOINT\tGRPC\tCEILING\tLAST CONTACT\tSESSIONS\tREVOCATIONS")
	for _, r := range rows {
		contact, sessions, serial := "-", "-", "-"
		if r.Sessions != nil {
			contact, sessions, serial = "never", strconv.Itoa(*r.Sessions), "none"
			if r.LastContact != nil {
				contact = e.now().Sub(*r.LastContact).Round(time.Second).String() + " ago"
			}
			if *r.RevocationSerial >= 0 {
				serial = "serial " + strconv.FormatInt(*r.RevocationSerial, 10)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Org, r.Fingerprint, r.Endpoint, r.GRPC, r.MaxCls, contact, sessions, serial)
	}
	tw.Flush()
	if !serving {
		fmt.Fprintln(e.stdout, "No gateway is serving this directory: last contact, sessions and revocation lists are shown while one is.")
	}
	return nil
}

func runPeerRemove(e *env, args []string) error {
	fs := newFlags(e, "peer remove")
	dir := fs.String("dir", "", "gateway directory")
	org := fs.String("org", "", "the peer organisation to stop trusting")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	d, err := requireDir(*dir)
	if err != nil {
		return err
	}
	if *org == "" {
		return usagef("--org is required")
	}
	p, err := gateway.RemovePeer(d, *org)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "No longer trusting %s (org key %s)\n", p.Org, p.OrgKey.Fingerprint())
	fmt.Fprintln(e.stdout, "A running gateway ends its sessions and removes its directory entries within seconds (or at once on SIGHUP).")
	return nil
}

func runAgentRevoke(e *env, verb string, args []string) error {
	fs := newFlags(e, "agent "+verb)
	dir := fs.String("dir", "", "gateway directory")
	id := fs.String("id", "", "agent id")
	reason := "rotated"
	if verb == "revoke" {
		fs.StringVar(&reason, "reason", "revoked", "why, for the peers' operators (kept in the signed list)")
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	d, err := requireDir(*dir)
	if err != nil {
		return err
	}
	if *id == "" {
		return usagef("--id is required")
	}
	pass, err := keys.PassphraseFromEnv(e.getenv)
	if err != nil {
		return err
	}
	r, err := gateway.RevokeAgent(d, gateway.RevokeOptions{ID: *id, Reason: strings.TrimSpace(reason), Passphrase: pass, Now: e.now()})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Revoked key %s of agent %s (revocation list serial %d)\n", r.OldKey, r.Agent, r.Serial)
	fmt.Fprintf(e.stdout, "Agent %s has a new key %s\n", r.Agent, r.NewKey)
	fmt.Fprintln(e.stdout, "A running gateway pushes the list to every peer in a security_alert within seconds, serves it on its registry, and publishes the agent under its new key.")
	return nil
}
