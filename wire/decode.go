package wire

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/go-playground/validator/v10"
	"github.com/moltgate/moltgate/keys"
)

// Limits bounds what a Codec accepts. The zero value of a field means its
// default.
type Limits struct {
	// MaxMessage bounds one message in bytes. Default 1 MiB.
	MaxMessage int
	// MaxBatch bounds a batch request in bytes. Default 10 MiB.
	MaxBatch int
	// MaxChunk bounds one stream chunk's data in bytes. Default 64 KiB.
	MaxChunk int
	// MaxSession bounds the bytes carried by one session. Default 100 MiB.
	MaxSession int64
	// MaxDepth bounds nesting; the message object is depth 1. Default 64.
	MaxDepth int
}

// DefaultLimits returns the protocol's default limits.
func DefaultLimits() Limits {
	return Limits{MaxMessage: 1 << 20, MaxBatch: 10 << 20, MaxChunk: 64 << 10, MaxSession: 100 << 20, MaxDepth: MaxDepth}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxMessage <= 0 {
		l.MaxMessage = d.MaxMessage
	}
	if l.MaxBatch <= 0 {
		l.MaxBatch = d.MaxBatch
	}
	if l.MaxChunk <= 0 {
		l.MaxChunk = d.MaxChunk
	}
	if l.MaxSession <= 0 {
		l.MaxSession = d.MaxSession
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = d.MaxDepth
	}
	return l
}

// Timestamps (ts, exp) are unix milliseconds in [MinTimestamp, MaxTimestamp):
// from 2001-09-09 to 2286-11-20. A smaller value is almost always seconds
// sent where milliseconds are due, and is refused as such.
const (
	MinTimestamp int64 = 1_000_000_000_000
	MaxTimestamp int64 = 10_000_000_000_000
)

// Codec decodes and encodes messages under a set of limits. It is safe for
// concurrent use; make one and share it.
type Codec struct {
	limits   Limits
	validate *validator.Validate
}

// NewCodec makes a Codec. Zero fields of limits take their defaults.
func NewCodec(limits Limits) *Codec {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		return name
	})
	must := func(err error) {
		if err != nil {
			panic(err) // only on a programming error in the tags below
		}
	}
	must(v.RegisterValidation("name", func(fl validator.FieldLevel) bool { return ValidName(fl.Field().String()) }))
	must(v.RegisterValidation("capability", func(fl validator.FieldLevel) bool { return ValidCapability(fl.Field().String()) }))
	return &Codec{limits: limits.withDefaults(), validate: v}
}

// Limits returns the codec's limits, defaults filled in.
func (c *Codec) Limits() Limits { return c.limits }

// Decode parses and checks one message. The returned message is read-only;
// its Raw bytes are a copy of b.
func (c *Codec) Decode(b []byte) (*Message, error) {
	if len(b) > c.limits.MaxMessage {
		return nil, Errorf(ErrTooLarge, "", "message of %d bytes exceeds the limit of %d", len(b), c.limits.MaxMessage)
	}
	t, info, perr := parse(b, c.limits.MaxDepth)
	if perr != nil {
		return nil, perr
	}
	m, err := c.decodeTree(t, nil)
	if err != nil {
		return nil, err
	}
	m.setRaw(info)
	return m, nil
}

// setRaw attaches the parsed input to a decoded message.
func (m *Message) setRaw(info parseInfo) {
	m.raw = info.own
	m.canon = info.canonical
	m.sigStart, m.sigEnd = info.sigStart, info.sigEnd
}

// DecodeTree checks a parsed message object, such as the "message" member
// of an envelope.
func (c *Codec) DecodeTree(t Value) (*Message, error) {
	m, err := c.decodeTree(t, nil)
	if err != nil {
		return nil, err
	}
	return m, nil // err is a *Error: never return it when nil
}

// Encode checks a message built by hand exactly as Decode would check it on
// the other side, then returns its wire bytes (canonical, with "sig" if
// set).
func (c *Codec) Encode(m *Message) ([]byte, error) {
	if err := c.Check(m); err != nil {
		return nil, err
	}
	return m.AppendWire(nil)
}

