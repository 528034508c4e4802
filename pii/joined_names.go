package pii

// namesSay is the kind of key the member names of a joined view's parts give the whole: the
// kind all of them share ({"ssn_area":..,"ssn_group":..}, {"secret_1":..,"secret_2":..}). Where
// one names a secret and the others name other things ({"client_secret":"changeme",
// "region":"eu-west-1"}, or the same as pairs of a form's fields) the names say nothing of the
// whole: the other members are not pieces of the secret, and read with it they look like one.
func (x *scanCtx) namesSay(parts []jpart) keyKind {
	kind := x.keyOf(parts[0].key)
	if kind == keyNone {
		return keyNone
	}
	for _, p := range parts[1:] {
		if x.keyOf(p.key) != kind {
			return keyNone
		}
	}
	return kind
}
