package gateway

import (
	"errors"
	"fmt"
	"time"

	"github.com/moltgate/moltgate/handover"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// exportHandovers is the value of a peer document's handovers member: the
// organisation's own statements, absent when it has none.
func exportHandovers(d Dir) (wire.Value, error) {
	set, err := handover.LoadFile(d.HandoversPath())
	if err != nil {
		return wire.Value{}, &ConfigError{Key: "handovers.json", Msg: err.Error(), Err: err}
	}
	if len(set.Handovers) == 0 {
		return wire.Value{}, nil
	}
	return wire.ValueOf(set.Handovers)
}

// docHandovers is the statements a peer document carries, each read
// strictly and of the document's organisation; their signatures are
// checked against the key pinned when they are followed. nil when it
// carries none.
func docHandovers(doc *PeerDoc) ([]*handover.Statement, error) {
	if doc.Handovers.IsAbsent() {
		return nil, nil
	}
	if doc.Handovers.Kind() != wire.Array {
		return nil, wire.Errorf(wire.ErrInvalidParam, "handovers", "peer document: handovers is an array of handover statements")
	}
	var out []*handover.Statement
	for i := range doc.Handovers.Len() {
		st, err := handover.Parse(wire.AppendCanonical(nil, doc.Handovers.Index(i)))
		if err == nil && st.Org != doc.Org {
			err = fmt.Errorf("a statement of %s in the document of %s", st.Org, doc.Org)
		}
		if err != nil {
			return nil, wire.Errorf(wire.ErrInvalidParam, fmt.Sprintf("handovers[%d]", i), "peer document: %v", err)
		}
		out = append(out, st)
	}
	return out, nil
}

// followHandovers moves the pin of org on along the org key statements
// sts, oldest first, each verified against the key the pin holds when it
// is reached, as a serving gateway does with a peer's statements. It
// reports whether any was taken. A statement whose signatures do not hold
// under the key it hands from is refused.
func followHandovers(pins *keys.PinStore, org string, sts []*handover.Statement) (bool, error) {
	took := false
	for i, st := range sts {
		if st.Kind != handover.KindOrgKey {
			continue
		}
		pin, ok := pins.Lookup(org)
		if !ok {
			return took, nil
		}
		from := pin.Key
		if pin.Next != nil && pin.Next.Key.String() == st.Old {
			from = pin.Next.Key
		}
		if from.String() != st.Old {
			continue // a step of the chain before the key held
		}
		if err := st.Verify(from); err != nil {
			var he *handover.Error
			field := fmt.Sprintf("handovers[%d]", i)
			if errors.As(err, &he) {
				field += "." + he.Field
			}
			return took, wire.Errorf(wire.ErrSignature, field, "peer document: %v", err)
		}
		to, _ := keys.ParseEd25519Public(st.New)
		enc, _ := keys.ParseX25519Public(st.NewEncKey)
		ok, err := pins.Handover(org, from, to, enc, time.UnixMilli(st.Effective), time.UnixMilli(st.Effective+st.OverlapMS))
		if err != nil {
			return took, fmt.Errorf("peer import: %w", err)
		}
		took = took || ok
	}
	return took, nil
}