// Check validates a message built by hand as Decode would, and fills in
// its typed fields as Decode would. It is a no-op for a decoded message.
func (c *Codec) Check(m *Message) error {
	if m.decoded {
		return nil
	}
	t, err := m.build()
	if err != nil {
		return err
	}
	if m.fresh && t.Equal(m.tree) {
		// Checked already, and the fields give the same message: the
		// check would come to the same answer.
		return nil
	}
	if m.Payload != nil {
		if want := newPayload(m.Op); want == nil || reflect.TypeOf(want) != reflect.TypeOf(m.Payload) {
			return Errorf(ErrSchema, "p", "payload type %T does not match op %q", m.Payload, m.Op)
		}
	}
	checked, derr := c.decodeTree(t, m.Payload)
	if derr != nil {
		return derr
	}
	sig, digest := m.Sig, m.SignedDigest
	*m = *checked
	// It stays a message built by hand: its fields may change again and
	// it may be signed. The tree just checked serves the next SignWith.
	m.decoded = false
	m.fresh = true
	m.Sig, m.SignedDigest = sig, digest
	return nil
}

// CheckTree is Check, returning the tree of the message it checked: the
// one SignWith signs next, unless a field changes (then Check again).
func (c *Codec) CheckTree(m *Message) (Value, error) {
	if err := c.Check(m); err != nil {
		return Value{}, err
	}
	return m.tree, nil
}

// ValidateStruct runs the validate tags of a struct (or pointer to one) and
// reports the first failure as an *Error whose field is below prefix.
func (c *Codec) ValidateStruct(s any, prefix string) error {
	if err := c.validate.Struct(s); err != nil {
		return validationError(err, prefix)
	}
	return nil
}

func validationError(err error, prefix string) *Error {
	verrs, ok := err.(validator.ValidationErrors)
	if !ok || len(verrs) == 0 {
		return &Error{Code: ErrSchema, Field: prefix, Message: "invalid value", Err: err}
	}
	fe := verrs[0]
	path := fe.Namespace()
	if _, rest, ok := strings.Cut(path, "."); ok {
		path = rest
	} else {
		path = ""
	}
	if prefix != "" {
		if path == "" {
			path = prefix
		} else if path[0] == '[' {
			path = prefix + path
		} else {
			path = prefix + "." + path
		}
	}
	return ruleError(path, fe.Tag(), fe.Param())
}

// ruleError is the error for the field at path that broke a validate tag
// (with its param): from the validator's report, or from a payload that
// checks itself (fastpayload.go).
func ruleError(path, tag, param string) *Error {
	e := &Error{Code: ErrInvalidParam, Field: path}
	switch tag {
	case "required":
		e.Message = "must not be empty"
	case "required_if":
		e.Code = ErrMissingField
		e.Message = "required field missing"
	case "oneof":
		e.Message = "must be one of: " + strings.ReplaceAll(param, " ", ", ")
	case "min":
		e.Message = "too short (minimum " + param + ")"
	case "max":
		e.Message = "too long (maximum " + param + ")"
	case "gte", "gt":
		e.Message = "too small (minimum " + param + ")"
	case "lte", "lt":
		e.Message = "too large (maximum " + param + ")"
	case "name":
		e.Message = "must match [A-Za-z0-9_-]{1,128}"
	case "capability":
		e.Message = "not a capability name (dot-separated [A-Za-z0-9_-] labels, at most 128 bytes)"
	default:
		e.Message = "fails rule " + tag
	}
	return e
}

// ValidCapability reports whether s is a capability name: dot-separated
// labels of [A-Za-z0-9_-], at most 128 bytes, such as "translate.text".
func ValidCapability(s string) bool {
	if len(s) == 0 || len(s) > 128 || s[0] == '.' || s[len(s)-1] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.':
			if s[i-1] == '.' {
				return false
			}
		case c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return true
}

// ValidID reports whether s is a lower-case UUID version 4, as message ids
// must be.
func ValidID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
				return false
			}
		}
	}
	return s[14] == '4' && (s[19] == '8' || s[19] == '9' || s[19] == 'a' || s[19] == 'b')
}

const (
	fV = 1 << iota
	fID
	fTS
	fOp
	fFrom
	fTo
	fP
	fCls
)

