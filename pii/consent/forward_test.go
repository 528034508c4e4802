package consent

import (
	"errors"
	"testing"
	"time"

	"github.com/moltgate/moltgate/wire"
)

func TestHoldsNoForward(t *testing.T) {
	now := time.UnixMilli(1800000000000)
	h := &Holds{Now: func() time.Time { return now }, Max: 2}
	c := &Claims{ID: "c1", DataTypes: []string{"email", "phone"}, Expires: now.Add(time.Hour).UnixMilli(), Constraints: &Constraints{NoForward: true}}
	h.Add("echo", "acme", c)
	// A consent without no_forward holds nothing.
	h.Add("other", "acme", &Claims{ID: "c2", DataTypes: []string{"email"}, Expires: now.Add(time.Hour).UnixMilli()})

	var we *wire.Error
	if err := h.Check("echo", "initech", []string{"email"}); !errors.As(err, &we) || we.Code != wire.ErrConsent {
		t.Fatalf("email to a third org: %v", err)
	}
	for _, tc := range []struct {
		agent, org string
		types      []string
	}{
		{"echo", "acme", []string{"email"}},     // back to the issuer
		{"echo", "initech", []string{"ssn"}},    // another type
		{"echo", "initech", nil},                // no personal data
		{"other", "initech", []string{"email"}}, // no no_forward consent held
	} {
		if err := h.Check(tc.agent, tc.org, tc.types); err != nil {
			t.Errorf("%s → %s %v: %v", tc.agent, tc.org, tc.types, err)
		}
	}
	// Expired, the hold goes.
	now = now.Add(2 * time.Hour)
	if err := h.Check("echo", "initech", []string{"email"}); err != nil {
		t.Fatalf("after expiry: %v", err)
	}
	// At most Max per agent: the oldest goes.
	for i, id := range []string{"a", "b", "c"} {
		h.Add("echo", "acme", &Claims{ID: id, DataTypes: []string{[]string{"email", "phone", "dob"}[i]}, Expires: now.Add(time.Hour).UnixMilli(), Constraints: &Constraints{NoForward: true}})
	}
	if err := h.Check("echo", "initech", []string{"email"}); err != nil {
		t.Fatalf("the oldest hold was kept: %v", err)
	}
	if err := h.Check("echo", "initech", []string{"dob"}); err == nil {
		t.Fatal("the newest hold was dropped")
	}
}
