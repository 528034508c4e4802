package pipeline

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/pii"
	"github.com/moltgate/moltgate/wire"
)

func TestErrorField(t *testing.T) {
	sc, err := pii.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &Pipeline{Config: Config{Scanner: sc}}
	deep := strings.Repeat("p.", 200) + "x"
	for in, want := range map[string]string{
		"":                             "",
		"p.profile.metadata":           "p.profile.metadata",
		"p.items[2].text":              "p.items[2].text",
		"envelope.session":             "envelope.session",
		`p.x["jane.doe@example.com"]`:  "p.x",
		`["a.b"]`:                      `["a.b"]`,
		"p." + strings.Repeat("a", 65): "p",
		"p.AKIAZ3MDQLRW5QXBZX7K.x":     "p",
		`p.x["[email]"].y`:             `p.x["[email]"].y`,
		`p["a`:                         "p",
		"p.items[":                     "p.items",
		deep:                           deep[:255],
		"p.jane.doe@example.com":       "p.jane.doe",
	} {
		if got := p.ErrorField(in); got != want {
			t.Errorf("errorField(%.40q) = %.40q, want %.40q", in, got, want)
		}
	}
}

func TestWithRetry(t *testing.T) {
	for d, want := range map[time.Duration]int64{0: 1, 370*time.Millisecond + 900*time.Microsecond: 371, 2 * time.Second: 2000} {
		if got := WithRetry(&wire.Error{Code: wire.ErrRateLimit}, d).Suggestion.DelayMS; got != want {
			t.Fatalf("delay_ms for %v is %d, want %d (rounded up)", d, got, want)
		}
	}
}

// ExampleSteps lists the pipeline's steps in the order every envelope goes
// through them.
func ExampleSteps() {
	for _, st := range Steps() {
		fmt.Print(st.Name, " ")
	}
	fmt.Println()
	// Output: size decode session handshake signature identity admit sender hops replay reply rate trust recipient registration classification route
}
