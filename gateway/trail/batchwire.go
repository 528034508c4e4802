package trail

import (
	"encoding/base64"
	"encoding/json"

	"github.com/moltgate/moltgate/merkle"
	"github.com/moltgate/moltgate/receipt"
	"github.com/moltgate/moltgate/wire"
)

// The wire form of a signed batch (ExtReceipts):
//
//	{"receipts": [{"leaf": "…", "prev": "…", "reply_id": "…"}, …],
//	 "root": {"hash": "sha256:…", "org": …, "role": …, "sig": …, "size": …, "ts": …}}
//
// The receipts are the tree's leaves in order: the receiver builds the tree
// from them, checks that its root is the one signed, and takes each
// receipt's path from it, so that no path travels. A leaf is its 32 bytes
// in unpadded base64url. "prev" is only in a callee's batch, and there
// only where the receipt's prev is not the leaf before it in the batch
// (always in the first): the leaf it names, or "" for an organisation's
// first receipt.

// leafText is a leaf's wire form.
func leafText(h *merkle.Hash) wire.Value {
	return wire.StringValue(base64.RawURLEncoding.EncodeToString(h[:]))
}

// parseLeaf reads a leaf's wire form.
func parseLeaf(v wire.Value, field string) (merkle.Hash, error) {
	var h merkle.Hash
	s, ok := v.Str()
	if !ok || base64.RawURLEncoding.EncodedLen(merkle.Size) != len(s) {
		return h, wire.Errorf(wire.ErrInvalidParam, field, "want 32 bytes in unpadded base64url (43 characters)")
	}
	if n, err := base64.RawURLEncoding.Decode(h[:], []byte(s)); err != nil || n != merkle.Size {
		return h, wire.Errorf(wire.ErrInvalidParam, field, "want 32 bytes in unpadded base64url (43 characters)")
	}
	return h, nil
}

// batchValue is the wire form of a batch of items signed under rt.
func batchValue(rt *receipt.Root, items []*held, role string) (wire.Value, error) {
	list := make([]wire.Value, len(items))
	for i, h := range items {
		ms := make([]wire.Member, 0, 3)
		ms = append(ms, wire.Member{Key: "leaf", Value: leafText(&h.leaf)})
		if role == receipt.RoleCallee {
			switch {
			case h.first:
				ms = append(ms, wire.Member{Key: "prev", Value: wire.StringValue("")})
			case i == 0 || h.prev != items[i-1].leaf:
				ms = append(ms, wire.Member{Key: "prev", Value: leafText(&h.prev)})
			}
		}
		ms = append(ms, wire.Member{Key: "reply_id", Value: wire.StringValue(h.rc.ReplyID)})
		list[i] = wire.ObjectValue(ms...)
	}
	root, err := rootValue(rt)
	if err != nil {
		return wire.Value{}, err
	}
	return wire.ObjectValue(wire.Member{Key: "receipts", Value: wire.ArrayValue(list...)}, wire.Member{Key: "root", Value: root}), nil
}

func rootValue(rt *receipt.Root) (wire.Value, error) {
	b, err := json.Marshal(rt)
	if err != nil {
		return wire.Value{}, err
	}
	return wire.Parse(b, 0)
}

// placed is one receipt of a batch that came: its reply, its leaf, its
// prev (callee's batches only, as the body names it) and its proof.
type placed struct {
	replyID string
	leaf    merkle.Hash
	prev    string
	proof   *receipt.Proof
}

// parseBatch reads a batch's wire form: the root, not yet checked, and
// the receipts, whose leaves are the tree of the root's hash and whose
// proofs are taken from it.
func parseBatch(v wire.Value) (*receipt.Root, []placed, error) {
	rt := new(receipt.Root)
	if err := wire.Bind(v.Get("root"), rt, ExtReceipts+".root"); err != nil {
		return nil, nil, err
	}
	list := v.Get("receipts")
	field := ExtReceipts + ".receipts"
	switch {
	case list.Kind() != wire.Array:
		return nil, nil, wire.Errorf(wire.ErrInvalidParam, field, "want an array of receipts")
	case list.Len() > receiptsHeld:
		return nil, nil, wire.Errorf(wire.ErrInvalidParam, field, "%d receipts; at most %d", list.Len(), receiptsHeld)
	case rt.Size != int64(list.Len()):
		return nil, nil, &receipt.Error{Field: ExtReceipts + ".root.size", Reason: "is not the number of receipts sent with it"}
	}
	ps := make([]placed, list.Len())
	leaves := make([]merkle.Hash, len(ps))
	for i := range ps {
		it := list.Index(i)
		f := wire.IndexPath(field, i)
		p := &ps[i]
		var err error
		for _, m := range it.Members() {
			switch m.Key {
			case "leaf":
				p.leaf, err = parseLeaf(m.Value, wire.JoinPath(f, "leaf"))
			case "prev":
				if s, ok := m.Value.Str(); ok && s == "" {
					break
				}
				var h merkle.Hash
				if h, err = parseLeaf(m.Value, wire.JoinPath(f, "prev")); err == nil {
					p.prev = h.String()
				}
			case "reply_id":
				if s, ok := m.Value.Str(); ok && s != "" {
					p.replyID = s
				} else {
					err = wire.Errorf(wire.ErrInvalidParam, wire.JoinPath(f, "reply_id"), "want the id of the reply")
				}
			default:
				err = wire.Errorf(wire.ErrInvalidParam, wire.JoinPath(f, m.Key), "is not a member of a batch's receipt; want leaf, prev and reply_id")
			}
			if err != nil {
				return nil, nil, err
			}
		}
		if it.Kind() != wire.Object || p.replyID == "" || it.Get("leaf").IsAbsent() {
			return nil, nil, wire.Errorf(wire.ErrInvalidParam, f, "want leaf and reply_id")
		}
		hasPrev := !it.Get("prev").IsAbsent()
		switch {
		case rt.Role == receipt.RoleCaller && hasPrev:
			return nil, nil, wire.Errorf(wire.ErrInvalidParam, wire.JoinPath(f, "prev"), "a caller's batch names no prev")
		case rt.Role == receipt.RoleCallee && !hasPrev && i == 0:
			return nil, nil, wire.Errorf(wire.ErrInvalidParam, wire.JoinPath(f, "prev"), "the first receipt of a callee's batch names its prev")
		case rt.Role == receipt.RoleCallee && !hasPrev:
			p.prev = ps[i-1].leaf.String()
		}
		leaves[i] = p.leaf
	}
	if len(leaves) == 0 {
		return nil, nil, wire.Errorf(wire.ErrInvalidParam, field, "a batch has at least one receipt")
	}
	t, err := merkle.New(leaves)
	if err != nil {
		return nil, nil, err
	}
	if t.Root() != rt.Hash {
		return nil, nil, &receipt.Error{Field: ExtReceipts + ".root.hash", Reason: "is not the root of the tree of the leaves sent with it"}
	}
	for i := range ps {
		path, err := t.Path(i)
		if err != nil {
			return nil, nil, err
		}
		ps[i].proof = &receipt.Proof{Index: int64(i), Path: path, Root: *rt}
	}
	return rt, ps, nil
}