// decodeTree checks message object t. If local is not nil it is the typed
// payload the caller built; it is validated instead of binding "p" again.
func (c *Codec) decodeTree(t Value, local any) (*Message, *Error) {
	if t.kind != Object {
		return nil, Errorf(ErrSchema, "", "message must be a JSON object, got %s", t.kind)
	}
	m := &Message{tree: t, decoded: true}
	// The version decides how to read the rest, so it is checked first.
	switch v := t.Get("v"); v.kind {
	case Absent:
		return nil, Errorf(ErrMissingField, "v", "required field missing")
	case String:
		if v.s != Version {
			return nil, Errorf(ErrVersion, "v", "version not supported (this gateway speaks %s)", Version).
				WithSuggestion(Suggestion{Action: ActionUpgrade})
		}
		m.V = v.s
	default:
		return nil, typeErr("v", "string", v.kind)
	}
	var have uint
	var p Value
	for i := range t.items {
		mem := &t.items[i]
		v := mem.Value
		switch mem.Key {
		case "v":
			have |= fV
		case "id":
			s, ok := v.Str()
			if !ok {
				return nil, typeErr("id", "string", v.kind)
			}
			if !ValidID(s) {
				return nil, Errorf(ErrInvalidParam, "id", "must be a lower-case UUID v4")
			}
			m.ID = s
			have |= fID
		case "ts":
			n, err := timestamp(v, "ts")
			if err != nil {
				return nil, err
			}
			m.TS = n
			have |= fTS
		case "op":
			s, ok := v.Str()
			if !ok {
				return nil, typeErr("op", "string", v.kind)
			}
			if !Op(s).Known() {
				return nil, Errorf(ErrInvalidParam, "op", "unknown operation")
			}
			m.Op = Op(s)
			have |= fOp
		case "from":
			if err := decodeSender(v, &m.From); err != nil {
				return nil, err
			}
			have |= fFrom
		case "to":
			if err := decodeRef(v, &m.To, "to"); err != nil {
				return nil, err
			}
			have |= fTo
		case "p":
			if v.kind != Object {
				return nil, typeErr("p", "object", v.kind)
			}
			p = v
			have |= fP
		case "cls":
			s, ok := v.Str()
			if !ok {
				return nil, typeErr("cls", "string", v.kind)
			}
			cls, ok := ParseClass(s)
			if !ok {
				return nil, Errorf(ErrInvalidParam, "cls", "unknown classification (want pub, int, conf, pii or sec)")
			}
			m.Cls = cls
			have |= fCls
		case "sig":
			s, ok := v.Str()
			if !ok {
				return nil, typeErr("sig", "string", v.kind)
			}
			sig, err := keys.ParseSignature(s)
			if err != nil {
				return nil, &Error{Code: ErrInvalidParam, Field: "sig", Message: "malformed signature: " + err.(*keys.ParseError).Err.Error()}
			}
			m.Sig = sig
		case "re":
			s, ok := v.Str()
			if !ok {
				return nil, typeErr("re", "string", v.kind)
			}
			if !ValidID(s) {
				return nil, Errorf(ErrInvalidParam, "re", "must be a lower-case UUID v4")
			}
			m.Re = s
		case "exp":
			n, err := timestamp(v, "exp")
			if err != nil {
				return nil, err
			}
			m.Exp = n
		case "cap":
			if v.kind != Array {
				return nil, typeErr("cap", "array", v.kind)
			}
			if len(v.items) > 64 {
				return nil, Errorf(ErrInvalidParam, "cap", "too many capabilities (maximum 64)")
			}
			m.Cap = make([]string, len(v.items))
			for j := range v.items {
				s, ok := v.items[j].Value.Str()
				if !ok {
					return nil, typeErr(IndexPath("cap", j), "string", v.items[j].Value.kind)
				}
				if !ValidCapability(s) {
					return nil, Errorf(ErrInvalidParam, IndexPath("cap", j), "not a capability name")
				}
				m.Cap[j] = s
			}
		case "ext":
			if err := checkExt(v); err != nil {
				return nil, err
			}
			m.Ext = v
		case "pii_meta":
			pm := new(PIIMeta)
			if err := bind(v, reflect.ValueOf(pm).Elem(), "pii_meta"); err != nil {
				return nil, err
			}
			if err := c.validate.Struct(pm); err != nil {
				return nil, validationError(err, "pii_meta")
			}
			m.PIIMeta = pm
		default:
			m.Extra = append(m.Extra, *mem)
		}
	}
	for _, f := range [...]struct {
		bit  uint
		name string
	}{{fID, "id"}, {fTS, "ts"}, {fOp, "op"}, {fFrom, "from"}, {fTo, "to"}, {fP, "p"}, {fCls, "cls"}} {
		if have&f.bit == 0 {
			return nil, Errorf(ErrMissingField, f.name, "required field missing")
		}
	}
	if m.Cls == PII && m.PIIMeta == nil {
		return nil, Errorf(ErrMissingField, "pii_meta", "required when cls is pii")
	}
	if m.Exp != 0 && m.Exp < m.TS {
		return nil, Errorf(ErrInvalidParam, "exp", "expires before it was sent")
	}
	payload := local
	if payload == nil {
		payload = newPayload(m.Op)
		if fp, ok := payload.(fastPayload); ok {
			if err := fp.bindFrom(p, "p"); err != nil {
				return nil, err
			}
		} else if err := bind(p, reflect.ValueOf(payload).Elem(), "p"); err != nil {
			return nil, err
		}
	}
	if fp, ok := payload.(fastPayload); ok && !isNilPayload(payload) {
		if err := fp.check("p"); err != nil {
			return nil, err
		}
	} else if err := c.validate.Struct(payload); err != nil {
		return nil, validationError(err, "p")
	}
	m.Payload = payload
	if sp, ok := payload.(*StreamPayload); ok && sp.Action == "chunk" {
		if n := ContentSize(sp.Data); n > c.limits.MaxChunk {
			return nil, Errorf(ErrTooLarge, "p.data", "stream chunk of %d bytes exceeds the limit of %d", n, c.limits.MaxChunk)
		}
	}
	return m, nil
}

