package wire

import (
	"strconv"
	"unicode/utf8"
)

// The payloads of every call between gateways (tool invocations, their
// stream chunks and their answers) are built into trees and checked against
// their validate tags on every message sent, and checked on every message
// received. Done by reflection and the tag validator, that was 8-10 % of a
// gateway's CPU. These payloads do both by hand; the reflective path stays
// the reference, and TestFastPayloads and FuzzFastPayloads hold the two to
// the same trees and the same errors.

// fastPayload is a payload that builds its tree and checks its rules without
// reflection.
type fastPayload interface {
	// appendMembers appends the payload's members, in field order, as
	// valueOf would make them; path is the payload's own ("p").
	appendMembers(items []Member, path string) ([]Member, *Error)
	// check reports the first broken rule, as the validator would.
	check(path string) *Error
	// bindFrom fills the payload from a decoded tree, as bind would.
	bindFrom(v Value, path string) *Error
}

var (
	_ fastPayload = (*StreamPayload)(nil)
	_ fastPayload = (*RespondPayload)(nil)
	_ fastPayload = (*ToolPayload)(nil)
)

// isNilPayload reports a typed nil pointer in the Payload interface, which
// the reflective path handles (as null).
func isNilPayload(p any) bool {
	switch p := p.(type) {
	case *StreamPayload:
		return p == nil
	case *RespondPayload:
		return p == nil
	case *ToolPayload:
		return p == nil
	}
	return false
}

func (p *StreamPayload) appendMembers(items []Member, path string) ([]Member, *Error) {
	var err *Error
	if items, err = appendString(items, path, "action", p.Action); err != nil {
		return nil, err
	}
	if items, err = appendString(items, path, "stream_id", p.StreamID); err != nil {
		return nil, err
	}
	if p.Type != "" {
		if items, err = appendString(items, path, "type", p.Type); err != nil {
			return nil, err
		}
	}
	if p.ChunkSize != 0 {
		items = append(items, Member{"chunk_size", IntValue(p.ChunkSize)})
	}
	if p.Seq != 0 {
		items = append(items, Member{"seq", IntValue(p.Seq)})
	}
	items = appendValue(items, "data", p.Data)
	if p.Status != "" {
		if items, err = appendString(items, path, "status", p.Status); err != nil {
			return nil, err
		}
	}
	return items, nil
}

func (p *StreamPayload) check(path string) *Error {
	switch {
	case p.Action == "":
		return ruleErr(path, "action", "required", "")
	case !oneOf(p.Action, "start", "chunk", "end"):
		return ruleErr(path, "action", "oneof", "start chunk end")
	case p.StreamID == "":
		return ruleErr(path, "stream_id", "required", "")
	case utf8.RuneCountInString(p.StreamID) < 1:
		return ruleErr(path, "stream_id", "min", "1")
	case utf8.RuneCountInString(p.StreamID) > 128:
		return ruleErr(path, "stream_id", "max", "128")
	case utf8.RuneCountInString(p.Type) > 64:
		return ruleErr(path, "type", "max", "64")
	case p.ChunkSize < 0:
		return ruleErr(path, "chunk_size", "gte", "0")
	case p.Seq < 0:
		return ruleErr(path, "seq", "gte", "0")
	case p.Status != "" && !oneOf(p.Status, "success", "error", "cancelled"):
		return ruleErr(path, "status", "oneof", "success error cancelled")
	}
	return nil
}

func (p *RespondPayload) appendMembers(items []Member, path string) ([]Member, *Error) {
	var err *Error
	if items, err = appendString(items, path, "status", p.Status); err != nil {
		return nil, err
	}
	items = appendValue(items, "data", p.Data)
	if p.Schema != "" {
		if items, err = appendString(items, path, "schema", p.Schema); err != nil {
			return nil, err
		}
	}
	return items, nil
}

func (p *RespondPayload) check(path string) *Error {
	switch {
	case p.Status == "":
		return ruleErr(path, "status", "required", "")
	case !oneOf(p.Status, "success", "error", "partial"):
		return ruleErr(path, "status", "oneof", "success error partial")
	case utf8.RuneCountInString(p.Schema) > 256:
		return ruleErr(path, "schema", "max", "256")
	}
	return nil
}

func (p *ToolPayload) appendMembers(items []Member, path string) ([]Member, *Error) {
	var err *Error
	if items, err = appendString(items, path, "action", p.Action); err != nil {
		return nil, err
	}
	if p.Tool != "" {
		if items, err = appendString(items, path, "tool", p.Tool); err != nil {
			return nil, err
		}
	}
	return appendValue(items, "input", p.Input), nil
}

