package wire_test

import (
	"errors"
	"fmt"

	"github.com/moltgate/moltgate/wire"
)

func ExampleCodec_Decode() {
	codec := wire.NewCodec(wire.Limits{})
	_, err := codec.Decode([]byte(`{"v":"0.1","id":"550e8400-e29b-41d4-a716-446655440000","ts":1703280000,
		"op":"query","from":{"agent":"a","org":"o"},"to":{"agent":"b","org":"p"},"p":{"domain":"weather"},"cls":"pub"}`))
	var we *wire.Error
	if errors.As(err, &we) {
		fmt.Println(we.Code, we.Field, we.Code.HTTPStatus())
	}
	// Output:
	// E_INVALID_PARAM ts 400
}

func ExampleAppendCanonical() {
	v, _ := wire.Parse([]byte(`{ "b": 1.50, "a": [1E30, "\u00e9"] }`), 0)
	fmt.Println(string(wire.AppendCanonical(nil, v)))
	// Output:
	// {"a":[1e+30,"é"],"b":1.5}
}

func ExampleSuggestion_String() {
	e := wire.Errorf(wire.ErrConsent, "cls", "personal data needs cls pii with a consent in pii_meta").
		WithSuggestion(wire.Suggestion{Action: wire.ActionRequestConsent, DataTypes: []string{"email", "phone"}})
	fmt.Println(e, "-", e.Suggestion)
	r := wire.Suggestion{Action: wire.ActionRetryAfter, DelayMS: 250}
	fmt.Println(r.String())
	// Output:
	// E_CONSENT: cls: personal data needs cls pii with a consent in pii_meta - request_consent for email, phone
	// retry_after after 250 ms
}