// ContentSize is what a stream chunk's data weighs against Limits.MaxChunk:
// the bytes of a string, or of every string, key and number of a JSON
// value (its punctuation aside). It allocates nothing.
func ContentSize(v Value) int {
	switch v.kind {
	case String, Number:
		return len(v.s)
	case Object, Array:
		n := 0
		for i := range v.items {
			n += len(v.items[i].Key) + ContentSize(v.items[i].Value)
		}
		return n
	}
	return 0
}

func timestamp(v Value, field string) (int64, *Error) {
	if v.kind != Number || !isIntLiteral(v.s) {
		return 0, typeErr(field, "integer", v.kind)
	}
	n, err := strconv.ParseInt(v.s, 10, 64)
	if err != nil || n < MinTimestamp || n >= MaxTimestamp {
		if err == nil && n > 0 && n < MinTimestamp/100 {
			return 0, Errorf(ErrInvalidParam, field, "looks like seconds: timestamps are unix milliseconds")
		}
		return 0, Errorf(ErrInvalidParam, field, "timestamp out of range (unix milliseconds between 2001 and 2286)")
	}
	return n, nil
}

func decodeRef(v Value, r *Ref, path string) *Error {
	if v.kind != Object {
		return typeErr(path, "object", v.kind)
	}
	var ok bool
	for _, f := range [...]struct {
		key string
		dst *string
	}{{"agent", &r.Agent}, {"org", &r.Org}} {
		fv := v.Get(f.key)
		if fv.kind == Absent {
			return Errorf(ErrMissingField, path+"."+f.key, "required field missing")
		}
		if *f.dst, ok = fv.Str(); !ok {
			return typeErr(path+"."+f.key, "string", fv.kind)
		}
		if !ValidName(*f.dst) {
			return Errorf(ErrInvalidParam, path+"."+f.key, "must match [A-Za-z0-9_-]{1,128}")
		}
	}
	return nil
}

func decodeSender(v Value, s *Sender) *Error {
	var r Ref
	if err := decodeRef(v, &r, "from"); err != nil {
		return err
	}
	s.Agent, s.Org = r.Agent, r.Org
	if kv := v.Get("key"); kv.kind != Absent {
		str, ok := kv.Str()
		if !ok {
			return typeErr("from.key", "string", kv.kind)
		}
		k, err := keys.ParseEd25519Public(str)
		if err != nil {
			return &Error{Code: ErrInvalidParam, Field: "from.key", Message: "malformed ed25519 key: " + err.(*keys.ParseError).Err.Error()}
		}
		s.Key = k
	}
	if kv := v.Get("enc_key"); kv.kind != Absent {
		str, ok := kv.Str()
		if !ok {
			return typeErr("from.enc_key", "string", kv.kind)
		}
		k, err := keys.ParseX25519Public(str)
		if err != nil {
			return &Error{Code: ErrInvalidParam, Field: "from.enc_key", Message: "malformed x25519 key: " + err.(*keys.ParseError).Err.Error()}
		}
		s.EncKey = k
	}
	return nil
}

// checkExt enforces the extension rules: an object whose members are
// namespaced "{org}.{extension}" and hold objects.
func checkExt(v Value) *Error {
	if v.kind != Object {
		return typeErr("ext", "object", v.kind)
	}
	for _, m := range v.items {
		ns, ext, ok := strings.Cut(m.Key, ".")
		if !ok || !ValidName(ns) || !ValidCapability(ext) {
			return Errorf(ErrInvalidParam, JoinPath("ext", m.Key), "extension names are namespaced: {org}.{extension}")
		}
		if m.Value.kind != Object {
			return typeErr(JoinPath("ext", m.Key), "object", m.Value.kind)
		}
	}
	return nil
}