func (p *ToolPayload) check(path string) *Error {
	switch {
	case p.Action == "":
		return ruleErr(path, "action", "required", "")
	case !oneOf(p.Action, "invoke", "list"):
		return ruleErr(path, "action", "oneof", "invoke list")
	case p.Action == "invoke" && p.Tool == "":
		return ruleErr(path, "tool", "required_if", "Action invoke")
	case utf8.RuneCountInString(p.Tool) > 256:
		return ruleErr(path, "tool", "max", "256")
	}
	return nil
}

func (p *StreamPayload) bindFrom(v Value, path string) *Error {
	if v.kind != Object {
		return typeErr(path, "object", v.kind)
	}
	var err *Error
	if p.Action, err = bindString(v, path, "action", true); err != nil {
		return err
	}
	if p.StreamID, err = bindString(v, path, "stream_id", true); err != nil {
		return err
	}
	if p.Type, err = bindString(v, path, "type", false); err != nil {
		return err
	}
	if p.ChunkSize, err = bindInt(v, path, "chunk_size"); err != nil {
		return err
	}
	if p.Seq, err = bindInt(v, path, "seq"); err != nil {
		return err
	}
	if d := v.Get("data"); d.kind != Absent {
		p.Data = d
	}
	p.Status, err = bindString(v, path, "status", false)
	return err
}

func (p *RespondPayload) bindFrom(v Value, path string) *Error {
	if v.kind != Object {
		return typeErr(path, "object", v.kind)
	}
	var err *Error
	if p.Status, err = bindString(v, path, "status", true); err != nil {
		return err
	}
	if d := v.Get("data"); d.kind != Absent {
		p.Data = d
	}
	p.Schema, err = bindString(v, path, "schema", false)
	return err
}

func (p *ToolPayload) bindFrom(v Value, path string) *Error {
	if v.kind != Object {
		return typeErr(path, "object", v.kind)
	}
	var err *Error
	if p.Action, err = bindString(v, path, "action", true); err != nil {
		return err
	}
	if p.Tool, err = bindString(v, path, "tool", false); err != nil {
		return err
	}
	if in := v.Get("input"); in.kind != Absent {
		p.Input = in
	}
	return nil
}

// bindString reads the string member key of v, as bind does a string
// field: absent is "" (or E_MISSING_FIELD if required), any other kind
// E_SCHEMA.
func bindString(v Value, path, key string, required bool) (string, *Error) {
	m := v.Get(key)
	switch m.kind {
	case String:
		return m.s, nil
	case Absent:
		if required {
			return "", Errorf(ErrMissingField, JoinPath(path, key), "required field missing")
		}
		return "", nil
	}
	return "", typeErr(JoinPath(path, key), "string", m.kind)
}

// bindInt reads the optional int64 member key of v, as bind does.
func bindInt(v Value, path, key string) (int64, *Error) {
	m := v.Get(key)
	if m.kind == Absent {
		return 0, nil
	}
	if m.kind != Number || !isIntLiteral(m.s) {
		return 0, typeErr(JoinPath(path, key), "integer", m.kind)
	}
	n, err := strconv.ParseInt(m.s, 10, 64)
	if err != nil {
		return 0, Errorf(ErrInvalidParam, JoinPath(path, key), "integer out of range")
	}
	return n, nil
}

// appendString appends a string member, refusing invalid UTF-8 as
// valueOf does.
func appendString(items []Member, path, key, s string) ([]Member, *Error) {
	if !utf8.ValidString(s) {
		return nil, Errorf(ErrInvalidParam, JoinPath(path, key), "string is not valid UTF-8")
	}
	return append(items, Member{key, Value{kind: String, s: s}}), nil
}

// appendValue appends a Value member unless it is absent, as valueOf does
// for an omitempty Value field.
func appendValue(items []Member, key string, v Value) []Member {
	if v.kind == Absent {
		return items
	}
	return append(items, Member{key, v})
}

func oneOf(s string, options ...string) bool {
	for _, o := range options {
		if s == o {
			return true
		}
	}
	return false
}

// ruleErr is the error validationError makes of the validator's report
// that the member key of the payload at path broke tag (with its param).
func ruleErr(path, key, tag, param string) *Error {
	return ruleError(JoinPath(path, key), tag, param)
}
