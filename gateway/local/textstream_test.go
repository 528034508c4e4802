package local

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/pii"
	"github.com/moltgate/moltgate/wire"
)

// TestTextStreamKeepsValuesWhole: an agent that streams an e-mail address
// or a card number a few characters at a time gets it checked whole, and
// stopped before any part of it leaves; the text that does leave is the
// agent's, in order.
func TestTextStreamKeepsValuesWhole(t *testing.T) {
	sc, err := pii.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	errBlocked := errors.New("blocked")
	run := func(chunks []string) (sent string, err error) {
		ts := newTextStream(64, func(channel, text, context string) error {
			// The gate's view: the context and the chunk; a finding that
			// reaches into the chunk stops it.
			whole := context + text
			for _, f := range sc.ScanText(whole) {
				if f.End > len(context) {
					return errBlocked
				}
			}
			sent += text
			return nil
		}, nil)
		defer ts.close()
		for _, c := range chunks {
			if err := ts.add("stdout", c); err != nil {
				return sent, err
			}
		}
		return sent, ts.flush()
	}
	for _, text := range cutTexts {
		for _, n := range []int{1, 3, 7} {
			sent, err := run(pieces(text, n))
			if !errors.Is(err, errBlocked) {
				t.Errorf("%q in pieces of %d: not stopped (sent %q)", text, n, sent)
				continue
			}
			// Values without spaces: no part of them. With spaces: not whole
			// (its first groups may have gone before it was).
			for _, secret := range []string{"jane.doe", "example.com", "41111111", "AKIAZ3", "4111 1111 1111 1111"} {
				if strings.Contains(sent, secret) {
					t.Errorf("%q in pieces of %d: %q left (sent %q)", text, n, secret, sent)
				}
			}
		}
	}

	// Clean text goes out whole and in order, however it is cut.
	clean := "the morning build ran its tests while the team reviewed the plan, and it rained"
	for _, n := range []int{1, 4, 9, 100} {
		sent, err := run(pieces(clean, n))
		if err != nil || sent != clean {
			t.Errorf("pieces of %d: sent %q (%v)", n, sent, err)
		}
	}
	// A long run without spaces is not held for ever.
	long := strings.Repeat("x", 3000)
	var got []string
	ts := newTextStream(64, func(channel, text, context string) error { got = append(got, text); return nil }, nil)
	for _, p := range pieces(long, 100) {
		if err := ts.add("stdout", p); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(got, "") == "" {
		t.Fatal("3000 bytes without a space were all held")
	}
	if err := ts.close(); err != nil || strings.Join(got, "") != long {
		t.Fatalf("after flush: %d bytes sent", len(strings.Join(got, "")))
	}
}

// TestTextStreamHoldsBriefly: what is held back goes after holdFor even if
// nothing follows, and notes on the status channel are never held.
func TestTextStreamHoldsBriefly(t *testing.T) {
	var mu sync.Mutex
	var got []string
	ts := newTextStream(64, func(channel, text, context string) error {
		mu.Lock()
		got = append(got, channel+":"+text)
		mu.Unlock()
		return nil
	}, nil)
	sent := func() string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(got, "|")
	}
	if err := ts.add("status", "sleeping"); err != nil {
		t.Fatal(err)
	}
	if err := ts.add("stdout", "Processing"); err != nil {
		t.Fatal(err)
	}
	if s := sent(); s != "status:sleeping" {
		t.Fatalf("at once: %q", s)
	}
	deadline := time.Now().Add(5 * time.Second)
	for sent() != "status:sleeping|stdout:Processing" {
		if time.Now().After(deadline) {
			t.Fatalf("held text never went: %q", sent())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := ts.close(); err != nil {
		t.Fatal(err)
	}
}

// TestPartialResultsKeepValuesWhole: an agent that streams its output as
// partial results, {"delta": "..."} a few characters at a time, gets an
// e-mail address or a card number checked whole, and stopped before any
// part of it leaves, as with text; clean partial results go out whole and
// in order, those without text at once.
func TestPartialResultsKeepValuesWhole(t *testing.T) {
	sc, err := pii.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	errBlocked := errors.New("blocked")
	run := func(chunks []string) (sent string, n int, err error) {
		ts := newTextStream(64, nil, func(channel string, v wire.Value, context string) error {
			// The gate's view: the chunk and the text around it.
			if len(sc.ScanTree("p", wire.ArrayValue(v, wire.StringValue(context)), nil)) > 0 {
				return errBlocked
			}
			d, _ := v.Get("delta").Str()
			sent += d
			n++
			return nil
		})
		defer ts.close()
		for _, c := range chunks {
			if err := ts.addJSON("partial_result", wire.ObjectValue(wire.Member{Key: "delta", Value: wire.StringValue(c)})); err != nil {
				return sent, n, err
			}
		}
		return sent, n, ts.flush()
	}
	for _, text := range cutTexts {
		for _, n := range []int{1, 3, 7} {
			sent, _, err := run(pieces(text, n))
			if !errors.Is(err, errBlocked) {
				t.Errorf("%q in pieces of %d: not stopped (sent %q)", text, n, sent)
				continue
			}
			for _, secret := range []string{"jane.doe", "example.com", "41111111", "AKIAZ3", "4111 1111 1111 1111"} {
				if strings.Contains(sent, secret) {
					t.Errorf("%q in pieces of %d: %q left (sent %q)", text, n, secret, sent)
				}
			}
		}
	}
	clean := "the morning build ran its tests while the team reviewed the plan, and it rained"
	for _, n := range []int{1, 4, 9, 100} {
		sent, k, err := run(pieces(clean, n))
		if err != nil || sent != clean || k != len(pieces(clean, n)) {
			t.Errorf("pieces of %d: sent %q in %d (%v)", n, sent, k, err)
		}
	}
	// A partial result without text is not held.
	var got []string
	ts := newTextStream(64, nil, func(channel string, v wire.Value, context string) error {
		got = append(got, v.String())
		return nil
	})
	defer ts.close()
	if err := ts.addJSON("partial_result", wire.ObjectValue(wire.Member{Key: "done", Value: wire.IntValue(50)})); err != nil || len(got) != 1 {
		t.Fatalf("a partial result without text: %v %v", got, err)
	}
}

// TestLongPartialResultsKeepValuesWhole: partial results longer than the
// context on either side are checked with their two ends only; a value
// across an edge, or inside one, is stopped all the same.
func TestLongPartialResultsKeepValuesWhole(t *testing.T) {
	sc, err := pii.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	errBlocked := errors.New("blocked")
	prose := strings.Repeat("the morning build ran its tests while the team reviewed the plan ", 40)
	for _, value := range []string{"jane.doe@example.com", "4111 1111 1111 1111", "AKIAZ3MSJV4WWNKWW5V2"} {
		half := len(value) / 2
		// Inside the first part, across the first edge, inside the second
		// part, across the second edge; the value goes in after a space.
		for _, at := range []int{100, 599 - half, 900, 1199 - half} {
			text := prose[:at] + " " + value + " " + prose[at:]
			var sent strings.Builder
			ts := newTextStream(64<<10, nil, func(channel string, v wire.Value, context string) error {
				if len(sc.ScanTree("p", wire.ArrayValue(v, wire.StringValue(context)), nil)) > 0 {
					return errBlocked
				}
				d, _ := v.Get("delta").Str()
				sent.WriteString(d)
				return nil
			})
			err := func() error {
				for len(text) > 0 {
					n := min(600, len(text))
					if err := ts.addJSON("partial_result", wire.ObjectValue(wire.Member{Key: "delta", Value: wire.StringValue(text[:n])})); err != nil {
						return err
					}
					text = text[n:]
				}
				return ts.flush()
			}()
			ts.close()
			if !errors.Is(err, errBlocked) {
				t.Errorf("%q at %d in parts of 600 bytes: not stopped", value, at)
			}
			if strings.Contains(sent.String(), value[:8]) {
				t.Errorf("%q at %d: %q sent", value, at, value[:8])
			}
		}
	}
}

// cutTexts hold values the gate stops, which the stream tests cut into
// pieces of every size.
var cutTexts = []string{
	"please write to jane.doe@example.com about it",
	"the card is 4111111111111111 thanks",
	"the card is 4111 1111 1111 1111 thanks",
	"key AKIAZ3MSJV4WWNKWW5V2 here",
}

// pieces cuts s into pieces of n bytes, the last one shorter.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		out, s = append(out, s[:n]), s[n:]
	}
	return append(out, s)
}
