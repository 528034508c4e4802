package localbridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/moltgate/moltgate/localbridge/osp"
)

// schemaURL names the one resource a tool's schema compiles from.
const schemaURL = "urn:moltgate:tool-schema"

// noLoader refuses every external reference: a tool's schema is self-contained. Without it a
// "$ref": "file:///..." would read the gateway's files.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, errors.New("external schema references are not allowed")
}

// compileSchema compiles a tool's input or output schema. Schemas without "$schema" are read
// as JSON Schema 2020-12.
func compileSchema(raw json.RawMessage, maxBytes int) (*jsonschema.Schema, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return nil, errors.New("the schema is missing")
	case len(raw) > maxBytes:
		return nil, fmt.Errorf("the schema exceeds %d bytes", maxBytes)
	case raw[0] != '{':
		return nil, errors.New("the schema is not a JSON object")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, errors.New("the schema is not valid JSON")
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, errors.New("the schema cannot be loaded")
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		var le *jsonschema.LoadURLError
		if errors.As(err, &le) {
			return nil, errors.New("the schema refers to an external resource")
		}
		return nil, errors.New("the schema is not a valid JSON Schema")
	}
	return s, nil
}

// validateInput checks a call's input against the tool's schema. The error names the first
// failing field and the keyword it broke, never the value.
func validateInput(s *jsonschema.Schema, input json.RawMessage) *Error {
	v, err := osp.UnmarshalAny(input)
	if err != nil {
		return &Error{Code: osp.CodeInvalidInput, Message: "the input is not valid JSON", Where: "core"}
	}
	err = s.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &Error{Code: osp.CodeInvalidInput, Message: "the input does not match the tool's schema", Where: "core"}
	}
	leaf := ve
	for len(leaf.Causes) > 0 {
		leaf = leaf.Causes[0]
	}
	path := leaf.InstanceLocation
	var msg string
	switch k := leaf.ErrorKind.(type) {
	case *kind.Required:
		path, msg = appendPath(path, k.Missing), "a required field is missing"
	case *kind.DependentRequired:
		path, msg = appendPath(path, k.Missing), "a field required by another is missing"
	case *kind.Dependency:
		path, msg = appendPath(path, k.Missing), "a field required by another is missing"
	case *kind.AdditionalProperties:
		path, msg = appendPath(path, k.Properties), "the field is not allowed"
	case *kind.Type:
		msg = "the value must be of type " + strings.Join(k.Want, " or ")
	case *kind.Enum, *kind.Const:
		msg = "the value is not one of the allowed values"
	case *kind.FalseSchema:
		msg = "the field is not allowed"
	default:
		kw := "schema"
		if p := leaf.ErrorKind.KeywordPath(); len(p) > 0 {
			kw = p[0]
		}
		msg = fmt.Sprintf("the value breaks the schema's %q rule", kw)
	}
	return &Error{Code: osp.CodeInvalidInput, Field: strings.Join(path, "."), Message: msg, Where: "core"}
}

func appendPath(path, names []string) []string {
	if len(names) == 0 {
		return path
	}
	return append(append([]string(nil), path...), names[0])
}
