package wire

import (
	"encoding"

	"errors"
	"reflect"
	"strconv"
)

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// Bind fills the Go value that ptr points to from v, following the same
// conventions as ValueOf. A member the Go type does not have is ignored (it
// stays in the tree). A wrong JSON type is E_SCHEMA, a field whose validate
// tag starts with "required" that is absent is E_MISSING_FIELD, and a value
// its type refuses (a malformed key, an integer out of range) is
// E_INVALID_PARAM; each error names the field's path below prefix.
func Bind(v Value, ptr any, prefix string) error {
	rv := reflect.ValueOf(ptr)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return errors.New("wire.Bind: need a non-nil pointer")
	}
	if err := bind(v, rv.Elem(), prefix); err != nil {
		return err
	}
	return nil
}

func typeErr(path string, want string, got Kind) *Error {
	return Errorf(ErrSchema, path, "expected %s, got %s", want, got)
}

func bind(v Value, rv reflect.Value, path string) *Error {
	t := rv.Type()
	switch t {
	case valueType:
		rv.Set(reflect.ValueOf(v))
		return nil
	case rawType:
		rv.SetBytes(AppendCanonical(nil, v))
		return nil
	case numberType:
		if v.kind != Number {
			return typeErr(path, "number", v.kind)
		}
		rv.SetString(v.s)
		return nil
	}
	if t.Kind() == reflect.Pointer {
		if v.kind == Null {
			rv.SetZero()
			return nil
		}
		if rv.IsNil() {
			rv.Set(reflect.New(t.Elem()))
		}
		return bind(v, rv.Elem(), path)
	}
	if reflect.PointerTo(t).Implements(textUnmarshaler) {
		if v.kind != String {
			return typeErr(path, "string", v.kind)
		}
		if err := rv.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(v.s)); err != nil {
			var we *Error
			if errors.As(err, &we) {
				return &Error{Code: we.Code, Field: path, Message: we.Message}
			}
			return &Error{Code: ErrInvalidParam, Field: path, Message: err.Error(), Err: err}
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Interface:
		if t.NumMethod() != 0 {
			return Errorf(ErrSchema, path, "cannot decode into %s", t)
		}
		rv.Set(reflect.ValueOf(v))
		return nil
	case reflect.String:
		if v.kind != String {
			return typeErr(path, "string", v.kind)
		}
		rv.SetString(v.s)
	case reflect.Bool:
		b, ok := v.Bool()
		if !ok {
			return typeErr(path, "boolean", v.kind)
		}
		rv.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.kind != Number || !isIntLiteral(v.s) {
			return typeErr(path, "integer", v.kind)
		}
		n, err := strconv.ParseInt(v.s, 10, t.Bits())
		if err != nil {
			return Errorf(ErrInvalidParam, path, "integer out of range")
		}
		rv.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if v.kind != Number || !isIntLiteral(v.s) {
			return typeErr(path, "integer", v.kind)
		}
		n, err := strconv.ParseUint(v.s, 10, t.Bits())
		if err != nil {
			return Errorf(ErrInvalidParam, path, "integer out of range")
		}
		rv.SetUint(n)
	case reflect.Float32, reflect.Float64:
		if v.kind != Number {
			return typeErr(path, "number", v.kind)
		}
		f, err := strconv.ParseFloat(v.s, t.Bits())
		if err != nil {
			return Errorf(ErrInvalidParam, path, "number out of range")
		}
		rv.SetFloat(f)
	case reflect.Slice:
		if v.kind != Array {
			return typeErr(path, "array", v.kind)
		}
		s := reflect.MakeSlice(t, len(v.items), len(v.items))
		for i := range v.items {
			if err := bind(v.items[i].Value, s.Index(i), IndexPath(path, i)); err != nil {
				return err
			}
		}
		rv.Set(s)
	case reflect.Map:
		if v.kind != Object {
			return typeErr(path, "object", v.kind)
		}
		if t.Key().Kind() != reflect.String {
			return Errorf(ErrSchema, path, "cannot decode into %s", t)
		}
		m := reflect.MakeMapWithSize(t, len(v.items))
		for _, mem := range v.items {
			e := reflect.New(t.Elem()).Elem()
			if err := bind(mem.Value, e, JoinPath(path, mem.Key)); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(mem.Key).Convert(t.Key()), e)
		}
		rv.Set(m)
	case reflect.Struct:
		if v.kind != Object {
			return typeErr(path, "object", v.kind)
		}
		fields := structFields(t)
		for _, f := range fields {
			fv := v.Get(f.name)
			if fv.kind == Absent {
				if f.required {
					return Errorf(ErrMissingField, JoinPath(path, f.name), "required field missing")
				}
				continue
			}
			if err := bind(fv, rv.Field(f.index), JoinPath(path, f.name)); err != nil {
				return err
			}
		}
	default:
		return Errorf(ErrSchema, path, "cannot decode into %s", t)
	}
	return nil
}

// Decode binds v into the Go value ptr points to; see Bind.
func (v Value) Decode(ptr any) error { return Bind(v, ptr, "") }
