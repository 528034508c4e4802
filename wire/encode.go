package wire

import (
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// ValueOf converts a Go value to a JSON tree. It follows encoding/json's
// conventions for struct tags (name, omitempty, omitzero, "-"), takes Value,
// json.RawMessage and json.Number as JSON, and encoding.TextMarshaler as a
// string. It refuses strings that are not valid UTF-8 and floats that are
// not finite, which have no canonical form.
func ValueOf(x any) (Value, error) {
	if x == nil {
		return NullValue(), nil
	}
	return valueOf(reflect.ValueOf(x), "")
}

var (
	valueType     = reflect.TypeFor[Value]()
	rawType       = reflect.TypeFor[json.RawMessage]()
	numberType    = reflect.TypeFor[json.Number]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

func valueOf(rv reflect.Value, path string) (Value, error) {
	if !rv.IsValid() {
		return NullValue(), nil
	}
	t := rv.Type()
	switch t {
	case valueType:
		v := rv.Interface().(Value)
		if v.kind == Absent {
			return NullValue(), nil
		}
		return v, nil
	case rawType:
		v, err := Parse(rv.Bytes(), 0)
		if err != nil {
			return Value{}, err.(*Error).prefixField(path)
		}
		return v, nil
	case numberType:
		s := rv.String()
		v, err := Parse([]byte(s), 1)
		if err != nil || v.kind != Number {
			return Value{}, Errorf(ErrInvalidParam, path, "invalid number")
		}
		return v, nil
	}
	if t.Kind() != reflect.Pointer && t.Implements(textMarshaler) {
		b, err := rv.Interface().(encoding.TextMarshaler).MarshalText()
		if err != nil {
			return Value{}, Errorf(ErrInvalidParam, path, "%v", err)
		}
		return stringValue(string(b), path)
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return NullValue(), nil
		}
		return valueOf(rv.Elem(), path)
	case reflect.String:
		return stringValue(rv.String(), path)
	case reflect.Bool:
		return BoolValue(rv.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return Value{kind: Number, s: strconv.FormatInt(rv.Int(), 10)}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return Value{kind: Number, s: strconv.FormatUint(rv.Uint(), 10)}, nil
	case reflect.Float32, reflect.Float64:
		f := rv.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return Value{}, Errorf(ErrInvalidParam, path, "number is not finite")
		}
		return Value{kind: Number, s: string(AppendES6Float(nil, f))}, nil
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && rv.IsNil() {
			return NullValue(), nil
		}
		items := make([]Member, rv.Len())
		for i := range items {
			v, err := valueOf(rv.Index(i), IndexPath(path, i))
			if err != nil {
				return Value{}, err
			}
			items[i].Value = v
		}
		return Value{kind: Array, items: items}, nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return Value{}, Errorf(ErrSchema, path, "map keys must be strings")
		}
		if rv.IsNil() {
			return NullValue(), nil
		}
		items := make([]Member, 0, rv.Len())
		it := rv.MapRange()
		for it.Next() {
			k := it.Key().String()
			if !utf8.ValidString(k) {
				return Value{}, Errorf(ErrInvalidParam, path, "key is not valid UTF-8")
			}
			v, err := valueOf(it.Value(), JoinPath(path, k))
			if err != nil {
				return Value{}, err
			}
			items = append(items, Member{k, v})
		}
		return Value{kind: Object, items: items}, nil
	case reflect.Struct:
		fields := structFields(t)
		items := make([]Member, 0, len(fields))
		for _, f := range fields {
			fv := rv.Field(f.index)
			if f.omitEmpty && isEmpty(fv) || f.omitZero && fv.IsZero() {
				continue
			}
			if fv.Type() == valueType && fv.Interface().(Value).kind == Absent {
				continue
			}
			v, err := valueOf(fv, JoinPath(path, f.name))
			if err != nil {
				return Value{}, err
			}
			items = append(items, Member{f.name, v})
		}
		return Value{kind: Object, items: items}, nil
	}
	return Value{}, Errorf(ErrSchema, path, "cannot encode Go type %s", t)
}

func stringValue(s, path string) (Value, error) {
	if !utf8.ValidString(s) {
		return Value{}, Errorf(ErrInvalidParam, path, "string is not valid UTF-8")
	}
	return Value{kind: String, s: s}, nil
}

