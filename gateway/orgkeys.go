package gateway

import (
	"strings"

	"github.com/moltgate/moltgate/handover"
	"github.com/moltgate/moltgate/keys"
)

// OrgKeys is every org key the gateway in d knows for each organisation,
// to check what was signed in the past (the receipts in its ledger): its
// own org key and those its handover statements hand over from, and each
// imported peer's pinned key, the key a handover replaced if the pin still
// holds it, and the key it hands over to next, if any. passphrase opens the
// org key if it is encrypted.
func OrgKeys(d Dir, passphrase []byte) (map[string][]keys.Ed25519Public, error) {
	org, err := LoadOrg(d, passphrase)
	if err != nil {
		return nil, err
	}
	out := map[string][]keys.Ed25519Public{}
	add := func(name string, k keys.Ed25519Public) {
		if k.IsZero() {
			return
		}
		for _, have := range out[name] {
			if have.Equal(k) {
				return
			}
		}
		out[name] = append(out[name], k)
	}
	own := org.Ref.Org
	add(own, org.Signing.Public())
	set, err := handover.LoadFile(d.HandoversPath())
	if err != nil {
		return nil, &ConfigError{Key: "handovers.json", Msg: err.Error(), Err: err}
	}
	for _, st := range set.Handovers {
		if st.Kind != handover.KindOrgKey {
			continue
		}
		for _, s := range []string{st.Old, st.New} {
			if k, err := keys.ParseEd25519Public(s); err == nil {
				add(own, k)
			}
		}
	}
	pins, err := openPins(d)
	if err != nil {
		return nil, err
	}
	for _, p := range pins.All() {
		if p.Name == own || strings.Contains(p.Name, "@") {
			continue // this organisation, or an agent's pin
		}
		add(p.Name, p.Key)
		if p.Previous != nil {
			add(p.Name, p.Previous.Key)
		}
		if p.Next != nil {
			add(p.Name, p.Next.Key)
		}
	}
	return out, nil
}