func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

type fieldInfo struct {
	name      string
	index     int
	omitEmpty bool
	omitZero  bool
	required  bool
}

// fieldCache memoises struct layouts, as encoding/json does; it holds no
// state beyond what the types themselves determine.
var fieldCache sync.Map // reflect.Type -> []fieldInfo

func structFields(t reflect.Type) []fieldInfo {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]fieldInfo)
	}
	var fields []fieldInfo
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		f := fieldInfo{name: name, index: i}
		for _, o := range strings.Split(opts, ",") {
			f.omitEmpty = f.omitEmpty || o == "omitempty"
			f.omitZero = f.omitZero || o == "omitzero"
		}
		v := sf.Tag.Get("validate")
		f.required = v == "required" || strings.HasPrefix(v, "required,")
		fields = append(fields, f)
	}
	fieldCache.Store(t, fields)
	return fields
}

// build makes the tree of a message from its fields.
func (m *Message) build() (Value, error) {
	// Sized to what the message has (v, id, ts, op, from, to, p and cls,
	// then the optional fields): a message is built for every one sent.
	n := 8 + len(m.Extra)
	for _, has := range [...]bool{m.Re != "", m.Exp != 0, m.Cap != nil, m.Ext.kind != Absent, m.PIIMeta != nil} {
		if has {
			n++
		}
	}
	items := make([]Member, 0, n)
	add := func(k string, v Value) { items = append(items, Member{k, v}) }
	add("v", StringValue(m.V))
	add("id", StringValue(m.ID))
	add("ts", IntValue(m.TS))
	add("op", StringValue(string(m.Op)))
	from := make([]Member, 2, 4)
	from[0], from[1] = Member{"agent", StringValue(m.From.Agent)}, Member{"org", StringValue(m.From.Org)}
	if !m.From.Key.IsZero() {
		from = append(from, Member{"key", StringValue(m.From.Key.String())})
	}
	if !m.From.EncKey.IsZero() {
		from = append(from, Member{"enc_key", StringValue(m.From.EncKey.String())})
	}
	add("from", ObjectValue(from...))
	add("to", ObjectValue(Member{"agent", StringValue(m.To.Agent)}, Member{"org", StringValue(m.To.Org)}))
	if fp, ok := m.Payload.(fastPayload); ok && !isNilPayload(m.Payload) {
		members, err := fp.appendMembers(make([]Member, 0, 8), "p")
		if err != nil {
			return Value{}, err
		}
		add("p", Value{kind: Object, items: members})
	} else if m.Payload == nil {
		add("p", ObjectValue())
	} else {
		p, err := valueOf(reflect.ValueOf(m.Payload), "p")
		if err != nil {
			return Value{}, err
		}
		if p.kind != Object {
			return Value{}, Errorf(ErrSchema, "p", "payload must be an object")
		}
		add("p", p)
	}
	if m.Cls.Valid() {
		add("cls", StringValue(m.Cls.String()))
	} else {
		return Value{}, Errorf(ErrInvalidParam, "cls", "invalid classification")
	}
	if m.Re != "" {
		add("re", StringValue(m.Re))
	}
	if m.Exp != 0 {
		add("exp", IntValue(m.Exp))
	}
	if m.Cap != nil {
		caps := make([]Value, len(m.Cap))
		for i, c := range m.Cap {
			caps[i] = StringValue(c)
		}
		add("cap", ArrayValue(caps...))
	}
	if m.Ext.kind != Absent {
		add("ext", m.Ext)
	}
	if m.PIIMeta != nil {
		v, err := valueOf(reflect.ValueOf(m.PIIMeta), "pii_meta")
		if err != nil {
			return Value{}, err
		}
		add("pii_meta", v)
	}
	for _, x := range m.Extra {
		if isMessageKey(x.Key) {
			return Value{}, Errorf(ErrSchema, JoinPath("", x.Key), "extra member shadows a message field")
		}
		items = append(items, x)
	}
	return Value{kind: Object, items: items}, nil
}

func isMessageKey(k string) bool {
	switch k {
	case "v", "id", "ts", "op", "from", "to", "p", "cls", "sig", "re", "exp", "cap", "ext", "pii_meta":
		return true
	}
	return false
}
